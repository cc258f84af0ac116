// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * wire_data - data across the wire on one RC QP pair, every byte checked.
 *
 *   server: wire_data [-d DEV] [-g GID_INDEX] [-m MTU] [-p PORT] [-s SEED]
 *                     [-M BYTES] [-l] [-b MIB [-o swr] |
 *                     -c stream|quiet -C CMD [-t TIMEOUT] [-r RETRY]]
 *   client: wire_data (the same options) [-u FILE] HOST
 *
 * The two sides exchange QP number, PSN, GID, rkey and buffer address over
 * TCP and connect an RC QP with path MTU MTU (256..4096, default 1024) on
 * GID index GID_INDEX (default 1), with PSNs that wrap during the run.  The
 * client then moves one message at a time, in lockstep with the server over
 * the TCP connection: SEND, SEND_WITH_IMM, SEND_WITH_INV (invalidating a
 * type 2 memory window the server bound for that message), RDMA_WRITE,
 * RDMA_WRITE_WITH_IMM and RDMA_READ of 0, 1, MTU-1, MTU, MTU+1, 4 MTU,
 * 5 MTU+3 bytes and 1 MiB; then ATOMIC_CMP_AND_SWP (a hit and a miss),
 * ATOMIC_FETCH_AND_ADD twice (the second carries into the high word) and a
 * READ of the result; last an RDMA_WRITE through the last invalidated rkey,
 * which must fail with a remote access error and change nothing.  With -u
 * the client repeats the sequence up to the atomics (a round) until FILE
 * exists, at least once, and the server follows: a stream that lasts as
 * long as a test needs (tests/wire/roce-inject.pairtest).  -M (both sides)
 * caps the message sizes at BYTES: shorter bursts, which a lossy link
 * drops less of.  -l says the link loses packets (netem, lo_drop_ppm): the
 * last WRITE may then end with retries exceeded, its NAK lost.
 *
 * Message data follow a pattern of SEED and the message's index, at an
 * offset that changes from one message to the next.  The side that receives
 * data checks every byte and the guard bytes around them; both sides check
 * every completion's status, opcode, byte_len, immediate data and
 * invalidated rkey; the client checks the atomics' original values, the
 * server the final value in its memory.  Only standard verbs are used: the
 * program runs on Debian's libibverbs (rxe) as on ours.
 *
 * Bulk mode (-b MIB): instead of the messages above, the client moves MIB
 * MiB three times, each time with BULK_DEPTH work requests of 64 KiB in
 * flight: by SEND (the server keeps BULK_RECVS receives posted, each for its
 * place in its buffer), by RDMA WRITE into the server's buffer, and by RDMA
 * READ of it (the server having filled it anew).  Both sides then compute a
 * checksum of each MiB of their buffer (the data sent and the data received)
 * and compare them over the TCP connection; a MiB that differs fails.  The
 * time of each transfer is printed, for information only.  -o takes a subset
 * of the letters s, w, r: only those transfers (both sides must agree).
 *
 * Cut mode (-c stream|quiet, with -C CMD): the client streams RDMA WRITEs
 * of 4 KiB (BULK_DEPTH in flight) on a QP with ACK timeout -t and retry count -r, and
 * after CUT_WRS completions runs CMD (sh -c), which is to cut the link; the
 * server runs its own CMD once connected and ends when it returns.  With
 * "stream" CMD runs while the client keeps the stream going; with "quiet"
 * the client first waits for every completion, runs CMD to its end, then
 * posts BULK_DEPTH WRITEs.  Either way the oldest outstanding WQE must
 * complete with IBV_WC_RETRY_EXC_ERR, every later one with
 * IBV_WC_WR_FLUSH_ERR, in order, within CUT_LIMIT_S, and the QP must be in
 * ERR; "quiet" also checks that the error took at least retry_count + 1 ACK
 * timeouts.
 *
 * Exit status 0 iff every check of this side passed, 1 after a failed check
 * (each printed with the operation, size and byte), 2 when the set-up fails.
 */
#include "wire_data.h"

enum op { OP_SEND, OP_SEND_IMM, OP_SEND_INV, OP_WRITE, OP_WRITE_IMM, OP_READ };
static const char *const op_name[] = {
	"SEND",	      "SEND_WITH_IMM",	     "SEND_WITH_INV",
	"RDMA_WRITE", "RDMA_WRITE_WITH_IMM", "RDMA_READ",
};
#define N_OPS 6
#define N_SIZES 8

