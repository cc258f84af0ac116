// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ctl_busy_target.c - the target of ctl_busy (see ctl_busy.c): per round
 * a new receive CQ, QP (and SRQ), RECVS receives kept posted, every
 * message checked as it completes, and the round's step taken while the
 * sender's stream keeps arriving.
 */
#include <errno.h>
#include <string.h>
#include "ctl_busy.h"

#define RESIZE_MS 2000	  /* how long a resize step goes on */
#define RESIZE_EVERY_MS 5 /* between two resizes */
#define MIN_RESIZES 20	  /* resizes a step must have made */
#define QUIET_MS 200	  /* nothing more may come after a flush */
/*
 * The engine thread's runs of the QP while the stream runs, at most one
 * per this many requests received: the softirq ran the responder.
 */
#define RUNS_PER_REQUESTS 4

/* Receive CQ and SRQ sizes a resize step goes through, in RECVS. */
static const unsigned int cq_sizes[] = {4, 1, 16, 2, 1, 8};
static const unsigned int srq_sizes[] = {4, 1, 8, 2};

struct recvs {
	bool posted[RECVS];
	unsigned int outstanding; /* receives posted, not completed */
	uint32_t checked;	  /* messages checked, in order */
	unsigned int flushed;	  /* IBV_WC_WR_FLUSH_ERR completions */
	bool repost;		  /* repost each receive as it completes */
	unsigned int resizes;
};

static void post_recv(struct recvs *r, unsigned int slot)
{
	struct ibv_sge sge = {.addr = (uintptr_t)g.buf +
				      (size_t)slot * MAX_SEND,
			      .length = MAX_SEND,
			      .lkey = g.mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = (uint64_t)g.round << 32 | slot,
				 .sg_list = &sge,
				 .num_sge = 1},
			   *bad;
	int err;

	err = g.srq ? ibv_post_srq_recv(g.srq, &wr, &bad)
		    : ibv_post_recv(g.qp, &wr, &bad);
	if (err)
		die("post_recv: %s", strerror(err));
	r->posted[slot] = true;
	r->outstanding++;
}

/* A message received into @slot: the next in order, every byte right. */
static int check_msg(struct recvs *r, const struct ibv_wc *wc,
		     unsigned int slot)
{
	const uint8_t *p = g.buf + (size_t)slot * MAX_SEND, *w;
	const struct msg_hdr *h = (const struct msg_hdr *)p;
	struct msg_shape want = msg_shape(g.round, r->checked);

	g.seq = r->checked;
	CHECK(wc->opcode == IBV_WC_RECV, "opcode %d, expected IBV_WC_RECV",
	      wc->opcode);
	CHECK(wc->byte_len == want.len, "byte_len %u, expected %u",
	      wc->byte_len, want.len);
	CHECK(h->magic == MSG_MAGIC && h->round == g.round,
	      "magic %#x round %u: not a message of this round", h->magic,
	      h->round);
	CHECK(h->seq == r->checked, "message %u, expected %u (%s)", h->seq,
	      r->checked, h->seq < r->checked ? "a duplicate" : "a gap");
	CHECK(h->len == want.len && h->wlen == want.wlen &&
		      h->wslot == h->seq % SLOTS,
	      "header says %u bytes, WRITE of %u in slot %u; expected %u, "
	      "%u, %u",
	      h->len, h->wlen, h->wslot, want.len, want.wlen, h->seq % SLOTS);
	CHECK(csum(p + sizeof(*h), h->len - sizeof(*h)) == h->csum,
	      "the SEND's checksum differs");
	if (h->wlen) {
		w = g.buf + (size_t)RECVS * MAX_SEND +
		    (size_t)h->wslot * MAX_WRITE;
		CHECK(csum(w, h->wlen) == h->wcsum,
		      "the WRITE's checksum differs (slot %u, %u bytes)",
		      h->wslot, h->wlen);
	}
	r->checked++;
	return 0;
}

