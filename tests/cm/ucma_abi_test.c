// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ucma_abi_test - the rdma_ucm write() ABI of ibx_rdma_cm driven raw
 * (kernel UAPI header only, no librdmacm): framing errors, id ownership
 * across two files, bind conflicts, loopback and wildcard binds, address
 * and route resolution to a local and an unreachable address, queries,
 * INIT_QP_ATTR, the connection commands without a CM, options, events
 * (blocking, O_NONBLOCK, poll), exact DESTROY_ID/MIGRATE_ID/LEAVE_MCAST
 * counts, multicast with IGMP,
 * and that closing a file with unread events leaves no id behind.
 *
 * usage: ucma_abi_test LOCAL_IPV4
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <rdma/rdma_user_cm.h>
#include "check.h"

#define DEVPATH "/dev/infiniband/rdma_cm"
#define SYSFS "/sys/class/misc/rdma_cm/"


#define EXPECT_ERR(call, err) do {					\
	int __r = (call);						\
	REQUIRE(__r == (err), "got %d (%s), want %d (%s)", __r,		\
	      strerror(__r), err, strerror(err));			\
} while (0)

static struct in_addr local_ip;

/* One command: returns 0 or the errno; checks that write() returns len. */
static int ucmd(int fd, uint32_t op, const void *cmd, size_t in, size_t out)
{
	char buf[8 + 512];
	struct rdma_ucm_cmd_hdr *hdr = (void *)buf;
	ssize_t r;

	hdr->cmd = op;
	hdr->in = in;
	hdr->out = out;
	memcpy(buf + 8, cmd, in);
	r = write(fd, buf, 8 + in);
	if (r < 0)
		return errno;
	REQUIRE((size_t)r == 8 + in, "write returned %zd for %zu", r, 8 + in);
	return 0;
}

static int open_cm(void)
{
	int fd = open(DEVPATH, O_RDWR | O_CLOEXEC);

	REQUIRE(fd >= 0, "open %s: %s", DEVPATH, strerror(errno));
	return fd;
}

static long sysfs_long(const char *name)
{
	char path[256], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), SYSFS "%s", name);
	f = fopen(path, "r");
	REQUIRE(f, "%s: %s", path, strerror(errno));
	REQUIRE(fgets(buf, sizeof(buf), f), "read %s", path);
	fclose(f);
	return strtol(buf, NULL, 0);
}

static uint32_t create_id(int fd, uint16_t ps, uint64_t uid)
{
	struct rdma_ucm_create_id c = { .uid = uid, .ps = ps };
	struct rdma_ucm_create_id_resp r = { .id = ~0u };

	c.response = (uintptr_t)&r;
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), sizeof(r)), 0);
	return r.id;
}

static int destroy_id(int fd, uint32_t id, uint32_t *reported)
{
	struct rdma_ucm_destroy_id c = { .id = id };
	struct rdma_ucm_destroy_id_resp r = { .events_reported = ~0u };
	int ret;

	c.response = (uintptr_t)&r;
	ret = ucmd(fd, RDMA_USER_CM_CMD_DESTROY_ID, &c, sizeof(c), sizeof(r));
	if (!ret && reported)
		*reported = r.events_reported;
	return ret;
}

static void set_in(struct sockaddr_in6 *s6, struct in_addr a, uint16_t port)
{
	struct sockaddr_in *s = (struct sockaddr_in *)s6;

	memset(s6, 0, sizeof(*s6));
	s->sin_family = AF_INET;
	s->sin_addr = a;
	s->sin_port = htons(port);
}

static int bind_ip(int fd, uint32_t id, struct in_addr a, uint16_t port)
{
	struct rdma_ucm_bind_ip c = { .id = id };

	set_in(&c.addr, a, port);
	return ucmd(fd, RDMA_USER_CM_CMD_BIND_IP, &c, sizeof(c), 0);
}

static int resolve_ip(int fd, uint32_t id, struct in_addr dst, uint32_t ms)
{
	struct rdma_ucm_resolve_ip c = { .id = id, .timeout_ms = ms };

	set_in(&c.dst_addr, dst, 7471);
	return ucmd(fd, RDMA_USER_CM_CMD_RESOLVE_IP, &c, sizeof(c), 0);
}

static int set_opt(int fd, uint32_t id, uint32_t level, uint32_t name,
		   const void *val, uint32_t len)
{
	struct rdma_ucm_set_option c = {
		.optval = (uintptr_t)val, .id = id, .level = level,
		.optname = name, .optlen = len,
	};

	return ucmd(fd, RDMA_USER_CM_CMD_SET_OPTION, &c, sizeof(c), 0);
}

static int get_event(int fd, struct rdma_ucm_event_resp *ev)
{
	struct rdma_ucm_get_event c = { .response = (uintptr_t)ev };

	memset(ev, 0xa5, sizeof(*ev));
	return ucmd(fd, RDMA_USER_CM_CMD_GET_EVENT, &c, sizeof(c), sizeof(*ev));
}

static void expect_event(int fd, uint32_t id, uint32_t event, int status)
{
	struct rdma_ucm_event_resp ev;

	EXPECT_ERR(get_event(fd, &ev), 0);
	REQUIRE(ev.id == id && ev.event == event && (int)ev.status == status,
	      "event id %u ev %u status %d, want id %u ev %u status %d",
	      ev.id, ev.event, (int)ev.status, id, event, status);
}

