/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_KEYFILE_H
#define SB_KEYFILE_H

/**
 * @file
 * The cluster key file (`[seqbond] cluster_key_file`, docs/config.md): one or two lines of
 * SB_AUTH_KEY_HEX_LEN hex characters. The first key line is the key this host sends with; the
 * second, when present, is accepted as well (a rollover, docs/decisions/2026-12-05-cluster-key.md). Blank
 * lines and lines starting with '#' are skipped. Each key's id is the first byte of its
 * fingerprint (sb_auth_key_fingerprint()), so every host that holds a key gives it the same
 * id without any being written down.
 *
 * The file must be a regular file (not a symbolic link) owned by root or by the user seqbond
 * runs as, and neither
 * readable nor writable by group or others (mode 0600 or 0400): a key anyone on the host can
 * read is no secret, and one anyone can write lets them choose it.
 */

#include <stddef.h>

#include "sb_auth.h"

/** Largest key file read, bytes: two keys with comments and blank lines fit easily. */
#define SB_KEYFILE_MAX 4096

/**
 * Read and check a cluster key file. Called before EAL starts (start-up) and by the control
 * back end (`key reload`); touches no datapath state. libsodium must be initialised
 * (sb_auth_init()).
 *
 * @param path  The file.
 * @param ring  Filled on success (the send key first); untouched on failure. Holds secrets:
 *   wipe it (sb_auth_wipe()) once handed over.
 * @param err   On failure, one line naming the file and what is wrong (line number, mode,
 *   owner), never any key material; @param err_len its size.
 * @return 0, or -ENOENT/-EACCES/-EIO (cannot read it), -ELOOP (a symbolic link: not
 *   followed, as whoever may change the link would choose the key), -EPERM (mode or owner), -EINVAL
 *   (content: no key, more than two, a bad line, the same key twice, or two keys with one
 *   id).
 */
int sb_keyfile_load(const char *path, struct sb_auth_keyring *ring, char *err, size_t err_len);

/**
 * Format a key fingerprint as hex for logs and the console ("1a2b3c4d5e6f7081").
 * @param fp   SB_AUTH_FP_LEN bytes.
 * @param out  Room for 2 * SB_AUTH_FP_LEN + 1 characters.
 * @return @p out.
 */
char *sb_keyfile_fp_hex(const uint8_t *fp, char *out);

/**
 * Log each key of @p ring by id and fingerprint, never its secret (NOTICE, logtype
 * "key"), one line each: "WHAT: key id N, fingerprint HEX: sends and accepts".
 * @param what  What happened ("cluster key", "key reload").
 */
void sb_keyfile_log(const struct sb_auth_keyring *ring, const char *what);

/**
 * Log a failed key change (ERR, logtype "key"): "WHAT failed: ERR".
 * @param what  "key reload"; @param err the reason, saying whether the running keys are kept.
 */
void sb_keyfile_log_failed(const char *what, const char *err);

#endif /* SB_KEYFILE_H */
