// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * wire_bulk.c - wire_data's bulk (-b) and cut (-c) modes: many work
 * requests in flight, checked by checksums, and a link cut under a stream.
 * What they check is described in wire_data.c.
 */
#include "wire_data.h"

/* --- bulk mode (-b) -------------------------------------------------------- */

enum bulk_op { BULK_SEND, BULK_WRITE, BULK_READ, N_BULK };
static const char *const bulk_name[N_BULK] = {"SEND", "RDMA_WRITE",
					      "RDMA_READ"};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint8_t *bulk_area(void)
{
	return g.buf + BULK_OFF;
}

/* The bulk area's size: -b MIB, or 1 MiB in cut mode. */
static size_t bulk_bytes(void)
{
	return g.bulk_mib ? (size_t)g.bulk_mib * MIB : MIB;
}

/* Fills @n bytes (a multiple of 8) with the pattern of the seed and @op. */
static void bulk_fill(uint8_t *p, size_t n, enum bulk_op op)
{
	uint64_t x = (g.seed + 1ull) * 0x9e3779b97f4a7c15ull ^ (op + 1ull) << 40;
	size_t i;

	for (i = 0; i < n; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, 8);
	}
}

/*
 * A checksum of @n bytes (a multiple of 8), word by word: each step is a
 * bijection of the running value, so one changed word always changes it.
 */