struct wire_state g;

void fail(const char *fmt, ...)
{
	va_list ap;

	g.failures++;
	fprintf(stderr, "FAIL [%s, mtu %d] msg %u %s, %u bytes: ",
		g.server ? "server" : "client", g.mtu, g.msg, g.what, g.size);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}


void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "wire_data %s: ", g.server ? "server" : "client");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* --- data pattern and guards --------------------------------------------- */

static uint32_t pattern_state(unsigned int msg)
{
	uint32_t x = g.seed * 2654435761u ^ (msg + 1) * 40503u;

	return x ? x : 1;
}

static uint8_t pattern_next(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x >> 24;
}

static void pattern_fill(uint8_t *p, size_t n, unsigned int msg)
{
	uint32_t x = pattern_state(msg);
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = pattern_next(&x);
}

/* The index of the first byte of @p[0..n) that is not the guard, or -1. */
static long guard_broken(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != GUARD_BYTE)
			return i;
	return -1;
}

/* Checks message @msg's @n bytes at @p and the guards around them. */
static void check_data(const uint8_t *p, size_t n, unsigned int msg,
		       const char *where)
{
	uint32_t x = pattern_state(msg);
	size_t i, bad = 0, first = 0;
	uint8_t want, first_want = 0;
	long before = guard_broken(p - MSG_BASE, MSG_BASE);
	long after = guard_broken(p + n, GUARD);

	for (i = 0; i < n; i++) {
		want = pattern_next(&x);
		if (p[i] != want && !bad++) {
			first = i;
			first_want = want;
		}
	}
	CHECK(!bad,
	      "%s: %zu of %zu bytes differ, the first at byte %zu: 0x%02x, "
	      "expected 0x%02x",
	      where, bad, n, first, p[first], first_want);
	CHECK(before < 0,
	      "%s: byte %ld (before the message) is 0x%02x, expected the guard "
	      "0x%02x",
	      where, before - MSG_BASE, p[before - MSG_BASE], GUARD_BYTE);
	CHECK(after < 0,
	      "%s: byte %zu (past the end) is 0x%02x, expected the guard 0x%02x",
	      where, n + after, p[n + after], GUARD_BYTE);
}

/* The message area of message @msg in a region: a moving offset. */
static uint8_t *msg_at(size_t region, unsigned int msg)
{
	return g.buf + region + MSG_BASE + (msg * 7) % 64;
}

static void guard_area(uint8_t *p, size_t n)
{
	memset(p - MSG_BASE, GUARD_BYTE, MSG_BASE + n + GUARD);
}

/* --- the TCP control connection: one text line per message --------------- */

void ctl_send(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	ssize_t done = 0, r;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	while (done < n) {
		r = write(g.sock, line + done, n - done);
		if (r <= 0)
			die("control connection: write: %s", strerror(errno));
		done += r;
	}
}

/* Reads a line; "ABORT" from the peer ends this side too. */
void ctl_recv(char *line, size_t len)
{
	struct pollfd pfd = {.fd = g.sock, .events = POLLIN};
	size_t n = 0;

	while (n + 1 < len) {
		if (poll(&pfd, 1, g.ctl_timeout_ms) != 1)
			die("control connection: nothing from the peer in %d s "
			    "(msg %u)",
			    g.ctl_timeout_ms / 1000, g.msg);
		if (read(g.sock, line + n, 1) != 1)
			die("control connection closed by the peer (msg %u)",
			    g.msg);
		if (line[n] == '\n')
			break;
		n++;
	}
	line[n] = 0;
	if (!strncmp(line, "ABORT", 5)) {
		fprintf(stderr, "wire_data %s: the peer gave up at msg %u\n",
			g.server ? "server" : "client", g.msg);
		exit(1);
	}
}

/* Waits for "<word> <msg> ..." and returns the rest of the line's number. */
uint32_t ctl_expect(const char *word, unsigned int msg)
{
	char line[256], got[32];
	unsigned int m, arg = 0;

	ctl_recv(line, sizeof(line));
	if (sscanf(line, "%31s %u %x", got, &m, &arg) < 2 ||
	    strcmp(got, word) || m != msg)
		die("control connection: got '%s', expected '%s %u'", line,
		    word, msg);
	return arg;
}

