// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ud_mcast - UD multicast over RoCEv2: receivers attach UD QPs to a group
 * and must get every message one sender sends to it, each exactly once and
 * intact.
 *
 *   ud_mcast -d DEV [-g GID_INDEX] -m GROUP -r [-q QPS] [-n COUNT] [-l PORT]
 *            [-T SECONDS]
 *   ud_mcast -d DEV [-g GID_INDEX] -m GROUP -s [-n COUNT] [-w HOST:PORT]...
 *            [-i USEC]
 *   ud_mcast -d DEV -U -r [-n RING] [-l PORT] [-T SECONDS]
 *   ud_mcast -d DEV [-g GID_INDEX] -D ADDR -Q QPN -s [-n COUNT] [-i USEC]
 *            [-u FILE]
 *
 * GROUP is an IPv4 multicast address (its IPv4-mapped GID is the MGID, as
 * RoCE and rdma_cm map it) or an IPv6 one.  A receiver (-r) attaches QPS
 * UD QPs (default 1), posts COUNT receives on each, then listens on TCP
 * PORT (default 18600) so that a sender can wait for it (-w, repeatable; a
 * sender waits for every receiver it names before it sends).  It exits 0
 * once each QP received messages 0..COUNT-1, each once, with the payload
 * and immediate data the sender derives from the message number; 1 on any
 * loss (after a 30 s timeout, or -T), duplicate or corruption.  The sender
 * sends one message at a time, USEC (default 1000) microseconds apart.
 *
 * Unicast (-U, a UD stream for tests/wire/roce-inject-ud.pairtest): the
 * receiver attaches to no group, prints its QP number ("ready: ... qpn N")
 * and keeps RING receives posted (default 100), each reposted once
 * checked; the sender sends to QP number QPN at ADDR (an IPv4 address,
 * whose IPv4-mapped GID it uses, or an IPv6 GID) COUNT messages, or with
 * -u until FILE exists (at least one), the last one flagged and sent
 * three times (a copy may be lost).  The receiver, after a flagged message
 * and a second for its copies, exits 0 if every message it got came in
 * order, once and intact, and says how many never came ("N messages, M
 * lost": UD does not resend what a link drops); 1 on a duplicate, a
 * message out of order or corrupt, or after T seconds (default 30)
 * without a message.  Uses only the standard verbs API, so it also runs on
 * rxe with Debian's libibverbs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>

#define QKEY		0x11111111u
#define MSG_LEN		256
#define GRH_LEN		40
#define MAX_QPS		16
#define MAX_WAIT	8

static const char *dev_name;
static int gid_index = 1, nqps = 1, count = 100, port = 18600, receiver;
static int have_group, unicast, timeout_s = 30, interval_us = 1000;
static unsigned int dest_qpn = 0xffffff;
static const char *until;
#define LAST_FLAG	0x80000000u	/* unicast: the sender's last message */
static union ibv_gid mgid;
static char *waits[MAX_WAIT];
static int nwaits;

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static uint8_t *buf;

#define FAIL(...)							\
	do {								\
		fprintf(stderr, "ud_mcast: " __VA_ARGS__);		\
		fputc('\n', stderr);					\
		exit(1);						\
	} while (0)

/* Byte i of message @seq's payload. */
static uint8_t pattern(int seq, int i)
{
	return (uint8_t)(seq * 31 + i * 7 + 5);
}

static void open_device(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		FAIL("no device %s", dev_name);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, nqps * count + 16, NULL, NULL, 0);
	buf = calloc((size_t)nqps * count, MSG_LEN + GRH_LEN);
	if (!pd || !cq || !buf)
		FAIL("pd/cq/buffer");
	mr = ibv_reg_mr(pd, buf, (size_t)nqps * count * (MSG_LEN + GRH_LEN),
			IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		FAIL("reg_mr: %s", strerror(errno));
}

static struct ibv_qp *ud_qp(int depth)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = depth, .max_recv_wr = depth,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = QKEY };
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	if (!qp)
		FAIL("create_qp: %s", strerror(errno));
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		FAIL("to INIT: %s", strerror(errno));
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		FAIL("to RTR: %s", strerror(errno));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		FAIL("to RTS: %s", strerror(errno));
	return qp;
}