static int query_route(int fd, uint32_t id, struct rdma_ucm_query_route_resp *r)
{
	struct rdma_ucm_query c = { .response = (uintptr_t)r, .id = id };

	memset(r, 0, sizeof(*r));
	return ucmd(fd, RDMA_USER_CM_CMD_QUERY_ROUTE, &c, sizeof(c), sizeof(*r));
}

static void test_framing(void)
{
	int fd = open_cm();
	char buf[16] = {0};
	struct rdma_ucm_cmd_hdr *hdr = (void *)buf;
	struct rdma_ucm_create_id c = { .ps = RDMA_PS_TCP };
	struct rdma_ucm_create_id_resp r;

	REQUIRE(write(fd, buf, 7) < 0 && errno == EINVAL, "short header");
	hdr->cmd = RDMA_USER_CM_CMD_JOIN_MCAST + 1;
	REQUIRE(write(fd, buf, 8) < 0 && errno == EINVAL, "unknown command");
	hdr->cmd = RDMA_USER_CM_CMD_CREATE_ID;
	hdr->in = 9;		/* more than the 8 bytes that follow */
	REQUIRE(write(fd, buf, 16) < 0 && errno == EINVAL, "hdr.in too large");
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_GET_OPTION, buf, 0, 0), ENOSYS);
	c.response = (uintptr_t)&r;
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), 3), ENOSPC);
	c.ps = 0x1234;
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), 4), EINVAL);
	c.ps = RDMA_PS_TCP;
	c.response = 8;		/* an unmapped response pointer */
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_CREATE_ID, &c, sizeof(c), 4), EFAULT);
	REQUIRE(sysfs_long("ibx_ids") == 0, "a failed CREATE_ID left an id");
	close(fd);
	printf("ok framing\n");
}

static void test_ownership(void)
{
	int a = open_cm(), b = open_cm();
	uint32_t id = create_id(a, RDMA_PS_TCP, 1), n;
	struct rdma_ucm_query_route_resp qr;

	EXPECT_ERR(destroy_id(b, id, NULL), EINVAL);
	EXPECT_ERR(bind_ip(b, id, local_ip, 0), EINVAL);
	EXPECT_ERR(query_route(b, id, &qr), EINVAL);
	EXPECT_ERR(destroy_id(a, id + 1000, NULL), ENOENT);
	EXPECT_ERR(destroy_id(a, id, &n), 0);
	REQUIRE(n == 0, "events_reported %u", n);
	EXPECT_ERR(destroy_id(a, id, NULL), ENOENT);
	close(a);
	close(b);
	printf("ok ownership\n");
}

static void test_bind(void)
{
	int fd = open_cm();
	uint32_t a = create_id(fd, RDMA_PS_TCP, 1), b = create_id(fd, RDMA_PS_TCP, 2);
	uint32_t c = create_id(fd, RDMA_PS_TCP, 3), d = create_id(fd, RDMA_PS_UDP, 4);
	struct in_addr any = { 0 }, other;
	struct rdma_ucm_query_route_resp qr;
	struct rdma_ucm_bind bc = { .id = c, .addr_size = 48 };
	int one = 1;

	EXPECT_ERR(bind_ip(fd, a, local_ip, 20001), 0);
	EXPECT_ERR(bind_ip(fd, a, local_ip, 20002), EINVAL);	/* bound already */
	EXPECT_ERR(bind_ip(fd, b, local_ip, 20001), EADDRINUSE);
	EXPECT_ERR(bind_ip(fd, b, any, 20001), EADDRNOTAVAIL);
	EXPECT_ERR(bind_ip(fd, d, local_ip, 20001), 0);		/* other port space */
	inet_pton(AF_INET, "192.0.2.77", &other);		/* not ours */
	EXPECT_ERR(bind_ip(fd, b, other, 0), EADDRNOTAVAIL);
	/* AF_IB is refused: librdmacm falls back to the IP commands. */
	((struct sockaddr *)&bc.addr)->sa_family = 27;
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_BIND, &bc, sizeof(bc), 0), EAFNOSUPPORT);
	bc.addr_size = 16;
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_BIND, &bc, sizeof(bc), 0), EINVAL);
	/* BIND (20) with a sockaddr_in and port 0: a random port. */
	bc.addr_size = sizeof(struct sockaddr_in);
	set_in((struct sockaddr_in6 *)&bc.addr, local_ip, 0);
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_BIND, &bc, sizeof(bc), 0), 0);
	EXPECT_ERR(query_route(fd, c, &qr), 0);
	REQUIRE(((struct sockaddr_in *)&qr.src_addr)->sin_port != 0, "port 0 stayed 0");
	REQUIRE(qr.node_guid != 0, "node_guid 0 for a bound id");
	REQUIRE(qr.port_num == 1, "port_num %u", qr.port_num);
	REQUIRE(qr.num_paths == 0, "num_paths %u before resolution", qr.num_paths);
	REQUIRE(qr.ib_route[0].pkey == htons(0xffff), "pkey %x", qr.ib_route[0].pkey);
	REQUIRE(qr.ib_route[0].sgid[10] == 0xff && qr.ib_route[0].sgid[11] == 0xff &&
	      !memcmp(&qr.ib_route[0].sgid[12], &local_ip, 4), "sgid not ::ffff:ip");
	/* Both REUSEADDR: they share. */
	EXPECT_ERR(destroy_id(fd, b, NULL), 0);
	b = create_id(fd, RDMA_PS_TCP, 2);
	EXPECT_ERR(set_opt(fd, b, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, 4), 0);
	EXPECT_ERR(set_opt(fd, b, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, 1), EINVAL);
	EXPECT_ERR(bind_ip(fd, b, local_ip, 20001), EADDRINUSE);	/* a has not */
	EXPECT_ERR(destroy_id(fd, a, NULL), 0);
	a = create_id(fd, RDMA_PS_TCP, 1);
	EXPECT_ERR(set_opt(fd, a, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, 4), 0);
	EXPECT_ERR(bind_ip(fd, a, local_ip, 20001), 0);
	EXPECT_ERR(bind_ip(fd, b, local_ip, 20001), 0);
	close(fd);
	REQUIRE(sysfs_long("ibx_ids") == 0, "ids left after close");
	printf("ok bind\n");
}

