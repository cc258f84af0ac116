// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kill_connect - a process SIGKILLed in the middle of an RDMA-CM connection
 * (Debian's librdmacm on our stack): the survivor must see what Linux's
 * rdma_cm gives it, within a bounded time, and nothing may be left behind.
 *
 * Each round forks and execs a victim (this program, "victim" mode: its
 * own librdmacm and verbs state, nothing inherited) that connects to, or
 * listens for, the survivor (this process) and reports over a pipe when it
 * reached its kill point; the survivor kills it with SIGKILL after a random
 * delay and checks its own id's events.  Closing the victim's rdma_cm file
 * destroys its id, and the IB CM ends the exchange as IBA 12.9.7 says:
 *
 *   a  active killed after its REQ, before ACCEPT: REJ "timeout" (4); the
 *      passive's QP setup or ACCEPT then fails with EINVAL (its request
 *      is void; librdmacm drops events of an id not yet accepted), or if
 *      the ACCEPT went first the passive sees REJECTED 4
 *   b  passive killed after CONNECT_REQUEST, before ACCEPT: REJ "consumer
 *      defined" (28): REJECTED 28
 *   c  passive killed after ACCEPT (REP sent), before ESTABLISHED: REJ 28
 *      (REJECTED 28, maybe after ESTABLISHED if the active's RTU went
 *      first; or CONNECT_ERROR when the REJ came before librdmacm moved
 *      the QP for the REP: it then swallows the REJECTED, as on Linux)
 *   d  either side killed when established: DREQ, DISCONNECTED
 *
 * Afterwards /sys/class/misc/rdma_cm/ibx_ids and (after timewait) the CM's
 * live ids (ibx_cm "ids") are back at (or, as earlier connections end
 * their timewait, below) their baseline and its counters are
 * sane (check_leftovers).
 *
 * usage: kill_connect IP ROUNDS SECONDS SEED [all]
 *   ROUNDS rounds (a, b, c, d-active, d-passive in turn with "all", random
 *   cases otherwise; the kill delays are random either way), but no new
 *   round after SECONDS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/wait.h>
#include <rdma/rdma_cma.h>
#include "check.h"

#define SYS		"/sys/class/misc/rdma_cm/"
#define EVENT_MS	5000	/* REJ and DREQ are sent at once: no retries */
#define REJ_TIMEOUT	4	/* IB CM reject reasons (IBA 12.6.7.2) */
#define REJ_CONSUMER	28

enum kcase { CASE_A, CASE_B, CASE_C, CASE_D_ACTIVE, CASE_D_PASSIVE, NCASES };
static const char *const case_names[] = { "a", "b", "c", "d-active",
					  "d-passive" };

/* The victim is the active side in a and d-active. */
static bool victim_active(enum kcase c)
{
	return c == CASE_A || c == CASE_D_ACTIVE;
}

static const char *ip;
static pid_t victim_pid;	/* killed if the survivor gives up */

static void kill_leftover_victim(void)
{
	if (victim_pid > 0)
		kill(victim_pid, SIGKILL);
}

static void sin_set(struct sockaddr_in *s, int port)
{
	memset(s, 0, sizeof(*s));
	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	REQUIRE(inet_pton(AF_INET, ip, &s->sin_addr) == 1, "address %s", ip);
}

/* The next event within @ms, or NULL (the caller asserts). */
static struct rdma_cm_event *next_event(struct rdma_event_channel *ch, int ms)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&p, 1, ms) != 1)
		return NULL;
	if (rdma_get_cm_event(ch, &ev))
		return NULL;
	return ev;
}

/* Waits for @type (status 0); returns the event's id. */
static struct rdma_cm_id *expect(struct rdma_event_channel *ch,
				 enum rdma_cm_event_type type)
{
	struct rdma_cm_event *ev = next_event(ch, EVENT_MS);
	struct rdma_cm_id *id;

	REQUIRE(ev, "no %s within %d ms", rdma_event_str(type), EVENT_MS);
	REQUIRE(ev->event == type && ev->status == 0, "%s status %d, want %s",
		rdma_event_str(ev->event), ev->status, rdma_event_str(type));
	id = ev->id;
	rdma_ack_cm_event(ev);
	return id;
}

static void create_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr a = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	REQUIRE(rdma_create_qp(id, NULL, &a) == 0, "rdma_create_qp: %m");
}

