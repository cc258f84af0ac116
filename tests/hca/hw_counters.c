// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hw_counters - the port counters of docs/prm.md 12 (sysfs
 * ports/1/hw_counters) move by exactly what known traffic between two QPs
 * of the device causes: packets of each kind (requests, READ responses,
 * ACKs) and payload bytes both ways, also of a long READ sent as several
 * requests, RNR NAKs sent and received, transport retries and ACK
 * timeouts, drops, error CQEs, engine wake-ups.  Nothing
 * else may use the device while it runs (the VM suite runs tests one at a
 * time).
 *
 *   hw_counters [-d DEV] [-g GID_INDEX] [TEST...]     (default: all tests)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hca_util.h"

enum {
	SENT_PKTS, SENT_BYTES, RCVD_PKTS, RCVD_BYTES, RNR_SENT, RNR_RCVD,
	RETRY_ERR, ERR_CQES, WAKEUPS, INLINE_WAKES, TX_REQ, TX_READ_RESP,
	TX_ACK, RX_REQ, RX_READ_RESP, RX_ACK, ACK_TIMEOUTS, DROP_QPN,
	WAKE_FIRST, WAKE_LAST = WAKE_FIRST + 6, NCNT
};

static const char *const names[NCNT] = {
	"sent_pkts", "sent_bytes", "rcvd_pkts", "rcvd_bytes", "rnr_nak_sent",
	"rcvd_rnr_err", "retry_err", "completer_error", "engine_wakeups",
	"engine_inline_wakes", "tx_requests", "tx_read_responses", "tx_acks",
	"rx_requests", "rx_read_responses", "rx_acks", "local_ack_timeout_err",
	"rx_drop_qpn",
	/* engine_wakeups by what asked for them: they add up to it */
	"engine_wake_stream", "engine_wake_run_list", "engine_wake_ring",
	"engine_wake_timer", "engine_wake_offer", "engine_wake_leftover",
	"engine_wake_other",
};

struct snap {
	long long v[NCNT];
};

static int snapshot(struct ut_ctx *c, struct snap *s)
{
	char path[256];
	FILE *f;
	int i, ok;

	for (i = 0; i < NCNT; i++) {
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/hw_counters/%s",
			 c->dev_name, names[i]);
		f = fopen(path, "r");
		CHECK(f, "%s: %s", path, strerror(errno));
		ok = fscanf(f, "%lld", &s->v[i]) == 1;
		fclose(f);
		CHECK(ok, "%s: not a number", path);
	}
	return 0;
}

/* Checks the deltas between two snapshots; -1 in @want: not checked. */
static int deltas(const struct snap *s0, const struct snap *s1,
		  const long long *want, struct snap *d)
{
	int i;

	for (i = 0; i < NCNT; i++) {
		d->v[i] = s1->v[i] - s0->v[i];
		CHECK(d->v[i] >= 0, "%s went backwards", names[i]);
		CHECK(want[i] < 0 || d->v[i] == want[i],
		      "%s moved by %lld, expected %lld", names[i], d->v[i],
		      want[i]);
	}
	return 0;
}

static int pair(struct ut_ctx *c, struct ibv_qp **a, struct ibv_qp **b)
{
	*a = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);
	*b = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);
	CHECK(*a && *b, "QPs");
	return ut_connect(c, *a, *b, 7);
}