/* Accepts one connection on @port (a sender waiting for us), in the back. */
static void listen_ready(uint32_t qpn)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(fd, 8))
		FAIL("listen on %d: %s", port, strerror(errno));
	if (unicast)
		printf("ready: listening on %d, qpn %u\n", port, qpn);
	else
		printf("ready: %d QPs attached, listening on %d\n", nqps,
		       port);
	fflush(stdout);
}

static int receive(void)
{
	int got[MAX_QPS] = {}, seen_bytes = 0, total = 0, q, i, n, seq;
	uint32_t qpn[MAX_QPS];
	struct ibv_qp *qps[MAX_QPS];
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc[16];
	uint8_t *seen = calloc((size_t)nqps * count, 1), *p;
	time_t deadline;

	for (q = 0; q < nqps; q++) {
		qps[q] = ud_qp(count);
		qpn[q] = qps[q]->qp_num;
		for (i = 0; i < count; i++) {
			sge.addr = (uintptr_t)buf +
				   ((size_t)q * count + i) * (MSG_LEN + GRH_LEN);
			sge.length = MSG_LEN + GRH_LEN;
			sge.lkey = mr->lkey;
			memset(&wr, 0, sizeof(wr));
			wr.wr_id = (uint64_t)q * count + i;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			if (ibv_post_recv(qps[q], &wr, &bad))
				FAIL("post_recv: %s", strerror(errno));
		}
		if (ibv_attach_mcast(qps[q], &mgid, 0))
			FAIL("attach_mcast: %s", strerror(errno));
	}
	listen_ready(qpn[0]);
	deadline = time(NULL) + timeout_s;
	while (total < nqps * count && time(NULL) < deadline) {
		n = ibv_poll_cq(cq, 16, wc);
		if (n < 0)
			FAIL("poll_cq");
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				FAIL("receive status %s",
				     ibv_wc_status_str(wc[i].status));
			for (q = 0; q < nqps && qpn[q] != wc[i].qp_num; q++)
				;
			if (q == nqps || !(wc[i].wc_flags & IBV_WC_GRH) ||
			    !(wc[i].wc_flags & IBV_WC_WITH_IMM) ||
			    wc[i].byte_len != MSG_LEN + GRH_LEN)
				FAIL("completion: qp %u flags %#x len %u",
				     wc[i].qp_num, wc[i].wc_flags,
				     wc[i].byte_len);
			seq = ntohl(wc[i].imm_data);
			p = buf + wc[i].wr_id * (MSG_LEN + GRH_LEN) + GRH_LEN;
			if (seq < 0 || seq >= count || seen[q * count + seq])
				FAIL("qp %u: message %d out of range or twice",
				     qpn[q], seq);
			for (seen_bytes = 0; seen_bytes < MSG_LEN; seen_bytes++)
				if (p[seen_bytes] != pattern(seq, seen_bytes))
					FAIL("qp %u: message %d byte %d is %#x, want %#x",
					     qpn[q], seq, seen_bytes,
					     p[seen_bytes],
					     pattern(seq, seen_bytes));
			seen[q * count + seq] = 1;
			got[q]++;
			total++;
		}
	}
	for (q = 0; q < nqps; q++) {
		printf("qp %u: %d of %d messages\n", qpn[q], got[q], count);
		if (got[q] != count)
			return 1;
		ibv_detach_mcast(qps[q], &mgid, 0);
		ibv_destroy_qp(qps[q]);
	}
	printf("ok: %d QPs got all %d messages\n", nqps, count);
	return 0;
}

/* Posts receive @slot (of MSG_LEN + GRH_LEN bytes) on @qp. */
static void post_slot(struct ibv_qp *qp, int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf + (size_t)slot * (MSG_LEN + GRH_LEN),
		.length = MSG_LEN + GRH_LEN, .lkey = mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	if (ibv_post_recv(qp, &wr, &bad))
		FAIL("post_recv: %s", strerror(errno));
}

