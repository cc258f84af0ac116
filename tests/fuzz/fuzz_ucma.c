// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_ucma.c - random rdma_ucm commands on /dev/infiniband/rdma_cm, the
 * counterpart of fuzz_cmds.c for the rdma_cm ABI: a table of every command
 * with where its id (or membership id) is, what it creates or destroys, and
 * a fixup that sometimes makes it plausible (a local address, a group, a
 * sane timeout) so that sequences reach bound, resolved, listening and
 * joined ids.  Ids are live, stale (destroyed), of the worker's other file,
 * of another kind or made up; MIGRATE_ID moves ids between the worker's
 * two files and names file descriptors of any kind.  The fuzzed file is
 * non-blocking (GET_EVENT never waits there); a waiter thread per worker
 * sleeps in a blocking GET_EVENT on a third file and is interrupted by a
 * signal at the end, or killed with its process.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>
#include <rdma/rdma_user_cm.h>
#include "fuzz.h"

#define CM_DEV "/dev/infiniband/rdma_cm"

struct in_addr fz_cm_ip;	/* the local address ids bind and resolve to */

struct fz_ucma_cmd {
	const char *name;
	uint32_t op;
	uint16_t size, out;
	uint16_t id_off;	/* of the id (or membership) field */
	uint8_t id_kind;	/* FZ_CMID, FZ_CMMC or FZ_NONE */
	uint8_t creates;	/* the response's first u32 names one */
	uint8_t destroys;	/* the id field names it */
	int16_t resp_off;	/* of the response pointer, -1: none */
	void (*fixup)(struct fz_worker *w, uint64_t *s, void *cmd);
};

/* An address: ours, loopback, any, unrouted, a group or random. */
static void fz_addr(uint64_t *s, void *sa, bool group)
{
	static const char *const groups[] = {
		"239.4.0.1", "239.4.0.2", "239.4.0.3", "224.0.0.1", "239.255.255.255",
	};
	struct sockaddr_in *in = sa;
	struct sockaddr_in6 *in6 = sa;

	memset(sa, 0, sizeof(*in6));
	in->sin_family = AF_INET;
	in->sin_port = htons(fz_rand(s) % 4 ? 0 : 20000 + fz_rand(s) % 64);
	switch (fz_rand(s) % (group ? 8 : 10)) {
	case 0: case 1: case 2:
		if (group) {
			inet_pton(AF_INET, groups[fz_rand(s) % 5], &in->sin_addr);
			break;
		}
		in->sin_addr = fz_cm_ip;
		break;
	case 3:
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		break;
	case 4:
		break;				/* 0.0.0.0 */
	case 5:
		inet_pton(AF_INET, "203.0.113.9", &in->sin_addr);
		break;
	case 6:
		in6->sin6_family = AF_INET6;
		in6->sin6_addr.s6_addr[15] = fz_rand(s) & 1;	/* :: or ::1 */
		break;
	case 7:
		in->sin_family = fz_rand(s) % 64;		/* AF_IB (27) too */
		break;
	default:
		in->sin_addr = fz_cm_ip;
		break;
	}
}

static void fix_create_id(struct fz_worker *w, uint64_t *s, void *cmd)
{
	static const uint16_t ps[] = { RDMA_PS_TCP, RDMA_PS_UDP, RDMA_PS_IB, RDMA_PS_IPOIB };
	struct rdma_ucm_create_id *c = cmd;

	(void)w;
	c->ps = ps[fz_rand(s) % 4];
	c->qp_type = fz_rand(s) % 2 ? 2 : 4;	/* RC or UD for PS_IB */
}

static void fix_bind_ip(struct fz_worker *w, uint64_t *s, void *cmd)
{
	struct rdma_ucm_bind_ip *c = cmd;

	(void)w;
	fz_addr(s, &c->addr, false);
}

static void fix_bind(struct fz_worker *w, uint64_t *s, void *cmd)
{
	struct rdma_ucm_bind *c = cmd;

	(void)w;
	fz_addr(s, &c->addr, false);
	c->addr_size = fz_rand(s) % 8 ? (c->addr.ss_family == AF_INET6 ? 28 : 16) :
		       fz_rand(s) % 200;
	c->reserved = fz_rand(s) % 16 ? 0 : 1;
}