static void test_listen(void)
{
	int fd = open_cm();
	uint32_t a = create_id(fd, RDMA_PS_TCP, 1), b = create_id(fd, RDMA_PS_TCP, 2);
	uint32_t c = create_id(fd, RDMA_PS_TCP, 3);
	struct rdma_ucm_listen l = { .id = a, .backlog = 0 };
	struct rdma_ucm_query_route_resp qr;

	EXPECT_ERR(bind_ip(fd, a, local_ip, 20010), 0);
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_LISTEN, &l, sizeof(l), 0), 0);
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_LISTEN, &l, sizeof(l), 0), EINVAL);
	EXPECT_ERR(bind_ip(fd, b, local_ip, 20010), EADDRINUSE);
	/* An idle id listens on the wildcard with a random port. */
	l.id = c;
	l.backlog = 3;
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_LISTEN, &l, sizeof(l), 0), 0);
	EXPECT_ERR(query_route(fd, c, &qr), 0);
	REQUIRE(((struct sockaddr_in *)&qr.src_addr)->sin_port != 0, "listen port 0");
	REQUIRE(qr.node_guid == 0, "a wildcard listener has no device");
	close(fd);
	REQUIRE(sysfs_long("ibx_ids") == 0, "ids left after close");
	printf("ok listen\n");
}

static void check_path(const struct ib_user_path_rec *p, struct in_addr src,
		       struct in_addr dst)
{
	REQUIRE(!memcmp(&p->sgid[12], &src, 4) && p->sgid[11] == 0xff, "sgid");
	REQUIRE(!memcmp(&p->dgid[12], &dst, 4) && p->dgid[11] == 0xff, "dgid");
	REQUIRE(p->hop_limit == 64, "hop_limit %u", p->hop_limit);
	REQUIRE(p->pkey == htons(0xffff), "pkey");
	REQUIRE(p->mtu >= 1 && p->mtu <= 5, "mtu %u", p->mtu);
	REQUIRE(p->packet_life_time == 16 || p->packet_life_time == 18, "plt %u",
	      p->packet_life_time);
	REQUIRE(p->dlid == 0 && p->slid == 0 && p->numb_path == 1 && p->reversible == 1,
	      "lids/numb_path/reversible");
}

/*
 * Loopback and wildcard addresses as upstream's cma_any_addr takes them:
 * a bind binds no device (libfabric's verbs provider binds 127.0.0.1 and
 * looks at the device), both conflict with every owner of the port, and
 * resolving a loopback destination from an unbound id binds the first
 * active port (cma_bind_loopback) without a netdev, so RESOLVE_ROUTE is
 * ENODEV, as on Linux's RoCE devices.
 */
static void test_loopback(void)
{
	int fd = open_cm();
	uint32_t a = create_id(fd, RDMA_PS_TCP, 1), b = create_id(fd, RDMA_PS_TCP, 2);
	uint32_t c = create_id(fd, RDMA_PS_TCP, 3), d = create_id(fd, RDMA_PS_TCP, 4);
	struct rdma_ucm_resolve_route rr = { .id = c, .timeout_ms = 1000 };
	struct rdma_ucm_bind_ip b6 = { .id = d };
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&b6.addr;
	struct in_addr lo = { htonl(INADDR_LOOPBACK) }, any = { 0 };
	struct rdma_ucm_query_route_resp qr;

	EXPECT_ERR(bind_ip(fd, a, lo, 20020), 0);
	EXPECT_ERR(query_route(fd, a, &qr), 0);
	REQUIRE(qr.node_guid == 0 && qr.port_num == 0, "127.0.0.1 bound a device");
	REQUIRE(((struct sockaddr_in *)&qr.src_addr)->sin_addr.s_addr == lo.s_addr,
	      "src not 127.0.0.1");
	EXPECT_ERR(bind_ip(fd, b, local_ip, 20020), EADDRNOTAVAIL);
	EXPECT_ERR(bind_ip(fd, b, any, 20020), EADDRNOTAVAIL);
	EXPECT_ERR(bind_ip(fd, b, any, 20021), 0);
	EXPECT_ERR(query_route(fd, b, &qr), 0);
	REQUIRE(qr.node_guid == 0, "0.0.0.0 bound a device");
	s6->sin6_family = AF_INET6;
	s6->sin6_addr = in6addr_loopback;
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_BIND_IP, &b6, sizeof(b6), 0), 0);
	EXPECT_ERR(query_route(fd, d, &qr), 0);
	REQUIRE(qr.node_guid == 0, "::1 bound a device");

	/* An idle id resolving 127.0.0.1: the first active port. */
	EXPECT_ERR(resolve_ip(fd, c, lo, 2000), 0);
	expect_event(fd, c, 0 /* ADDR_RESOLVED */, 0);
	EXPECT_ERR(query_route(fd, c, &qr), 0);
	REQUIRE(qr.node_guid != 0 && qr.port_num == 1, "no device after loopback");
	REQUIRE(((struct sockaddr_in *)&qr.src_addr)->sin_addr.s_addr == lo.s_addr,
	      "src not 127.0.0.1 after loopback");
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_RESOLVE_ROUTE, &rr, sizeof(rr), 0), ENODEV);
	/* A bound id resolving the wildcard reaches its own address. */
	rr.id = create_id(fd, RDMA_PS_TCP, 5);
	EXPECT_ERR(bind_ip(fd, rr.id, local_ip, 0), 0);
	EXPECT_ERR(resolve_ip(fd, rr.id, any, 2000), 0);
	expect_event(fd, rr.id, 0 /* ADDR_RESOLVED */, 0);
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_RESOLVE_ROUTE, &rr, sizeof(rr), 0), 0);
	expect_event(fd, rr.id, 2 /* ROUTE_RESOLVED */, 0);
	EXPECT_ERR(query_route(fd, rr.id, &qr), 0);
	check_path(&qr.ib_route[0], local_ip, local_ip);
	close(fd);
	REQUIRE(sysfs_long("ibx_ids") == 0, "ids left after close");
	printf("ok loopback\n");
}

