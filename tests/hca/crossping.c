// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * crossping - two RC QPs of one device send to each other in both
 * directions at once, each from its own thread, for a while: the engine's
 * two sides of each QP run in several contexts at once (the poster's
 * WAKE, the peer's inline runs, the thread), and neither may deadlock,
 * lose, duplicate or reorder a message.  Every message carries its
 * direction, its sequence number and a pattern derived from them, and a
 * length that varies (8 bytes to 4 KiB, one to several packets at MTU
 * 1024); the receiver checks each in order.
 *
 *   crossping [-d DEV] [-g GID_INDEX] [-t SECONDS] [-k OUTSTANDING]
 *
 * Exit 0 if every message arrived intact and in order in both directions,
 * both made progress, and no WQE completed in error.  Run it under the
 * loopback fault injection of mlx_hw (lo_drop_ppm and friends) to take the
 * retransmission paths too.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "hca_util.h"

#define SLOT		4096		/* bytes per message buffer */
#define RECVS		64		/* receives kept posted per QP */
#define MAX_K		32		/* most sends outstanding per QP */
#define HDR		8		/* direction + sequence number */

struct side {
	int dir;			/* 0: A to B, 1: B to A */
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	uint8_t *send_buf;		/* MAX_K slots */
	uint8_t *recv_buf;		/* RECVS slots */
	atomic_uint sent;		/* messages posted, final once done */
	atomic_bool done_sending;
	unsigned int received;		/* messages checked, from the peer */
	unsigned int errors;
	struct side *peer;
};

static struct ut_ctx c;
static unsigned int outstanding = 16;
static time_t deadline;

static uint32_t msg_len(int dir, uint32_t seq)
{
	uint32_t h = (seq * 2654435761u) ^ (dir ? 0x9e3779b9u : 0);

	return HDR + h % (SLOT - HDR + 1);
}

static uint8_t msg_byte(int dir, uint32_t seq, uint32_t i)
{
	return (uint8_t)(seq * 31 + i * 7 + dir * 101 + (i >> 9));
}

static void msg_fill(uint8_t *p, int dir, uint32_t seq)
{
	uint32_t len = msg_len(dir, seq), i;

	memcpy(p, &dir, 4);
	memcpy(p + 4, &seq, 4);
	for (i = HDR; i < len; i++)
		p[i] = msg_byte(dir, seq, i);
}

static int post_recv(struct side *s, unsigned int slot)
{
	struct ibv_sge sge = { (uintptr_t)(s->recv_buf + slot * SLOT), SLOT,
			       c.mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_recv(s->qp, &wr, &bad);
}

static int post_send(struct side *s, uint32_t seq)
{
	unsigned int slot = seq % MAX_K;
	uint8_t *p = s->send_buf + slot * SLOT;
	struct ibv_sge sge = { (uintptr_t)p, msg_len(s->dir, seq), c.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = seq, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	msg_fill(p, s->dir, seq);
	return ibv_post_send(s->qp, &wr, &bad);
}

/* A message from the peer, in slot @slot: the next in its order, intact. */
static int check_recv(struct side *s, const struct ibv_wc *wc)
{
	const uint8_t *p = s->recv_buf + wc->wr_id * SLOT;
	int dir = s->peer->dir;
	uint32_t seq = s->received, got_dir, got_seq, i;

	CHECK(wc->byte_len == msg_len(dir, seq),
	      "dir %d: message %u: %u bytes, expected %u", dir, seq,
	      wc->byte_len, msg_len(dir, seq));
	memcpy(&got_dir, p, 4);
	memcpy(&got_seq, p + 4, 4);
	CHECK(got_dir == (uint32_t)dir && got_seq == seq,
	      "dir %d: message %u arrived as dir %u seq %u (lost, duplicated "
	      "or out of order)", dir, seq, got_dir, got_seq);
	for (i = HDR; i < wc->byte_len && p[i] == msg_byte(dir, seq, i); i++)
		;
	CHECK(i == wc->byte_len,
	      "dir %d: message %u: byte %u is 0x%02x, expected 0x%02x", dir,
	      seq, i, p[i], msg_byte(dir, seq, i));
	s->received++;
	return 0;
}

/* Handles the completions there are; -1 on an error completion. */
static int poll_side(struct side *s, unsigned int *acked)
{
	struct ibv_wc wc[16];
	int n, i;

	n = ibv_poll_cq(s->cq, 16, wc);
	CHECK(n >= 0, "poll_cq");
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			s->errors++;
			CHECK(0, "dir %d: %s completion %s (wr_id %llu)", s->dir,
			      wc[i].opcode & IBV_WC_RECV ? "receive" : "send",
			      ibv_wc_status_str(wc[i].status),
			      (unsigned long long)wc[i].wr_id);
		}
		if (wc[i].opcode & IBV_WC_RECV) {
			if (check_recv(s, &wc[i]))
				return -1;
			SETUP(!post_recv(s, wc[i].wr_id), "repost: %s",
			      strerror(errno));
		} else {
			(*acked)++;
		}
	}
	return 0;
}

/*
 * One direction's thread: keeps @outstanding sends in flight until the
 * deadline, then waits for them and for everything the peer sent.
 */
static void *run_side(void *arg)
{
	struct side *s = arg;
	unsigned int acked = 0, seq = 0, peer_sent;
	time_t give_up;

	while (time(NULL) < deadline) {
		while (seq - acked < outstanding) {
			if (post_send(s, seq)) {
				FAIL_HERE("dir %d: post_send %u: %s", s->dir,
					  seq, strerror(errno));
				return (void *)-1;
			}
			seq++;
		}
		if (poll_side(s, &acked))
			return (void *)-1;
	}
	atomic_store(&s->sent, seq);
	atomic_store(&s->done_sending, true);
	give_up = time(NULL) + 60;
	for (;;) {
		peer_sent = atomic_load(&s->peer->sent);
		if (acked == seq && atomic_load(&s->peer->done_sending) &&
		    s->received == peer_sent)
			break;
		if (time(NULL) > give_up) {
			FAIL_HERE("dir %d: after 60 s: %u of %u sends done, %u "
				  "of %u messages received", s->dir, acked, seq,
				  s->received, peer_sent);
			return (void *)-1;
		}
		if (poll_side(s, &acked))
			return (void *)-1;
	}
	return NULL;
}

static int setup_side(struct side *s, int dir, uint8_t *mem)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = MAX_K, .max_recv_wr = RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	unsigned int i;

	s->dir = dir;
	s->cq = ibv_create_cq(c.ctx, MAX_K + RECVS, NULL, NULL, 0);
	SETUP(s->cq, "create_cq: %s", strerror(errno));
	ia.send_cq = ia.recv_cq = s->cq;
	s->qp = ibv_create_qp(c.pd, &ia);
	SETUP(s->qp, "create_qp: %s", strerror(errno));
	SETUP(!ut_init(s->qp, UT_ACCESS_REMOTE), "init");
	s->send_buf = mem;
	s->recv_buf = mem + MAX_K * SLOT;
	for (i = 0; i < RECVS; i++)
		SETUP(!post_recv(s, i), "post_recv: %s", strerror(errno));
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = "mlx_hw0";
	int gid_index = 1, seconds = 20, opt;
	struct side a = {}, b = {};
	pthread_t ta, tb;
	void *ra, *rb;

	while ((opt = getopt(argc, argv, "d:g:t:k:")) != -1) {
		if (opt == 'd')
			dev = optarg;
		else if (opt == 'g')
			gid_index = atoi(optarg);
		else if (opt == 't')
			seconds = atoi(optarg);
		else if (opt == 'k')
			outstanding = atoi(optarg);
		else
			return 2;
	}
	if (outstanding < 1 || outstanding > MAX_K)
		return 2;
	/* Each side: MAX_K send slots and RECVS receive slots. */
	_Static_assert(2 * (MAX_K + RECVS) * SLOT <= 2 * UT_BUF_SIZE,
		       "buffers fit ut_ctx.buf");
	if (ut_open(&c, dev, gid_index) ||
	    setup_side(&a, 0, c.buf) ||
	    setup_side(&b, 1, c.buf + (MAX_K + RECVS) * SLOT))
		return 1;
	a.peer = &b;
	b.peer = &a;
	/*
	 * As perftest connects: a loss costs one ACK timeout (67 ms), and 7
	 * retries ride out half a second without progress.
	 */
	ut_ack_timeout = 14;
	if (ut_rtr(&c, a.qp, b.qp->qp_num) || ut_rtr(&c, b.qp, a.qp->qp_num) ||
	    ut_rts(a.qp, 7, 7) || ut_rts(b.qp, 7, 7))
		return 1;
	deadline = time(NULL) + seconds;
	if (pthread_create(&ta, NULL, run_side, &a) ||
	    pthread_create(&tb, NULL, run_side, &b))
		return 1;
	pthread_join(ta, &ra);
	pthread_join(tb, &rb);
	VERIFY(!ra && !rb, "a direction failed");
	VERIFY(a.received > 100 && b.received > 100,
	       "too little progress: %u and %u messages", b.received,
	       a.received);
	VERIFY(!a.errors && !b.errors, "error completions");
	printf("crossping: %u messages A->B, %u B->A in %d s, %u checks, %u "
	       "failed\n", b.received, a.received, seconds, check_count,
	       check_failures);
	return check_failures ? 1 : 0;
}
