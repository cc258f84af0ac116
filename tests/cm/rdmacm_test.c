// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdmacm_test - Debian's librdmacm on our libibverbs and ibx_rdma_cm:
 * devices, bind, address and route resolution (to the local IP and to a
 * second address), rdma_getaddrinfo, id->verbs and its GUID, listen,
 * multicast join/leave, destroy (which blocks unless the event counts
 * are exact).  A CONNECT to a port nobody listens on is REJECTED with
 * reason 8; connections themselves are tested with rdmacm-utils.
 *
 * usage: rdmacm_test DEV LOCAL_IPV4 OTHER_IPV4 [LOCAL_IPV6[%IF]]
 * With UNANSWERED=IPV4 in the environment (an address on an ARP subnet
 * that nobody owns), resolving it must end in ADDR_ERROR -ETIMEDOUT.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include "check.h"


static const char *devname;
static uint64_t dev_guid;

static void sin_set(struct sockaddr_in *s, const char *ip, int port)
{
	memset(s, 0, sizeof(*s));
	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	REQUIRE(inet_pton(AF_INET, ip, &s->sin_addr) == 1, "address %s", ip);
}

static void expect(struct rdma_event_channel *ch, enum rdma_cm_event_type type,
		   struct rdma_cm_id *id)
{
	struct rdma_cm_event *ev;

	REQUIRE(rdma_get_cm_event(ch, &ev) == 0, "rdma_get_cm_event");
	REQUIRE(ev->event == type && ev->status == 0 && (!id || ev->id == id),
	      "event %s status %d, want %s", rdma_event_str(ev->event),
	      ev->status, rdma_event_str(type));
	REQUIRE(rdma_ack_cm_event(ev) == 0, "ack");
}

static void check_verbs(struct rdma_cm_id *id)
{
	REQUIRE(id->verbs, "id->verbs NULL");
	REQUIRE(!strcmp(ibv_get_device_name(id->verbs->device), devname),
	      "device %s", ibv_get_device_name(id->verbs->device));
	REQUIRE(ibv_get_device_guid(id->verbs->device) == dev_guid, "GUID");
	REQUIRE(id->port_num == 1, "port_num %u", id->port_num);
}

static void test_devices(void)
{
	struct ibv_context **list;
	int n, i, found = 0;

	list = rdma_get_devices(&n);
	REQUIRE(list && n >= 1, "rdma_get_devices: %d", n);
	for (i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(list[i]->device), devname))
			continue;
		found = 1;
		dev_guid = ibv_get_device_guid(list[i]->device);
	}
	REQUIRE(found && dev_guid, "%s not among rdma_get_devices", devname);
	rdma_free_devices(list);
	printf("ok rdma_get_devices: %d device(s)\n", n);
}

static void test_resolve(struct rdma_event_channel *ch, const char *ip,
			 const char *dst_ip)
{
	struct rdma_cm_id *id;
	struct sockaddr_in dst;
	struct ibv_sa_path_rec *p;
	struct rdma_conn_param cp = { .retry_count = 7 };
	struct rdma_cm_event *ev;

	REQUIRE(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0, "create_id");
	sin_set(&dst, dst_ip, 7471);
	REQUIRE(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000) == 0,
	      "rdma_resolve_addr %s", dst_ip);
	expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, id);
	check_verbs(id);
	REQUIRE(((struct sockaddr_in *)rdma_get_local_addr(id))->sin_addr.s_addr ==
	      inet_addr(ip), "source is not %s", ip);
	REQUIRE(rdma_resolve_route(id, 2000) == 0, "rdma_resolve_route");
	expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, id);
	REQUIRE(id->route.num_paths == 1, "num_paths %d", id->route.num_paths);
	p = &id->route.path_rec[0];
	REQUIRE(p->hop_limit == 64 && p->pkey == htons(0xffff), "path hop %u pkey %x",
	      p->hop_limit, ntohs(p->pkey));
	REQUIRE(!memcmp(&p->dgid.raw[12], &dst.sin_addr, 4) && p->dgid.raw[11] == 0xff,
	      "dgid");
	REQUIRE(rdma_connect(id, &cp) == 0, "rdma_connect: %s", strerror(errno));
	if (!strcmp(ip, dst_ip)) {
		/* Nobody listens on 7471: REJECTED 8 (invalid service ID). */
		REQUIRE(rdma_get_cm_event(ch, &ev) == 0, "rdma_get_cm_event");
		REQUIRE(ev->event == RDMA_CM_EVENT_REJECTED && ev->status == 8 &&
			ev->id == id, "event %s status %d, want REJECTED 8",
			rdma_event_str(ev->event), ev->status);
		REQUIRE(rdma_ack_cm_event(ev) == 0, "ack");
	}
	/* Else nobody answers: destroying the id gives up on its REQ. */
	REQUIRE(rdma_destroy_id(id) == 0, "destroy");
	printf("ok resolve addr+route to %s\n", dst_ip);
}

