// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ctl_busy - the control path of a target QP while the wire keeps its
 * receive path busy (tests/wire/ctl-busy.pairtest).
 *
 *   target: ctl_busy [-d DEV] [-g GID_INDEX] [-m MTU] [-p PORT] [-T SECONDS]
 *   sender: ctl_busy [-d DEV] [-g GID_INDEX] [-m MTU] [-p PORT] HOST
 *
 * The sender streams RC traffic to the target as fast as it can, with
 * SEND_DEPTH work requests in flight: SENDs of 32 B to 8 KiB, and RDMA
 * WRITEs of 1 B to 16 KiB into a slot of the target's buffer, each
 * followed by a SEND that names it.  Every SEND carries its round,
 * sequence number, length and the checksums of its bytes and of the WRITE
 * before it; the target checks each message in order (no gap, no
 * duplicate), every byte against the checksums, and reposts the receive.
 * On our stack a packet from the wire runs the target's responder in the
 * softirq that received it (docs/prm.md 2.3), so the target's control
 * path meets a busy receive path.  The two sides agree on each round over
 * a TCP connection, a new QP pair per round, and the target takes the
 * steps in turn until -T seconds (default 25) have passed, each at least
 * once:
 *
 *   resize-cq   for RESIZE_MS it resizes its receive CQ every RESIZE_EVERY_MS
 *               (growing and shrinking, never below the completions it may
 *               hold), then stops the stream: every message the sender
 *               completed arrived once, intact, and no completion failed;
 *   err         after a while that changes from round to round it moves
 *               its QP to ERR mid-stream: every receive it posted completes
 *               once, the messages before in order and intact, the rest
 *               IBV_WC_WR_FLUSH_ERR, no success after a flush, nothing more
 *               after the last; every message the sender saw complete is
 *               among those it received.  The sender's oldest outstanding
 *               WR ends with IBV_WC_RETRY_EXC_ERR (a QP in ERR answers
 *               nothing, IBA 10.3.1, so its peer runs out of retries,
 *               docs/wire.md 14.3), the later ones with
 *               IBV_WC_WR_FLUSH_ERR, and its QP is in ERR;
 *   resize-srq  as resize-cq, with the QP on an SRQ whose max_wr it
 *               modifies (IBV_SRQ_MAX_WR) instead;
 *   destroy     as err, but it destroys its QP and then its CQ, unpolled,
 *               while packets still arrive (for a QPN gone, dropped
 *               silently: the sender runs out of retries the same way).
 *               No completion of a destroyed CQ's round shows up later on
 *               a new one.
 *
 * Where the target runs our stack (device mlx_hw*), it reads its port's
 * hw_counters around each step and asserts that the softirq did the work:
 * rx_requests grew while the stream ran, and the engine thread ran the QP
 * at most once per RUNS_PER_REQUESTS requests (engine_qp_runs), so the
 * responder ran where the packets arrived; after err, rx_drop_state grew
 * (requests kept arriving at the QP in ERR), after destroy rx_drop_qpn.
 * The debugfs object counts are the pair test's to check, after the
 * program exits.
 *
 * Only standard verbs: the sender runs on Debian's libibverbs (rxe) as on
 * ours, and so does the target (without the counter checks).
 *
 * Exit status 0 iff every check of this side passed, 1 after a failed
 * check, 2 when the set-up fails.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "ctl_busy.h"

struct busy_state g;

const char *const step_names[NUM_STEPS] = {
	[STEP_RESIZE_CQ] = "resize-cq",
	[STEP_ERR] = "err",
	[STEP_RESIZE_SRQ] = "resize-srq",
	[STEP_DESTROY] = "destroy",
};

const char *const counter_names[NUM_COUNTERS] = {
	[CNT_RX_REQUESTS] = "rx_requests",
	[CNT_RX_DROP_STATE] = "rx_drop_state",
	[CNT_RX_DROP_QPN] = "rx_drop_qpn",
	[CNT_QP_RUNS] = "engine_qp_runs",
	[CNT_WAKEUPS] = "engine_wakeups",
	[CNT_TX_ACKS] = "tx_acks",
};

static void busy_where(FILE *f)
{
	fprintf(f, "[%s, round %u %s, msg %u] ", g.target ? "target" : "sender",
		g.round, g.round ? step_names[g.step] : "-", g.seq);
}

void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr,
		"ctl_busy %s: round %u: ", g.target ? "target" : "sender",
		g.round);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The peer's ABORT (wire_ctl.c): it gave up, and so does this side. */