/* A failed completion leaves the QP in error: tell the peer and stop. */
void abort_run(void)
{
	ctl_send("ABORT\n");
	fprintf(stderr,
		"wire_data %s: mtu %d: aborted at msg %u after %u failures\n",
		g.server ? "server" : "client", g.mtu, g.msg, g.failures);
	exit(1);
}

static void connect_tcp(const char *host, const char *port)
{
	struct addrinfo hints = {.ai_family = AF_INET,
				 .ai_socktype = SOCK_STREAM,
				 .ai_flags = host ? 0 : AI_PASSIVE},
			*res;
	int one = 1, fd, err;

	err = getaddrinfo(host, port, &hints, &res);
	if (err)
		die("getaddrinfo %s:%s: %s", host ? host : "*", port,
		    gai_strerror(err));
	fd = socket(res->ai_family, res->ai_socktype, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	if (host) {
		if (connect(fd, res->ai_addr, res->ai_addrlen))
			die("connect %s:%s: %s", host, port, strerror(errno));
		g.sock = fd;
	} else {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 1))
			die("listen on port %s: %s", port, strerror(errno));
		g.sock = accept(fd, NULL, NULL);
		if (g.sock < 0)
			die("accept: %s", strerror(errno));
		close(fd);
	}
	freeaddrinfo(res);
}

/* Sends our QP's coordinates and reads the peer's. */
static void exchange(void)
{
	char line[256], gid[33];
	unsigned long long addr;
	unsigned int bulk, cut;
	int i;

	for (i = 0; i < 16; i++)
		sprintf(gid + 2 * i, "%02x", g.me.gid.raw[i]);
	ctl_send("WIRE %x %x %x %llx %s %u %u %u %u %u\n", g.me.qpn, g.me.psn,
		 g.me.rkey, (unsigned long long)g.me.addr, gid, g.me.mtu,
		 g.me.seed, g.max_msg, g.bulk_mib, g.cut);
	ctl_recv(line, sizeof(line));
	if (sscanf(line, "WIRE %x %x %x %llx %32s %u %u %u %u %u", &g.peer.qpn,
		   &g.peer.psn, &g.peer.rkey, &addr, gid, &g.peer.mtu,
		   &g.peer.seed, &g.peer.max_msg, &bulk, &cut) != 10 ||
	    strlen(gid) != 32)
		die("the peer's coordinates: '%s'", line);
	if (g.peer.max_msg != g.max_msg || bulk != g.bulk_mib || cut != g.cut)
		die("the peer runs with -M %u, -b %u and cut mode %u, this side "
		    "with -M %u, -b %u and cut mode %u",
		    g.peer.max_msg, bulk, cut, g.max_msg, g.bulk_mib, g.cut);
	g.peer.addr = addr;
	for (i = 0; i < 16; i++)
		sscanf(gid + 2 * i, "%2hhx", &g.peer.gid.raw[i]);
	if (g.peer.mtu != g.me.mtu || g.peer.seed != g.me.seed)
		die("the peer runs with mtu %u seed %u, this side mtu %u seed "
		    "%u",
		    g.peer.mtu, g.peer.seed, g.me.mtu, g.me.seed);
}

/* --- verbs ---------------------------------------------------------------- */

static enum ibv_mtu mtu_enum(int mtu)
{
	enum ibv_mtu e;

	for (e = IBV_MTU_256; e <= IBV_MTU_4096; e++)
		if (mtu == 128 << e)
			return e;
	die("-m %d: the path MTU is 256, 512, 1024, 2048 or 4096", mtu);
	return 0;
}

