// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * verbs_threads - the library's thread safety: several threads at once
 * list devices, open their own context, register overlapping ranges of a
 * shared buffer (fork protection bookkeeping) and create/destroy CQs with
 * a shared completion channel's context.  Exit 0 on success.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#define NTHREADS 8
#define ROUNDS 50
#define PAGE 4096

static char *shared_buf;
static int failures;
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(const char *what, int err)
{
	pthread_mutex_lock(&fail_lock);
	fprintf(stderr, "FAIL %s: %s\n", what, strerror(err));
	failures++;
	pthread_mutex_unlock(&fail_lock);
}

static void *worker(void *arg)
{
	long id = (long)arg;
	int r;

	for (r = 0; r < ROUNDS; r++) {
		struct ibv_device **list;
		struct ibv_context *ctx;
		struct ibv_pd *pd;
		struct ibv_mr *mr;
		struct ibv_cq *cq;

		list = ibv_get_device_list(NULL);
		if (!list || !list[0]) {
			fail("get_device_list", errno);
			return NULL;
		}
		ctx = ibv_open_device(list[0]);
		ibv_free_device_list(list);
		if (!ctx) {
			fail("open_device", errno);
			return NULL;
		}
		pd = ibv_alloc_pd(ctx);
		if (!pd) {
			fail("alloc_pd", errno);
			goto close;
		}
		/* Thread i covers pages i .. i+2: every page is shared. */
		mr = ibv_reg_mr(pd, shared_buf + (id + r % 2) * PAGE, 3 * PAGE,
				IBV_ACCESS_LOCAL_WRITE);
		if (!mr)
			fail("reg_mr", errno);
		cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
		if (!cq)
			fail("create_cq", errno);
		else if (ibv_destroy_cq(cq))
			fail("destroy_cq", EIO);
		if (mr && ibv_dereg_mr(mr))
			fail("dereg_mr", EIO);
		if (ibv_dealloc_pd(pd))
			fail("dealloc_pd", EIO);
close:
		if (ibv_close_device(ctx))
			fail("close_device", EIO);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];
	long i;

	if (ibv_fork_init()) {
		fprintf(stderr, "ibv_fork_init failed\n");
		return 1;
	}
	shared_buf = aligned_alloc(PAGE, (NTHREADS + 4) * PAGE);
	for (i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	free(shared_buf);
	printf("%s\n", failures ? "FAILED" : "PASSED");
	return failures ? 1 : 0;
}