/* One receive completion of this round's CQ. */
static int take(struct recvs *r, const struct ibv_wc *wc)
{
	unsigned int slot = wc->wr_id & 0xffffffff;

	CHECK(wc->wr_id >> 32 == g.round,
	      "a completion of round %llu (wr_id %#llx) on this round's CQ",
	      (unsigned long long)(wc->wr_id >> 32),
	      (unsigned long long)wc->wr_id);
	CHECK(slot < RECVS && r->posted[slot],
	      "a completion for receive %u, not outstanding", slot);
	r->posted[slot] = false;
	r->outstanding--;
	if (wc->status == IBV_WC_WR_FLUSH_ERR) {
		CHECK(g.step == STEP_ERR && !r->repost,
		      "receive %u flushed before any step", slot);
		r->flushed++;
		return 0;
	}
	CHECK(wc->status == IBV_WC_SUCCESS, "receive %u: %s (vendor_err %#x)",
	      slot, ibv_wc_status_str(wc->status), wc->vendor_err);
	CHECK(!r->flushed, "a success after %u flushes", r->flushed);
	if (check_msg(r, wc, slot))
		return -1;
	if (r->repost)
		post_recv(r, slot);
	return 0;
}

/* Polls once; the number of completions taken, or -1. */
static int poll_once(struct recvs *r)
{
	struct ibv_wc wc[16];
	int n, i;

	n = ibv_poll_cq(g.cq, 16, wc);
	SETUP(n >= 0, "poll_cq: %d", n);
	for (i = 0; i < n; i++)
		if (take(r, &wc[i]))
			return -1;
	return n;
}

/* One resize of the CQ or SRQ, to the next size of its list. */
static int resize(struct recvs *r)
{
	unsigned int i = r->resizes, want;
	struct ibv_srq_attr sa;
	int err;

	if (g.step == STEP_RESIZE_CQ) {
		want = RECVS *
		       cq_sizes[i % (sizeof(cq_sizes) / sizeof(cq_sizes[0]))];
		err = ibv_resize_cq(g.cq, want);
		CHECK(!err, "resize_cq to %u: %s", want, strerror(err));
		CHECK(g.cq->cqe >= (int)want, "resize_cq to %u gave %d", want,
		      g.cq->cqe);
	} else {
		want = RECVS * srq_sizes[i % (sizeof(srq_sizes) /
					      sizeof(srq_sizes[0]))];
		sa = (struct ibv_srq_attr){.max_wr = want};
		err = ibv_modify_srq(g.srq, &sa, IBV_SRQ_MAX_WR);
		CHECK(!err, "modify_srq max_wr %u: %s", want, strerror(err));
		CHECK(!ibv_query_srq(g.srq, &sa) && sa.max_wr >= want,
		      "after modify_srq max_wr %u, max_wr %u", want, sa.max_wr);
	}
	r->resizes++;
	return 0;
}

/*
 * After STOP: polls (the sender's last messages need receives) until its
 * "DONE n" and @n messages are checked; then nothing else may come.
 */
static int drain(struct recvs *r)
{
	uint64_t start = now_ms();
	bool done = false;
	char line[64];
	uint32_t n = 0;

	while (!done || r->checked < n) {
		if (poll_once(r) < 0)
			return -1;
		if (!done && ctl_ready()) {
			ctl_recv(line, sizeof(line));
			SETUP(sscanf(line, "DONE %u", &n) == 1,
			      "expected DONE, got '%s'", line);
			done = true;
		}
		if (now_ms() - start > DRAIN_TIMEOUT_MS) {
			FAIL_HERE("%u messages arrived in %d s after STOP, the "
				  "sender %s",
				  r->checked, DRAIN_TIMEOUT_MS / 1000,
				  done ? "completed more" : "did not end");
			return -1;
		}
	}
	start = now_ms();
	while (now_ms() - start < QUIET_MS) {
		if (poll_once(r)) {
			FAIL_HERE("a completion after the %u messages", n);
			return -1;
		}
	}
	CHECK(r->checked == n && r->outstanding == RECVS,
	      "%u messages checked, %u receives posted (expected %u and %u)",
	      r->checked, r->outstanding, n, RECVS);
	return 0;
}