static void open_device(const char *name)
{
	struct ibv_qp_init_attr qia = {
		.qp_type = IBV_QPT_RC,
		.cap = {.max_send_wr = BULK_DEPTH,
			.max_recv_wr = BULK_RECVS,
			.max_send_sge = 1,
			.max_recv_sge = 1},
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};
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
	if (ibv_query_port(g.ctx, 1, &port))
		die("query_port: %s", strerror(errno));
	if (mtu_enum(g.mtu) > port.active_mtu)
		die("path MTU %d exceeds the port's active MTU (enum %d): the "
		    "link's MTU is too small",
		    g.mtu, port.active_mtu);
	if (ibv_query_gid(g.ctx, 1, g.gid_index, &g.me.gid))
		die("query_gid %d: %s", g.gid_index, strerror(errno));
	g.pd = ibv_alloc_pd(g.ctx);
	g.channel = ibv_create_comp_channel(g.ctx);
	if (!g.channel)
		die("create_comp_channel: %s", strerror(errno));
	g.cq = ibv_create_cq(g.ctx, BULK_DEPTH + BULK_RECVS, NULL, g.channel,
			     0);
	g.buf_size = BULK_OFF;
	if (g.bulk_mib)
		g.buf_size += (size_t)g.bulk_mib * MIB;
	else if (g.cut)
		g.buf_size += MIB;
	g.buf = aligned_alloc(4096, g.buf_size);
	if (!g.pd || !g.cq || !g.buf)
		die("pd, cq or buffer: %s", strerror(errno));
	memset(g.buf, 0, g.buf_size);
	g.mr = ibv_reg_mr(g.pd, g.buf, g.buf_size,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ |
				  IBV_ACCESS_REMOTE_ATOMIC |
				  IBV_ACCESS_MW_BIND);
	if (!g.mr)
		die("reg_mr: %s", strerror(errno));
	qia.send_cq = qia.recv_cq = g.cq;
	g.qp = ibv_create_qp(g.pd, &qia);
	if (!g.qp)
		die("create_qp: %s", strerror(errno));
	if (ibv_modify_qp(g.qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT: %s", strerror(errno));
	if (g.server) {
		g.mw = ibv_alloc_mw(g.pd, IBV_MW_TYPE_2);
		if (!g.mw)
			die("alloc_mw type 2: %s", strerror(errno));
		g.mw_rkey = g.mw->rkey;
	}
	/*
	 * rdma_rxe hands its user CQs the kernel's wc_flags, where
	 * IB_WC_WITH_INVALIDATE is 1 << 2 (IBV_WC_IP_CSUM_OK to libibverbs)
	 * and IBV_WC_WITH_INV's bit is never set: on rxe that bit says it.
	 */
	g.inv_flag = strncmp(ibv_get_device_name(g.ctx->device), "rxe", 3)
			     ? IBV_WC_WITH_INV
			     : IBV_WC_IP_CSUM_OK;
	g.me.qpn = g.qp->qp_num;
	/* 24-bit PSNs a few packets short of the wrap */
	g.me.psn = 0xffffff - 16 - (g.seed & 0xff);
	g.me.rkey = g.mr->rkey;
	g.me.addr = (uintptr_t)g.buf;
	g.me.mtu = g.mtu;
	g.me.seed = g.seed;
}

static void connect_qp(void)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = mtu_enum(g.mtu),
		.dest_qp_num = g.peer.qpn,
		.rq_psn = g.peer.psn,
		.max_dest_rd_atomic = 4,
		.min_rnr_timer = 12,
		.ah_attr = {.is_global = 1,
			    .grh = {.dgid = g.peer.gid,
				    .sgid_index = g.gid_index,
				    .hop_limit = 64},
			    .port_num = 1},
	};

	if (ibv_modify_qp(g.qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
		die("modify_qp RTR: %s", strerror(errno));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = g.timeout;
	a.retry_cnt = g.retry_cnt;
	a.rnr_retry = 7;
	a.sq_psn = g.me.psn;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(g.qp, &a,
			  IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				  IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify_qp RTS: %s", strerror(errno));
}

/* The next completion, within CQ_TIMEOUT_S; aborts without one. */
static void poll_one(struct ibv_wc *wc)
{
	time_t end = time(NULL) + CQ_TIMEOUT_S;
	int n;

	while (!(n = ibv_poll_cq(g.cq, 1, wc)))
		if (time(NULL) > end)
			break;
	if (n != 1) {
		fail("no completion within %d s (poll_cq %d)", CQ_TIMEOUT_S, n);
		abort_run();
	}
}

/*
 * Checks the next completion; a failed one ends the run.  @byte_len < 0:
 * not checked; @flags < 0: wc_flags not checked (a send completion's are
 * undefined), else the WITH_IMM and WITH_INV flags it must have.
 */
static void expect_wc(uint64_t wr_id, enum ibv_wc_opcode opcode,
		      enum ibv_wc_status status, int byte_len, int flags,
		      uint32_t imm_or_rkey)
{
	unsigned int mask = IBV_WC_WITH_IMM | g.inv_flag, want;
	struct ibv_wc wc;

	poll_one(&wc);
	CHECK(wc.status == status, "completion status %s (%d), expected %s",
	      ibv_wc_status_str(wc.status), wc.status,
	      ibv_wc_status_str(status));
	if (wc.status != IBV_WC_SUCCESS) {
		if (wc.status != status)
			abort_run();
		return;
	}
	CHECK(wc.wr_id == wr_id, "completion wr_id %llu, expected %llu",
	      (unsigned long long)wc.wr_id, (unsigned long long)wr_id);
	CHECK(wc.opcode == opcode, "completion opcode %d, expected %d",
	      wc.opcode, opcode);
	CHECK(wc.qp_num == g.qp->qp_num, "completion qp_num %#x, expected %#x",
	      wc.qp_num, g.qp->qp_num);
	if (byte_len >= 0)
		CHECK(wc.byte_len == (uint32_t)byte_len,
		      "completion byte_len %u, expected %d", wc.byte_len,
		      byte_len);
	if (flags < 0)
		return;
	want = (flags & IBV_WC_WITH_IMM) |
	       (flags & IBV_WC_WITH_INV ? g.inv_flag : 0);
	CHECK((wc.wc_flags & mask) == want,
	      "completion wc_flags %#x, expected %#x of %#x (WITH_IMM, "
	      "WITH_INV)",
	      wc.wc_flags, want, mask);
	if (flags & IBV_WC_WITH_IMM)
		CHECK(ntohl(wc.imm_data) == imm_or_rkey,
		      "immediate data %#x, expected %#x", ntohl(wc.imm_data),
		      imm_or_rkey);
	if (flags & IBV_WC_WITH_INV)
		CHECK(wc.invalidated_rkey == imm_or_rkey,
		      "invalidated rkey %#x, expected %#x", wc.invalidated_rkey,
		      imm_or_rkey);
}

void post_send(struct ibv_send_wr *wr, void *addr, size_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = g.mr->lkey};
	struct ibv_send_wr *bad;

	wr->sg_list = &sge;
	wr->num_sge = len ? 1 : 0;
	wr->send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(g.qp, wr, &bad)) {
		fail("post_send: %s", strerror(errno));
		abort_run();
	}
}

void post_recv(void *addr, size_t len, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = g.mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = wr_id,
				 .sg_list = &sge,
				 .num_sge = addr != NULL},
			   *bad;

	if (ibv_post_recv(g.qp, &wr, &bad)) {
		fail("post_recv: %s", strerror(errno));
		abort_run();
	}
}