/* SEND 3000 B + WRITE 5000 B + READ 2048 B at MTU 1024. */
static int test_traffic(struct ut_ctx *c)
{
	/*
	 * 3 + 5 request packets with payload, the READ request without and
	 * its 2 response packets; one ACK per SEND and WRITE (AckReq on their
	 * last packet), none for the READ (its responses are the answer).
	 */
	const long long want[NCNT] = { 13, 10048, 13, 10048, 0, 0, 0, 0, -1, -1,
				       9, 2, 2, 9, 2, 2, 0, 0,
				       [WAKE_FIRST ... WAKE_LAST] = -1 };
	struct snap s0, s1, d;
	struct ibv_qp *a, *b;

	if (pair(c, &a, &b) || ut_post_recv(c, b, NULL, UT_DST, 4096, 10) ||
	    snapshot(c, &s0))
		return -1;
	ut_fill(c->buf + UT_SRC, 8192, 1);
	if (ut_post_send(c, a, IBV_WR_SEND, UT_SRC, 3000, 1, 0, 0) ||
	    ut_expect(c, 10, IBV_WC_SUCCESS, NULL) ||
	    ut_expect(c, 1, IBV_WC_SUCCESS, NULL) ||
	    ut_post_send(c, a, IBV_WR_RDMA_WRITE, UT_SRC, 5000, 2,
			 (uintptr_t)c->buf + UT_DST, c->mr->rkey) ||
	    ut_expect(c, 2, IBV_WC_SUCCESS, NULL) ||
	    ut_post_send(c, a, IBV_WR_RDMA_READ, UT_SRC + 8192, 2048, 3,
			 (uintptr_t)c->buf + UT_DST, c->mr->rkey) ||
	    ut_expect(c, 3, IBV_WC_SUCCESS, NULL) || snapshot(c, &s1))
		return -1;
	CHECK(!memcmp(c->buf + UT_SRC, c->buf + UT_DST, 5000) &&
	      !memcmp(c->buf + UT_SRC, c->buf + UT_SRC + 8192, 2048), "data");
	if (deltas(&s0, &s1, want, &d))
		return -1;
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy");
	return 0;
}

/*
 * READ @len bytes of SRC into DST; the counters must move by @want, and
 * the READ requests sent (tx_requests) be between @min and @max.
 */
static int read_moves(struct ut_ctx *c, struct ibv_qp *a, uint32_t len,
		      const long long *want, long long min, long long max)
{
	struct snap s0, s1, d;

	ut_fill(c->buf + UT_SRC, len, len);
	memset(c->buf + UT_DST, 0, len);
	if (snapshot(c, &s0) ||
	    ut_post_send(c, a, IBV_WR_RDMA_READ, UT_DST, len, 1,
			 (uintptr_t)c->buf + UT_SRC, c->mr->rkey) ||
	    ut_expect(c, 1, IBV_WC_SUCCESS, NULL) || snapshot(c, &s1))
		return -1;
	CHECK(!memcmp(c->buf + UT_SRC, c->buf + UT_DST, len), "data of %u B",
	      len);
	if (deltas(&s0, &s1, want, &d))
		return -1;
	CHECK(d.v[TX_REQ] >= min && d.v[TX_REQ] <= max &&
	      d.v[RX_REQ] == d.v[TX_REQ],
	      "READ of %u B: %lld requests sent, %lld received, expected %lld..%lld",
	      len, d.v[TX_REQ], d.v[RX_REQ], min, max);
	return 0;
}

/*
 * A READ longer than the congestion window (128 PSNs, never cut here) goes
 * as several requests, each answered FIRST to LAST, so that the window
 * bounds its responses (docs/wire.md 14.3): 1 MiB at MTU 1024 is 1024
 * PSNs.  With max_rd_atomic 1, each request waits for the one before to be
 * answered and asks for the whole window: 8 requests.  With 4, a request
 * goes once a quarter of the window is free: 8 to 32 of them.
 */
static int test_read_split(struct ut_ctx *c)
{
	const long long want[NCNT] = { -1, 1 << 20, -1, 1 << 20, 0, 0, 0, 0,
				       -1, -1, -1, 1024, 0, -1, 1024, 0, 0, 0,
				       [WAKE_FIRST ... WAKE_LAST] = -1 };
	struct ibv_qp *a, *b, *a1, *b1;
	int err;

	if (pair(c, &a, &b) || read_moves(c, a, UT_BUF_SIZE, want, 8, 32))
		return -1;
	ut_max_rd_atomic = 1;
	err = pair(c, &a1, &b1);
	ut_max_rd_atomic = 4;
	if (err || read_moves(c, a1, UT_BUF_SIZE, want, 8, 8))
		return -1;
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b) &&
	      !ibv_destroy_qp(a1) && !ibv_destroy_qp(b1), "destroy");
	return 0;
}