/* The counters say the softirq ran the stream (ours only). */
static void check_busy(const struct counters *c0, const struct counters *c1,
		       uint32_t msgs)
{
	uint64_t rx = counter_delta(c0, c1, CNT_RX_REQUESTS),
		 runs = counter_delta(c0, c1, CNT_QP_RUNS);

	printf("round %u %s: %u messages, rx_requests +%llu, tx_acks +%llu, "
	       "engine_qp_runs +%llu, engine_wakeups +%llu\n",
	       g.round, step_names[g.step], msgs, (unsigned long long)rx,
	       (unsigned long long)counter_delta(c0, c1, CNT_TX_ACKS),
	       (unsigned long long)runs,
	       (unsigned long long)counter_delta(c0, c1, CNT_WAKEUPS));
	VERIFY(rx >= msgs && msgs > 0,
	       "rx_requests grew by %llu over %u messages",
	       (unsigned long long)rx, msgs);
	VERIFY(runs * RUNS_PER_REQUESTS <= rx,
	       "the engine thread ran QPs %llu times for %llu requests: the "
	       "softirq did not run the responder",
	       (unsigned long long)runs, (unsigned long long)rx);
}

/* resize-cq, resize-srq: resizes for RESIZE_MS, then STOP; nothing lost. */
static int step_resize(struct recvs *r)
{
	uint64_t start = now_ms(), next = start;
	struct counters c0, c1;

	if (g.ours)
		counters_read(&c0);
	while (now_ms() - start < RESIZE_MS) {
		if (poll_once(r) < 0)
			return -1;
		if (now_ms() >= next) {
			if (resize(r))
				return -1;
			next += RESIZE_EVERY_MS;
		}
	}
	if (g.ours)
		counters_read(&c1);
	ctl_send("STOP\n");
	if (drain(r))
		return -1;
	printf("round %u %s: %u resizes, %u messages checked\n", g.round,
	       step_names[g.step], r->resizes, r->checked);
	CHECK(r->resizes >= MIN_RESIZES, "only %u resizes in %d ms", r->resizes,
	      RESIZE_MS);
	if (g.ours)
		check_busy(&c0, &c1, r->checked);
	return 0;
}

/* err: ERR mid-stream; every receive completes once, flushed after ERR. */
static int step_err(struct recvs *r)
{
	uint64_t start;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_ERR};
	int err;

	r->repost = false;
	err = ibv_modify_qp(g.qp, &a, IBV_QP_STATE);
	CHECK(!err, "modify_qp ERR: %s", strerror(err));
	CHECK(!ibv_query_qp(g.qp, &a, IBV_QP_STATE, &init) &&
		      a.qp_state == IBV_QPS_ERR,
	      "state %d after modify_qp ERR", a.qp_state);
	start = now_ms();
	while (r->outstanding) {
		if (poll_once(r) < 0)
			return -1;
		if (now_ms() - start > DRAIN_TIMEOUT_MS) {
			FAIL_HERE("%u receives neither completed nor flushed "
				  "in %d s",
				  r->outstanding, DRAIN_TIMEOUT_MS / 1000);
			return -1;
		}
	}
	start = now_ms();
	while (now_ms() - start < QUIET_MS) {
		if (poll_once(r)) {
			FAIL_HERE("a completion after every receive had one");
			return -1;
		}
	}
	printf("round %u err: %u messages checked, then %u receives "
	       "flushed\n",
	       g.round, r->checked, r->flushed);
	return 0;
}

/* destroy: the QP and its CQ go while packets arrive, unpolled. */
static int step_destroy(struct recvs *r)
{
	int err;

	err = ibv_destroy_qp(g.qp);
	CHECK(!err, "destroy_qp: %s", strerror(err));
	g.qp = NULL;
	err = ibv_destroy_cq(g.cq);
	CHECK(!err, "destroy_cq: %s", strerror(err));
	g.cq = NULL;
	printf("round %u destroy: %u messages checked, QP and CQ destroyed "
	       "with %u receives outstanding\n",
	       g.round, r->checked, r->outstanding);
	return 0;
}

/*
 * err, destroy: the stream runs for a while that changes from round to
 * round, then the step; the sender's report must agree.
 */
