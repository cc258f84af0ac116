// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ucma_badinput_test - hostile input on the rdma_ucm write() ABI, the
 * counterpart of the uverbs ABI test's bad-input sections: write() buffers
 * too short, oversize and unmapped; command numbers out of the table; "in"
 * shorter than the command (the kernel reads the whole struct, as upstream,
 * so an unmapped tail is EFAULT); every response too short (ENOSPC, with
 * nothing created or destroyed); ids made up, of another open file, and
 * after DESTROY_ID, on every command that takes one; MIGRATE_ID between
 * files, valid and not; a forked child (EACCES); files closed with unread
 * events, memberships and migrated ids.  After each section the live ids
 * and memberships (sysfs ibx_ids, ibx_mcasts) are back at their baseline.
 *
 * The errnos are upstream's (drivers/infiniband/core/ucma.c).
 *
 * usage: ucma_badinput_test LOCAL_IPV4 [SECTION...]
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <rdma/rdma_user_cm.h>
#include "check.h"

#include "ucma_badinput.h"

struct in_addr local_ip;
long base_ids, base_mcasts;

long sysfs_long(const char *name)
{
	char path[256], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), SYSFS "%s", name);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		fprintf(stderr, "FAIL: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	return strtol(buf, NULL, 0);
}

/* write() of exactly @len bytes at @buf: 0 if it returned @len, else errno. */
int raw(int fd, const void *buf, size_t len)
{
	ssize_t r = write(fd, buf, len);

	if (r < 0)
		return errno;
	return r == (ssize_t)len ? 0 : EPROTO;
}

/* One framed command; @in bytes of @cmd follow the header. */
int ucmd(int fd, uint32_t op, const void *cmd, size_t in, size_t out)
{
	uint8_t buf[8 + 512];
	struct rdma_ucm_cmd_hdr *hdr = (void *)buf;

	hdr->cmd = op;
	hdr->in = in;
	hdr->out = out;
	memcpy(buf + 8, cmd, in);
	return raw(fd, buf, 8 + in);
}

int open_cm(void)
{
	int fd = open(DEVPATH, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "FAIL: open %s: %s\n", DEVPATH, strerror(errno));
		exit(1);
	}
	return fd;
}

int create_id(int fd, uint16_t ps, uint32_t *id)
{
	struct rdma_ucm_create_id_resp r = { .id = ~0u };
	struct rdma_ucm_create_id c = { .uid = 1, .ps = ps, .response = (uintptr_t)&r };
	int ret = ucmd(fd, RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), sizeof(r));

	*id = r.id;
	return ret;
}

int destroy_id(int fd, uint32_t id)
{
	struct rdma_ucm_destroy_id_resp r;
	struct rdma_ucm_destroy_id c = { .id = id, .response = (uintptr_t)&r };

	return ucmd(fd, RDMA_USER_CM_CMD_DESTROY_ID, &c, sizeof(c), sizeof(r));
}

void set_in(void *sa, const char *ip, uint16_t port)
{
	struct sockaddr_in *s = sa;

	memset(s, 0, sizeof(*s));
	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	if (ip)
		inet_pton(AF_INET, ip, &s->sin_addr);
	else
		s->sin_addr = local_ip;
}

int bind_ip(int fd, uint32_t id, uint16_t port)
{
	struct rdma_ucm_bind_ip c = { .id = id };

	set_in(&c.addr, NULL, port);
	return ucmd(fd, RDMA_USER_CM_CMD_BIND_IP, &c, sizeof(c), 0);
}

int query_route(int fd, uint32_t id, size_t out)
{
	struct rdma_ucm_query_route_resp r;
	struct rdma_ucm_query c = { .response = (uintptr_t)&r, .id = id };

	return ucmd(fd, RDMA_USER_CM_CMD_QUERY_ROUTE, &c, sizeof(c), out);
}

/* Live ids and memberships are back at the baseline. */
int at_baseline(const char *after)
{
	long ids = sysfs_long("ibx_ids"), mcs = sysfs_long("ibx_mcasts");

	CHECK(ids == base_ids && mcs == base_mcasts,
	      "after %s: %ld ids and %ld memberships, baseline %ld and %ld",
	      after, ids, mcs, base_ids, base_mcasts);
	return 0;
}

/* ---------------------------------------------------------------------- */

/* Addresses no process maps; volatile so the compiler lets them be passed. */
static void *volatile unmapped[2] = { NULL, (void *)8 };