/* A SEND that is RNR NAKed until a receive is posted. */
static int test_rnr(struct ut_ctx *c)
{
	const long long want[NCNT] = { -1, -1, -1, -1, -1, -1, 0, 0, -1, -1,
				       -1, 0, -1, -1, 0, -1, 0, 0,
				       [WAKE_FIRST ... WAKE_LAST] = -1 };
	struct snap s0, s1, d;
	struct ibv_qp *a, *b;

	if (pair(c, &a, &b) || snapshot(c, &s0) ||
	    ut_post_send(c, a, IBV_WR_SEND, UT_SRC, 100, 1, 0, 0))
		return -1;
	usleep(30000);
	if (ut_post_recv(c, b, NULL, UT_DST, 100, 10) ||
	    ut_expect(c, 10, IBV_WC_SUCCESS, NULL) ||
	    ut_expect(c, 1, IBV_WC_SUCCESS, NULL) || snapshot(c, &s1) ||
	    deltas(&s0, &s1, want, &d))
		return -1;
	CHECK(d.v[RNR_SENT] >= 1, "no RNR NAK counted");
	CHECK(d.v[RNR_RCVD] == d.v[RNR_SENT], "%lld RNR NAKs received, %lld sent",
	      d.v[RNR_RCVD], d.v[RNR_SENT]);
	/*
	 * Every attempt is one request packet answered by an RNR NAK, but
	 * the last, which is ACKed.
	 */
	CHECK(d.v[TX_REQ] == d.v[RNR_SENT] + 1 && d.v[RX_REQ] == d.v[TX_REQ] &&
	      d.v[TX_ACK] == d.v[RNR_SENT] + 1 && d.v[RX_ACK] == d.v[TX_ACK] &&
	      d.v[SENT_PKTS] == d.v[TX_REQ] + d.v[TX_ACK] &&
	      d.v[RCVD_PKTS] == d.v[SENT_PKTS] &&
	      d.v[SENT_BYTES] == 100 * d.v[TX_REQ] &&
	      d.v[RCVD_BYTES] == d.v[SENT_BYTES],
	      "requests %lld/%lld acks %lld/%lld packets %lld/%lld bytes %lld/%lld for %lld RNR NAKs",
	      d.v[TX_REQ], d.v[RX_REQ], d.v[TX_ACK], d.v[RX_ACK],
	      d.v[SENT_PKTS], d.v[RCVD_PKTS], d.v[SENT_BYTES], d.v[RCVD_BYTES],
	      d.v[RNR_SENT]);
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy");
	return 0;
}

/*
 * The peer QP is gone: retry_cnt 2 means three attempts that reach no
 * responder (each dropped for its QP number, each ending in an ACK
 * timeout), two of them retries, then one error CQE.
 */
static int test_retry(struct ut_ctx *c)
{
	const long long want[NCNT] = { 3, 30, 0, 0, 0, 0, 2, 1, -1, -1,
				       3, 0, 0, 0, 0, 0, 3, 3,
				       [WAKE_FIRST ... WAKE_LAST] = -1 };
	struct snap s0, s1, d;
	struct ibv_qp *a, *b;

	if (pair(c, &a, &b))
		return -1;
	CHECK(!ibv_destroy_qp(b), "destroy peer");
	if (snapshot(c, &s0) ||
	    ut_post_send(c, a, IBV_WR_SEND, UT_SRC, 10, 1, 0, 0) ||
	    ut_expect(c, 1, IBV_WC_RETRY_EXC_ERR, NULL) || snapshot(c, &s1) ||
	    deltas(&s0, &s1, want, &d))
		return -1;
	CHECK(!ibv_destroy_qp(a), "destroy");
	return 0;
}

