// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ctl_busy_send.c - the sender of ctl_busy (see ctl_busy.c): a new QP and
 * CQ per round, a stream of messages at full speed, and per step the end
 * it must come to: every WR completed successfully when the target says
 * STOP (the resize steps), or the oldest outstanding WR with
 * IBV_WC_RETRY_EXC_ERR and the rest flushed (err, destroy).
 */
#include <errno.h>
#include <string.h>
#include "ctl_busy.h"

/* What each WR in flight is, by its index modulo SEND_DEPTH. */
struct sent_wr {
	uint32_t seq; /* its message */
	bool write;   /* the WRITE of the message, else its SEND */
};

struct stream {
	struct sent_wr wr[SEND_DEPTH];
	uint32_t posted, completed;   /* WRs */
	uint32_t next_seq;	      /* messages posted */
	uint32_t msgs_ok;	      /* messages completed successfully */
	bool stop;		      /* the target said STOP */
	bool failed;		      /* an error completion came */
	enum ibv_wc_status first_err; /* its status */
	uint32_t err_seq;	      /* its message */
	unsigned int flushed;	      /* WR_FLUSH_ERR completions after it */
};

static uint64_t wr_id(uint32_t index)
{
	return (uint64_t)g.round << 32 | index;
}

/* The buffer of the WR posted as number @index. */
static uint8_t *wr_buf(uint32_t index)
{
	return g.buf + (size_t)(index % SEND_DEPTH) * MAX_WRITE;
}

/* Posts message s->next_seq: its WRITE (if any) and its SEND. */
static void post_msg(struct stream *s)
{
	uint32_t seq = s->next_seq, idx = s->posted, wcsum = 0;
	struct msg_shape shape = msg_shape(g.round, seq);
	struct ibv_send_wr wr[2] = {0}, *bad;
	struct ibv_sge sge[2];
	struct msg_hdr *h;
	uint8_t *p;
	int n = 0, i;

	if (shape.wlen) {
		p = wr_buf(idx);
		msg_fill(p, shape.wlen, g.round, seq, 1);
		wcsum = csum(p, shape.wlen);
		sge[n] = (struct ibv_sge){.addr = (uintptr_t)p,
					  .length = shape.wlen};
		wr[n].opcode = IBV_WR_RDMA_WRITE;
		wr[n].wr.rdma.remote_addr =
			g.peer.addr + (uint64_t)(seq % SLOTS) * MAX_WRITE;
		wr[n].wr.rdma.rkey = g.peer.rkey;
		s->wr[idx++ % SEND_DEPTH] = (struct sent_wr){seq, true};
		n++;
	}
	p = wr_buf(idx);
	h = (struct msg_hdr *)p;
	msg_fill(p + sizeof(*h), shape.len - sizeof(*h), g.round, seq, 0);
	*h = (struct msg_hdr){
		.magic = MSG_MAGIC,
		.round = g.round,
		.seq = seq,
		.len = shape.len,
		.csum = csum(p + sizeof(*h), shape.len - sizeof(*h)),
		.wlen = shape.wlen,
		.wslot = seq % SLOTS,
		.wcsum = wcsum,
	};
	sge[n] = (struct ibv_sge){.addr = (uintptr_t)p, .length = shape.len};
	wr[n].opcode = IBV_WR_SEND;
	s->wr[idx % SEND_DEPTH] = (struct sent_wr){seq, false};
	n++;
	for (i = 0; i < n; i++) {
		sge[i].lkey = g.mr->lkey;
		wr[i].wr_id = wr_id(s->posted + i);
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	if (ibv_post_send(g.qp, wr, &bad))
		die("post_send msg %u: %s", seq, strerror(errno));
	s->posted += n;
	s->next_seq++;
}

/*
 * One completion, in SQ order: successes up to the first error, which
 * the step must allow, and flushes after it.
 */
static int take(struct stream *s, const struct ibv_wc *wc)
{
	struct sent_wr w = s->wr[s->completed % SEND_DEPTH];
	uint64_t want = wr_id(s->completed);

	g.seq = w.seq;
	CHECK(wc->wr_id == want,
	      "completion wr_id %#llx, expected %#llx (SQ order)",
	      (unsigned long long)wc->wr_id, (unsigned long long)want);
	s->completed++;
	if (wc->status == IBV_WC_SUCCESS) {
		CHECK(!s->failed, "a success after the error completion");
		CHECK(wc->opcode == (w.write ? IBV_WC_RDMA_WRITE : IBV_WC_SEND),
		      "opcode %d for a %s", wc->opcode,
		      w.write ? "WRITE" : "SEND");
		if (!w.write) {
			CHECK(w.seq == s->msgs_ok,
			      "message %u completed after %u messages", w.seq,
			      s->msgs_ok);
			s->msgs_ok++;
		}
		return 0;
	}
	if (s->failed) {
		CHECK(wc->status == IBV_WC_WR_FLUSH_ERR,
		      "after %s, %s (expected a flush)",
		      ibv_wc_status_str(s->first_err),
		      ibv_wc_status_str(wc->status));
		s->flushed++;
		return 0;
	}
	s->failed = true;
	s->first_err = wc->status;
	s->err_seq = w.seq;
	CHECK(g.step == STEP_ERR || g.step == STEP_DESTROY,
	      "the %s completed with %s (vendor_err %#x) before any step",
	      w.write ? "WRITE" : "SEND", ibv_wc_status_str(wc->status),
	      wc->vendor_err);
	/* A silent peer: the oldest WR runs out of transport retries. */
	CHECK(wc->status == IBV_WC_RETRY_EXC_ERR,
	      "the first error completion is %s, expected %s",
	      ibv_wc_status_str(wc->status),
	      ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR));
	return 0;
}