static struct rdma_conn_param conn_param(void)
{
	return (struct rdma_conn_param){ .responder_resources = 1,
		.initiator_depth = 1, .retry_count = 7, .rnr_retry_count = 7 };
}

static struct rdma_cm_id *listen_on(struct rdma_event_channel *ch, int port)
{
	struct rdma_cm_id *id;
	struct sockaddr_in s;

	sin_set(&s, port);
	REQUIRE(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0, "create_id");
	REQUIRE(rdma_bind_addr(id, (struct sockaddr *)&s) == 0, "bind: %m");
	REQUIRE(rdma_listen(id, 4) == 0, "listen: %m");
	return id;
}

static struct rdma_cm_id *connect_to(struct rdma_event_channel *ch, int port)
{
	struct rdma_conn_param p = conn_param();
	struct rdma_cm_id *id;
	struct sockaddr_in s;

	sin_set(&s, port);
	REQUIRE(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0, "create_id");
	REQUIRE(rdma_resolve_addr(id, NULL, (struct sockaddr *)&s, 2000) == 0,
		"resolve_addr: %m");
	expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED);
	REQUIRE(rdma_resolve_route(id, 2000) == 0, "resolve_route: %m");
	expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED);
	create_qp(id);
	REQUIRE(rdma_connect(id, &p) == 0, "connect: %m");
	return id;
}

static void say(int fd, char c)
{
	REQUIRE(write(fd, &c, 1) == 1, "pipe write");
}

static void hear(int fd, char want)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c = 0;

	REQUIRE(poll(&p, 1, 20000) == 1 && read(fd, &c, 1) == 1 && c == want,
		"pipe: got '%c', want '%c'", c, want);
}

/*
 * The victim: @up to the survivor, @down from it.  'L' = listening,
 * 'K' = at the kill point (then it waits to be killed).
 */
static int victim(enum kcase c, int port, int up, int down)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param p = conn_param();
	struct rdma_cm_id *id;

	check_who = "victim";
	REQUIRE(ch, "rdma_create_event_channel");
	if (victim_active(c)) {
		hear(down, 'G');
		id = connect_to(ch, port);
		if (c == CASE_D_ACTIVE)
			expect(ch, RDMA_CM_EVENT_ESTABLISHED);
	} else {
		listen_on(ch, port);
		say(up, 'L');
		id = expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
		if (c != CASE_B) {
			create_qp(id);
			REQUIRE(rdma_accept(id, &p) == 0, "accept: %m");
		}
		if (c == CASE_D_PASSIVE)
			expect(ch, RDMA_CM_EVENT_ESTABLISHED);
	}
	say(up, 'K');
	for (;;)
		pause();
}

static pid_t spawn_victim(enum kcase c, int port, int *to, int *from)
{
	char cs[8], ps[16], us[16], ds[16];
	int up[2], down[2];
	pid_t pid;

	REQUIRE(pipe2(up, O_CLOEXEC) == 0 && pipe2(down, O_CLOEXEC) == 0,
		"pipe");
	snprintf(cs, sizeof(cs), "%d", c);
	snprintf(ps, sizeof(ps), "%d", port);
	snprintf(us, sizeof(us), "%d", up[1]);
	snprintf(ds, sizeof(ds), "%d", down[0]);
	pid = fork();
	REQUIRE(pid >= 0, "fork");
	if (pid == 0) {
		fcntl(up[1], F_SETFD, 0);
		fcntl(down[0], F_SETFD, 0);
		execl("/proc/self/exe", "kill_connect", "victim", ip, cs, ps,
		      us, ds, (char *)NULL);
		_exit(127);
	}
	close(up[1]);
	close(down[0]);
	*from = up[0];
	*to = down[1];
	victim_pid = pid;
	return pid;
}

/* SIGKILL after 0-20 ms: the kill point moves a little every round. */
static int kill_victim(pid_t pid)
{
	int st;

	usleep(rand() % 20000);
	SETUP(kill(pid, SIGKILL) == 0, "kill");
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) &&
	      WTERMSIG(st) == SIGKILL, "victim died with status %#x", st);
	victim_pid = 0;
	return 0;
}

/*
 * Events until @want (with @status) or one in @ends; those in @also may
 * come first.  0 or -1.
 */