static void test_resolve(void)
{
	int fd = open_cm();
	uint32_t id = create_id(fd, RDMA_PS_TCP, 0x1111), n;
	struct rdma_ucm_resolve_route rr = { .id = id, .timeout_ms = 1000 };
	struct rdma_ucm_query_route_resp qr;
	struct rdma_ucm_init_qp_attr ia = { .id = id };
	struct ib_uverbs_qp_attr qa;
	struct rdma_ucm_connect cc = { .id = id };
	struct rdma_ucm_accept ac = { .id = id };
	struct rdma_ucm_reject rj = { .id = id, .reason = 5 };
	struct rdma_ucm_disconnect dc = { .id = id };
	struct rdma_ucm_event_resp ev;
	struct {
		struct rdma_ucm_query_path_resp h;
		struct ib_path_rec_data d[6];
	} pr;
	struct rdma_ucm_query q = { .response = (uintptr_t)&pr, .id = id,
				    .option = RDMA_USER_CM_QUERY_PATH };
	uint8_t tos = 32;

	/* Route and INIT_QP_ATTR need a device. */
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_RESOLVE_ROUTE, &rr, sizeof(rr), 0), EINVAL);
	EXPECT_ERR(set_opt(fd, id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, 4), EINVAL);
	EXPECT_ERR(set_opt(fd, id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, 1), 0);
	EXPECT_ERR(set_opt(fd, id, 7, 0, &tos, 1), ENOSYS);
	EXPECT_ERR(resolve_ip(fd, id, local_ip, 2000), 0);
	EXPECT_ERR(resolve_ip(fd, id, local_ip, 2000), EINVAL);	/* in progress */
	EXPECT_ERR(get_event(fd, &ev), 0);
	REQUIRE(ev.uid == 0x1111 && ev.id == id && ev.event == 0 /* ADDR_RESOLVED */ &&
	      ev.status == 0, "event %u status %d", ev.event, (int)ev.status);
	EXPECT_ERR(query_route(fd, id, &qr), 0);
	REQUIRE(qr.node_guid != 0 && qr.num_paths == 0, "after ADDR_RESOLVED");
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_RESOLVE_ROUTE, &rr, sizeof(rr), 0), 0);
	expect_event(fd, id, 2 /* ROUTE_RESOLVED */, 0);
	EXPECT_ERR(query_route(fd, id, &qr), 0);
	REQUIRE(qr.num_paths == 1, "num_paths %u", qr.num_paths);
	check_path(&qr.ib_route[0], local_ip, local_ip);
	REQUIRE(qr.ib_route[0].traffic_class == 32, "tclass %u", qr.ib_route[0].traffic_class);
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_QUERY_ROUTE, &q, sizeof(q), 100), ENOSPC);
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_QUERY, &q, sizeof(q), sizeof(pr)), 0);
	REQUIRE(pr.h.num_paths == 1 && pr.d[0].flags == (IB_PATH_GMP | IB_PATH_PRIMARY | IB_PATH_BIDIRECTIONAL), "path query %u flags %x",
	      pr.h.num_paths, pr.d[0].flags);
	REQUIRE(!memcmp((uint8_t *)pr.d[0].path_rec + 8, qr.ib_route[0].dgid, 16),
	      "wire path dgid");
	REQUIRE(((uint8_t *)pr.d[0].path_rec)[47] == 64, "wire hop limit");
	q.option = 9;
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_QUERY, &q, sizeof(q), sizeof(pr)), ENOSYS);

	ia.response = (uintptr_t)&qa;
	ia.qp_state = 1;	/* INIT */
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_INIT_QP_ATTR, &ia, sizeof(ia), sizeof(qa)), 0);
	REQUIRE(qa.qp_attr_mask == (1 | 8 | 16 | 32) && qa.port_num == 1 &&
	      qa.pkey_index == 0 && qa.qp_state == 1, "INIT attrs mask %x", qa.qp_attr_mask);
	ia.qp_state = 7;
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_INIT_QP_ATTR, &ia, sizeof(ia), sizeof(qa)), EINVAL);
	ia.qp_state = 1;
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_INIT_QP_ATTR, &ia, sizeof(ia), 10), ENOSPC);

	/* Connection commands before CONNECT: no CM id, nothing to answer. */
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_CONNECT, &cc, sizeof(cc), 0), EINVAL);
	cc.conn_param.valid = 1;
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_CONNECT, &cc, 8, 0), EINVAL);
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_ACCEPT, &ac, sizeof(ac), 0), EINVAL);
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_REJECT, &rj, sizeof(rj), 0), EINVAL);
	rj.reason = 0;
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_REJECT, &rj, sizeof(rj), 0), EINVAL);
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_DISCONNECT, &dc, sizeof(dc), 0), EINVAL);
	cc.conn_param.private_data_len = 57;	/* 92 - the 36-byte header */
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_CONNECT, &cc, sizeof(cc), 0), EINVAL);
	/* Nobody listens on the port: REJ "invalid service ID" (8), as Linux. */
	cc.conn_param.private_data_len = 56;
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_CONNECT, &cc, sizeof(cc), 0), 0);
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_CONNECT, &cc, sizeof(cc), 0), EINVAL);
	expect_event(fd, id, 8 /* REJECTED */, 8);
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_ACCEPT, &ac, sizeof(ac), 0), EINVAL);
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_REJECT, &rj, sizeof(rj), 0), EINVAL);
	/* Upstream rdma_disconnect succeeds once a CM id exists. */
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_DISCONNECT, &dc, sizeof(dc), 0), 0);

	EXPECT_ERR(destroy_id(fd, id, &n), 0);
	REQUIRE(n == 3, "events_reported %u, want 3", n);
	close(fd);
	printf("ok resolve\n");
}