/* --- the messages --------------------------------------------------------- */

static uint32_t imm_of(unsigned int msg)
{
	return 0x5a000000 | (g.seed & 0xff) << 16 | msg;
}

static unsigned int size_of(int i)
{
	const unsigned int m = g.mtu;
	const unsigned int sizes[N_SIZES] = {
		0, 1, m - 1, m, m + 1, 4 * m, 5 * m + 3, MAX_MSG,
	};

	return sizes[i] < g.max_msg ? sizes[i] : g.max_msg;
}

/* Binds the type 2 window to the server's window area under a new rkey. */
static void bind_window(void)
{
	struct ibv_send_wr wr = {.wr_id = 1000000 + g.msg,
				 .opcode = IBV_WR_BIND_MW,
				 .send_flags = IBV_SEND_SIGNALED},
			   *bad;
	struct ibv_mw_bind_info *bi = &wr.bind_mw.bind_info;

	wr.bind_mw.mw = g.mw;
	wr.bind_mw.rkey = ibv_inc_rkey(g.mw_rkey);
	bi->mr = g.mr;
	bi->addr = (uintptr_t)g.buf + MW_OFF;
	bi->length = 4096;
	bi->mw_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	if (ibv_post_send(g.qp, &wr, &bad)) {
		fail("post BIND_MW: %s", strerror(errno));
		abort_run();
	}
	g.mw_rkey = wr.bind_mw.rkey;
	expect_wc(wr.wr_id, IBV_WC_BIND_MW, IBV_WC_SUCCESS, -1, -1, 0);
	/* rxe names the window by the rkey it holds (others by its index) */
	g.mw->rkey = g.mw_rkey;
}