static void fix_resolve_ip(struct fz_worker *w, uint64_t *s, void *cmd)
{
	struct rdma_ucm_resolve_ip *c = cmd;

	(void)w;
	if (fz_rand(s) % 2)
		fz_addr(s, &c->src_addr, false);
	else
		memset(&c->src_addr, 0, sizeof(c->src_addr));
	fz_addr(s, &c->dst_addr, false);
	c->timeout_ms = 1 + fz_rand(s) % 2000;
}

static void fix_resolve_addr(struct fz_worker *w, uint64_t *s, void *cmd)
{
	struct rdma_ucm_resolve_addr *c = cmd;

	(void)w;
	fz_addr(s, &c->dst_addr, false);
	c->dst_size = c->dst_addr.ss_family == AF_INET6 ? 28 : 16;
	c->src_size = 0;
	if (fz_rand(s) % 2) {
		fz_addr(s, &c->src_addr, false);
		c->src_size = 16;
	}
	c->reserved = 0;
	c->timeout_ms = 1 + fz_rand(s) % 2000;
}

static void fix_timeout(struct fz_worker *w, uint64_t *s, void *cmd)
{
	struct rdma_ucm_resolve_route *c = cmd;

	(void)w;
	c->timeout_ms = 1 + fz_rand(s) % 2000;
}

static void fix_query(struct fz_worker *w, uint64_t *s, void *cmd)
{
	struct rdma_ucm_query *c = cmd;

	(void)w;
	c->option = fz_rand(s) % 4;
}

static void fix_connect(struct fz_worker *w, uint64_t *s, void *cmd)
{
	struct rdma_ucm_connect *c = cmd;

	(void)w;
	c->conn_param.valid = fz_rand(s) % 8 != 0;
	c->conn_param.private_data_len = fz_rand(s) % 2 ? 0 : fz_rand(s) % 256;
	c->conn_param.retry_count = fz_rand(s) % 8;
	c->conn_param.rnr_retry_count = fz_rand(s) % 8;
	c->conn_param.responder_resources = fz_rand(s) % 4;
	c->conn_param.initiator_depth = fz_rand(s) % 4;
}

static void fix_listen(struct fz_worker *w, uint64_t *s, void *cmd)
{
	struct rdma_ucm_listen *c = cmd;

	(void)w;
	c->backlog = (int)(fz_rand(s) % 8) - 1;
}

static void fix_reject(struct fz_worker *w, uint64_t *s, void *cmd)
{
	struct rdma_ucm_reject *c = cmd;

	(void)w;
	c->reason = fz_rand(s) % 2 ? 0 : fz_rand(s) % 40;
	c->private_data_len = fz_rand(s) % 2 ? 0 : fz_rand(s);
}

static void fix_init_qp_attr(struct fz_worker *w, uint64_t *s, void *cmd)
{
	struct rdma_ucm_init_qp_attr *c = cmd;

	(void)w;
	c->qp_state = fz_rand(s) % 9;
}

static __thread uint8_t optbuf[512];

static void fix_set_option(struct fz_worker *w, uint64_t *s, void *cmd)
{
	struct rdma_ucm_set_option *c = cmd;
	size_t i;

	(void)w;
	c->level = fz_rand(s) % 3;
	c->optname = fz_rand(s) % 5;
	c->optlen = fz_rand(s) % 2 ? 1u << (fz_rand(s) % 3) : fz_rand(s) % 300;
	for (i = 0; i < sizeof(optbuf); i++)
		optbuf[i] = fz_rand(s);
	c->optval = fz_rand(s) % 16 ? (uintptr_t)optbuf : fz_rand(s);
}

static void fix_join_ip(struct fz_worker *w, uint64_t *s, void *cmd)
{
	struct rdma_ucm_join_ip_mcast *c = cmd;

	(void)w;
	fz_addr(s, &c->addr, true);
}