static int see(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
	       int status, unsigned int also, unsigned int ends)
{
	struct rdma_cm_event *ev;
	int type, st;

	for (;;) {
		ev = next_event(ch, EVENT_MS);
		CHECK(ev, "no %s within %d ms", rdma_event_str(want), EVENT_MS);
		type = ev->event;
		st = ev->status;
		rdma_ack_cm_event(ev);
		if (type == (int)want) {
			CHECK(st == status, "%s status %d, want %d",
			      rdma_event_str(want), st, status);
			return 0;
		}
		if (ends & (1u << type))
			return 0;
		CHECK(also & (1u << type), "%s (status %d) while waiting for %s",
		      rdma_event_str(type), st, rdma_event_str(want));
	}
}

/*
 * Case a: the active is gone.  Once its REJ is in, the CM id is idle and
 * the QP attributes and ACCEPT of the request fail with EINVAL (Linux's
 * ib_cm_init_qp_attr and ib_send_cm_rep too); an ACCEPT that went first
 * meets the REJ instead.
 */
static int survive_a(struct rdma_event_channel *ch, struct rdma_cm_id *conn)
{
	struct ibv_qp_init_attr a = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct rdma_conn_param p = conn_param();

	usleep(rand() % 20000);
	if (rdma_create_qp(conn, NULL, &a)) {
		CHECK(errno == EINVAL, "create_qp after the REJ: %m, want EINVAL");
		return 0;
	}
	if (rdma_accept(conn, &p)) {
		CHECK(errno == EINVAL, "accept after the REJ: %m, want EINVAL");
		return 0;
	}
	return see(ch, RDMA_CM_EVENT_REJECTED, REJ_TIMEOUT, 0, 0);
}

static int survive_passive(struct rdma_event_channel *ch, enum kcase c,
			   pid_t pid, int to, int from, int port)
{
	struct rdma_cm_id *lid = listen_on(ch, port), *conn;
	struct rdma_conn_param p = conn_param();
	int ret;

	say(to, 'G');
	conn = expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	if (c == CASE_D_ACTIVE) {
		create_qp(conn);
		REQUIRE(rdma_accept(conn, &p) == 0, "accept: %m");
		expect(ch, RDMA_CM_EVENT_ESTABLISHED);
	}
	hear(from, 'K');
	ret = kill_victim(pid);
	if (!ret && c == CASE_A)
		ret = survive_a(ch, conn);
	else if (!ret)
		ret = see(ch, RDMA_CM_EVENT_DISCONNECTED, 0, 0, 0);
	if (c != CASE_A)
		rdma_disconnect(conn);
	if (conn->qp)
		rdma_destroy_qp(conn);
	VERIFY(rdma_destroy_id(conn) == 0, "destroy conn");
	VERIFY(rdma_destroy_id(lid) == 0, "destroy listener");
	return ret;
}

static int survive_active(struct rdma_event_channel *ch, enum kcase c,
			  pid_t pid, int from, int port)
{
	struct rdma_cm_id *id;
	int ret;

	hear(from, 'L');
	id = connect_to(ch, port);
	if (c == CASE_D_PASSIVE)
		expect(ch, RDMA_CM_EVENT_ESTABLISHED);
	hear(from, 'K');
	ret = kill_victim(pid);
	if (!ret && c == CASE_B)
		ret = see(ch, RDMA_CM_EVENT_REJECTED, REJ_CONSUMER, 0, 0);
	else if (!ret && c == CASE_C)
		ret = see(ch, RDMA_CM_EVENT_REJECTED, REJ_CONSUMER,
			  1u << RDMA_CM_EVENT_ESTABLISHED,
			  1u << RDMA_CM_EVENT_CONNECT_ERROR);
	else if (!ret)
		ret = see(ch, RDMA_CM_EVENT_DISCONNECTED, 0, 0, 0);
	if (c == CASE_D_PASSIVE)
		rdma_disconnect(id);
	rdma_destroy_qp(id);
	VERIFY(rdma_destroy_id(id) == 0, "destroy");
	return ret;
}

static int round_once(enum kcase c, int port)
{
	struct rdma_event_channel *ch;
	int to, from, ret;
	pid_t pid;

	pid = spawn_victim(c, port, &to, &from);
	ch = rdma_create_event_channel();
	REQUIRE(ch, "rdma_create_event_channel");
	if (victim_active(c))
		ret = survive_passive(ch, c, pid, to, from, port);
	else
		ret = survive_active(ch, c, pid, from, port);
	rdma_destroy_event_channel(ch);
	close(to);
	close(from);
	return ret;
}