static int t_write_sizes(void *arg)
{
	int fd = open_cm();
	size_t big = 8 + sizeof(struct rdma_ucm_create_id) + 4000;
	uint8_t *buf = calloc(1, 65536 + 8);
	struct rdma_ucm_cmd_hdr *hdr = (void *)buf;
	struct rdma_ucm_create_id_resp r = { .id = ~0u };
	struct rdma_ucm_create_id *c = (void *)(buf + 8);

	CHECK(buf, "out of memory");
	EXPECT(raw(fd, buf, 0), EINVAL);
	EXPECT(raw(fd, buf, 1), EINVAL);
	EXPECT(raw(fd, buf, 7), EINVAL);
	EXPECT(raw(fd, unmapped[0], 8), EFAULT);
	EXPECT(raw(fd, unmapped[1], 64), EFAULT);
	/* hdr.in beyond what was written. */
	hdr->cmd = RDMA_USER_CM_CMD_CREATE_ID;
	hdr->in = sizeof(*c);
	hdr->out = sizeof(r);
	c->ps = RDMA_PS_TCP;
	c->response = (uintptr_t)&r;
	EXPECT(raw(fd, buf, 8 + sizeof(*c) - 1), EINVAL);
	hdr->in = 0xffff;
	EXPECT(raw(fd, buf, 8), EINVAL);
	EXPECT(raw(fd, buf, 8 + 0xfffe), EINVAL);
	CHECK(at_baseline("refused writes") == 0, "counts");
	/* Oversize: write() longer than hdr.in, or hdr.in longer than the struct. */
	hdr->in = sizeof(*c);
	EXPECT(raw(fd, buf, big), 0);
	CHECK(r.id != ~0u, "oversize write created no id");
	EXPECT(destroy_id(fd, r.id), 0);
	r.id = ~0u;
	hdr->in = 0xffff;
	EXPECT(raw(fd, buf, 8 + 0xffff), 0);
	CHECK(r.id != ~0u, "hdr.in 65535 created no id");
	EXPECT(destroy_id(fd, r.id), 0);
	close(fd);
	free(buf);
	return at_baseline("write sizes");
}

static int t_cmd_numbers(void *arg)
{
	static const uint32_t bad[] = {
		RDMA_USER_CM_CMD_JOIN_MCAST + 1, 24, 31, 32, 255, 256, 0x10000,
		0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
	};
	uint8_t cmd[512] = {0};
	int fd = open_cm();
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT(ucmd(fd, bad[i], cmd, 0, 0), EINVAL);
		EXPECT(ucmd(fd, bad[i], cmd, 300, 300), EINVAL);
	}
	/* In the table without a handler: GET_OPTION. */
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_GET_OPTION, cmd, 0, 0), ENOSYS);
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_GET_OPTION, cmd, 64, 64), ENOSYS);
	close(fd);
	return at_baseline("wrong command numbers");
}

/*
 * hdr.in shorter than the struct: the kernel still reads the whole struct
 * (upstream does), so a struct that runs into an unmapped page is EFAULT
 * and creates nothing.  CONNECT and ACCEPT take a short "in" up to their
 * reserved field and refuse anything shorter with EINVAL.
 */
static int t_short_in(void *arg)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct rdma_ucm_cmd_hdr *hdr;
	struct rdma_ucm_connect cc = { .conn_param.valid = 1 };
	struct rdma_ucm_accept ac = { 0 };
	int fd = open_cm();
	uint32_t id;

	CHECK(m != MAP_FAILED, "mmap");
	CHECK(mprotect(m + pg, pg, PROT_NONE) == 0, "mprotect");
	/* The header in the last 8 bytes of the page, "in" 0. */
	hdr = (void *)(m + pg - 8);
	hdr->cmd = RDMA_USER_CM_CMD_CREATE_ID;
	hdr->in = 0;
	hdr->out = 4;
	EXPECT(raw(fd, hdr, 8), EFAULT);
	/* Half a BIND_IP readable. */
	hdr = (void *)(m + pg - 8 - 20);
	hdr->cmd = RDMA_USER_CM_CMD_BIND_IP;
	hdr->in = 20;
	hdr->out = 0;
	EXPECT(raw(fd, hdr, 28), EFAULT);
	CHECK(at_baseline("short in") == 0, "counts");
	EXPECT(create_id(fd, RDMA_PS_TCP, &id), 0);
	cc.id = ac.id = id;
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_CONNECT, &cc,
		    offsetof(struct rdma_ucm_connect, reserved), 0), EINVAL);
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_CONNECT, &cc, 0, 0), EINVAL);
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_ACCEPT, &ac,
		    offsetof(struct rdma_ucm_accept, reserved), 0), EINVAL);
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_ACCEPT, &ac, 4, 0), EINVAL);
	EXPECT(destroy_id(fd, id), 0);
	munmap(m, 2 * pg);
	close(fd);
	return at_baseline("short in");
}

