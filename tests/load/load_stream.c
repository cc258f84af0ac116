// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * load_stream - many processes streaming on one HCA, some killed at random:
 *
 *   load_stream [-d DEV] [-g GID] [-p PROCS] [-q QPS] [-t SECONDS] [-k]
 *
 * PROCS processes each connect QPS RC QPs in pairs over loopback and keep
 * 16 signaled 4 KiB RDMA WRITEs in flight on each sending QP for SECONDS.
 * Every completion must be a success that arrived within 1 s of its post
 * (a WR that waits longer is starved: the requirement of the load test).
 * With -k the parent kills a random process with SIGKILL every second or
 * so and starts a new one.  At the end the survivors are told to stop,
 * drain and exit.  Exit 0 if every process ended well.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "../hca/hca_util.h"

#define DEPTH		16
#define MSG		4096
#define MAX_PROCS	128
#define MAX_QPS		64
#define MAX_WAIT_NS	1000000000ull

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

struct stream {
	struct ibv_qp *qp;
	unsigned int idx, inflight;
	uint64_t posted_at[DEPTH];	/* by wr_id % DEPTH */
	uint64_t next;			/* next wr_id to post */
};

static int post_one(struct ut_ctx *c, struct stream *s)
{
	struct ibv_sge sge = { (uintptr_t)c->buf + s->idx * MSG, MSG,
			       c->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = ((uint64_t)s->idx << 32) | s->next,
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)c->buf + UT_DST + s->idx * MSG,
			     c->mr->rkey },
	}, *bad;

	CHECK(!ibv_post_send(s->qp, &wr, &bad), "post on QP %u", s->idx);
	s->posted_at[s->next % DEPTH] = now_ns();
	s->next++;
	s->inflight++;
	return 0;
}

/* One process: @nqps QPs in pairs, the even ones sending. */
static int streamer(const char *dev, int gid, unsigned int nqps)
{
	struct ibv_qp_cap cap = { .max_send_wr = DEPTH, .max_recv_wr = 1,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct stream s[MAX_QPS] = {};
	uint64_t worst = 0, done = 0, started = now_ns();
	struct ibv_wc wc[32];
	struct ut_ctx c;
	unsigned int i;
	int n;

	if (ut_open(&c, dev, gid))
		return 1;
	/*
	 * 537 ms (code 17, as rdma_cm picks on RoCE): hundreds of busy QPs
	 * share the engine, and with 4096 WRITEs in flight an ACK can wait
	 * longer than 67 ms (code 14, which failed the 32 x 16 run with
	 * RETRY_EXC_ERR): a timeout shorter than the queueing delay only
	 * adds go-back-N retransmissions to the load.
	 */
	ut_ack_timeout = 17;
	for (i = 0; i < nqps; i++) {
		s[i].idx = i;
		s[i].qp = ut_qp_cap(&c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE,
				    &cap);
		SETUP(s[i].qp, "create QP %u: %s", i, strerror(errno));
	}
	for (i = 0; i + 1 < nqps; i += 2)
		SETUP(!ut_connect(&c, s[i].qp, s[i + 1].qp, 7), "connect");
	while (!stop) {
		for (i = 0; i < nqps; i += 2)
			while (s[i].inflight < DEPTH)
				if (post_one(&c, &s[i]))
					return 1;
		n = ibv_poll_cq(c.cq, 32, wc);
		CHECK(n >= 0, "poll_cq");
		for (i = 0; i < (unsigned int)n; i++) {
			struct stream *st = &s[wc[i].wr_id >> 32];
			uint64_t waited = now_ns() -
				st->posted_at[(uint32_t)wc[i].wr_id % DEPTH];

			CHECK(wc[i].status == IBV_WC_SUCCESS, "QP %u: %s",
			      st->idx, ibv_wc_status_str(wc[i].status));
			if (waited > worst)
				worst = waited;
			st->inflight--;
			done++;
		}
	}
	CHECK(worst <= MAX_WAIT_NS, "a completion waited %.3f s",
	      worst / 1e9);
	/* A process told to stop moments after it started may have none. */
	CHECK(done > 0 || now_ns() - started < 5000000000ull,
	      "no completion in %.1f s", (now_ns() - started) / 1e9);
	printf("load_stream %d: %llu WRITEs, longest wait %.1f ms\n",
	       (int)getpid(), (unsigned long long)done, worst / 1e6);
	fflush(stdout);		/* the caller leaves through _exit() */
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int procs = 8, nqps = 16, secs = 30, i, kills = 0, bad = 0;
	const char *dev = "mlx_hw0";
	pid_t pid[MAX_PROCS];
	int opt, gid = 1, st;
	bool kill_mode = false;
	uint64_t end;

	while ((opt = getopt(argc, argv, "d:g:p:q:t:k")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'g': gid = atoi(optarg); break;
		case 'p': procs = atoi(optarg); break;
		case 'q': nqps = atoi(optarg); break;
		case 't': secs = atoi(optarg); break;
		case 'k': kill_mode = true; break;
		default: return 2;
		}
	}
	if (!procs || procs > MAX_PROCS || nqps < 2 || nqps > MAX_QPS ||
	    nqps * MSG > UT_BUF_SIZE)
		return 2;
	/* Inherited: a worker told to stop before it set up still stops. */
	signal(SIGTERM, on_term);
	for (i = 0; i < procs; i++)
		if (!(pid[i] = fork()))
			_exit(streamer(dev, gid, nqps));
	srand(getpid());
	end = now_ns() + secs * 1000000000ull;
	while (now_ns() < end) {
		usleep(500000 + rand() % 1000000);
		if (!kill_mode)
			continue;
		i = rand() % procs;
		kill(pid[i], SIGKILL);
		waitpid(pid[i], &st, 0);
		/* It may have failed on its own before our signal. */
		if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) {
			fprintf(stderr, "FAIL: process %d ended with status "
				"%#x before it was killed\n", pid[i], st);
			bad++;
		}
		kills++;
		if (!(pid[i] = fork()))
			_exit(streamer(dev, gid, nqps));
	}
	for (i = 0; i < procs; i++)
		kill(pid[i], SIGTERM);
	for (i = 0; i < procs; i++) {
		waitpid(pid[i], &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "FAIL: process %d ended with status "
				"%#x\n", pid[i], st);
			bad++;
		}
	}
	printf("load_stream: %u processes x %u QPs for %u s, %u killed, %u "
	       "bad endings: %s\n", procs, nqps, secs, kills, bad,
	       bad ? "FAIL" : "PASS");
	return bad ? 1 : 0;
}