/* Flushed receives are error CQEs too. */
static int test_flush(struct ut_ctx *c)
{
	const long long want[NCNT] = { 0, 0, 0, 0, 0, 0, 0, 2, -1, -1,
				       0, 0, 0, 0, 0, 0, 0, 0,
				       [WAKE_FIRST ... WAKE_LAST] = -1 };
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	struct snap s0, s1, d;
	struct ibv_qp *a, *b;

	if (pair(c, &a, &b) || ut_post_recv(c, b, NULL, UT_DST, 64, 10) ||
	    ut_post_recv(c, b, NULL, UT_DST, 64, 11) || snapshot(c, &s0))
		return -1;
	CHECK(!ibv_modify_qp(b, &qa, IBV_QP_STATE), "to ERR");
	if (ut_expect(c, 10, IBV_WC_WR_FLUSH_ERR, NULL) ||
	    ut_expect(c, 11, IBV_WC_WR_FLUSH_ERR, NULL) || snapshot(c, &s1) ||
	    deltas(&s0, &s1, want, &d))
		return -1;
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy");
	return 0;
}

/*
 * An idle engine's thread sleeps.  A lone doorbell is served in the WAKE
 * of the caller, which leaves the thread asleep: a thread woken for it
 * would spin for nothing (docs/prm.md 2).  Doorbells closer together than
 * its idle spin wake it.  (A thread that found its CPU wanted may be
 * probed by either: wake-ups are not counted exactly.)
 */
#define BURST 8
static int test_wakeups(struct ut_ctx *c)
{
	const long long lone[NCNT] = { 2, 10, 2, 10, 0, 0, 0, 0, -1, 1,
				       1, 0, 1, 1, 0, 1, 0, 0,
				       [WAKE_FIRST ... WAKE_LAST] = -1 };
	const long long any[NCNT] = { [0 ... NCNT - 1] = -1 };
	struct snap s0, s1, s2, d;
	struct ibv_qp *a, *b;
	struct ibv_wc wc;
	long long n;
	int i;

	if (pair(c, &a, &b) || ut_post_recv(c, b, NULL, UT_DST, 64, 10))
		return -1;
	for (i = 0; i < BURST; i++)
		if (ut_post_recv(c, b, NULL, UT_DST, 64, 200 + i))
			return -1;
	usleep(200000);	/* well past spin_us */
	if (snapshot(c, &s0) ||
	    ut_post_send(c, a, IBV_WR_SEND, UT_SRC, 10, 1, 0, 0) ||
	    ut_expect(c, 10, IBV_WC_SUCCESS, NULL) ||
	    ut_expect(c, 1, IBV_WC_SUCCESS, NULL))
		return -1;
	usleep(50000);	/* a woken thread would count itself */
	if (snapshot(c, &s1) || deltas(&s0, &s1, lone, &d))
		return -1;

	/* One WR a call, back to back: each call a doorbell. */
	for (i = 0; i < BURST; i++)
		if (ut_post_send(c, a, IBV_WR_SEND, UT_SRC, 10, 100 + i, 0, 0))
			return -1;
	for (i = 0; i < 2 * BURST; i++) {
		CHECK(!ut_poll_one(c->cq, &wc), "completion %d of %d missing",
		      i, 2 * BURST);
		CHECK(wc.status == IBV_WC_SUCCESS, "wr_id %llu: %s",
		      (unsigned long long)wc.wr_id,
		      ibv_wc_status_str(wc.status));
	}
	usleep(50000);
	if (snapshot(c, &s2) || deltas(&s1, &s2, any, &d))
		return -1;
	CHECK(d.v[WAKEUPS] >= 1,
	      "%d doorbells back to back did not wake the thread", BURST);
	for (i = WAKE_FIRST, n = 0; i <= WAKE_LAST; i++)
		n += d.v[i];
	CHECK(n == d.v[WAKEUPS], "%lld wake-ups, %lld of them with a cause",
	      d.v[WAKEUPS], n);
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy");
	return 0;
}

static const struct ut_test tests[] = {
	{ "traffic", test_traffic },
	{ "read_split", test_read_split },
	{ "rnr", test_rnr },
	{ "retry", test_retry },
	{ "flush", test_flush },
	{ "wakeups", test_wakeups },
};

int main(int argc, char **argv)
{
	return ut_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