/* Every response that is too short: ENOSPC, and nothing happened. */
static int t_short_out(void *arg)
{
	int fd = open_cm(), fd2;
	uint32_t id, ud, mc;
	uint8_t resp[512];
	struct rdma_ucm_create_id c = { .ps = RDMA_PS_TCP, .response = (uintptr_t)resp };
	struct rdma_ucm_destroy_id d = { .response = (uintptr_t)resp };
	struct rdma_ucm_query q = { .response = (uintptr_t)resp };
	struct rdma_ucm_init_qp_attr ia = { .response = (uintptr_t)resp, .qp_state = 1 };
	struct rdma_ucm_get_event ge = { .response = (uintptr_t)resp };
	struct rdma_ucm_join_mcast j = { .response = (uintptr_t)resp,
		.addr_size = sizeof(struct sockaddr_in) };
	struct pollfd p = { .events = POLLIN };

	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), 0), ENOSPC);
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), 3), ENOSPC);
	CHECK(at_baseline("CREATE_ID with out 3") == 0, "counts");
	EXPECT(create_id(fd, RDMA_PS_TCP, &id), 0);
	EXPECT(bind_ip(fd, id, 0), 0);
	d.id = q.id = ia.id = id;
	/* DESTROY_ID refused for its short response must not destroy. */
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_DESTROY_ID, &d, sizeof(d), 3), ENOSPC);
	EXPECT(query_route(fd, id, sizeof(struct rdma_ucm_query_route_resp)), 0);
	EXPECT(query_route(fd, id, offsetof(struct rdma_ucm_query_route_resp, ibdev_index) - 1),
	       ENOSPC);
	EXPECT(query_route(fd, id, offsetof(struct rdma_ucm_query_route_resp, ibdev_index)), 0);
	q.option = RDMA_USER_CM_QUERY_ADDR;
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_QUERY, &q, sizeof(q),
		    offsetof(struct rdma_ucm_query_addr_resp, ibdev_index) - 1), ENOSPC);
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_QUERY, &q, sizeof(q),
		    offsetof(struct rdma_ucm_query_addr_resp, ibdev_index)), 0);
	q.option = RDMA_USER_CM_QUERY_GID;
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_QUERY, &q, sizeof(q),
		    offsetof(struct rdma_ucm_query_addr_resp, ibdev_index) - 1), ENOSPC);
	q.option = RDMA_USER_CM_QUERY_PATH;
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_QUERY, &q, sizeof(q),
		    sizeof(struct rdma_ucm_query_path_resp) - 1), ENOSPC);
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_QUERY, &q, sizeof(q),
		    sizeof(struct rdma_ucm_query_path_resp)), 0);
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_INIT_QP_ATTR, &ia, sizeof(ia),
		    sizeof(struct ib_uverbs_qp_attr) - 1), ENOSPC);
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_INIT_QP_ATTR, &ia, sizeof(ia),
		    sizeof(struct ib_uverbs_qp_attr)), 0);
	/* A UD id with one membership whose JOIN event stays queued. */
	EXPECT(create_id(fd, RDMA_PS_UDP, &ud), 0);
	EXPECT(bind_ip(fd, ud, 0), 0);
	j.id = ud;
	set_in(&j.addr, GROUP, 0);
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_JOIN_MCAST, &j, sizeof(j), 3), ENOSPC);
	CHECK(sysfs_long("ibx_mcasts") == base_mcasts, "a refused join left a membership");
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_JOIN_MCAST, &j, sizeof(j), 4), 0);
	memcpy(&mc, resp, 4);
	p.fd = fd;
	CHECK(poll(&p, 1, 10000) == 1, "no MULTICAST_JOIN event");
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_GET_EVENT, &ge, sizeof(ge),
		    offsetof(struct rdma_ucm_event_resp, reserved) - 1), ENOSPC);
	CHECK(poll(&p, 1, 0) == 1, "a refused GET_EVENT lost the event");
	d.id = mc;
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_LEAVE_MCAST, &d, sizeof(d), 3), ENOSPC);
	CHECK(sysfs_long("ibx_mcasts") == base_mcasts + 1, "a refused leave left the group");
	/* Bad response pointers: the event stays; DESTROY_ID destroys anyway. */
	ge.response = 8;
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_GET_EVENT, &ge, sizeof(ge), 336), EFAULT);
	CHECK(poll(&p, 1, 0) == 1, "GET_EVENT with a bad pointer lost the event");
	d.response = 8;
	d.id = id;
	EXPECT(ucmd(fd, RDMA_USER_CM_CMD_DESTROY_ID, &d, sizeof(d), 4), EFAULT);
	EXPECT(destroy_id(fd, id), ENOENT);
	/* A second file's join with a bad response pointer leaves no member. */
	fd2 = open_cm();
	EXPECT(create_id(fd2, RDMA_PS_UDP, &j.id), 0);
	EXPECT(bind_ip(fd2, j.id, 0), 0);
	j.response = 8;
	set_in(&j.addr, "239.3.3.4", 0);
	EXPECT(ucmd(fd2, RDMA_USER_CM_CMD_JOIN_MCAST, &j, sizeof(j), 4), EFAULT);
	CHECK(sysfs_long("ibx_mcasts") == base_mcasts + 1, "a join with a bad response stayed");
	close(fd2);
	close(fd);	/* with the unread JOIN event and the membership */
	return at_baseline("short responses");
}