static void test_unreachable(void)
{
	int fd = open_cm();
	uint32_t id = create_id(fd, RDMA_PS_TCP, 7);
	struct rdma_ucm_event_resp ev;
	struct in_addr dst;

	/* TEST-NET-3: no route in the guest (no default route). */
	inet_pton(AF_INET, "203.0.113.9", &dst);
	EXPECT_ERR(resolve_ip(fd, id, dst, 500), 0);
	EXPECT_ERR(get_event(fd, &ev), 0);
	REQUIRE(ev.event == 1 /* ADDR_ERROR */ && (int)ev.status < 0,
	      "event %u status %d", ev.event, (int)ev.status);
	printf("ok unreachable: ADDR_ERROR %d\n", (int)ev.status);
	close(fd);
}

static void test_nonblock_poll(void)
{
	int fd = open_cm();
	uint32_t id = create_id(fd, RDMA_PS_TCP, 9);
	struct rdma_ucm_event_resp ev;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	fcntl(fd, F_SETFL, O_NONBLOCK);
	EXPECT_ERR(get_event(fd, &ev), EAGAIN);
	REQUIRE(poll(&p, 1, 0) == 0, "poll ready with no event");
	EXPECT_ERR(resolve_ip(fd, id, local_ip, 2000), 0);
	REQUIRE(poll(&p, 1, 10000) == 1 && (p.revents & POLLIN), "poll: no event");
	{
		struct rdma_ucm_get_event c = { .response = (uintptr_t)&ev };

		/* A response shorter than 324 bytes is refused; the event stays. */
		EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_GET_EVENT, &c, sizeof(c), 300), ENOSPC);
	}
	EXPECT_ERR(get_event(fd, &ev), 0);
	REQUIRE(ev.event == 0, "event %u", ev.event);
	EXPECT_ERR(get_event(fd, &ev), EAGAIN);
	close(fd);
	printf("ok nonblock/poll\n");
}

static void test_migrate(void)
{
	int a = open_cm(), b = open_cm();
	uint32_t id = create_id(a, RDMA_PS_TCP, 5), n;
	struct rdma_ucm_resolve_route rr = { .id = id };
	struct rdma_ucm_migrate_id m = { .id = id, .fd = a };
	struct rdma_ucm_migrate_resp mr;
	struct pollfd p = { .fd = a, .events = POLLIN };

	EXPECT_ERR(resolve_ip(a, id, local_ip, 2000), 0);
	expect_event(a, id, 0, 0);
	EXPECT_ERR(ucmd(a, RDMA_USER_CM_CMD_RESOLVE_ROUTE, &rr, sizeof(rr), 0), 0);
	REQUIRE(poll(&p, 1, 10000) == 1, "route event not queued");
	/* One reported, one queued: migrating moves the queued one along. */
	m.response = (uintptr_t)&mr;
	EXPECT_ERR(ucmd(b, RDMA_USER_CM_CMD_MIGRATE_ID, &m, sizeof(m), sizeof(mr)), 0);
	REQUIRE(mr.events_reported == 1, "migrate reported %u", mr.events_reported);
	EXPECT_ERR(destroy_id(a, id, NULL), EINVAL);		/* b owns it now */
	REQUIRE(poll(&p, 1, 0) == 0, "the event stayed on the old file");
	expect_event(b, id, 2, 0);
	m.fd = 12345;
	EXPECT_ERR(ucmd(b, RDMA_USER_CM_CMD_MIGRATE_ID, &m, sizeof(m), sizeof(mr)), ENOENT);
	m.fd = open("/dev/null", O_RDONLY);	/* not an rdma_cm file */
	EXPECT_ERR(ucmd(b, RDMA_USER_CM_CMD_MIGRATE_ID, &m, sizeof(m), sizeof(mr)), EINVAL);
	close(m.fd);
	EXPECT_ERR(destroy_id(b, id, &n), 0);
	REQUIRE(n == 2, "events_reported %u after migrate", n);
	close(a);
	close(b);
	printf("ok migrate\n");
}

