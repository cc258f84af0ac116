// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * wire_data - data across the wire on one RC QP pair, every byte checked.
 *
 *   server: wire_data [-d DEV] [-g GID_INDEX] [-m MTU] [-p PORT] [-s SEED]
 *                     [-M BYTES] [-l] [-O] [-b MIB [-o swr] |
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
 * last WRITE may then end with retries exceeded, its NAK lost.  -O
 * registers this side's buffer with IBV_ACCESS_ON_DEMAND: nothing pinned,
 * every page faulted in by the device as the messages reach it.
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
 * of 4 KiB (BULK_DEPTH in flight) on a QP with ACK timeout -t and retry
 * count -r, and after CUT_WRS completions runs CMD (sh -c), which is to cut
 * the link; the server runs its own CMD once connected and ends when it
 * returns.  With "stream" CMD runs while the client keeps the stream going;
 * with "quiet" the client first waits for every completion, runs CMD to its
 * end, then posts BULK_DEPTH WRITEs.  Either way the oldest outstanding WQE
 * must complete with IBV_WC_RETRY_EXC_ERR, every later one with
 * IBV_WC_WR_FLUSH_ERR, in order, within CUT_LIMIT_S, and the QP must be in
 * ERR; "quiet" also checks that the error took at least retry_count + 1 ACK
 * timeouts.
 *
 * Exit status 0 iff every check of this side passed, 1 after a failed check
 * (each printed with the operation, size and byte), 2 when the set-up fails.
 */
#include "wire_data.h"

struct wire_state g;

/* Where a FAIL line says the run was: side, MTU, message, operation, size. */
static void wire_where(FILE *f)
{
	fprintf(f, "[%s, mtu %d] msg %u %s, %u bytes: ",
		g.server ? "server" : "client", g.mtu, g.msg, g.what, g.size);
}


void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "wire_data %s: msg %u: ", g.server ? "server" : "client",
		g.msg);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* The peer's ABORT (wire_ctl.c): it gave up, and so does this side. */
void ctl_peer_gave_up(void)
{
	fprintf(stderr, "wire_data %s: the peer gave up at msg %u\n",
		g.server ? "server" : "client", g.msg);
	exit(1);
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
		g.server ? "server" : "client", g.mtu, g.msg, check_failures);
	exit(1);
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
				  IBV_ACCESS_MW_BIND |
				  (g.odp ? IBV_ACCESS_ON_DEMAND : 0));
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

void post_send(struct ibv_send_wr *wr, void *addr, size_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = g.mr->lkey};
	struct ibv_send_wr *bad;

	wr->sg_list = &sge;
	wr->num_sge = len ? 1 : 0;
	wr->send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(g.qp, wr, &bad)) {
		FAIL_HERE("post_send: %s", strerror(errno));
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
		FAIL_HERE("post_recv: %s", strerror(errno));
		abort_run();
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: wire_data [-d DEV] [-g GID_INDEX] [-m MTU] [-p PORT] "
		"[-s SEED] [-M BYTES] [-l] [-O]\n"
		"                 [-b MIB [-o swr] | -c stream|quiet -C CMD "
		"[-t TIMEOUT] [-r RETRY]]\n"
		"                 [-u FILE] [HOST]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *port = "18800";
	int c;

	check_where = wire_where;
	g.mtu = 1024;
	g.gid_index = 1;
	g.seed = 1;
	g.max_msg = MAX_MSG;
	g.timeout = 14;
	g.retry_cnt = 7;
	ctl_timeout_ms = CTL_TIMEOUT_MS;
	g.bulk_ops = "swr";
	while ((c = getopt(argc, argv, "b:c:C:d:g:lm:M:Oo:p:r:s:t:u:")) != -1) {
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
		case 'O':
			g.odp = true;
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
	ctl_connect(g.server ? NULL : argv[optind], port);
	exchange();
	connect_qp();

	if (g.bulk_mib)
		run_bulk();
	else if (g.cut && g.server)
		cut_server();
	else if (g.cut)
		cut_client();
	else
		run_messages();
	printf("wire_data %s: %s, mtu %d, seed %u: %u messages in %u rounds, "
	       "%u checks, %u failures: %s\n",
	       g.server ? "server" : "client",
	       ibv_get_device_name(g.ctx->device), g.mtu, g.seed, g.msg,
	       g.rounds, check_count, check_failures, check_failures ? "FAIL" : "PASS");
	return check_failures || !check_count ? 1 : 0;
}