/* ---------------------------------------------------------------------- */

/* A command naming id @id (or a membership), with otherwise valid fields. */
struct id_cmd {
	const char *name;
	uint32_t op;
	size_t size, out;
	void (*fill)(void *cmd, uint32_t id, void *resp);
};

#define FILL(name, type, body)						\
	static void fill_##name(void *cmd, uint32_t id, void *resp)	\
	{								\
		struct type *c = cmd;					\
		(void)resp;						\
		c->id = id;						\
		body;							\
	}
FILL(destroy, rdma_ucm_destroy_id, c->response = (uintptr_t)resp)
FILL(bind_ip, rdma_ucm_bind_ip, set_in(&c->addr, NULL, 0))
FILL(bind, rdma_ucm_bind, c->addr_size = sizeof(struct sockaddr_in); set_in(&c->addr, NULL, 0))
FILL(resolve_ip, rdma_ucm_resolve_ip, set_in(&c->dst_addr, NULL, 0); c->timeout_ms = 1000)
FILL(resolve_addr, rdma_ucm_resolve_addr,
     c->dst_size = sizeof(struct sockaddr_in); set_in(&c->dst_addr, NULL, 0); c->timeout_ms = 1000)
FILL(resolve_route, rdma_ucm_resolve_route, c->timeout_ms = 1000)
FILL(query, rdma_ucm_query, c->response = (uintptr_t)resp)
FILL(connect, rdma_ucm_connect, c->conn_param.valid = 1)
FILL(listen, rdma_ucm_listen, c->backlog = 1)
FILL(accept, rdma_ucm_accept, c->conn_param.valid = 1)
FILL(reject, rdma_ucm_reject, c->reason = 0)
FILL(disconnect, rdma_ucm_disconnect, (void)0)
FILL(init_qp_attr, rdma_ucm_init_qp_attr, c->response = (uintptr_t)resp; c->qp_state = 1)
FILL(notify, rdma_ucm_notify, c->event = 0)
FILL(join_ip, rdma_ucm_join_ip_mcast, c->response = (uintptr_t)resp; set_in(&c->addr, GROUP, 0))
FILL(join, rdma_ucm_join_mcast,
     c->response = (uintptr_t)resp; c->addr_size = sizeof(struct sockaddr_in);
     set_in(&c->addr, GROUP, 0))

static uint8_t tos = 0;
static void fill_set_option(void *cmd, uint32_t id, void *resp)
{
	struct rdma_ucm_set_option *c = cmd;

	c->id = id;
	c->level = RDMA_OPTION_ID;
	c->optname = RDMA_OPTION_ID_TOS;
	c->optval = (uintptr_t)&tos;
	c->optlen = 1;
}

