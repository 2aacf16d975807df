/* SPDX-License-Identifier: BSD-3-Clause */
/* Memory for secrets (sb_keymem.h): a locked region, out of core dumps, as a DPDK heap. */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "sb_auth.h"
#include "sb_keymem.h"

#define HEAP_NAME "seqbond_keys"

static uint8_t *region;		/* NULL until sb_keymem_init() */
static size_t region_len;
static int heap_socket = -1;
static int closed;		/* sb_keymem_fini() ran: the region is wiped, no heap any more */

static int
in_region(const void *p)
{
	const uint8_t *q = p;

	return region != NULL && q >= region && q < region + region_len;
}

/* OpenSSL's allocator: the region once it exists, the C library before (and for what was
 * allocated before). */
static void *
km_malloc(size_t n, const char *file, int line)
{
	void *p;

	(void)file;
	(void)line;
	if (region == NULL || closed)
		return malloc(n);
	p = rte_malloc_socket(NULL, n, 0, heap_socket);
	return p;
}

static void
km_free(void *p, const char *file, int line)
{
	(void)file;
	(void)line;
	if (p == NULL)
		return;
	if (!in_region(p))
		free(p);
	else if (!closed)
		rte_free(p);
	/* else: wiped with the region at exit, nothing to give back */
}

static void *
km_realloc(void *p, size_t n, const char *file, int line)
{
	(void)file;
	(void)line;
	if (p == NULL)
		return km_malloc(n, file, line);
	if (in_region(p))
		return closed ? NULL : rte_realloc_socket(p, n, 0, heap_socket);
	if (region == NULL || closed)
		return realloc(p, n);
	/* Born before the region: move it in (its old size is the C library's to know). */
	{
		size_t old = malloc_usable_size(p);
		void *q = km_malloc(n, file, line);

		if (q == NULL)
			return NULL;
		memcpy(q, p, old < n ? old : n);
		free(p);
		return q;
	}
}

int
sb_keymem_hook_openssl(void)
{
	int rc = CRYPTO_set_mem_functions(km_malloc, km_realloc, km_free) == 1 ? 0 : -EBUSY;

	/* No exit handler of OpenSSL's: sb_keymem_fini() cleans it up while the heap is
	 * there, and on any other way out the region is wiped whole (sb_keymem_atexit()). */
	OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
	return rc;
}

void
sb_keymem_atexit(void)
{
	if (region != NULL && !closed) {
		closed = 1;
		sb_auth_wipe(region, region_len);
	}
}

int
sb_keymem_init(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = SB_KEYMEM_SIZE;
	uint8_t *p;
	int rc;

	if (region != NULL)
		return 0;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	if (mlock(p, len) != 0) {
		rc = -errno;
		munmap(p, len);
		return rc == -ENOMEM ? -EPERM : rc;
	}
	/* Out of core dumps and of children (a fork for a helper must not copy keys). */
	madvise(p, len, MADV_DONTDUMP);
	madvise(p, len, MADV_DONTFORK);
	if (rte_malloc_heap_create(HEAP_NAME) != 0 && rte_errno != EEXIST) {
		rc = -rte_errno;
		goto fail;
	}
	if (rte_malloc_heap_memory_add(HEAP_NAME, p, len, NULL, len / (size_t)page,
			(size_t)page) != 0) {
		rc = -rte_errno;
		rte_malloc_heap_destroy(HEAP_NAME);
		goto fail;
	}
	heap_socket = rte_malloc_heap_get_socket(HEAP_NAME);
	if (heap_socket < 0) {
		rc = -rte_errno;
		rte_malloc_heap_memory_remove(HEAP_NAME, p, len);
		rte_malloc_heap_destroy(HEAP_NAME);
		goto fail;
	}
	region_len = len;
	region = p;
	return 0;
fail:
	munlock(p, len);
	munmap(p, len);
	return rc;
}

void
sb_keymem_fini(void)
{
	if (region == NULL || closed)
		return;
	/* OpenSSL's tables live here too: free them first (OpenSSL is not used again). */
	OPENSSL_cleanup();
	closed = 1;
	if (rte_malloc_heap_memory_remove(HEAP_NAME, region, region_len) == 0) {
		rte_malloc_heap_destroy(HEAP_NAME);
		sb_auth_wipe(region, region_len);
		munlock(region, region_len);
		munmap(region, region_len);
		region = NULL;
		return;
	}
	/* Something is still allocated (a leak the exit report names): wipe it all anyway and
	 * keep the mapping, which the process's end takes. */
	sb_auth_wipe(region, region_len);
}

int
sb_keymem_active(void)
{
	return region != NULL && !closed;
}

void *
sb_keymem_zalloc(size_t size)
{
	if (region != NULL && !closed)
		return rte_zmalloc_socket(NULL, size, RTE_CACHE_LINE_SIZE, heap_socket);
	return rte_zmalloc(NULL, size, RTE_CACHE_LINE_SIZE);
}

void
sb_keymem_free(void *p, size_t size)
{
	if (p == NULL)
		return;
	sb_auth_wipe(p, size);
	if (!in_region(p) || !closed)
		rte_free(p);
}