/* Streams until the target says STOP, or an error ends the QP. */
static int stream(struct stream *s)
{
	uint64_t last = now_ms();
	struct ibv_wc wc[16];
	char line[64];
	int n, i, loops = 0;

	for (;;) {
		n = ibv_poll_cq(g.cq, 16, wc);
		SETUP(n >= 0, "poll_cq: %d", n);
		for (i = 0; i < n; i++)
			if (take(s, &wc[i]))
				return -1;
		if (n)
			last = now_ms();
		while (!s->stop && !s->failed &&
		       s->posted - s->completed + 2 <= SEND_DEPTH)
			post_msg(s);
		if ((++loops % 16 == 0 || !n) && !s->stop && ctl_ready()) {
			ctl_recv(line, sizeof(line));
			SETUP(!strcmp(line, "STOP"), "expected STOP, got '%s'",
			      line);
			s->stop = true;
		}
		if ((s->stop || s->failed) && s->completed == s->posted)
			return 0;
		if (now_ms() - last > DRAIN_TIMEOUT_MS) {
			FAIL_HERE("no completion in %d s with %u WRs "
				  "outstanding",
				  DRAIN_TIMEOUT_MS / 1000,
				  s->posted - s->completed);
			return -1;
		}
	}
}

/* The end the step asks for; reports it to the target. */
static void finish(struct stream *s)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	g.seq = s->next_seq;
	if (g.step == STEP_ERR || g.step == STEP_DESTROY) {
		VERIFY(s->failed, "the stream ended without an error");
		VERIFY(!ibv_query_qp(g.qp, &a, IBV_QP_STATE, &init) &&
			       a.qp_state == IBV_QPS_ERR,
		       "the QP is in state %d after the error, not ERR",
		       a.qp_state);
		printf("round %u %s: %u messages posted, %u completed, then "
		       "%s at msg %u and %u flushed\n",
		       g.round, step_names[g.step], s->next_seq, s->msgs_ok,
		       ibv_wc_status_str(s->first_err), s->err_seq, s->flushed);
		ctl_send("ERRED %u %u\n", s->msgs_ok, s->next_seq);
	} else {
		VERIFY(s->msgs_ok == s->next_seq, "%u of %u messages completed",
		       s->msgs_ok, s->next_seq);
		ctl_send("DONE %u\n", s->msgs_ok);
	}
}

/* One round: "ROUND r step" and the target's QP, ours back, GO, stream. */
static bool sender_round(void)
{
	struct stream s = {0};
	unsigned int round, step;
	char line[128];

	ctl_recv(line, sizeof(line));
	if (!strcmp(line, "END"))
		return false;
	if (sscanf(line, "ROUND %u %u", &round, &step) != 2 ||
	    step >= NUM_STEPS)
		die("expected ROUND, got '%s'", line);
	g.round = round;
	g.step = step;
	g.seq = 0;
	recv_coords("QP");
	g.cq = ibv_create_cq(g.ctx, 2 * SEND_DEPTH, NULL, NULL, 0);
	if (!g.cq)
		die("create_cq: %s", strerror(errno));
	g.qp = create_qp(g.cq, NULL);
	/* The resize steps must see no error: retry (on rxe: for ever). */
	connect_qp(g.qp, &g.peer,
		   step == STEP_ERR || step == STEP_DESTROY ? 3 : 7);
	send_coords("QP");
	ctl_recv(line, sizeof(line));
	if (strcmp(line, "GO"))
		die("expected GO, got '%s'", line);
	if (!stream(&s))
		finish(&s);
	else
		ctl_send("ABORT\n");
	VERIFY(!ibv_destroy_qp(g.qp), "destroy_qp: %s", strerror(errno));
	VERIFY(!ibv_destroy_cq(g.cq), "destroy_cq: %s", strerror(errno));
	g.qp = NULL;
	g.cq = NULL;
	return !check_failures;
}

void sender_run(void)
{
	while (sender_round())
		;
}