static uint64_t bulk_csum(const uint8_t *p, size_t n)
{
	uint64_t h = 0x243f6a8885a308d3ull, w;
	size_t i;

	for (i = 0; i < n; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h;
}

/*
 * After transfer @op, each side sends the checksum of every MiB of its bulk
 * area (what it sent, or what it received) and compares the peer's with its
 * own.
 */
static void bulk_compare(enum bulk_op op)
{
	unsigned int i, n = g.bulk_mib, o, idx, bad = 0;
	uint64_t *mine = calloc(n, sizeof(*mine));
	unsigned long long theirs;
	char line[256];

	if (!mine)
		die("calloc: %s", strerror(errno));
	for (i = 0; i < n; i++)
		mine[i] = bulk_csum(bulk_area() + (size_t)i * MIB, MIB);
	for (i = 0; i < n; i++)
		ctl_send("SUM %u %u %016llx\n", op, i,
			 (unsigned long long)mine[i]);
	for (i = 0; i < n; i++) {
		ctl_recv(line, sizeof(line));
		if (sscanf(line, "SUM %u %u %llx", &o, &idx, &theirs) != 3 ||
		    o != op || idx != i)
			die("control connection: got '%s', expected 'SUM %u %u "
			    "...'",
			    line, op, i);
		check_count++;
		if (theirs == mine[i])
			continue;
		if (bad++ < 4)
			FAIL_HERE("the checksum of MiB %u is %016llx here, %016llx "
			     "at the peer",
			     i, (unsigned long long)mine[i], theirs);
		else
			check_failures++;
	}
	printf("wire_data %s: bulk %s: %u MiB, checksum %016llx: %s\n",
	       g.server ? "server" : "client", bulk_name[op], n,
	       (unsigned long long)bulk_csum((uint8_t *)mine, n * 8ul),
	       bad ? "DIFFERENT" : "equal to the peer's");
	if (bad)
		fprintf(stderr,
			"FAIL [%s] bulk %s: %u of %u MiB differ from the "
			"peer's\n",
			g.server ? "server" : "client", bulk_name[op], bad, n);
	free(mine);
}

/* Checks bulk completion @wc: @op's @i-th; a failed one ends the run. */
static void bulk_check_wc(const struct ibv_wc *wc, enum ibv_wc_opcode opcode,
			  unsigned int i)
{
	g.msg = i;
	VERIFY(wc->status == IBV_WC_SUCCESS, "completion status %s (%d)",
	      ibv_wc_status_str(wc->status), wc->status);
	if (wc->status != IBV_WC_SUCCESS)
		abort_run();
	VERIFY(wc->wr_id == i, "completion wr_id %llu, expected %u",
	      (unsigned long long)wc->wr_id, i);
	VERIFY(wc->opcode == opcode, "completion opcode %d, expected %d",
	      wc->opcode, opcode);
	if (opcode == IBV_WC_RECV)
		VERIFY(wc->byte_len == BULK_MSG,
		      "completion byte_len %u, expected %u", wc->byte_len,
		      BULK_MSG);
}

/*
 * Polls up to @max completions; with none, waits at most @ms for the CQ's
 * event and polls again.  Sleeping, not spinning: in an emulated guest a
 * spinning poller takes the CPU that the transfer needs.
 */
static int poll_or_wait(struct ibv_wc *wc, int max, int ms)
{
	struct pollfd pfd = {.fd = g.channel->fd, .events = POLLIN};
	struct ibv_cq *cq;
	void *ctx;
	int n = ibv_poll_cq(g.cq, max, wc);

	if (n)
		return n;
	if (ibv_req_notify_cq(g.cq, 0))
		die("req_notify_cq: %s", strerror(errno));
	/* A completion between the poll and the arming raises no event. */
	n = ibv_poll_cq(g.cq, max, wc);
	if (n)
		return n;
	if (poll(&pfd, 1, ms) == 1 && !ibv_get_cq_event(g.channel, &cq, &ctx))
		ibv_ack_cq_events(cq, 1);
	return ibv_poll_cq(g.cq, max, wc);
}

/* Polls up to @max completions, waiting at most BULK_TIMEOUT_S for one. */
static int bulk_poll(struct ibv_wc *wc, int max, unsigned int done)
{
	double end = now_s() + BULK_TIMEOUT_S;
	int n;

	while (!(n = poll_or_wait(wc, max, 100)))
		if (now_s() > end)
			break;
	if (n <= 0) {
		g.msg = done;
		FAIL_HERE("no completion within %d s (poll_cq %d)", BULK_TIMEOUT_S,
		     n);
		abort_run();
	}
	return n;
}

/* Posts work request @i of @op: g.size bytes at its place in the area. */
static void bulk_post(enum bulk_op op, unsigned int i)
{
	static const enum ibv_wr_opcode wr_op[N_BULK] = {
		IBV_WR_SEND, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ};
	struct ibv_send_wr wr = {.wr_id = i, .opcode = wr_op[op]};
	size_t off = (size_t)i * g.size % bulk_bytes();

	wr.wr.rdma.remote_addr = g.peer.addr + BULK_OFF + off;
	wr.wr.rdma.rkey = g.peer.rkey;
	post_send(&wr, bulk_area() + off, g.size);
}

/* The client's transfer @op: the whole area, BULK_DEPTH WRs in flight. */
static void bulk_client(enum bulk_op op)
{
	static const enum ibv_wc_opcode wc_op[N_BULK] = {
		IBV_WC_SEND, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ};
	unsigned int total = bulk_bytes() / BULK_MSG, posted = 0, done = 0;
	struct ibv_wc wc[BULK_DEPTH];
	double t;
	int i, n;

	g.msg = op;
	ctl_expect("READY", op);
	if (op == BULK_READ)
		memset(bulk_area(), 0, bulk_bytes());
	else
		bulk_fill(bulk_area(), bulk_bytes(), op);
	t = now_s();
	while (done < total) {
		while (posted < total && posted - done < BULK_DEPTH)
			bulk_post(op, posted++);
		n = bulk_poll(wc, BULK_DEPTH, done);
		for (i = 0; i < n; i++, done++)
			bulk_check_wc(&wc[i], wc_op[op], done);
	}
	t = now_s() - t;
	printf("wire_data client: bulk %s: %u MiB in %.2f s (%.1f MB/s)\n",
	       bulk_name[op], g.bulk_mib, t, bulk_bytes() / t / 1e6);
	g.msg = op;
	ctl_send("DONE %u\n", op);
}

/* The server's side of transfer @op. */
static void bulk_server(enum bulk_op op)
{
	unsigned int total = bulk_bytes() / BULK_MSG, posted = 0, done = 0;
	struct ibv_wc wc[BULK_RECVS];
	int i, n;

	g.msg = op;
	if (op == BULK_READ)
		bulk_fill(bulk_area(), bulk_bytes(), op);
	else
		memset(bulk_area(), 0, bulk_bytes());
	if (op == BULK_SEND)
		for (; posted < total && posted < BULK_RECVS; posted++)
			post_recv(bulk_area() + (size_t)posted * BULK_MSG,
				  BULK_MSG, posted);
	ctl_send("READY %u 0\n", op);
	while (op == BULK_SEND && done < total) {
		n = bulk_poll(wc, BULK_RECVS, done);
		for (i = 0; i < n; i++, done++) {
			bulk_check_wc(&wc[i], IBV_WC_RECV, done);
			if (posted < total) {
				post_recv(bulk_area() +
						  (size_t)posted * BULK_MSG,
					  BULK_MSG, posted);
				posted++;
			}
		}
	}
	g.msg = op;
	ctl_expect("DONE", op);
}

void run_bulk(void)
{
	enum bulk_op op;

	/* Transfers may take long on a lossy link: the peer waits. */
	ctl_timeout_ms = 600000;
	g.size = BULK_MSG;
	for (op = 0; op < N_BULK; op++) {
		if (!strchr(g.bulk_ops, "swr"[op]))
			continue;
		g.what = bulk_name[op];
		if (g.server)
			bulk_server(op);
		else
			bulk_client(op);
		bulk_compare(op);
	}
	g.msg = N_BULK;
}

/* --- cut mode (-c) --------------------------------------------------------- */

static pid_t hook_start(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		close(ctl_sock);
		execl("/bin/sh", "sh", "-c", g.hook, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* The hook's exit status, -1 while it runs (@block: wait for it). */
static int hook_status(pid_t pid, bool block)
{
	int st;
	pid_t r = waitpid(pid, &st, block ? 0 : WNOHANG);

	if (r == 0)
		return -1;
	if (r < 0)
		die("waitpid: %s", strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void hook_check(int st)
{
	REQUIRE(!st, "the cut command exited with status %d: %s", st, g.hook);
}

/* The ACK timeout the QP's timeout code asks for (IBA 9.7.6.1.3). */
static double ack_timeout_s(void)
{
	return 4.096e-6 * (1ull << g.timeout);
}

void cut_client(void)
{
	unsigned int posted = 0, done = 0, first_err = 0, flushed = 0;
	bool keep_posting = true, failed = false;
	double t_cut = 0, t_err = 0, t_end;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct ibv_wc wc[BULK_DEPTH];
	pid_t hook = 0;
	int i, n, st;

	g.what = "RDMA_WRITE";
	g.size = CUT_MSG;
	ctl_expect("READY", 0);
	bulk_fill(bulk_area(), MIB, BULK_WRITE);
	/* Traffic flows: CUT_WRS WRITEs complete. */
	while (done < CUT_WRS) {
		while (posted < CUT_WRS && posted - done < BULK_DEPTH)
			bulk_post(BULK_WRITE, posted++);
		n = bulk_poll(wc, BULK_DEPTH, done);
		for (i = 0; i < n; i++, done++)
			bulk_check_wc(&wc[i], IBV_WC_RDMA_WRITE, done);
	}
	if (g.cut == CUT_QUIET) {
		/* Every WQE done: no timer runs; the cut, then a burst. */
		hook_check(hook_status(hook_start(), true));
		t_cut = now_s();
		while (posted - done < BULK_DEPTH)
			bulk_post(BULK_WRITE, posted++);
		keep_posting = false;
	} else {
		hook = hook_start();
		t_cut = now_s();	/* the cut is asked for */
	}
	t_end = now_s() + CUT_LIMIT_S;
	while (!failed || done != posted) {
		while (keep_posting && posted - done < BULK_DEPTH)
			bulk_post(BULK_WRITE, posted++);
		if (hook && (st = hook_status(hook, false)) >= 0) {
			hook_check(st);
			hook = 0;
		}
		n = poll_or_wait(wc, BULK_DEPTH, 20);
		if (n < 0)
			die("poll_cq: %d", n);
		if (!n && now_s() > t_end) {
			g.msg = done;
			FAIL_HERE("%s %d s after the cut: %u of %u WRITEs "
			     "completed",
			     failed ? "flushes still missing" :
				      "no error completion",
			     CUT_LIMIT_S, done, posted);
			exit(1);
		}
		for (i = 0; i < n; i++, done++) {
			g.msg = done;
			VERIFY(wc[i].wr_id == done,
			      "completion wr_id %llu, expected %u (SQ order)",
			      (unsigned long long)wc[i].wr_id, done);
			if (!failed && wc[i].status == IBV_WC_SUCCESS) {
				VERIFY(g.cut == CUT_STREAM,
				      "a WRITE posted after the cut completed "
				      "successfully");
				continue;
			}
			if (!failed) {
				failed = true;
				first_err = done;
				t_err = now_s();
				keep_posting = false;
				VERIFY(wc[i].status == IBV_WC_RETRY_EXC_ERR,
				      "the first error completion has status "
				      "%s (%d), expected %s",
				      ibv_wc_status_str(wc[i].status),
				      wc[i].status,
				      ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR));
				continue;
			}
			flushed++;
			VERIFY(wc[i].status == IBV_WC_WR_FLUSH_ERR,
			      "completion status %s (%d) after the error, "
			      "expected %s",
			      ibv_wc_status_str(wc[i].status), wc[i].status,
			      ibv_wc_status_str(IBV_WC_WR_FLUSH_ERR));
		}
	}
	if (hook)
		hook_check(hook_status(hook, true));
	g.msg = first_err;
	if (ibv_query_qp(g.qp, &qa, IBV_QP_STATE, &qia))
		die("query_qp: %s", strerror(errno));
	VERIFY(qa.qp_state == IBV_QPS_ERR, "QP state %d after the error, "
	      "expected IBV_QPS_ERR", qa.qp_state);
	/* Timers do not fire early: retry_cnt retries, each after a timeout. */
	if (g.cut == CUT_QUIET)
		VERIFY(t_err - t_cut >= (g.retry_cnt + 1) * ack_timeout_s(),
		      "RETRY_EXC_ERR %.3f s after the burst, before %d ACK "
		      "timeouts of %.3f s",
		      t_err - t_cut, g.retry_cnt + 1, ack_timeout_s());
	printf("wire_data client: cut (%s): WRITE %u of %u failed with "
	       "RETRY_EXC_ERR %.3f s after %s, %u flushed after it; ACK "
	       "timeout %.4f s, retry_cnt %d\n",
	       g.cut == CUT_QUIET ? "quiet" : "stream", first_err, posted,
	       t_err - t_cut,
	       g.cut == CUT_QUIET ? "the burst" : "the cut was asked for",
	       flushed, ack_timeout_s(), g.retry_cnt);
	g.msg = posted;
}

void cut_server(void)
{
	ctl_send("READY 0 0\n");
	if (g.hook)
		hook_check(hook_status(hook_start(), true));
	printf("wire_data server: cut (%s): the cut command returned\n",
	       g.cut == CUT_QUIET ? "quiet" : "stream");
}
