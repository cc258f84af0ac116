// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fairness - no QP starves: many RC QPs stream RDMA WRITEs at once, each
 * keeping the same number of WRs in flight, until together they have
 * completed a fixed number; then each QP's completed bytes are compared.
 * The engine serves every QP it was rung for in turn (docs/prm.md 2.2),
 * so the busiest QP may complete at most twice as much as the idlest,
 * among the QPs of a process and among all.
 *
 *   fairness [-d DEV] [-g GID] [-q QPS] [-P PROCS] [-s SIZE] [-t DEPTH]
 *            [-n WRS_PER_QP] [-r MAX_RATIO]
 *
 * QPS streaming QPs (default 64) are spread over PROCS processes (default
 * 1), each with its own context, CQ and passive peer QPs.  The run stops
 * once QPS * WRS_PER_QP WRITEs have completed in all; WRs still in flight
 * then complete and count too.  The assertion is on counts, never on time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hca_util.h"

#define MAX_QPS 1024

struct shared {
	atomic_int ready;		/* processes set up */
	atomic_int stop;		/* no more posts */
	atomic_int failed;
	atomic_ullong done[MAX_QPS];	/* completed WRITEs per QP */
	/* Per process, at its end: where it ran and the CPU it got. */
	int cpu[MAX_QPS];
	unsigned long long cpu_us[MAX_QPS];
	unsigned long long sys_us[MAX_QPS];	/* of it in the kernel */
};

static struct shared *sh;
static unsigned int nqps = 64, nprocs = 1, depth = 8, size = 4096;
/* Issue 11's bound: the fastest QP at most twice the slowest. */
static unsigned int max_ratio = 2;
static unsigned long per_qp = 300;

static unsigned long long total(void)
{
	unsigned long long t = 0;
	unsigned int i;

	for (i = 0; i < nqps; i++)
		t += atomic_load(&sh->done[i]);
	return t;
}

static int post_write(struct ut_ctx *c, struct ibv_qp *qp, unsigned int slot)
{
	/* Every QP writes its own slice of the peer's half of the buffer. */
	uint64_t off = (uint64_t)slot * size % (UT_BUF_SIZE - size);
	struct ibv_sge sge = {(uintptr_t)c->buf + UT_SRC + off, size,
			      c->mr->lkey};
	struct ibv_send_wr wr = {
		.wr_id = slot, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = {(uintptr_t)c->buf + UT_DST + off, c->mr->rkey},
	}, *bad;
	int ret = ibv_post_send(qp, &wr, &bad);

	SETUP(!ret, "post_send on QP %u: %s", slot, strerror(ret));
	return 0;
}

/* One process: QPs [first, first + n) of the shared counters. */
static int stream(const char *dev, int gid, unsigned int first, unsigned int n)
{
	struct ibv_qp_cap cap = {.max_send_wr = depth, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1};
	struct ibv_qp **qps = calloc(n, sizeof(*qps));
	unsigned int i, k, busy = n * depth;
	struct ibv_wc wc[32];
	struct ut_ctx c;
	int got;

	SETUP(qps && !ut_open(&c, dev, gid), "open %s", dev);
	c.cq = ibv_create_cq(c.ctx, 2 * busy, NULL, NULL, 0);
	SETUP(c.cq, "create_cq %u: %s", 2 * busy, strerror(errno));
	/* Queueing behind 64 streams takes far longer than ut's 4 ms. */
	ut_ack_timeout = 17;
	for (i = 0; i < n; i++) {
		struct ibv_qp *peer;

		qps[i] = ut_qp_cap(&c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE, &cap);
		peer = ut_qp_cap(&c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE, &cap);
		SETUP(qps[i] && peer, "QP %u", first + i);
		SETUP(!ut_connect(&c, qps[i], peer, 7), "connect %u", first + i);
		/* Whose QPs these are, for own-context.vmtest's trace check. */
		printf("fairness: pid %d qpn %u %u\n", (int)getpid(),
		       qps[i]->qp_num, peer->qp_num);
	}
	fflush(stdout);
	/*
	 * The streams themselves start and stop the run: a parent waking up
	 * to look would take a CPU from the engine thread, whose idle spin
	 * ends when another task wants its CPU (docs/prm.md 2).
	 */
	atomic_fetch_add(&sh->ready, 1);
	while (atomic_load(&sh->ready) < (int)nprocs)
		if (atomic_load(&sh->failed))
			return -1;
	for (i = 0; i < n; i++)
		for (k = 0; k < depth; k++)
			if (post_write(&c, qps[i], first + i))
				return -1;
	while (busy) {
		got = ibv_poll_cq(c.cq, 32, wc);
		SETUP(got >= 0, "poll_cq");
		for (k = 0; k < (unsigned int)got; k++) {
			unsigned int q = wc[k].wr_id;

			SETUP(wc[k].status == IBV_WC_SUCCESS &&
			      q >= first && q < first + n,
			      "QP %u: completion %s", q,
			      ibv_wc_status_str(wc[k].status));
			atomic_fetch_add(&sh->done[q], 1);
			if (atomic_load(&sh->stop))
				busy--;
			else if (post_write(&c, qps[q - first], q))
				return -1;
		}
		if (atomic_load(&sh->failed))
			return -1;
		if (!atomic_load(&sh->stop) && total() >= nqps * per_qp)
			atomic_store(&sh->stop, 1);
	}
	return 0;
}

