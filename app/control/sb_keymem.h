/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SB_KEYMEM_H
#define SB_KEYMEM_H

/**
 * @file
 * Memory for secrets: the cluster keys, their copies in every worker, and OpenSSL's key
 * schedules of the direction keys. One region, locked in RAM (mlock: never written to swap)
 * and left out of core dumps (MADV_DONTDUMP) and of forked children (MADV_DONTFORK), managed
 * by a DPDK malloc heap of its own (rte_malloc_heap_create()). OpenSSL's allocations go there
 * too (CRYPTO_set_mem_functions()): it is used only for the DATA tags, and its contexts hold
 * the expanded keys. The region is wiped and unmapped at exit (sb_keymem_fini()); a crash's
 * core dump does not contain it.
 *
 * Before sb_keymem_init() (and in harnesses that never call it: bench_dp, the fuzzers)
 * sb_keymem_zalloc() falls back to rte_zmalloc() and OpenSSL to the C library; pointers are
 * told apart by address, so memory from either is freed where it came from.
 */

#include <stddef.h>

/** Size of the region, bytes: OpenSSL's start-up (about 7 000 small allocations) and a
 *  context of about 1.2 KiB per direction key (64 peers x 3), with the heap's overhead. */
#define SB_KEYMEM_SIZE (4u << 20)

/**
 * Point OpenSSL's allocator at this module, and start OpenSSL without its exit handler
 * (sb_keymem_fini() cleans it up). Call first thing in main(), before anything can have used
 * OpenSSL (its allocator can be changed only then); until sb_keymem_init() the allocations
 * are the C library's.
 * @return 0, or -EBUSY (OpenSSL allocated already: its contexts stay in ordinary memory).
 */
int sb_keymem_hook_openssl(void);

/** For atexit(): wipe the region if sb_keymem_fini() did not run (rte_exit(), a fatal
 *  error); calls nothing of DPDK's or OpenSSL's. */
void sb_keymem_atexit(void);

/**
 * Map, lock and mark the region and make it a DPDK heap. After rte_eal_init().
 * @return 0, -ENOMEM (no mapping), -EPERM (mlock refused: RLIMIT_MEMLOCK without
 *   CAP_IPC_LOCK; the region is not created) or -rte_errno of the heap calls.
 */
int sb_keymem_init(void);

/**
 * At exit, after every user freed its secrets: free OpenSSL's tables (OPENSSL_cleanup(): it
 * cannot be used again), wipe the region and unmap it. Idempotent.
 */
void sb_keymem_fini(void);

/** @return whether secrets live in the locked region now (for the start-up log). */
int sb_keymem_active(void);

/**
 * Zeroed, cache-line aligned memory for a secret: in the region when it exists, else
 * rte_zmalloc(). NULL when out of room.
 */
void *sb_keymem_zalloc(size_t size);

/** Wipe @p size bytes at @p p and free them (NULL: nothing). */
void sb_keymem_free(void *p, size_t size);

#endif /* SB_KEYMEM_H */
