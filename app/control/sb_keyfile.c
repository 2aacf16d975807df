/* SPDX-License-Identifier: BSD-3-Clause */
/* The cluster key file (sb_keyfile.h): checked, read, parsed into a keyring. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_log.h>

#include "sb_keyfile.h"

RTE_LOG_REGISTER_SUFFIX(sb_key_logtype, key, INFO);

static int __attribute__((format(printf, 4, 5)))
fail(int rc, char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
	return rc;
}

/* Whether the file may hold a secret: a regular file, ours or root's, private. */
static int
check_mode(const char *path, const struct stat *st, char *err, size_t err_len)
{
	if (!S_ISREG(st->st_mode))
		return fail(-EINVAL, err, err_len, "%s: not a regular file", path);
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return fail(-EPERM, err, err_len, "%s: owned by uid %u: a cluster key file must "
			"belong to root or to the user seqbond runs as", path,
			(unsigned int)st->st_uid);
	if ((st->st_mode & (S_IRWXG | S_IRWXO)) != 0)
		return fail(-EPERM, err, err_len, "%s: mode %04o: a cluster key file must not be "
			"readable or writable by group or others (chmod 600 %s)", path,
			(unsigned int)(st->st_mode & 07777), path);
	return 0;
}

/* Read the whole (small) file from @p fd into @p buf (NUL-terminated). */
static int
read_all(int fd, const char *path, char *buf, size_t room, char *err, size_t err_len)
{
	size_t n = 0;
	ssize_t r;

	while (n < room - 1) {
		r = read(fd, buf + n, room - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fail(-EIO, err, err_len, "%s: cannot read: %s", path,
				strerror(errno));
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n == room - 1)
		return fail(-EINVAL, err, err_len, "%s: longer than %u bytes: not a key file",
			path, (unsigned int)(room - 1));
	buf[n] = '\0';
	if (memchr(buf, '\0', n) != NULL)
		return fail(-EINVAL, err, err_len, "%s: holds a NUL byte: not a key file", path);
	return 0;
}

/* Parse the text into @p keys (at most two): @return the number, or -EINVAL. */
static int
parse_keys(const char *path, char *text, struct sb_auth_key *keys, unsigned int *lines,
	char *err, size_t err_len)
{
	char why[160], *line, *next, *e;
	unsigned int n = 0, lineno = 0;

	for (line = text; line != NULL; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		lineno++;
		while (isspace((unsigned char)*line))
			line++;
		e = line + strlen(line);
		while (e > line && isspace((unsigned char)e[-1]))
			*--e = '\0';
		if (*line == '\0' || *line == '#')
			continue;
		if (n == 2)
			return fail(-EINVAL, err, err_len, "%s: line %u: a third key: the file holds "
				"the key to send with and at most one more", path, lineno);
		if (sb_auth_key_parse(line, 0, &keys[n], why, sizeof(why)) != 0)
			return fail(-EINVAL, err, err_len, "%s: line %u: %s", path, lineno, why);
		lines[n++] = lineno;
	}
	if (n == 0)
		return fail(-EINVAL, err, err_len, "%s: no key: one line of %d hex characters "
			"(make one with `seqbond-keygen --print`)", path, SB_AUTH_KEY_HEX_LEN);
	return (int)n;
}

int
sb_keyfile_load(const char *path, struct sb_auth_keyring *ring, char *err, size_t err_len)
{
	struct sb_auth_key keys[SB_AUTH_RING_MAX];
	struct sb_auth_keyring r;
	uint8_t fp[SB_AUTH_RING_MAX][SB_AUTH_FP_LEN];
	unsigned int lines[SB_AUTH_RING_MAX], i;
	char text[SB_KEYFILE_MAX];
	struct stat st;
	int fd, n, rc;

	/* Not through a symbolic link: whoever may change the link would choose the key. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
	if (fd < 0 && errno == ELOOP)
		return fail(-ELOOP, err, err_len, "%s: is a symbolic link: name the key file "
			"itself", path);
	if (fd < 0)
		return fail(-errno, err, err_len, "%s: cannot open: %s", path, strerror(errno));
	/* The mode of what was opened, not of what the name points to a moment later. */
	if (fstat(fd, &st) != 0)
		rc = fail(-EIO, err, err_len, "%s: cannot stat: %s", path, strerror(errno));
	else
		rc = check_mode(path, &st, err, err_len);
	if (rc == 0)
		rc = read_all(fd, path, text, sizeof(text), err, err_len);
	close(fd);
	n = rc == 0 ? parse_keys(path, text, keys, lines, err, err_len) : rc;
	sb_auth_wipe(text, sizeof(text));
	if (n < 0) {
		sb_auth_wipe(keys, sizeof(keys));
		return n;
	}
	for (i = 0; i < (unsigned int)n; i++) {
		sb_auth_key_fingerprint(keys[i].secret, fp[i]);
		keys[i].id = fp[i][0];
	}
	rc = 0;
	if (n == 2 && memcmp(fp[0], fp[1], SB_AUTH_FP_LEN) == 0)
		rc = fail(-EINVAL, err, err_len, "%s: lines %u and %u hold the same key", path,
			lines[0], lines[1]);
	else if (n == 2 && keys[0].id == keys[1].id)
		rc = fail(-EINVAL, err, err_len, "%s: the keys of lines %u and %u have the same "
			"key id %u (the first byte of their fingerprints, a 1 in 256 chance): make "
			"another new key", path, lines[0], lines[1], keys[0].id);
	sb_auth_ring_init(&r);
	for (i = 0; rc == 0 && i < (unsigned int)n; i++)
		rc = sb_auth_ring_add(&r, &keys[i]);	/* the first is the send key */
	if (rc == 0)
		*ring = r;
	sb_auth_wipe(&r, sizeof(r));
	sb_auth_wipe(keys, sizeof(keys));
	return rc;
}

char *
sb_keyfile_fp_hex(const uint8_t *fp, char *out)
{
	unsigned int i;

	for (i = 0; i < SB_AUTH_FP_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", fp[i]);
	return out;
}

void
sb_keyfile_log(const struct sb_auth_keyring *ring, const char *what)
{
	char hex[2 * SB_AUTH_FP_LEN + 1];
	uint8_t fp[SB_AUTH_FP_LEN];
	unsigned int i;

	for (i = 0; i < ring->n_keys; i++) {
		sb_auth_key_fingerprint(ring->key[i].secret, fp);
		rte_log(RTE_LOG_NOTICE, sb_key_logtype, "seqbond.key: %s: key id %u, fingerprint "
			"%s: %s\n", what, ring->key[i].id, sb_keyfile_fp_hex(fp, hex),
			i == ring->send ? "sends and accepts" : "accepted too (rollover)");
	}
}

void
sb_keyfile_log_failed(const char *what, const char *err)
{
	rte_log(RTE_LOG_ERR, sb_key_logtype, "seqbond.key: %s failed: %s\n", what, err);
}