/* Neighbour resolution that never completes: ADDR_ERROR -ETIMEDOUT. */
static void test_unanswered(struct rdma_event_channel *ch, const char *ip)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct sockaddr_in dst;

	REQUIRE(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0, "create_id");
	sin_set(&dst, ip, 7471);
	REQUIRE(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 1000) == 0,
	      "rdma_resolve_addr %s", ip);
	REQUIRE(rdma_get_cm_event(ch, &ev) == 0, "rdma_get_cm_event");
	REQUIRE(ev->event == RDMA_CM_EVENT_ADDR_ERROR && ev->status == -ETIMEDOUT,
	      "event %s status %d, want ADDR_ERROR -ETIMEDOUT",
	      rdma_event_str(ev->event), ev->status);
	rdma_ack_cm_event(ev);
	REQUIRE(rdma_destroy_id(id) == 0, "destroy");
	printf("ok %s: ADDR_ERROR -ETIMEDOUT\n", ip);
}

/* IPv6: resolve our own (link-local) address; the GID is the address. */
static void test_resolve6(struct rdma_event_channel *ch, const char *ip6)
{
	struct addrinfo hints = { .ai_family = AF_INET6,
				  .ai_flags = AI_NUMERICHOST }, *ai;
	struct sockaddr_in6 *dst;
	struct rdma_cm_id *id;
	struct ibv_sa_path_rec *p;

	REQUIRE(getaddrinfo(ip6, "7471", &hints, &ai) == 0, "getaddrinfo %s", ip6);
	dst = (struct sockaddr_in6 *)ai->ai_addr;
	REQUIRE(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0, "create_id");
	REQUIRE(rdma_resolve_addr(id, NULL, ai->ai_addr, 2000) == 0,
	      "rdma_resolve_addr %s", ip6);
	expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, id);
	check_verbs(id);
	REQUIRE(rdma_resolve_route(id, 2000) == 0, "rdma_resolve_route");
	expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, id);
	REQUIRE(id->route.num_paths == 1, "num_paths %d", id->route.num_paths);
	p = &id->route.path_rec[0];
	REQUIRE(!memcmp(p->dgid.raw, &dst->sin6_addr, 16) &&
	      !memcmp(p->sgid.raw, &dst->sin6_addr, 16), "IPv6 GIDs");
	REQUIRE(p->hop_limit == 64, "hop_limit %u", p->hop_limit);
	REQUIRE(rdma_destroy_id(id) == 0, "destroy");
	freeaddrinfo(ai);
	printf("ok resolve addr+route to %s\n", ip6);
}