void ctl_peer_gave_up(void)
{
	fprintf(stderr, "ctl_busy %s: the peer gave up in round %u\n",
		g.target ? "target" : "sender", g.round);
	exit(1);
}

/* A failed check that leaves the round meaningless: tell the peer, stop. */
static void abort_run(void)
{
	ctl_send("ABORT\n");
}

/* "WORD qpn psn rkey addr gid": this round's QP, to the peer. */
void send_coords(const char *word)
{
	char gid[33];
	int i;

	for (i = 0; i < 16; i++)
		sprintf(gid + 2 * i, "%02x", g.me.gid.raw[i]);
	ctl_send("%s %x %x %x %llx %s\n", word, g.me.qpn, g.me.psn, g.me.rkey,
		 (unsigned long long)g.me.addr, gid);
}

/* The peer's "WORD ..." line into g.peer. */
void recv_coords(const char *word)
{
	char line[256], got[16], gid[33];
	unsigned long long addr;
	int i;

	ctl_recv(line, sizeof(line));
	if (sscanf(line, "%15s %x %x %x %llx %32s", got, &g.peer.qpn,
		   &g.peer.psn, &g.peer.rkey, &addr, gid) != 6 ||
	    strcmp(got, word) || strlen(gid) != 32)
		die("expected '%s' coordinates, got '%s'", word, line);
	g.peer.addr = addr;
	for (i = 0; i < 16; i++)
		sscanf(gid + 2 * i, "%2hhx", &g.peer.gid.raw[i]);
}

/* --- the messages --------------------------------------------------------- */

static uint32_t mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352d;
	x ^= x >> 15;
	x *= 0x846ca68b;
	x ^= x >> 16;
	return x;
}

/*
 * Message seq of a round: a small SEND, a SEND of up to MAX_SEND bytes
 * (several packets at any MTU), or a WRITE of up to MAX_WRITE bytes and the
 * SEND that names it, in turn.
 */
struct msg_shape msg_shape(uint32_t round, uint32_t seq)
{
	uint32_t h = mix(round * 0x9e3779b9u ^ mix(seq));
	uint32_t min = sizeof(struct msg_hdr);
	struct msg_shape s = {.len = min};

	switch (seq % 3) {
	case 0:
		s.len = min + h % 224;
		break;
	case 1:
		s.len = min + h % (MAX_SEND - min + 1);
		break;
	default:
		s.wlen = 1 + h % MAX_WRITE;
		break;
	}
	return s;
}

/* Bytes of a message's SEND (salt 0) or WRITE (salt 1). */
void msg_fill(uint8_t *p, uint32_t len, uint32_t round, uint32_t seq,
	      uint32_t salt)
{
	uint32_t x = mix(round ^ mix(seq ^ mix(salt + 1))) | 1, i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = x;
	}
}

/* FNV-1a. */
uint32_t csum(const uint8_t *p, uint32_t len)
{
	uint32_t h = 2166136261u, i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* --- verbs ---------------------------------------------------------------- */

static enum ibv_mtu mtu_enum(int mtu)
{
	enum ibv_mtu e;

	for (e = IBV_MTU_256; e <= IBV_MTU_4096; e++)
		if (mtu == 128 << e)
			return e;
	die("-m %d: the path MTU is 256, 512, 1024, 2048 or 4096", mtu);
}

static void open_device(const char *name)
{
	struct ibv_device **list;
	struct ibv_port_attr port;
	int i, n;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n && !g.ctx; i++)
		if (!name || !strcmp(ibv_get_device_name(list[i]), name))
			g.ctx = ibv_open_device(list[i]);
	if (!g.ctx)
		die("cannot open device %s", name ? name : "(any)");
	ibv_free_device_list(list);
	g.ours = !strncmp(ibv_get_device_name(g.ctx->device), "mlx_hw", 6);
	if (ibv_query_port(g.ctx, 1, &port))
		die("query_port: %s", strerror(errno));
	if (mtu_enum(g.mtu) > port.active_mtu)
		die("path MTU %d exceeds the port's active MTU", g.mtu);
	if (ibv_query_gid(g.ctx, 1, g.gid_index, &g.me.gid))
		die("query_gid %d: %s", g.gid_index, strerror(errno));
	g.pd = ibv_alloc_pd(g.ctx);
	if (!g.pd)
		die("alloc_pd: %s", strerror(errno));
	g.buf_size =
		g.target ? (size_t)RECVS * MAX_SEND + (size_t)SLOTS * MAX_WRITE
			 : (size_t)SEND_DEPTH * MAX_WRITE;
	g.buf = aligned_alloc(4096, g.buf_size);
	if (!g.buf)
		die("buffer: %s", strerror(errno));
	memset(g.buf, 0, g.buf_size);
	g.mr = ibv_reg_mr(g.pd, g.buf, g.buf_size,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!g.mr)
		die("reg_mr: %s", strerror(errno));
	g.me.rkey = g.mr->rkey;
	/* The target's WRITE slots follow its receive buffers. */
	g.me.addr = (uintptr_t)g.buf + (g.target ? RECVS * MAX_SEND : 0);
}