/* Runs the streams to their count; 0 if every process ended well. */
static int run(const char *dev, int gid, pid_t *pids)
{
	unsigned int p, first = 0, bad = 0;
	int status;

	for (p = 0; p < nprocs; p++) {
		unsigned int n = nqps / nprocs + (p < nqps % nprocs);

		pids[p] = fork();
		SETUP(pids[p] >= 0, "fork: %s", strerror(errno));
		if (!pids[p]) {
			int ret = stream(dev, gid, first, n);
			struct rusage ru;

			getrusage(RUSAGE_SELF, &ru);
			sh->cpu[p] = sched_getcpu();
			sh->sys_us[p] = ru.ru_stime.tv_sec * 1000000ULL +
					ru.ru_stime.tv_usec;
			sh->cpu_us[p] = ru.ru_utime.tv_sec * 1000000ULL +
					ru.ru_utime.tv_usec + sh->sys_us[p];
			_exit(ret ? 1 : 0);
		}
		first += n;
	}
	for (p = 0; p < nprocs; p++) {
		SETUP(waitpid(-1, &status, 0) > 0, "waitpid: %s",
		      strerror(errno));
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			bad++;
			atomic_store(&sh->failed, 1);
		}
	}
	SETUP(!bad, "%u of %u streaming processes failed", bad, nprocs);
	return 0;
}

/*
 * Asserts that no QP of [first, first + n) completed more than max_ratio
 * times the WRITEs of another, and prints the spread under @what.
 */
static void check_qps(const char *what, unsigned int first, unsigned int n)
{
	unsigned long long lo = ~0ULL, hi = 0, c, sum = 0;
	unsigned int i, imin = first, imax = first;

	for (i = first; i < first + n; i++) {
		c = atomic_load(&sh->done[i]);
		sum += c;
		if (c < lo)
			lo = c, imin = i;
		if (c > hi)
			hi = c, imax = i;
	}
	printf("%s: QPs %u-%u, %llu completed (%llu bytes); per QP min %llu "
	       "(QP %u) max %llu (QP %u), max/min %.2f\n", what, first,
	       first + n - 1, sum, sum * size, lo, imin, hi, imax,
	       lo ? (double)hi / lo : 0.0);
	VERIFY(lo > 0, "QP %u completed nothing (starved)", imin);
	VERIFY(hi <= max_ratio * lo, "QP %u completed %llu WRITEs, QP %u only "
	       "%llu: more than %ux apart", imax, hi, imin, lo, max_ratio);
}

int main(int argc, char **argv)
{
	const char *dev = "mlx_hw0";
	unsigned int i, p, first = 0;
	int gid = 1, opt;
	pid_t *pids;

	while ((opt = getopt(argc, argv, "d:g:q:P:s:t:n:r:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'g': gid = atoi(optarg); break;
		case 'q': nqps = atoi(optarg); break;
		case 'P': nprocs = atoi(optarg); break;
		case 's': size = atoi(optarg); break;
		case 't': depth = atoi(optarg); break;
		case 'n': per_qp = atol(optarg); break;
		case 'r': max_ratio = atoi(optarg); break;
		default: return 2;
		}
	}
	if (!nqps || nqps > MAX_QPS || !nprocs || nprocs > nqps || !depth ||
	    !size || size > UT_BUF_SIZE / 2 || !per_qp) {
		fprintf(stderr, "fairness: bad arguments\n");
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pids = calloc(nprocs, sizeof(*pids));
	REQUIRE(sh != MAP_FAILED && pids, "shared memory");
	REQUIRE(!run(dev, gid, pids), "the streams ran to their count");
	printf("%u QPs in %u process(es), %u B WRITEs, %u in flight each: "
	       "%llu completed\ncompleted per QP:", nqps, nprocs, size, depth,
	       total());
	for (i = 0; i < nqps; i++)
		printf(" %llu", (unsigned long long)atomic_load(&sh->done[i]));
	printf("\n");
	/* Each process's QPs, then all of them: no process is favoured. */
	for (p = 0; p < nprocs; p++) {
		unsigned int n = nqps / nprocs + (p < nqps % nprocs);
		char what[96];

		snprintf(what, sizeof(what),
			 "process %u (CPU %d at its end, %.2f s of CPU, %.2f s "
			 "in the kernel)", p, sh->cpu[p], sh->cpu_us[p] / 1e6,
			 sh->sys_us[p] / 1e6);
		check_qps(what, first, n);
		first += n;
	}
	if (nprocs > 1)
		check_qps("all processes", 0, nqps);
	if (check_failures)
		return 1;
	printf("ok\n");
	return 0;
}