static uint32_t join(int fd, uint32_t id, const char *group, uint64_t uid,
		     int flags, int *err)
{
	struct rdma_ucm_join_mcast c = { .uid = uid, .id = id,
					 .addr_size = sizeof(struct sockaddr_in),
					 .join_flags = flags };
	struct rdma_ucm_create_id_resp r = { .id = ~0u };
	struct sockaddr_in *s = (struct sockaddr_in *)&c.addr;

	s->sin_family = AF_INET;
	inet_pton(AF_INET, group, &s->sin_addr);
	c.response = (uintptr_t)&r;
	*err = ucmd(fd, RDMA_USER_CM_CMD_JOIN_MCAST, &c, sizeof(c), sizeof(r));
	return r.id;
}

static int leave(int fd, uint32_t mc, uint32_t *reported)
{
	struct rdma_ucm_destroy_id c = { .id = mc };
	struct rdma_ucm_destroy_id_resp r;
	int ret;

	c.response = (uintptr_t)&r;
	ret = ucmd(fd, RDMA_USER_CM_CMD_LEAVE_MCAST, &c, sizeof(c), sizeof(r));
	if (!ret)
		*reported = r.events_reported;
	return ret;
}

/* Is the IPv4 group joined on some interface (/proc/net/igmp)? */
static int igmp_joined(const char *group)
{
	char line[256], want[16];
	struct in_addr a;
	int found = 0;
	FILE *f = fopen("/proc/net/igmp", "r");

	REQUIRE(f, "/proc/net/igmp");
	inet_pton(AF_INET, group, &a);
	snprintf(want, sizeof(want), "%08X", a.s_addr);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, want))
			found = 1;
	fclose(f);
	return found;
}

static void test_mcast(void)
{
	int fd = open_cm(), err;
	uint32_t ud = create_id(fd, RDMA_PS_UDP, 0x77), rc = create_id(fd, RDMA_PS_TCP, 1);
	uint32_t mc, mc2, mc3, n;
	struct rdma_ucm_event_resp ev;
	struct rdma_ucm_join_ip_mcast ji = { .uid = 0x99, .id = ud };
	struct rdma_ucm_create_id_resp r;

	join(fd, ud, "239.1.2.3", 0x88, 0, &err);
	REQUIRE(err == EINVAL, "join on an unbound id: %d", err);
	EXPECT_ERR(bind_ip(fd, ud, local_ip, 0), 0);
	EXPECT_ERR(bind_ip(fd, rc, local_ip, 0), 0);
	join(fd, rc, "239.1.2.3", 0x88, 0, &err);
	REQUIRE(err == EINVAL, "join on an RC id: %d", err);
	join(fd, ud, "239.1.2.3", 0x88, 2, &err);
	REQUIRE(err == EINVAL, "join flags 2: %d", err);
	join(fd, ud, "0.0.0.0", 0x88, 0, &err);
	REQUIRE(err == EINVAL, "join of 0.0.0.0: %d", err);

	mc = join(fd, ud, "239.1.2.3", 0x88, 0, &err);
	REQUIRE(!err, "join: %s", strerror(err));
	EXPECT_ERR(get_event(fd, &ev), 0);
	REQUIRE(ev.event == 12 && ev.id == mc && ev.uid == 0x88 && ev.status == 0,
	      "MULTICAST_JOIN: ev %u id %u uid %llx", ev.event, ev.id,
	      (unsigned long long)ev.uid);
	REQUIRE(ev.param.ud.qp_num == 0xffffff && ev.param.ud.qkey == 0x01234567,
	      "ud qpn %x qkey %x", ev.param.ud.qp_num, ev.param.ud.qkey);
	REQUIRE(ev.param.ud.ah_attr.is_global && ev.param.ud.ah_attr.grh.hop_limit == 64 &&
	      ev.param.ud.ah_attr.grh.dgid[10] == 0xff &&
	      ev.param.ud.ah_attr.grh.dgid[12] == 239 && ev.param.ud.ah_attr.port_num == 1,
	      "ah_attr");
	REQUIRE(igmp_joined("239.1.2.3"), "239.1.2.3 not joined on the netdev");
	REQUIRE(sysfs_long("ibx_mcasts") == 1, "mcast count");

	/* A send-only join does not join the IP group. */
	mc2 = join(fd, ud, "239.1.2.4", 0x89, 1, &err);
	REQUIRE(!err, "send-only join: %s", strerror(err));
	REQUIRE(!igmp_joined("239.1.2.4"), "send-only joined the IP group");
	/* JOIN_IP_MCAST (16), event left unread. */
	set_in(&ji.addr, local_ip, 0);
	inet_pton(AF_INET, "239.1.2.5", &((struct sockaddr_in *)&ji.addr)->sin_addr);
	ji.response = (uintptr_t)&r;
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_JOIN_IP_MCAST, &ji, sizeof(ji), sizeof(r)), 0);
	mc3 = r.id;

	EXPECT_ERR(leave(fd, mc, &n), 0);
	REQUIRE(n == 1, "leave reported %u", n);
	REQUIRE(!igmp_joined("239.1.2.3"), "group still joined after leave");
	EXPECT_ERR(leave(fd, mc, &n), ENOENT);
	{
		int other = open_cm();

		EXPECT_ERR(leave(other, mc2, &n), EINVAL);
		close(other);
	}
	/* mc2's and mc3's events were never read. */
	EXPECT_ERR(get_event(fd, &ev), 0);	/* mc2's JOIN */
	REQUIRE(ev.id == mc2, "id %u", ev.id);
	EXPECT_ERR(leave(fd, mc2, &n), 0);
	REQUIRE(n == 1, "leave mc2 reported %u", n);
	REQUIRE(igmp_joined("239.1.2.5"), "JOIN_IP_MCAST did not join");
	/* Destroying the id leaves mc3 and drops its unread event. */
	EXPECT_ERR(destroy_id(fd, ud, &n), 0);
	REQUIRE(n == 2, "ud id events_reported %u", n);
	REQUIRE(!igmp_joined("239.1.2.5"), "group still joined after destroy");
	REQUIRE(sysfs_long("ibx_mcasts") == 0, "memberships left");
	(void)mc3;
	close(fd);
	printf("ok mcast\n");
}