static const struct id_cmd id_cmds[] = {
	{ "DESTROY_ID", RDMA_USER_CM_CMD_DESTROY_ID, sizeof(struct rdma_ucm_destroy_id), 4, fill_destroy },
	{ "BIND_IP", RDMA_USER_CM_CMD_BIND_IP, sizeof(struct rdma_ucm_bind_ip), 0, fill_bind_ip },
	{ "BIND", RDMA_USER_CM_CMD_BIND, sizeof(struct rdma_ucm_bind), 0, fill_bind },
	{ "RESOLVE_IP", RDMA_USER_CM_CMD_RESOLVE_IP, sizeof(struct rdma_ucm_resolve_ip), 0, fill_resolve_ip },
	{ "RESOLVE_ADDR", RDMA_USER_CM_CMD_RESOLVE_ADDR, sizeof(struct rdma_ucm_resolve_addr), 0, fill_resolve_addr },
	{ "RESOLVE_ROUTE", RDMA_USER_CM_CMD_RESOLVE_ROUTE, sizeof(struct rdma_ucm_resolve_route), 0, fill_resolve_route },
	{ "QUERY_ROUTE", RDMA_USER_CM_CMD_QUERY_ROUTE, sizeof(struct rdma_ucm_query), 208, fill_query },
	{ "QUERY", RDMA_USER_CM_CMD_QUERY, sizeof(struct rdma_ucm_query), 280, fill_query },
	{ "CONNECT", RDMA_USER_CM_CMD_CONNECT, sizeof(struct rdma_ucm_connect), 0, fill_connect },
	{ "LISTEN", RDMA_USER_CM_CMD_LISTEN, sizeof(struct rdma_ucm_listen), 0, fill_listen },
	{ "ACCEPT", RDMA_USER_CM_CMD_ACCEPT, sizeof(struct rdma_ucm_accept), 0, fill_accept },
	{ "REJECT", RDMA_USER_CM_CMD_REJECT, sizeof(struct rdma_ucm_reject), 0, fill_reject },
	{ "DISCONNECT", RDMA_USER_CM_CMD_DISCONNECT, sizeof(struct rdma_ucm_disconnect), 0, fill_disconnect },
	{ "INIT_QP_ATTR", RDMA_USER_CM_CMD_INIT_QP_ATTR, sizeof(struct rdma_ucm_init_qp_attr), 144, fill_init_qp_attr },
	{ "SET_OPTION", RDMA_USER_CM_CMD_SET_OPTION, sizeof(struct rdma_ucm_set_option), 0, fill_set_option },
	{ "NOTIFY", RDMA_USER_CM_CMD_NOTIFY, sizeof(struct rdma_ucm_notify), 0, fill_notify },
	{ "JOIN_IP_MCAST", RDMA_USER_CM_CMD_JOIN_IP_MCAST, sizeof(struct rdma_ucm_join_ip_mcast), 4, fill_join_ip },
	{ "JOIN_MCAST", RDMA_USER_CM_CMD_JOIN_MCAST, sizeof(struct rdma_ucm_join_mcast), 4, fill_join },
};
#define N_ID_CMDS (sizeof(id_cmds) / sizeof(id_cmds[0]))

static int id_cmd(int fd, const struct id_cmd *c, uint32_t id)
{
	uint8_t cmd[512] = {0}, resp[512];

	c->fill(cmd, id, resp);
	return ucmd(fd, c->op, cmd, c->size, c->out);
}

/*
 * Every id-taking command with an id that is made up (ENOENT), of another
 * open file (EINVAL; idle and bound ones), or destroyed (ENOENT).  The
 * other file's ids must be untouched: its owner can still bind, resolve,
 * query and destroy them, and no event reached either file.
 */