/* Unicast: messages 0, 1, ... in order until the flagged last one. */
static int receive_stream(void)
{
	struct ibv_qp *qp = ud_qp(count);
	struct ibv_wc wc[16];
	uint32_t next = 0, lost = 0, imm, seq;
	time_t idle_end;
	uint8_t *p;
	int i, j, n, last = 0;

	for (i = 0; i < count; i++)
		post_slot(qp, i);
	listen_ready(qp->qp_num);
	idle_end = time(NULL) + timeout_s;
	while (!last) {
		n = ibv_poll_cq(cq, 16, wc);
		if (n < 0)
			FAIL("poll_cq");
		if (!n) {
			if (time(NULL) > idle_end)
				FAIL("qp %u: no message for %d s after %u",
				     qp->qp_num, timeout_s, next);
			continue;
		}
		idle_end = time(NULL) + timeout_s;
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				FAIL("receive status %s after %u messages",
				     ibv_wc_status_str(wc[i].status), next);
			if (last) {	/* a copy of the last message */
				if (ntohl(wc[i].imm_data) !=
				    ((next - 1) | LAST_FLAG))
					FAIL("a message after the last one");
				post_slot(qp, wc[i].wr_id);
				continue;
			}
			if (!(wc[i].wc_flags & IBV_WC_GRH) ||
			    !(wc[i].wc_flags & IBV_WC_WITH_IMM) ||
			    wc[i].byte_len != MSG_LEN + GRH_LEN)
				FAIL("completion: flags %#x len %u",
				     wc[i].wc_flags, wc[i].byte_len);
			imm = ntohl(wc[i].imm_data);
			seq = imm & ~LAST_FLAG;
			if (seq < next)
				FAIL("message %u after %u: a duplicate or out "
				     "of order", seq, next - 1);
			if (seq > next)
				printf("messages %u..%u lost\n", next, seq - 1);
			lost += seq - next;
			next = seq;
			p = buf + wc[i].wr_id * (MSG_LEN + GRH_LEN) + GRH_LEN;
			for (j = 0; j < MSG_LEN; j++)
				if (p[j] != pattern(seq, j))
					FAIL("message %u byte %d is %#x, want "
					     "%#x", seq, j, p[j],
					     pattern(seq, j));
			next++;
			last = !!(imm & LAST_FLAG);
			post_slot(qp, wc[i].wr_id);
		}
	}
	/* The copies of the last message, the only messages still due. */
	idle_end = time(NULL) + 1;
	while (time(NULL) <= idle_end) {
		n = ibv_poll_cq(cq, 16, wc);
		if (n < 0)
			FAIL("poll_cq");
		for (i = 0; i < n; i++) {
			imm = ntohl(wc[i].imm_data);
			if (wc[i].status != IBV_WC_SUCCESS ||
			    imm != ((next - 1) | LAST_FLAG))
				FAIL("after the last message %u: status %s, "
				     "immediate data %#x", next - 1,
				     ibv_wc_status_str(wc[i].status), imm);
			post_slot(qp, wc[i].wr_id);
		}
	}
	printf("ok: qp %u got %u messages in order, intact, %u lost\n",
	       qp->qp_num, next - lost, lost);
	ibv_destroy_qp(qp);
	return 0;
}

/* Waits until HOST:PORT accepts a connection (a ready receiver). */
static void wait_for(const char *hostport)
{
	char host[256], *colon;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	time_t deadline = time(NULL) + 60;
	int fd;

	snprintf(host, sizeof(host), "%s", hostport);
	colon = strrchr(host, ':');
	if (!colon)
		FAIL("-w wants HOST:PORT");
	*colon = 0;
	if (getaddrinfo(host, colon + 1, &hints, &ai))
		FAIL("cannot resolve %s", hostport);
	for (;;) {
		fd = socket(ai->ai_family, SOCK_STREAM, 0);
		if (fd >= 0 && !connect(fd, ai->ai_addr, ai->ai_addrlen)) {
			close(fd);
			break;
		}
		close(fd);
		if (time(NULL) > deadline)
			FAIL("receiver %s never got ready", hostport);
		usleep(100000);
	}
	freeaddrinfo(ai);
}