static void server_message(enum op op, unsigned int n)
{
	uint8_t *p = msg_at(0, g.msg);
	uint32_t rkey = 0;

	guard_area(p, n);
	if (op == OP_READ)
		pattern_fill(p, n, g.msg);
	if (op == OP_SEND_INV) {
		bind_window();
		rkey = g.mw_rkey;
	}
	if (op <= OP_SEND_INV)
		post_recv(p, n + GUARD, g.msg);
	else if (op == OP_WRITE_IMM)
		post_recv(NULL, 0, g.msg);
	ctl_send("READY %u %x\n", g.msg, rkey);
	ctl_expect("DONE", g.msg);

	switch (op) {
	case OP_SEND:
		expect_wc(g.msg, IBV_WC_RECV, IBV_WC_SUCCESS, n, 0, 0);
		break;
	case OP_SEND_IMM:
		expect_wc(g.msg, IBV_WC_RECV, IBV_WC_SUCCESS, n,
			  IBV_WC_WITH_IMM, imm_of(g.msg));
		break;
	case OP_SEND_INV:
		expect_wc(g.msg, IBV_WC_RECV, IBV_WC_SUCCESS, n,
			  IBV_WC_WITH_INV, rkey);
		break;
	case OP_WRITE_IMM:
		expect_wc(g.msg, IBV_WC_RECV_RDMA_WITH_IMM, IBV_WC_SUCCESS, n,
			  IBV_WC_WITH_IMM, imm_of(g.msg));
		break;
	default:
		break;
	}
	check_data(p, n, g.msg,
		   op == OP_READ ? "the READ's source" : "received data");
}

static void client_message(enum op op, unsigned int n)
{
	static const enum ibv_wr_opcode wr_op[N_OPS] = {
		IBV_WR_SEND,
		IBV_WR_SEND_WITH_IMM,
		IBV_WR_SEND_WITH_INV,
		IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM,
		IBV_WR_RDMA_READ,
	};
	struct ibv_send_wr wr = {.wr_id = g.msg, .opcode = wr_op[op]};
	uint8_t *src = msg_at(0, g.msg), *dst = msg_at(REGION, g.msg);
	uint32_t rkey = ctl_expect("READY", g.msg);

	wr.wr.rdma.remote_addr = g.peer.addr + (src - g.buf);
	wr.wr.rdma.rkey = g.peer.rkey;
	if (op == OP_SEND_IMM || op == OP_WRITE_IMM)
		wr.imm_data = htonl(imm_of(g.msg));
	if (op == OP_SEND_INV)
		wr.invalidate_rkey = rkey;
	if (op == OP_READ) {
		guard_area(dst, n);
		post_send(&wr, dst, n);
		expect_wc(g.msg, IBV_WC_RDMA_READ, IBV_WC_SUCCESS, n, -1, 0);
		check_data(dst, n, g.msg, "read data");
	} else {
		pattern_fill(src, n, g.msg);
		post_send(&wr, src, n);
		expect_wc(g.msg,
			  op <= OP_SEND_INV ? IBV_WC_SEND : IBV_WC_RDMA_WRITE,
			  IBV_WC_SUCCESS, -1, -1, 0);
	}
	ctl_send("DONE %u\n", g.msg);
}

/*
 * Atomics on the server's 8 bytes at ATOM_OFF + 8 (its neighbours guard):
 * CAS hit V0 -> V1, CAS miss (compare V0 again), FETCH_ADD A1, FETCH_ADD A2
 * (carry into the high word), then a READ of the result.
 */
#define V0 (0x0123456789abcdefull ^ g.seed)
#define V1 (~V0)
#define A1 0x0000000100000001ull
#define A2 0x00000000ffffffffull
#define V_END (V1 + A1 + A2)

static void server_atomics(void)
{
	uint64_t *t = (uint64_t *)(g.buf + ATOM_OFF);

	t[0] = t[2] = 0xa5a5a5a5a5a5a5a5ull;
	t[1] = V0;
	ctl_send("READY %u 0\n", g.msg);
	ctl_expect("DONE", g.msg);
	CHECK(t[1] == V_END, "final value %#llx, expected %#llx",
	      (unsigned long long)t[1], (unsigned long long)V_END);
	CHECK(t[0] == 0xa5a5a5a5a5a5a5a5ull && t[2] == 0xa5a5a5a5a5a5a5a5ull,
	      "the target's neighbours changed: %#llx %#llx",
	      (unsigned long long)t[0], (unsigned long long)t[2]);
}