/* A file closed with ids, memberships and unread events. */
static void test_close_unread(void)
{
	int fd = open_cm(), err, i;
	uint32_t ud = create_id(fd, RDMA_PS_UDP, 1);
	struct pollfd p = { .fd = fd, .events = POLLIN };

	for (i = 0; i < 8; i++)
		resolve_ip(fd, create_id(fd, RDMA_PS_TCP, i), local_ip, 2000);
	EXPECT_ERR(bind_ip(fd, ud, local_ip, 0), 0);
	join(fd, ud, "239.1.2.6", 1, 0, &err);
	REQUIRE(!err, "join");
	REQUIRE(poll(&p, 1, 10000) == 1, "no event");
	REQUIRE(sysfs_long("ibx_ids") == 9, "ids %ld", sysfs_long("ibx_ids"));
	close(fd);
	REQUIRE(sysfs_long("ibx_ids") == 0, "ids left: %ld", sysfs_long("ibx_ids"));
	REQUIRE(sysfs_long("ibx_mcasts") == 0, "memberships left");
	REQUIRE(!igmp_joined("239.1.2.6"), "group left joined");
	printf("ok close with unread events\n");
}

static void read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");

	REQUIRE(f && fgets(buf, n, f), "read %s: %s", path, strerror(errno));
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

static void write_proc(const char *path, const char *val, char *old, size_t n)
{
	FILE *f = fopen(path, "r+");

	REQUIRE(f, "%s: %s", path, strerror(errno));
	if (old)
		REQUIRE(fgets(old, n, f), "read %s", path);
	rewind(f);
	REQUIRE(fputs(val, f) >= 0 && fclose(f) == 0, "write %s", path);
}

/* An id of @fd resolved to the local address, then CONNECT. */
static uint32_t connect_local(int fd, uint64_t uid, uint32_t qpn)
{
	uint32_t id = create_id(fd, RDMA_PS_TCP, uid);
	struct rdma_ucm_resolve_route rr = { .id = id, .timeout_ms = 1000 };
	struct rdma_ucm_connect cc = { .id = id };

	EXPECT_ERR(resolve_ip(fd, id, local_ip, 2000), 0);
	expect_event(fd, id, 0 /* ADDR_RESOLVED */, 0);
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_RESOLVE_ROUTE, &rr, sizeof(rr), 0), 0);
	expect_event(fd, id, 2 /* ROUTE_RESOLVED */, 0);
	cc.conn_param.valid = 1;
	cc.conn_param.qp_num = qpn;
	EXPECT_ERR(ucmd(fd, RDMA_USER_CM_CMD_CONNECT, &cc, sizeof(cc), 0), 0);
	return id;
}

/*
 * A listener's backlog bounds its unread CONNECT_REQUESTs: one more is
 * rejected as consumer-defined (28), as upstream's ucma refuses it; LISTEN
 * clamps the backlog to net/rdma_ucm/max_backlog.  A connection request
 * whose new id is destroyed unaccepted is rejected the same way.
 */