/* An RC QP of this round on @cq (and @srq), in INIT. */
struct ibv_qp *create_qp(struct ibv_cq *cq, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr qia = {
		.qp_type = IBV_QPT_RC,
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.cap = {.max_send_wr = g.target ? 1 : SEND_DEPTH,
			.max_recv_wr = g.target && !srq ? RECVS : 1,
			.max_send_sge = 1,
			.max_recv_sge = 1},
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	struct ibv_qp *qp;

	qp = ibv_create_qp(g.pd, &qia);
	if (!qp)
		die("create_qp: %s", strerror(errno));
	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT: %s", strerror(errno));
	g.me.qpn = qp->qp_num;
	g.me.psn = mix(g.round ^ mix(getpid())) & 0xffffff;
	return qp;
}

/*
 * RTR and RTS to @peer.  ACK timeout code 14 (67 ms), @retry_cnt retries;
 * RNR retried for ever (the target reposts its receives at once) after
 * 0.01 ms, the shortest wait (code 1).
 */
void connect_qp(struct ibv_qp *qp, const struct coords *peer, int retry_cnt)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = mtu_enum(g.mtu),
		.dest_qp_num = peer->qpn,
		.rq_psn = peer->psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 1,
		.ah_attr = {.is_global = 1,
			    .grh = {.dgid = peer->gid,
				    .sgid_index = g.gid_index,
				    .hop_limit = 64},
			    .port_num = 1},
	};

	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
		die("modify_qp RTR: %s", strerror(errno));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = retry_cnt;
	a.rnr_retry = 7;
	a.sq_psn = g.me.psn;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				  IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify_qp RTS: %s", strerror(errno));
}

/* --- the target's counters ------------------------------------------------ */

void counters_read(struct counters *c)
{
	char path[256];
	unsigned long long v;
	FILE *f;
	int i;

	for (i = 0; i < NUM_COUNTERS; i++) {
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/hw_counters/%s",
			 ibv_get_device_name(g.ctx->device), counter_names[i]);
		f = fopen(path, "r");
		if (!f || fscanf(f, "%llu", &v) != 1)
			die("%s: %s", path, strerror(errno));
		fclose(f);
		c->v[i] = v;
	}
}

uint64_t counter_delta(const struct counters *a, const struct counters *b,
		       enum counter n)
{
	return b->v[n] - a->v[n];
}

static void usage(void)
{
	fprintf(stderr, "usage: ctl_busy [-d DEV] [-g GID_INDEX] [-m MTU] "
			"[-p PORT] [-T SECONDS] [HOST]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *port = "18830";
	char name[64];
	int c;

	check_where = busy_where;
	check_on_fatal = abort_run;
	g.mtu = 1024;
	g.gid_index = 1;
	g.budget_s = 25;
	while ((c = getopt(argc, argv, "d:g:m:p:T:")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'g':
			g.gid_index = atoi(optarg);
			break;
		case 'm':
			g.mtu = atoi(optarg);
			break;
		case 'p':
			port = optarg;
			break;
		case 'T':
			g.budget_s = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (optind < argc - 1)
		usage();
	g.target = optind == argc;
	setvbuf(stdout, NULL, _IOLBF, 0);
	mtu_enum(g.mtu);
	open_device(dev);
	ctl_timeout_ms = CTL_TIMEOUT_MS;
	ctl_connect(g.target ? NULL : argv[optind], port);
	if (g.target)
		target_run();
	else
		sender_run();
	snprintf(name, sizeof(name), "%s", ibv_get_device_name(g.ctx->device));
	VERIFY(!ibv_dereg_mr(g.mr), "dereg_mr: %s", strerror(errno));
	VERIFY(!ibv_dealloc_pd(g.pd), "dealloc_pd: %s", strerror(errno));
	VERIFY(!ibv_close_device(g.ctx), "close_device: %s", strerror(errno));
	printf("ctl_busy %s: %s, mtu %d: %u rounds, %u checks, %u failures: "
	       "%s\n",
	       g.target ? "target" : "sender", name, g.mtu, g.round,
	       check_count, check_failures, check_failures ? "FAIL" : "PASS");
	return check_failures ? 1 : 0;
}