static int t_wrong_ids(void *arg)
{
	static const uint32_t made_up[] = { 0x7fffffff, 0xfffffffe, 0xffffffff, 0x10000 };
	int a = open_cm(), b = open_cm();
	uint32_t idle, bound, ud, gone, mine;
	struct pollfd p[2] = { { .fd = a, .events = POLLIN }, { .fd = b, .events = POLLIN } };
	unsigned int i, k;

	EXPECT(create_id(b, RDMA_PS_TCP, &idle), 0);
	EXPECT(create_id(b, RDMA_PS_TCP, &bound), 0);
	EXPECT(create_id(b, RDMA_PS_UDP, &ud), 0);
	EXPECT(bind_ip(b, bound, 0), 0);
	EXPECT(bind_ip(b, ud, 0), 0);
	EXPECT(create_id(a, RDMA_PS_TCP, &mine), 0);
	EXPECT(create_id(a, RDMA_PS_TCP, &gone), 0);
	EXPECT(destroy_id(a, gone), 0);
	for (i = 0; i < N_ID_CMDS; i++) {
		const struct id_cmd *c = &id_cmds[i];

		for (k = 0; k < sizeof(made_up) / sizeof(made_up[0]); k++)
			CHECK(id_cmd(a, c, made_up[k]) == ENOENT, "%s with made-up id %#x: %s",
			      c->name, made_up[k], strerror(id_cmd(a, c, made_up[k])));
		CHECK(id_cmd(a, c, gone) == ENOENT, "%s with a destroyed id", c->name);
		CHECK(id_cmd(a, c, ud) == EINVAL, "%s with another file's UD id: %s",
		      c->name, strerror(id_cmd(a, c, ud)));
		CHECK(id_cmd(a, c, idle) == EINVAL, "%s with another file's idle id", c->name);
		CHECK(id_cmd(a, c, bound) == EINVAL, "%s with another file's bound id", c->name);
	}
	CHECK(poll(p, 2, 300) == 0, "a refused command queued an event");
	CHECK(sysfs_long("ibx_mcasts") == base_mcasts, "a refused join made a membership");
	/* The owner's ids are as they were. */
	EXPECT(bind_ip(b, idle, 0), 0);
	EXPECT(query_route(b, bound, 208), 0);
	EXPECT(destroy_id(b, idle), 0);
	EXPECT(destroy_id(b, bound), 0);
	EXPECT(destroy_id(b, ud), 0);
	/* The ids are per file even for the owner's own commands after destroy. */
	EXPECT(destroy_id(b, ud), ENOENT);
	EXPECT(destroy_id(a, mine), 0);
	close(a);
	close(b);
	return at_baseline("wrong ids");
}

/* LEAVE_MCAST with made-up, foreign and left membership ids. */
static int t_wrong_mc_ids(void *arg)
{
	int a = open_cm(), b = open_cm();
	uint8_t resp[4];
	uint32_t ud, mc;
	struct rdma_ucm_join_mcast j = { .response = (uintptr_t)resp,
		.addr_size = sizeof(struct sockaddr_in) };
	struct rdma_ucm_destroy_id_resp dr;
	struct rdma_ucm_destroy_id l = { .response = (uintptr_t)&dr };

	EXPECT(create_id(b, RDMA_PS_UDP, &ud), 0);
	EXPECT(bind_ip(b, ud, 0), 0);
	j.id = ud;
	set_in(&j.addr, GROUP, 0);
	EXPECT(ucmd(b, RDMA_USER_CM_CMD_JOIN_MCAST, &j, sizeof(j), 4), 0);
	memcpy(&mc, resp, 4);
	l.id = 0x7ffffff0;
	EXPECT(ucmd(a, RDMA_USER_CM_CMD_LEAVE_MCAST, &l, sizeof(l), 4), ENOENT);
	l.id = mc;
	EXPECT(ucmd(a, RDMA_USER_CM_CMD_LEAVE_MCAST, &l, sizeof(l), 4), EINVAL);
	/* An id is not a membership id (separate name spaces). */
	l.id = ud;
	if (ud != mc)
		EXPECT(ucmd(b, RDMA_USER_CM_CMD_LEAVE_MCAST, &l, sizeof(l), 4), ENOENT);
	l.id = mc;
	EXPECT(ucmd(b, RDMA_USER_CM_CMD_LEAVE_MCAST, &l, sizeof(l), 4), 0);
	EXPECT(ucmd(b, RDMA_USER_CM_CMD_LEAVE_MCAST, &l, sizeof(l), 4), ENOENT);
	CHECK(dr.events_reported == 0, "left with %u events reported, none read",
	      dr.events_reported);
	EXPECT(destroy_id(b, ud), 0);
	close(a);
	close(b);
	return at_baseline("wrong membership ids");
}

static const struct check_section sections[] = {
	{ "write_sizes", t_write_sizes, true },
	{ "cmd_numbers", t_cmd_numbers, true },
	{ "short_in", t_short_in, true },
	{ "short_out", t_short_out, true },
	{ "wrong_ids", t_wrong_ids, true },
	{ "wrong_mc_ids", t_wrong_mc_ids, true },
	{ "migrate", t_migrate, true },
	{ "fork", t_fork, true },
	{ "close_unread", t_close_unread, true },
};

static void after_section(void *arg)
{
	(void)arg;
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (argc < 2 || inet_pton(AF_INET, argv[1], &local_ip) != 1) {
		fprintf(stderr, "usage: %s LOCAL_IPV4 [SECTION...]\n", argv[0]);
		return 2;
	}
	base_ids = sysfs_long("ibx_ids");
	base_mcasts = sysfs_long("ibx_mcasts");
	return check_run(sections, sizeof(sections) / sizeof(sections[0]),
			 argv + 2, argc - 2, NULL, after_section);
}