static void test_backlog(void)
{
	const char *sysctl = "/proc/sys/net/rdma_ucm/max_backlog";
	int lfd = open_cm(), cfd = open_cm();
	uint32_t l = create_id(lfd, RDMA_PS_TCP, 0x10), c0, c1, n;
	struct rdma_ucm_listen li = { .id = l, .backlog = 0 };
	struct rdma_ucm_event_resp ev;
	char old[32] = "";

	write_proc(sysctl, "1", old, sizeof(old));
	EXPECT_ERR(bind_ip(lfd, l, local_ip, 7471), 0);
	EXPECT_ERR(ucmd(lfd, RDMA_USER_CM_CMD_LISTEN, &li, sizeof(li), 0), 0);
	write_proc(sysctl, old, NULL, 0);
	/*
	 * QPNs no QP of this boot has had: a REQ naming a QP still in an
	 * earlier connection's timewait is rejected as stale (10) instead.
	 */
	c0 = connect_local(cfd, 0x20, 0xfffff0);
	c1 = connect_local(cfd, 0x21, 0xfffff1);
	expect_event(cfd, c1, 8 /* REJECTED */, 28);
	EXPECT_ERR(get_event(lfd, &ev), 0);
	REQUIRE(ev.event == 4 && ev.uid == 0x10 && ev.id != l && ev.status == 0,
		"CONNECT_REQUEST: event %u uid %llx id %u", ev.event,
		(unsigned long long)ev.uid, ev.id);
	REQUIRE(ev.param.conn.qp_num == 0xfffff0 && ev.param.conn.private_data_len == 56,
		"request qpn %x pdata %u", ev.param.conn.qp_num,
		ev.param.conn.private_data_len);
	EXPECT_ERR(destroy_id(lfd, ev.id, &n), 0);
	REQUIRE(n == 0, "new id reported %u", n);
	expect_event(cfd, c0, 8 /* REJECTED */, 28);
	EXPECT_ERR(destroy_id(lfd, l, &n), 0);
	REQUIRE(n == 1, "listener reported %u", n);
	EXPECT_ERR(destroy_id(cfd, c0, &n), 0);
	REQUIRE(n == 3, "c0 reported %u", n);
	EXPECT_ERR(destroy_id(cfd, c1, &n), 0);
	REQUIRE(n == 3, "c1 reported %u", n);
	close(lfd);
	close(cfd);
	printf("ok backlog\n");
}

/*
 * The hardware address of the bound netdev changes (as after a bonding
 * failover): ADDR_CHANGE, as upstream's netdev callback sends.
 */
static void test_addr_change(const char *netdev)
{
	int fd = open_cm();
	uint32_t id = create_id(fd, RDMA_PS_TCP, 0x66), n;
	char path[128], mac[64] = "", cmd[200];

	snprintf(path, sizeof(path), "/sys/class/net/%s/address", netdev);
	read_line(path, mac, sizeof(mac));
	EXPECT_ERR(bind_ip(fd, id, local_ip, 0), 0);
	snprintf(cmd, sizeof(cmd), "ip link set dev %s address 02:0b:0c:0d:0e:0f",
		 netdev);
	REQUIRE(system(cmd) == 0, "%s", cmd);
	expect_event(fd, id, 14 /* ADDR_CHANGE */, 0);
	EXPECT_ERR(destroy_id(fd, id, &n), 0);
	REQUIRE(n == 1, "destroy reported %u", n);
	snprintf(cmd, sizeof(cmd), "ip link set dev %s address %s", netdev, mac);
	REQUIRE(system(cmd) == 0, "%s", cmd);
	close(fd);
	printf("ok address change\n");
}

/*
 * The HCA goes away under a bound UD id with a membership: DEVICE_REMOVAL,
 * the id loses its device, and leave/destroy still report exact counts.
 */
static void test_removal(const char *netdev)
{
	int fd = open_cm(), err;
	uint32_t id = create_id(fd, RDMA_PS_UDP, 0x55), mc, n;
	struct rdma_ucm_query_route_resp qr;
	struct rdma_ucm_event_resp ev;
	char cmd[160];

	EXPECT_ERR(bind_ip(fd, id, local_ip, 0), 0);
	mc = join(fd, id, "239.1.2.8", 1, 0, &err);
	REQUIRE(!err, "join");
	expect_event(fd, mc, 12, 0);
	snprintf(cmd, sizeof(cmd),
		 "echo %s > /sys/module/mlx_hw/parameters/remove", netdev);
	REQUIRE(system(cmd) == 0, "%s", cmd);
	EXPECT_ERR(get_event(fd, &ev), 0);
	REQUIRE(ev.event == 11 && ev.id == id && ev.uid == 0x55,
	      "event %u id %u, want DEVICE_REMOVAL of %u", ev.event, ev.id, id);
	EXPECT_ERR(query_route(fd, id, &qr), 0);
	REQUIRE(qr.node_guid == 0, "node_guid after removal");
	EXPECT_ERR(resolve_ip(fd, id, local_ip, 100), EINVAL);
	EXPECT_ERR(leave(fd, mc, &n), 0);
	REQUIRE(n == 1, "leave reported %u", n);
	REQUIRE(!igmp_joined("239.1.2.8"), "group still joined");
	EXPECT_ERR(destroy_id(fd, id, &n), 0);
	REQUIRE(n == 2, "destroy reported %u", n);
	close(fd);
	REQUIRE(sysfs_long("ibx_ids") == 0, "ids left");
	printf("ok device removal\n");
}

int main(int argc, char **argv)
{
	REQUIRE((argc == 2 || (argc == 4 && (!strcmp(argv[2], "removal") ||
					     !strcmp(argv[2], "addrchange")))) &&
	      inet_pton(AF_INET, argv[1], &local_ip) == 1,
	      "usage: %s LOCAL_IPV4 [removal|addrchange NETDEV]", argv[0]);
	REQUIRE(sysfs_long("abi_version") == 4, "abi_version");
	if (argc == 4) {
		if (!strcmp(argv[2], "removal"))
			test_removal(argv[3]);
		else
			test_addr_change(argv[3]);
		return check_failures ? 1 : 0;
	}
	test_framing();
	test_ownership();
	test_bind();
	test_loopback();
	test_listen();
	test_resolve();
	test_unreachable();
	test_nonblock_poll();
	test_migrate();
	test_mcast();
	test_close_unread();
	test_backlog();
	REQUIRE(sysfs_long("ibx_ids") == 0, "ids left at exit");
	printf("ucma_abi_test: all passed\n");
	return check_failures || !check_count ? 1 : 0;
}
