// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hca_ops section of what a destroy does to work posted before it: the
 * WQEs go out (docs/prm.md 7), as on a HCA, whose doorbell reaches the
 * hardware before the destroy command does.  rdma-core's mckey counts on
 * it: it posts its datagrams unsignaled and destroys the QP at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "hca_ops.h"

#define SPIN_US_PARAM "/sys/module/mlx_hw/parameters/spin_us"

static volatile int hog_stop;

static void *hog(void *arg)
{
	(void)arg;
	while (!hog_stop)
		;
	return NULL;
}

static int spin_us(unsigned int set, unsigned int *old)
{
	FILE *f = fopen(SPIN_US_PARAM, "r+");
	int ok;

	if (!f)
		return -1;
	ok = !old || fscanf(f, "%u", old) == 1;
	rewind(f);
	ok = ok && fprintf(f, "%u\n", set) > 0;
	return fclose(f) || !ok ? -1 : 0;
}

/*
 * Holds both CPUs with SCHED_FIFO threads (this one on CPU 0, a spinning
 * one on CPU 1), so the engine thread, awake but of normal priority, runs
 * nothing meanwhile; false if this machine or user cannot.
 */
static bool starve_engine(pthread_t *t)
{
	struct sched_param sp = {.sched_priority = 10};
	pthread_attr_t attr;
	cpu_set_t cpus;
	bool ok;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return false;
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus) ||
	    sched_setscheduler(0, SCHED_FIFO, &sp))
		return false;
	hog_stop = 0;
	CPU_ZERO(&cpus);
	CPU_SET(1, &cpus);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &sp);
	ok = !pthread_create(t, &attr, hog, NULL);
	pthread_attr_destroy(&attr);
	return ok;
}

static void feed_engine(pthread_t t, bool starved)
{
	struct sched_param sp = {.sched_priority = 0};
	cpu_set_t cpus;
	long i;

	if (starved) {
		hog_stop = 1;
		pthread_join(t, NULL);
	}
	sched_setscheduler(0, SCHED_OTHER, &sp);
	CPU_ZERO(&cpus);
	for (i = 0; i < sysconf(_SC_NPROCESSORS_ONLN) && i < CPU_SETSIZE; i++)
		CPU_SET(i, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
}

/*
 * Unsignaled datagrams posted just before their QP is destroyed all
 * arrive.  The engine thread is made to poll (a long idle spin after a
 * send it was woken for), so the posts ring no system call and their
 * doorbells wait in the ring; then it is kept off the CPUs until the
 * destroy has returned.  Without the destroy's own run the datagrams were
 * lost (as mckey's were, now and then, on a busy host).
 */
int test_ud_destroy_sends(struct ut_ctx *c)
{
	const uint32_t n = 48, len = 64, stride = 128, warm = 2;
	unsigned int old_spin;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	struct pair p;
	bool starved;
	pthread_t t;
	uint32_t i;
	int err;

	if (pair_create(c, &p, IBV_QPT_UD, false, 7))
		return -1;
	ah = ut_self_ah(c);
	CHECK(ah, "create_ah: %s", strerror(errno));
	memset(c->buf + UT_DST, 0, (n + warm) * stride);
	for (i = 0; i < n + warm; i++) {
		ut_fill(c->buf + UT_SRC + i * len, len, 300 + i);
		CHECK(!ut_post_recv(c, p.b, NULL, UT_DST + i * stride,
				    len + 40, 1000 + i),
		      "post_recv %u", i);
	}
	/* Two sends back to back wake the thread; it then polls for 1 s. */
	CHECK(!spin_us(1000000, &old_spin), "%s: %s", SPIN_US_PARAM,
	      strerror(errno));
	err = 0;
	for (i = 0; i < warm && !err; i++)
		err = ut_post(c, p.a,
			      &(struct ut_send){.op = IBV_WR_SEND,
						.off = UT_SRC + i * len,
						.len = len,
						.flags = IBV_SEND_SIGNALED,
						.wr_id = i,
						.ah = ah,
						.dqpn = p.b->qp_num});
	for (i = 0; i < 2 * warm && !err; i++)
		err = ut_poll_one(c->cq, &wc) || wc.status != IBV_WC_SUCCESS;
	if (err)
		spin_us(old_spin, NULL);
	CHECK(!err, "warm-up send or completion %u", i);
	usleep(20000);

	starved = starve_engine(&t);
	for (i = warm; i < n + warm; i++)
		if (ut_post(c, p.a,
			    &(struct ut_send){.op = IBV_WR_SEND,
					      .off = UT_SRC + i * len,
					      .len = len,
					      .wr_id = i,
					      .ah = ah,
					      .dqpn = p.b->qp_num}))
			break;
	err = ibv_destroy_qp(p.a) ? errno : 0;
	feed_engine(t, starved);
	spin_us(old_spin, NULL);
	CHECK(i == n + warm, "post %u failed", i);
	CHECK(!err, "destroy_qp: %s", strerror(err));
	p.a = NULL;
	if (!starved)
		printf("  (not starved: SCHED_FIFO or a second CPU missing)\n");

	for (i = warm; i < n + warm; i++) {
		CHECK(!ut_poll_one(c->cq, &wc), "datagram %u of %u lost",
		      i - warm, n);
		CHECK_WC(wc, IBV_WC_SUCCESS, IBV_WC_RECV, len + 40);
		/* One QP, one path: in order. */
		CHECK(wc.wr_id == 1000 + i, "wr_id %llu for datagram %u",
		      (unsigned long long)wc.wr_id, i - warm);
		CHECK(!memcmp(c->buf + UT_DST + i * stride + 40,
			      c->buf + UT_SRC + i * len, len),
		      "payload of datagram %u", i - warm);
	}
	CHECK(!ut_poll_none(c->cq, 50), "extra completion");
	ibv_destroy_ah(ah);
	pair_destroy(&p);
	return 0;
}