static long long sys_read(const char *file, const char *key)
{
	char path[128], line[128], k[64];
	long long v, found = -1;
	FILE *f;

	snprintf(path, sizeof(path), SYS "%s", file);
	f = fopen(path, "r");
	REQUIRE(f, "open %s", path);
	while (fgets(line, sizeof(line), f)) {
		if (!key && sscanf(line, "%lld", &v) == 1)
			found = v;
		else if (key && sscanf(line, "%63s %lld", k, &v) == 2 &&
			 !strcmp(k, key))
			found = v;
	}
	fclose(f);
	REQUIRE(found >= 0, "%s: no %s", path, key ? key : "count");
	return found;
}

/*
 * Every id gone, the CM's within timewait (about 2 s) plus slack, and its
 * counters sane: no message went unanswered (timeouts), none was sent
 * twice (duplicates: nothing is lost on one host), no QPN looked stale,
 * and at most one message per round came too late for its id (a DREP
 * after the killed side's timewait began, a REP or RTU to an id gone).
 */
static int check_leftovers(const long long base[], unsigned int rounds)
{
	static const char *const zero[] = { "timeouts", "duplicates", "stale" };
	long long ids = 0, cm_ids = 0, d;
	unsigned int i;

	for (i = 0; i < 150; i++) {
		ids = sys_read("ibx_ids", NULL);
		cm_ids = sys_read("ibx_cm", "ids");
		/* Earlier tests' connections may end their timewait meanwhile. */
		if (ids == base[0] && cm_ids <= base[6])
			break;
		usleep(100000);
	}
	CHECK(ids == base[0], "ibx_ids %lld, baseline %lld", ids, base[0]);
	CHECK(cm_ids <= base[6], "CM ids %lld after timewait, baseline %lld",
	      cm_ids, base[6]);
	printf("rdma_cm ids back at %lld, CM ids at %lld after %u ms\n", ids,
	       cm_ids, i * 100);
	for (i = 0; i < 3; i++) {
		d = sys_read("ibx_cm", zero[i]) - base[1 + i];
		CHECK(d == 0, "ibx_cm %s went up by %lld", zero[i], d);
	}
	d = sys_read("ibx_cm", "dropped") - base[4];
	CHECK(d <= rounds, "ibx_cm dropped %lld in %u rounds", d, rounds);
	d = sys_read("ibx_cm", "rcvd") - base[5];
	CHECK(d >= 2 * rounds, "ibx_cm received %lld in %u rounds", d, rounds);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int done[NCASES] = {}, passed = 0, failed = 0, rounds, i;
	long long base[7];
	struct check_mark m;
	time_t end;
	int c, ret;

	if (argc == 7 && !strcmp(argv[1], "victim")) {
		ip = argv[2];
		return victim(atoi(argv[3]), atoi(argv[4]), atoi(argv[5]),
			      atoi(argv[6]));
	}
	REQUIRE(argc == 5 || argc == 6,
		"usage: %s IP ROUNDS SECONDS SEED [all]", argv[0]);
	ip = argv[1];
	rounds = atoi(argv[2]);
	end = time(NULL) + atoi(argv[3]);
	srand(atoi(argv[4]));
	signal(SIGPIPE, SIG_IGN);
	check_who = "survivor";
	check_on_fatal = kill_leftover_victim;
	base[0] = sys_read("ibx_ids", NULL);
	base[1] = sys_read("ibx_cm", "timeouts");
	base[2] = sys_read("ibx_cm", "duplicates");
	base[3] = sys_read("ibx_cm", "stale");
	base[4] = sys_read("ibx_cm", "dropped");
	base[5] = sys_read("ibx_cm", "rcvd");
	base[6] = sys_read("ibx_cm", "ids");
	for (i = 0; i < rounds && time(NULL) < end; i++) {
		char name[32];

		m = check_begin();
		c = argc == 6 ? (int)(i % NCASES) : rand() % NCASES;
		snprintf(name, sizeof(name), "round %u: %s", i, case_names[c]);
		if (check_end(name, m, round_once(c, 21000 + i)))
			passed++;
		else
			failed++;
		done[c]++;
	}
	m = check_begin();
	ret = check_leftovers(base, i);
	if (check_end("leftovers and counters", m, ret))
		passed++;
	else
		failed++;
	printf("rounds: a %u, b %u, c %u, d-active %u, d-passive %u\n",
	       done[0], done[1], done[2], done[3], done[4]);
	return check_summary(passed, failed);
}