static int step_break(struct recvs *r)
{
	uint64_t start = now_ms(), wait = 300 + (g.round * 137) % 700;
	struct counters c0, c1, c2;
	unsigned int ok, posted;
	char line[64];
	int n = 0;

	if (g.ours)
		counters_read(&c0);
	/* Right after a message came in: the stream is going. */
	while (now_ms() - start < wait || n <= 0) {
		n = poll_once(r);
		if (n < 0)
			return -1;
		if (now_ms() - start > wait + DRAIN_TIMEOUT_MS) {
			FAIL_HERE("no message in %d s",
				  DRAIN_TIMEOUT_MS / 1000);
			return -1;
		}
	}
	if (g.ours)
		counters_read(&c1);
	if ((g.step == STEP_ERR ? step_err : step_destroy)(r))
		return -1;
	ctl_recv(line, sizeof(line));
	SETUP(sscanf(line, "ERRED %u %u", &ok, &posted) == 2,
	      "expected ERRED, got '%s'", line);
	g.seq = r->checked;
	VERIFY(r->checked <= posted, "%u messages checked of %u posted",
	       r->checked, posted);
	/* What the sender saw acknowledged was received, not flushed. */
	if (g.step == STEP_ERR)
		VERIFY(ok <= r->checked,
		       "the sender completed %u messages, %u arrived", ok,
		       r->checked);
	if (!g.ours)
		return 0;
	counters_read(&c2);
	check_busy(&c0, &c1, r->checked);
	if (g.step == STEP_ERR)
		VERIFY(counter_delta(&c1, &c2, CNT_RX_DROP_STATE) > 0,
		       "no request arrived at the QP in ERR (rx_drop_state)");
	else
		VERIFY(counter_delta(&c1, &c2, CNT_RX_DROP_QPN) > 0,
		       "no request arrived for the destroyed QP (rx_drop_qpn)");
	printf("round %u %s: afterwards rx_drop_state +%llu, rx_drop_qpn "
	       "+%llu\n",
	       g.round, step_names[g.step],
	       (unsigned long long)counter_delta(&c1, &c2, CNT_RX_DROP_STATE),
	       (unsigned long long)counter_delta(&c1, &c2, CNT_RX_DROP_QPN));
	return 0;
}

/* This round's objects, its receives posted. */
static void setup_round(struct recvs *r)
{
	struct ibv_srq_init_attr sia = {
		.attr = {.max_wr = 2 * RECVS, .max_sge = 1}};
	unsigned int i;

	g.cq = ibv_create_cq(g.ctx, 2 * RECVS, NULL, NULL, 0);
	if (!g.cq)
		die("create_cq: %s", strerror(errno));
	if (g.step == STEP_RESIZE_SRQ) {
		g.srq = ibv_create_srq(g.pd, &sia);
		if (!g.srq)
			die("create_srq: %s", strerror(errno));
	}
	g.qp = create_qp(g.cq, g.srq);
	r->repost = true;
	for (i = 0; i < RECVS; i++)
		post_recv(r, i);
}

static void teardown_round(void)
{
	if (g.qp)
		VERIFY(!ibv_destroy_qp(g.qp), "destroy_qp: %s",
		       strerror(errno));
	if (g.srq)
		VERIFY(!ibv_destroy_srq(g.srq), "destroy_srq: %s",
		       strerror(errno));
	if (g.cq)
		VERIFY(!ibv_destroy_cq(g.cq), "destroy_cq: %s",
		       strerror(errno));
	g.qp = NULL;
	g.srq = NULL;
	g.cq = NULL;
}

void target_run(void)
{
	uint64_t start = now_ms();
	unsigned int per_step[NUM_STEPS] = {0}, i;
	struct check_mark m;
	struct recvs r;
	char name[64];
	int ret;

	for (g.round = 1;; g.round++) {
		g.step = (g.round - 1) % NUM_STEPS;
		if (g.round > NUM_STEPS &&
		    now_ms() - start >= g.budget_s * 1000ull)
			break;
		memset(&r, 0, sizeof(r));
		g.seq = 0;
		m = check_begin();
		setup_round(&r);
		ctl_send("ROUND %u %u\n", g.round, g.step);
		send_coords("QP");
		recv_coords("QP");
		connect_qp(g.qp, &g.peer, 7);
		ctl_send("GO\n");
		ret = g.step == STEP_RESIZE_CQ || g.step == STEP_RESIZE_SRQ
			      ? step_resize(&r)
			      : step_break(&r);
		teardown_round();
		snprintf(name, sizeof(name), "round %u %s", g.round,
			 step_names[g.step]);
		if (!check_end(name, m, ret)) {
			ctl_send("ABORT\n");
			return;
		}
		per_step[g.step]++;
	}
	ctl_send("END\n");
	g.round--;
	for (i = 0; i < NUM_STEPS; i++)
		printf("%s: %u rounds\n", step_names[i], per_step[i]);
}