static void fix_join(struct fz_worker *w, uint64_t *s, void *cmd)
{
	struct rdma_ucm_join_mcast *c = cmd;

	(void)w;
	fz_addr(s, &c->addr, true);
	c->addr_size = fz_rand(s) % 8 ? 16 : fz_rand(s) % 200;
	c->join_flags = fz_rand(s) % 8 ? fz_rand(s) % 2 : fz_rand(s);
}

/* The fd MIGRATE_ID takes ids from: the other file, this one, anything. */
static void fix_migrate(struct fz_worker *w, uint64_t *s, void *cmd)
{
	struct rdma_ucm_migrate_id *c = cmd;

	switch (fz_rand(s) % 6) {
	case 0: case 1:
		c->fd = w->cm_b;
		break;
	case 2:
		c->fd = w->cm_a;
		break;
	case 3:
		c->fd = w->a.fd;		/* a uverbs file */
		break;
	case 4:
		c->fd = -1;
		break;
	default:
		c->fd = fz_rand(s) % 64;
		break;
	}
}

#define ID(type, field) offsetof(struct type, field)
#define RSP(type) offsetof(struct type, response)
#define U(op, type, out, idf, kind, cr, de, rsp, fix) \
	{ #op, RDMA_USER_CM_CMD_##op, sizeof(struct type), out, idf, kind, cr, de, rsp, fix }

static const struct fz_ucma_cmd fz_ucma_cmds[] = {
	U(CREATE_ID, rdma_ucm_create_id, 4, 0, FZ_NONE, FZ_CMID, FZ_NONE,
	  RSP(rdma_ucm_create_id), fix_create_id),
	U(DESTROY_ID, rdma_ucm_destroy_id, 4, ID(rdma_ucm_destroy_id, id), FZ_CMID,
	  FZ_NONE, FZ_CMID, RSP(rdma_ucm_destroy_id), NULL),
	U(BIND_IP, rdma_ucm_bind_ip, 0, ID(rdma_ucm_bind_ip, id), FZ_CMID, FZ_NONE,
	  FZ_NONE, -1, fix_bind_ip),
	U(BIND, rdma_ucm_bind, 0, ID(rdma_ucm_bind, id), FZ_CMID, FZ_NONE, FZ_NONE,
	  -1, fix_bind),
	U(RESOLVE_IP, rdma_ucm_resolve_ip, 0, ID(rdma_ucm_resolve_ip, id), FZ_CMID,
	  FZ_NONE, FZ_NONE, -1, fix_resolve_ip),
	U(RESOLVE_ADDR, rdma_ucm_resolve_addr, 0, ID(rdma_ucm_resolve_addr, id),
	  FZ_CMID, FZ_NONE, FZ_NONE, -1, fix_resolve_addr),
	U(RESOLVE_ROUTE, rdma_ucm_resolve_route, 0, ID(rdma_ucm_resolve_route, id),
	  FZ_CMID, FZ_NONE, FZ_NONE, -1, fix_timeout),
	U(QUERY_ROUTE, rdma_ucm_query, 208, ID(rdma_ucm_query, id), FZ_CMID,
	  FZ_NONE, FZ_NONE, RSP(rdma_ucm_query), NULL),
	U(QUERY, rdma_ucm_query, 440, ID(rdma_ucm_query, id), FZ_CMID, FZ_NONE,
	  FZ_NONE, RSP(rdma_ucm_query), fix_query),
	U(CONNECT, rdma_ucm_connect, 0, ID(rdma_ucm_connect, id), FZ_CMID, FZ_NONE,
	  FZ_NONE, -1, fix_connect),
	U(LISTEN, rdma_ucm_listen, 0, ID(rdma_ucm_listen, id), FZ_CMID, FZ_NONE,
	  FZ_NONE, -1, fix_listen),
	U(ACCEPT, rdma_ucm_accept, 0, ID(rdma_ucm_accept, id), FZ_CMID, FZ_NONE,
	  FZ_NONE, -1, fix_connect),
	U(REJECT, rdma_ucm_reject, 0, ID(rdma_ucm_reject, id), FZ_CMID, FZ_NONE,
	  FZ_NONE, -1, fix_reject),
	U(DISCONNECT, rdma_ucm_disconnect, 0, ID(rdma_ucm_disconnect, id), FZ_CMID,
	  FZ_NONE, FZ_NONE, -1, NULL),
	U(INIT_QP_ATTR, rdma_ucm_init_qp_attr, 144, ID(rdma_ucm_init_qp_attr, id),
	  FZ_CMID, FZ_NONE, FZ_NONE, RSP(rdma_ucm_init_qp_attr), fix_init_qp_attr),
	U(GET_EVENT, rdma_ucm_get_event, 336, 0, FZ_NONE, FZ_NONE, FZ_NONE,
	  RSP(rdma_ucm_get_event), NULL),
	U(SET_OPTION, rdma_ucm_set_option, 0, ID(rdma_ucm_set_option, id), FZ_CMID,
	  FZ_NONE, FZ_NONE, -1, fix_set_option),
	U(NOTIFY, rdma_ucm_notify, 0, ID(rdma_ucm_notify, id), FZ_CMID, FZ_NONE,
	  FZ_NONE, -1, NULL),
	U(JOIN_IP_MCAST, rdma_ucm_join_ip_mcast, 4, ID(rdma_ucm_join_ip_mcast, id),
	  FZ_CMID, FZ_CMMC, FZ_NONE, RSP(rdma_ucm_join_ip_mcast), fix_join_ip),
	U(JOIN_MCAST, rdma_ucm_join_mcast, 4, ID(rdma_ucm_join_mcast, id), FZ_CMID,
	  FZ_CMMC, FZ_NONE, RSP(rdma_ucm_join_mcast), fix_join),
	U(LEAVE_MCAST, rdma_ucm_destroy_id, 4, ID(rdma_ucm_destroy_id, id), FZ_CMMC,
	  FZ_NONE, FZ_CMMC, RSP(rdma_ucm_destroy_id), NULL),
	U(MIGRATE_ID, rdma_ucm_migrate_id, 4, ID(rdma_ucm_migrate_id, id), FZ_CMID,
	  FZ_NONE, FZ_NONE, RSP(rdma_ucm_migrate_id), fix_migrate),
};

#define FZ_UCMA_NCMDS (sizeof(fz_ucma_cmds) / sizeof(fz_ucma_cmds[0]))

unsigned int fz_ucma_nkinds(void)
{
	return FZ_UCMA_NCMDS + 1;
}

const char *fz_ucma_kind_name(unsigned int which)
{
	return which < FZ_UCMA_NCMDS ? fz_ucma_cmds[which].name : "cm_garbage";
}

static int fz_cm_write(int fd, const void *buf, size_t len)
{
	ssize_t r = write(fd, buf, len);

	return r < 0 ? errno : (r == (ssize_t)len ? 0 : EPROTO);
}

/* A response pointer: mostly ours, sometimes unmapped or the kernel's. */
static uint64_t fz_cm_resp(uint64_t *s, void *good)
{
	switch (fz_rand(s) % 16) {
	case 0:
		return 0;
	case 1:
		return 8;
	case 2:
		return 0xffff888000000000ull;
	default:
		return (uintptr_t)good;
	}
}

static int fz_ucma_send(struct fz_worker *w, uint64_t *s, const struct fz_ucma_cmd *c)
{
	static __thread uint64_t resp[64];	/* the largest response, 440 B */
	uint8_t frame[8 + 512] = {0};
	struct rdma_ucm_cmd_hdr *hdr = (void *)frame;
	uint8_t *cmd = frame + 8;
	uint32_t id = 0;
	uint64_t rp = 0;
	size_t len, i;
	int fd = w->cm_a, ret;

	if (fz_rand(s) % 4)
		for (i = 0; i + 4 <= c->size; i += 4)
			*(uint32_t *)(cmd + i) = fz_u32(s);
	if (c->id_kind != FZ_NONE)
		*(uint32_t *)(cmd + c->id_off) = id = fz_handle(w, s, c->id_kind);
	if (c->fixup && fz_rand(s) % 2)
		c->fixup(w, s, cmd);
	if (c->resp_off >= 0) {
		rp = fz_cm_resp(s, resp);
		memcpy(cmd + c->resp_off, &rp, 8);
	}
	/* MIGRATE_ID is written to the file the id goes to: either. */
	if (c->op == RDMA_USER_CM_CMD_MIGRATE_ID && fz_rand(s) % 3 == 0)
		fd = w->cm_b;
	hdr->cmd = c->op;
	hdr->in = c->size;
	hdr->out = c->out;
	len = 8 + c->size;
	switch (fz_rand(s) % 24) {
	case 0:
		hdr->in = fz_rand(s) % (c->size + 1);
		break;
	case 1:
		hdr->out = fz_rand(s) % (c->out + 1);
		break;
	case 2:
		len = fz_rand(s) % len;
		break;
	case 3:
		len += fz_rand(s) % 64;		/* oversize write */
		break;
	}
	ret = fz_cm_write(fd, frame, len);
	if (ret)
		return ret;
	if (c->creates != FZ_NONE && rp == (uintptr_t)resp) {
		uint32_t made;

		memcpy(&made, resp, sizeof(made));
		fz_pool_add(&w->pools, c->creates, made, s);
	}
	if (c->destroys != FZ_NONE)
		fz_pool_gone(&w->pools, c->destroys, id);
	/* A connect request brings a new id: ACCEPT/REJECT need those. */
	if (c->op == RDMA_USER_CM_CMD_GET_EVENT && rp == (uintptr_t)resp) {
		struct rdma_ucm_event_resp ev;

		memcpy(&ev, resp, sizeof(ev));
		if (ev.event == 4 /* CONNECT_REQUEST */)
			fz_pool_add(&w->pools, FZ_CMID, ev.id, s);
	}
	return 0;
}

/* A header with any command number and lengths, random bytes after. */
static int fz_ucma_garbage(struct fz_worker *w, uint64_t *s)
{
	uint32_t frame[80];
	size_t i, len = fz_rand(s) % sizeof(frame);

	for (i = 0; i < 80; i++)
		frame[i] = fz_u32(s);
	if (fz_rand(s) % 2)
		frame[0] = fz_rand(s) % 26;
	return fz_cm_write(w->cm_a, frame, len);
}

int fz_ucma_one(struct fz_worker *w, uint64_t *s, unsigned int *which)
{
	if (fz_rand(s) % 32 == 0) {
		*which = FZ_UCMA_NCMDS;
		return fz_ucma_garbage(w, s);
	}
	*which = fz_rand(s) % FZ_UCMA_NCMDS;
	return fz_ucma_send(w, s, &fz_ucma_cmds[*which]);
}

int fz_ucma_open(bool blocking)
{
	return open(CM_DEV, O_RDWR | O_CLOEXEC | (blocking ? 0 : O_NONBLOCK));
}

/* An id and a membership in the worker's other file, for foreign ids. */
int fz_ucma_setup(struct fz_worker *w)
{
	struct rdma_ucm_create_id_resp r = { .id = ~0u };
	struct {
		struct rdma_ucm_cmd_hdr h;
		union {
			struct rdma_ucm_create_id c;
			struct rdma_ucm_bind_ip b;
			struct rdma_ucm_join_mcast j;
		};
	} f;

	w->cm_a = fz_ucma_open(false);
	w->cm_b = fz_ucma_open(false);
	if (w->cm_a < 0 || w->cm_b < 0)
		return -1;
	memset(&f, 0, sizeof(f));
	f.h = (struct rdma_ucm_cmd_hdr){ RDMA_USER_CM_CMD_CREATE_ID, sizeof(f.c), 4 };
	f.c.ps = RDMA_PS_UDP;
	f.c.response = (uintptr_t)&r;
	if (fz_cm_write(w->cm_b, &f, 8 + sizeof(f.c)))
		return -1;
	w->b_handles[FZ_CMID] = r.id;
	memset(&f, 0, sizeof(f));
	f.h = (struct rdma_ucm_cmd_hdr){ RDMA_USER_CM_CMD_BIND_IP, sizeof(f.b), 0 };
	f.b.id = r.id;
	((struct sockaddr_in *)&f.b.addr)->sin_family = AF_INET;
	((struct sockaddr_in *)&f.b.addr)->sin_addr = fz_cm_ip;
	if (fz_cm_write(w->cm_b, &f, 8 + sizeof(f.b)))
		return -1;
	memset(&f, 0, sizeof(f));
	f.h = (struct rdma_ucm_cmd_hdr){ RDMA_USER_CM_CMD_JOIN_MCAST, sizeof(f.j), 4 };
	f.j.id = w->b_handles[FZ_CMID];
	f.j.response = (uintptr_t)&r;
	f.j.addr_size = sizeof(struct sockaddr_in);
	((struct sockaddr_in *)&f.j.addr)->sin_family = AF_INET;
	inet_pton(AF_INET, "239.4.9.9", &((struct sockaddr_in *)&f.j.addr)->sin_addr);
	if (fz_cm_write(w->cm_b, &f, 8 + sizeof(f.j)))
		return -1;
	w->b_handles[FZ_CMMC] = r.id;
	return 0;
}

static void fz_no_op(int sig)
{
	(void)sig;
}

/*
 * The waiter: resolves an id of its own blocking file and sleeps in
 * GET_EVENT for the result, again and again, until the worker interrupts
 * it with SIGUSR1 (or is killed in the middle).
 */
void *fz_ucma_waiter(void *arg)
{
	struct fz_worker *w = arg;
	struct rdma_ucm_event_resp ev;
	struct rdma_ucm_create_id_resp r;
	struct {
		struct rdma_ucm_cmd_hdr h;
		union {
			struct rdma_ucm_create_id c;
			struct rdma_ucm_resolve_ip ri;
			struct rdma_ucm_get_event g;
			struct rdma_ucm_destroy_id d;
		};
	} f;
	struct rdma_ucm_destroy_id_resp dr;
	int fd = w->cm_wait;

	while (!*w->stop) {
		memset(&f, 0, sizeof(f));
		f.h = (struct rdma_ucm_cmd_hdr){ RDMA_USER_CM_CMD_CREATE_ID, sizeof(f.c), 4 };
		f.c.ps = RDMA_PS_TCP;
		f.c.response = (uintptr_t)&r;
		if (fz_cm_write(fd, &f, 8 + sizeof(f.c)))
			break;
		memset(&f, 0, sizeof(f));
		f.h = (struct rdma_ucm_cmd_hdr){ RDMA_USER_CM_CMD_RESOLVE_IP, sizeof(f.ri), 0 };
		f.ri.id = r.id;
		f.ri.timeout_ms = 500;
		((struct sockaddr_in *)&f.ri.dst_addr)->sin_family = AF_INET;
		((struct sockaddr_in *)&f.ri.dst_addr)->sin_addr = fz_cm_ip;
		fz_cm_write(fd, &f, 8 + sizeof(f.ri));
		memset(&f, 0, sizeof(f));
		f.h = (struct rdma_ucm_cmd_hdr){ RDMA_USER_CM_CMD_GET_EVENT, sizeof(f.g), sizeof(ev) };
		f.g.response = (uintptr_t)&ev;
		if (fz_cm_write(fd, &f, 8 + sizeof(f.g)) == EINTR)
			break;
		/* Its id may have been migrated away by a random fd: fine. */
		memset(&f, 0, sizeof(f));
		f.h = (struct rdma_ucm_cmd_hdr){ RDMA_USER_CM_CMD_DESTROY_ID, sizeof(f.d), 4 };
		f.d.id = r.id;
		f.d.response = (uintptr_t)&dr;
		fz_cm_write(fd, &f, 8 + sizeof(f.d));
	}
	return NULL;
}

/* Installs the SIGUSR1 handler that interrupts the waiter (no SA_RESTART). */
void fz_ucma_signals(void)
{
	struct sigaction sa = { .sa_handler = fz_no_op };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}
