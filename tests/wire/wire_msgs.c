// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * wire_msgs.c - wire_data's default mode: the message sequence (every RC
 * opcode at every size, the atomics, the WRITE through an invalidated
 * rkey), its data pattern and guard bytes, and the completion checks.
 * What it checks is described in wire_data.c.
 */
#include "wire_data.h"

enum op { OP_SEND, OP_SEND_IMM, OP_SEND_INV, OP_WRITE, OP_WRITE_IMM, OP_READ };
static const char *const op_name[] = {
	"SEND",	      "SEND_WITH_IMM",	     "SEND_WITH_INV",
	"RDMA_WRITE", "RDMA_WRITE_WITH_IMM", "RDMA_READ",
};
#define N_OPS 6
#define N_SIZES 8

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
	VERIFY(!bad,
	      "%s: %zu of %zu bytes differ, the first at byte %zu: 0x%02x, "
	      "expected 0x%02x",
	      where, bad, n, first, p[first], first_want);
	VERIFY(before < 0,
	      "%s: byte %ld (before the message) is 0x%02x, expected the guard "
	      "0x%02x",
	      where, before - MSG_BASE, p[before - MSG_BASE], GUARD_BYTE);
	VERIFY(after < 0,
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

/* --- completions -------------------------------------------------------- */

/* The next completion, within CQ_TIMEOUT_S; aborts without one. */
static void poll_one(struct ibv_wc *wc)
{
	time_t end = time(NULL) + CQ_TIMEOUT_S;
	int n;

	while (!(n = ibv_poll_cq(g.cq, 1, wc)))
		if (time(NULL) > end)
			break;
	if (n != 1) {
		FAIL_HERE("no completion within %d s (poll_cq %d)", CQ_TIMEOUT_S, n);
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
	VERIFY(wc.status == status, "completion status %s (%d), expected %s",
	      ibv_wc_status_str(wc.status), wc.status,
	      ibv_wc_status_str(status));
	if (wc.status != IBV_WC_SUCCESS) {
		if (wc.status != status)
			abort_run();
		return;
	}
	VERIFY(wc.wr_id == wr_id, "completion wr_id %llu, expected %llu",
	      (unsigned long long)wc.wr_id, (unsigned long long)wr_id);
	VERIFY(wc.opcode == opcode, "completion opcode %d, expected %d",
	      wc.opcode, opcode);
	VERIFY(wc.qp_num == g.qp->qp_num, "completion qp_num %#x, expected %#x",
	      wc.qp_num, g.qp->qp_num);
	if (byte_len >= 0)
		VERIFY(wc.byte_len == (uint32_t)byte_len,
		      "completion byte_len %u, expected %d", wc.byte_len,
		      byte_len);
	if (flags < 0)
		return;
	want = (flags & IBV_WC_WITH_IMM) |
	       (flags & IBV_WC_WITH_INV ? g.inv_flag : 0);
	VERIFY((wc.wc_flags & mask) == want,
	      "completion wc_flags %#x, expected %#x of %#x (WITH_IMM, "
	      "WITH_INV)",
	      wc.wc_flags, want, mask);
	if (flags & IBV_WC_WITH_IMM)
		VERIFY(ntohl(wc.imm_data) == imm_or_rkey,
		      "immediate data %#x, expected %#x", ntohl(wc.imm_data),
		      imm_or_rkey);
	if (flags & IBV_WC_WITH_INV)
		VERIFY(wc.invalidated_rkey == imm_or_rkey,
		      "invalidated rkey %#x, expected %#x", wc.invalidated_rkey,
		      imm_or_rkey);
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
		FAIL_HERE("post BIND_MW: %s", strerror(errno));
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
	VERIFY(t[1] == V_END, "final value %#llx, expected %#llx",
	      (unsigned long long)t[1], (unsigned long long)V_END);
	VERIFY(t[0] == 0xa5a5a5a5a5a5a5a5ull && t[2] == 0xa5a5a5a5a5a5a5a5ull,
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
	VERIFY(*res == want, "returned %#llx, expected %#llx",
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
	VERIFY(i < 0,
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
		VERIFY(wc.status == IBV_WC_REM_ACCESS_ERR ||
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

/* The message sequence of the default mode, as wire_data.c describes it. */
void run_messages(void)
{
	int o, s;

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
}