static void client_atomic(enum ibv_wr_opcode opcode, uint64_t compare_add,
			  uint64_t swap, uint64_t want, const char *what)
{
	uint64_t *res = (uint64_t *)(g.buf + ATOM_OFF);
	struct ibv_send_wr wr = {.wr_id = g.msg, .opcode = opcode};

	g.what = what;
	*res = 0xdeaddeaddeaddeadull;
	if (opcode == IBV_WR_RDMA_READ) {
		wr.wr.rdma.remote_addr = g.peer.addr + ATOM_OFF + 8;
		wr.wr.rdma.rkey = g.peer.rkey;
	} else {
		wr.wr.atomic.remote_addr = g.peer.addr + ATOM_OFF + 8;
		wr.wr.atomic.rkey = g.peer.rkey;
		wr.wr.atomic.compare_add = compare_add;
		wr.wr.atomic.swap = swap;
	}
	post_send(&wr, res, 8);
	expect_wc(g.msg,
		  opcode == IBV_WR_ATOMIC_CMP_AND_SWP	  ? IBV_WC_COMP_SWAP
		  : opcode == IBV_WR_ATOMIC_FETCH_AND_ADD ? IBV_WC_FETCH_ADD
							  : IBV_WC_RDMA_READ,
		  IBV_WC_SUCCESS, 8, -1, 0);
	CHECK(*res == want, "returned %#llx, expected %#llx",
	      (unsigned long long)*res, (unsigned long long)want);
}

static void client_atomics(void)
{
	ctl_expect("READY", g.msg);
	client_atomic(IBV_WR_ATOMIC_CMP_AND_SWP, V0, V1, V0,
		      "ATOMIC_CMP_AND_SWP (equal: swaps)");
	client_atomic(IBV_WR_ATOMIC_CMP_AND_SWP, V0, 42, V1,
		      "ATOMIC_CMP_AND_SWP (not equal: keeps)");
	client_atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, A1, 0, V1,
		      "ATOMIC_FETCH_AND_ADD");
	client_atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, A2, 0, V1 + A1,
		      "ATOMIC_FETCH_AND_ADD (carry)");
	client_atomic(IBV_WR_RDMA_READ, 0, 0, V_END,
		      "RDMA_READ of the atomics' target");
	ctl_send("DONE %u\n", g.msg);
}

/* The last window rkey was invalidated: a WRITE through it must fail. */
static void server_invalidated(void)
{
	uint8_t *w = g.buf + MW_OFF;
	long i;

	memset(w, GUARD_BYTE, 64);
	ctl_send("READY %u %x\n", g.msg, g.mw_rkey);
	ctl_expect("DONE", g.msg);
	i = guard_broken(w, 64);
	CHECK(i < 0,
	      "byte %ld of the window is 0x%02x after a WRITE through its "
	      "invalidated rkey",
	      i, w[i < 0 ? 0 : i]);
}

static void client_invalidated(void)
{
	struct ibv_send_wr wr = {.wr_id = g.msg, .opcode = IBV_WR_RDMA_WRITE};
	uint32_t rkey = ctl_expect("READY", g.msg);

	pattern_fill(g.buf, 8, g.msg);
	wr.wr.rdma.remote_addr = g.peer.addr + MW_OFF;
	wr.wr.rdma.rkey = rkey;
	post_send(&wr, g.buf, 8);
	if (!g.lossy) {
		expect_wc(g.msg, IBV_WC_RDMA_WRITE, IBV_WC_REM_ACCESS_ERR, -1,
			  -1, 0);
	} else {
		/*
		 * The responder NAKs once and moves to ERR: if the link lost
		 * that NAK, retries go unanswered (IBA 9.9.3.1.2).
		 */
		struct ibv_wc wc;

		poll_one(&wc);
		CHECK(wc.status == IBV_WC_REM_ACCESS_ERR ||
			      wc.status == IBV_WC_RETRY_EXC_ERR,
		      "completion status %s (%d), expected a remote access "
		      "error (or, the NAK lost, retries exceeded)",
		      ibv_wc_status_str(wc.status), wc.status);
		if (wc.status == IBV_WC_RETRY_EXC_ERR)
			printf("wire_data client: the NAK of the invalidated "
			       "rkey was lost: retries exceeded\n");
	}
	ctl_send("DONE %u\n", g.msg);
}

/*
 * Whether another round follows: the client decides (one round, or with
 * -u until the file exists) and tells the server, "ROUND <n>" or "END".
 */