/* Sends message @seq (LAST_FLAG in @flag or not) and waits for its CQE. */
static void send_one(struct ibv_qp *qp, struct ibv_ah *ah, int seq,
		     uint32_t flag)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = MSG_LEN,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = { .wr_id = seq, .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND_WITH_IMM,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	int j, n;

	for (j = 0; j < MSG_LEN; j++)
		buf[j] = pattern(seq, j);
	wr.imm_data = htonl(seq | flag);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = dest_qpn;
	wr.wr.ud.remote_qkey = QKEY;
	if (ibv_post_send(qp, &wr, &bad))
		FAIL("post_send %d: %s", seq, strerror(errno));
	/* One at a time: the buffer is reused, receivers keep up. */
	do {
		n = ibv_poll_cq(cq, 1, &wc);
	} while (!n);
	if (n < 0 || wc.status != IBV_WC_SUCCESS)
		FAIL("send %d: %s", seq,
		     n < 0 ? "poll" : ibv_wc_status_str(wc.status));
	usleep(interval_us);
}

static int send_all(void)
{
	struct ibv_qp *qp;
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1,
				  .grh = { .dgid = mgid, .hop_limit = 8,
					   .sgid_index = gid_index } };
	struct ibv_ah *ah;
	int i, last, copies;

	for (i = 0; i < nwaits; i++)
		wait_for(waits[i]);
	qp = ud_qp(16);
	ah = ibv_create_ah(pd, &aa);
	if (!ah)
		FAIL("create_ah: %s", strerror(errno));
	for (i = 0;; i++) {
		last = i + 1 >= count && (!until || !access(until, F_OK));
		/* unicast: the last one flagged, three times */
		for (copies = last && unicast ? 3 : 1; copies; copies--)
			send_one(qp, ah, i, last && unicast ? LAST_FLAG : 0);
		if (last)
			break;
	}
	printf("sent %d messages to %s\n", i + 1,
	       unicast ? "the QP" : "the group");
	ibv_destroy_ah(ah);
	ibv_destroy_qp(qp);
	return 0;
}

static void parse_group(const char *s)
{
	struct in_addr a4;

	memset(&mgid, 0, sizeof(mgid));
	if (inet_pton(AF_INET, s, &a4) == 1) {
		mgid.raw[10] = mgid.raw[11] = 0xff;
		memcpy(&mgid.raw[12], &a4, 4);
	} else if (inet_pton(AF_INET6, s, mgid.raw) != 1) {
		FAIL("bad group %s", s);
	}
	have_group = 1;
}

int main(int argc, char **argv)
{
	int opt, sender = 0;

	while ((opt = getopt(argc, argv, "d:g:m:rsq:n:l:w:UD:Q:T:i:u:")) != -1) {
		switch (opt) {
		case 'd': dev_name = optarg; break;
		case 'g': gid_index = atoi(optarg); break;
		case 'm': parse_group(optarg); break;
		case 'r': receiver = 1; break;
		case 's': sender = 1; break;
		case 'q': nqps = atoi(optarg); break;
		case 'n': count = atoi(optarg); break;
		case 'l': port = atoi(optarg); break;
		case 'U': unicast = 1; break;
		case 'D': unicast = 1; parse_group(optarg); break;
		case 'Q': dest_qpn = strtoul(optarg, NULL, 0); break;
		case 'T': timeout_s = atoi(optarg); break;
		case 'i': interval_us = atoi(optarg); break;
		case 'u': until = optarg; break;
		case 'w':
			if (nwaits < MAX_WAIT)
				waits[nwaits++] = optarg;
			break;
		default:
			return 2;
		}
	}
	if (!dev_name || receiver == sender || nqps < 1 || nqps > MAX_QPS ||
	    count < 1 || count > 4096 || (!have_group && !(unicast && receiver)) ||
	    (unicast && (nqps != 1 || (sender && dest_qpn >= 0xffffff))) ||
	    (until && (receiver || !unicast))) {
		fprintf(stderr, "usage: see the header of ud_mcast.c\n");
		return 2;
	}
	open_device();
	if (receiver)
		return unicast ? receive_stream() : receive();
	return send_all();
}