static void test_bind_listen(struct rdma_event_channel *ch, const char *ip)
{
	struct rdma_cm_id *id, *wild;
	struct sockaddr_in a;

	REQUIRE(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0, "create_id");
	sin_set(&a, ip, 0);
	REQUIRE(rdma_bind_addr(id, (struct sockaddr *)&a) == 0, "bind %s", ip);
	check_verbs(id);
	REQUIRE(rdma_get_src_port(id) != 0, "port 0 after bind");
	REQUIRE(rdma_listen(id, 4) == 0, "listen");
	REQUIRE(rdma_create_id(ch, &wild, NULL, RDMA_PS_TCP) == 0, "create_id");
	sin_set(&a, "0.0.0.0", 20555);
	REQUIRE(rdma_bind_addr(wild, (struct sockaddr *)&a) == 0, "bind wildcard");
	REQUIRE(!wild->verbs, "a wildcard id has a device");
	REQUIRE(rdma_listen(wild, 0) == 0, "wildcard listen");
	REQUIRE(rdma_destroy_id(wild) == 0 && rdma_destroy_id(id) == 0, "destroy");
	printf("ok bind/listen\n");
}

static void test_getaddrinfo(const char *ip)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE,
				       .ai_port_space = RDMA_PS_TCP }, *res;

	REQUIRE(rdma_getaddrinfo(ip, "7471", &hints, &res) == 0, "rdma_getaddrinfo");
	REQUIRE(res->ai_family == AF_INET && res->ai_src_addr &&
	      ((struct sockaddr_in *)res->ai_src_addr)->sin_addr.s_addr == inet_addr(ip),
	      "rdma_getaddrinfo result");
	rdma_freeaddrinfo(res);
	printf("ok rdma_getaddrinfo\n");
}

static void test_mcast(struct rdma_event_channel *ch, const char *ip)
{
	struct rdma_cm_id *id;
	struct rdma_cm_event *ev;
	struct sockaddr_in a, g;

	REQUIRE(rdma_create_id(ch, &id, NULL, RDMA_PS_UDP) == 0, "create_id");
	sin_set(&a, ip, 0);
	REQUIRE(rdma_bind_addr(id, (struct sockaddr *)&a) == 0, "bind");
	sin_set(&g, "239.9.9.9", 0);
	REQUIRE(rdma_join_multicast(id, (struct sockaddr *)&g, (void *)0x1234) == 0,
	      "rdma_join_multicast");
	REQUIRE(rdma_get_cm_event(ch, &ev) == 0, "get event");
	REQUIRE(ev->event == RDMA_CM_EVENT_MULTICAST_JOIN && ev->status == 0 &&
	      ev->param.ud.private_data == (void *)0x1234 &&
	      ev->param.ud.qp_num == 0xffffff && ev->param.ud.qkey == 0x01234567 &&
	      ev->param.ud.ah_attr.is_global,
	      "MULTICAST_JOIN event %s", rdma_event_str(ev->event));
	rdma_ack_cm_event(ev);
	REQUIRE(rdma_leave_multicast(id, (struct sockaddr *)&g) == 0, "leave");
	REQUIRE(rdma_destroy_id(id) == 0, "destroy");
	printf("ok multicast join/leave\n");
}

int main(int argc, char **argv)
{
	struct rdma_event_channel *ch;

	REQUIRE(argc == 4 || argc == 5,
	      "usage: %s DEV LOCAL_IPV4 OTHER_IPV4 [LOCAL_IPV6[%%IF]]", argv[0]);
	devname = argv[1];
	test_devices();
	ch = rdma_create_event_channel();
	REQUIRE(ch, "rdma_create_event_channel");
	test_bind_listen(ch, argv[2]);
	test_resolve(ch, argv[2], argv[2]);
	test_resolve(ch, argv[2], argv[3]);
	if (argc == 5)
		test_resolve6(ch, argv[4]);
	if (getenv("UNANSWERED"))
		test_unanswered(ch, getenv("UNANSWERED"));
	test_getaddrinfo(argv[2]);
	test_mcast(ch, argv[2]);
	rdma_destroy_event_channel(ch);
	printf("rdmacm_test: all passed\n");
	return 0;
}