static bool next_round(void)
{
	char line[256];
	unsigned int n;
	bool more;

	if (!g.server) {
		more = !g.rounds || (g.until && access(g.until, F_OK));
		if (more)
			ctl_send("ROUND %u\n", g.rounds + 1);
		else
			ctl_send("END\n");
	} else {
		ctl_recv(line, sizeof(line));
		more = sscanf(line, "ROUND %u", &n) == 1 && n == g.rounds + 1;
		if (!more && strcmp(line, "END"))
			die("control connection: got '%s', expected 'ROUND %u' "
			    "or 'END'",
			    line, g.rounds + 1);
	}
	if (more && g.until && !g.server)
		printf("wire_data client: round %u\n", g.rounds + 1);
	g.rounds += more;
	return more;
}
static void usage(void)
{
	fprintf(stderr,
		"usage: wire_data [-d DEV] [-g GID_INDEX] [-m MTU] [-p PORT] "
		"[-s SEED] [-M BYTES] [-l]\n"
		"                 [-b MIB [-o swr] | -c stream|quiet -C CMD "
		"[-t TIMEOUT] [-r RETRY]]\n"
		"                 [-u FILE] [HOST]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *port = "18800";
	int c, o, s;

	g.mtu = 1024;
	g.gid_index = 1;
	g.seed = 1;
	g.max_msg = MAX_MSG;
	g.timeout = 14;
	g.retry_cnt = 7;
	g.ctl_timeout_ms = CTL_TIMEOUT_MS;
	g.bulk_ops = "swr";
	while ((c = getopt(argc, argv, "b:c:C:d:g:lm:M:o:p:r:s:t:u:")) != -1) {
		switch (c) {
		case 'b':
			g.bulk_mib = atoi(optarg);
			if (g.bulk_mib < 1 || g.bulk_mib > 1024)
				usage();
			break;
		case 'c':
			if (!strcmp(optarg, "stream"))
				g.cut = CUT_STREAM;
			else if (!strcmp(optarg, "quiet"))
				g.cut = CUT_QUIET;
			else
				usage();
			break;
		case 'C':
			g.hook = optarg;
			break;
		case 'o':
			g.bulk_ops = optarg;
			break;
		case 'r':
			g.retry_cnt = atoi(optarg);
			if (g.retry_cnt < 0 || g.retry_cnt > 7)
				usage();
			break;
		case 't':
			g.timeout = atoi(optarg);
			if (g.timeout < 1 || g.timeout > 31)
				usage();
			break;
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
		case 's':
			g.seed = strtoul(optarg, NULL, 0);
			break;
		case 'l':
			g.lossy = true;
			break;
		case 'u':
			g.until = optarg;
			break;
		case 'M':
			g.max_msg = strtoul(optarg, NULL, 0);
			if (!g.max_msg || g.max_msg > MAX_MSG)
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind < argc - 1 || (g.bulk_mib && g.cut) ||
	    (g.cut && !g.hook && optind < argc))
		usage();
	g.server = optind == argc;
	if (g.server && g.until)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	mtu_enum(g.mtu);
	open_device(dev);
	connect_tcp(g.server ? NULL : argv[optind], port);
	exchange();
	connect_qp();

	if (g.bulk_mib || g.cut) {
		if (g.bulk_mib)
			run_bulk();
		else if (g.server)
			cut_server();
		else
			cut_client();
		goto out;
	}
	while (next_round()) {
		for (o = 0; o < N_OPS; o++) {
			for (s = 0; s < N_SIZES; s++, g.msg++) {
				g.what = op_name[o];
				g.size = size_of(s);
				if (g.server)
					server_message(o, g.size);
				else
					client_message(o, g.size);
			}
		}
		g.size = 8;
		g.what = "atomics";
		if (g.server)
			server_atomics();
		else
			client_atomics();
		g.msg++;
	}
	g.what = "RDMA_WRITE through the invalidated window rkey";
	if (g.server)
		server_invalidated();
	else
		client_invalidated();
	g.msg++;
out:
	printf("wire_data %s: %s, mtu %d, seed %u: %u messages in %u rounds, "
	       "%u checks, %u failures: %s\n",
	       g.server ? "server" : "client",
	       ibv_get_device_name(g.ctx->device), g.mtu, g.seed, g.msg,
	       g.rounds, g.checks, g.failures, g.failures ? "FAIL" : "PASS");
	return g.failures ? 1 : 0;
}
