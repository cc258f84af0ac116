// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ah.c - address vectors built from received completions, and RoCE
 * destination MAC resolution through the kernel neighbour table.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <netlink/route/neighbour.h>
#include <netlink/route/rtnl.h>

#include "ibverbs.h"

/* IPv4-mapped IPv6 address, ::ffff:a.b.c.d (RoCEv2 GIDs of IPv4). */
static bool gid_is_v4mapped(const union ibv_gid *gid)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(gid->raw, prefix, sizeof(prefix));
}

static void v4_to_gid(union ibv_gid *gid, const uint8_t addr[4])
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	memcpy(&gid->raw[12], addr, 4);
}

/* Index of @gid in the port's table, or -1. */
static int find_sgid_index(struct ibv_context *context, uint8_t port_num,
			   const union ibv_gid *gid, int want_v2)
{
	struct ibv_port_attr pattr;
	union ibv_gid cur;
	int i, type;

	if (ibv_query_port(context, port_num,
			   (struct _compat_ibv_port_attr *)&pattr))
		return -1;
	for (i = 0; i < pattr.gid_tbl_len; i++) {
		if (ibv_query_gid(context, port_num, i, &cur))
			continue;
		if (memcmp(&cur, gid, sizeof(cur)))
			continue;
		if (want_v2 >= 0 &&
		    !ibv_query_gid_type(context, port_num, i, &type) &&
		    type != want_v2)
			continue;
		return i;
	}
	return -1;
}

/* One's complement sum over the header is 0xffff when it is intact. */
static bool ipv4_csum_ok(const uint8_t *hdr)
{
	uint32_t sum = 0;
	int i;

	for (i = 0; i < 20; i += 2)
		sum += (hdr[i] << 8) | hdr[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/*
 * What the 40 bytes before a UD payload hold: a GRH/IPv6 header (version
 * 6 in the top nibble), or for RoCEv2 over IPv4 the IPv4
 * header in their last 20 bytes.  The first 20 bytes are then undefined
 * and may look like IPv6, so a well-formed IPv4 header (IHL 5, valid
 * checksum) wins.  Returns 4, 6 or -1.
 */
static int grh_ip_version(const struct ibv_grh *grh)
{
	const uint8_t *ip4 = (const uint8_t *)grh + 20;
	bool v6 = (((const uint8_t *)grh)[0] >> 4) == 6;

	if (ip4[0] == 0x45 && ipv4_csum_ok(ip4))
		return 4;
	if (v6)
		return 6;
	if ((ip4[0] >> 4) == 4)
		return 4;
	return -1;
}

__ibx_export
int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num,
			struct ibv_wc *wc, struct ibv_grh *grh,
			struct ibv_ah_attr *ah_attr)
{
	union ibv_gid sgid, dgid;
	int want_v2 = -1, idx;
	uint32_t vtf;

	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->dlid = wc->slid;
	ah_attr->sl = wc->sl;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	ah_attr->port_num = port_num;

	if (!(wc->wc_flags & IBV_WC_GRH))
		return 0;

	switch (grh_ip_version(grh)) {
	case 4: {
		const uint8_t *ip = (const uint8_t *)grh + 20;

		v4_to_gid(&sgid, ip + 12);
		v4_to_gid(&dgid, ip + 16);
		ah_attr->grh.traffic_class = ip[1];
		ah_attr->grh.flow_label = 0;
		want_v2 = 1;
		break;
	}
	case 6:
		sgid = grh->sgid;
		dgid = grh->dgid;
		vtf = be32toh(grh->version_tclass_flow);
		ah_attr->grh.flow_label = vtf & IB_GRH_FLOWLABEL_MASK;
		ah_attr->grh.traffic_class = (vtf >> 20) & 0xff;
		break;
	default:
		return EPROTONOSUPPORT;
	}

	/* The packet's destination is one of our GIDs: reply from it. */
	idx = find_sgid_index(context, port_num, &dgid, want_v2);
	if (idx < 0)
		return errno ? errno : ENOENT;

	ah_attr->is_global = 1;
	ah_attr->grh.dgid = sgid;
	ah_attr->grh.sgid_index = idx;
	ah_attr->grh.hop_limit = 0xff;
	return 0;
}

__ibx_export
struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc,
				     struct ibv_grh *grh, uint8_t port_num)
{
	struct ibv_ah_attr attr;
	int ret;

	ret = ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	return ibv_create_ah(pd, &attr);
}

static int read_mac(const char *ifname, uint8_t mac[6])
{
	char path[IF_NAMESIZE + 32], buf[32];
	unsigned int m[6];
	int i;

	snprintf(path, sizeof(path), "/sys/class/net/%s", ifname);
	if (ibx_read_file(path, "address", buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3],
		   &m[4], &m[5]) != 6)
		return ENODEV;
	for (i = 0; i < 6; i++)
		mac[i] = m[i];
	return 0;
}

/* The netdev a GID belongs to, from the GID attributes in sysfs. */
static int gid_netdev(struct ibv_context *context, uint8_t port_num,
		      unsigned int index, char ifname[IF_NAMESIZE])
{
	char buf[IF_NAMESIZE + 2];

	if (ibx_read_ibdev_file(context->device, buf, sizeof(buf),
				"ports/%u/gid_attrs/ndevs/%u", port_num,
				index) <= 0 || !buf[0] || strlen(buf) >= IF_NAMESIZE)
		return ENODEV;
	strcpy(ifname, buf);
	return 0;
}

/* Fills @ifname with the local interface owning @addr, if any. */
static bool local_address(int family, const void *addr, char *ifname)
{
	struct ifaddrs *ifa, *cur;
	bool found = false;

	if (getifaddrs(&ifa))
		return false;
	for (cur = ifa; cur && !found; cur = cur->ifa_next) {
		if (!cur->ifa_addr || cur->ifa_addr->sa_family != family)
			continue;
		if (family == AF_INET)
			found = !memcmp(&((struct sockaddr_in *)cur->ifa_addr)->sin_addr,
					addr, 4);
		else
			found = !memcmp(&((struct sockaddr_in6 *)cur->ifa_addr)->sin6_addr,
					addr, 16);
		if (found)
			snprintf(ifname, IF_NAMESIZE, "%s", cur->ifa_name);
	}
	freeifaddrs(ifa);
	return found;
}

/*
 * Without GID attributes in sysfs: the interface whose IPv4 subnet holds
 * @addr (the one the kernel would route it through, for on-link peers).
 */
static int subnet_ifindex(int family, const void *addr)
{
	struct ifaddrs *ifa, *cur;
	uint32_t dst, net, mask;
	int ifindex = 0;

	if (family != AF_INET || getifaddrs(&ifa))
		return 0;
	memcpy(&dst, addr, 4);
	for (cur = ifa; cur && !ifindex; cur = cur->ifa_next) {
		if (!cur->ifa_addr || !cur->ifa_netmask ||
		    cur->ifa_addr->sa_family != AF_INET ||
		    (cur->ifa_flags & IFF_LOOPBACK))
			continue;
		net = ((struct sockaddr_in *)cur->ifa_addr)->sin_addr.s_addr;
		mask = ((struct sockaddr_in *)cur->ifa_netmask)->sin_addr.s_addr;
		if (((net ^ dst) & mask) == 0)
			ifindex = if_nametoindex(cur->ifa_name);
	}
	freeifaddrs(ifa);
	return ifindex;
}

/* Looks @dst up in the neighbour table; 0, EAGAIN (not yet) or error. */
static int neigh_lookup(struct nl_sock *sk, int ifindex,
			struct nl_addr *dst, uint8_t mac[6])
{
	struct nl_cache *cache;
	struct rtnl_neigh *neigh;
	struct nl_addr *ll;
	int ret = EAGAIN;

	if (rtnl_neigh_alloc_cache(sk, &cache))
		return ENOMEM;
	neigh = rtnl_neigh_get(cache, ifindex, dst);
	if (neigh) {
		int state = rtnl_neigh_get_state(neigh);

		ll = rtnl_neigh_get_lladdr(neigh);
		if (ll && nl_addr_get_len(ll) == 6 &&
		    !(state & (NUD_INCOMPLETE | NUD_FAILED | NUD_NONE))) {
			memcpy(mac, nl_addr_get_binary_addr(ll), 6);
			ret = 0;
		} else if (state & NUD_FAILED) {
			ret = EHOSTUNREACH;
		}
		rtnl_neigh_put(neigh);
	}
	nl_cache_free(cache);
	return ret;
}

/* Any datagram to @dst makes the kernel resolve its link address. */
static void kick_resolution(int family, const void *addr, int ifindex)
{
	struct sockaddr_storage ss = {};
	socklen_t len;
	int fd;

	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(4791);
		memcpy(&sin->sin_addr, addr, 4);
		len = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(4791);
		memcpy(&sin6->sin6_addr, addr, 16);
		sin6->sin6_scope_id = ifindex;
		len = sizeof(*sin6);
	}
	fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	sendto(fd, "", 0, MSG_DONTWAIT, (struct sockaddr *)&ss, len);
	close(fd);
}

static int resolve_neigh(int family, const void *addr, int ifindex,
			 uint8_t mac[6])
{
	struct nl_addr *dst;
	struct nl_sock *sk;
	int ret, tries;

	sk = nl_socket_alloc();
	if (!sk)
		return ENOMEM;
	ret = nl_connect(sk, NETLINK_ROUTE);
	if (ret) {
		nl_socket_free(sk);
		return EIO;
	}
	dst = nl_addr_build(family, addr, family == AF_INET ? 4 : 16);
	if (!dst) {
		nl_socket_free(sk);
		return ENOMEM;
	}

	/* Up to ~1 s: ARP/ND retransmits every second by default. */
	for (tries = 0; tries < 50; tries++) {
		ret = neigh_lookup(sk, ifindex, dst, mac);
		if (ret != EAGAIN)
			break;
		if (!tries)
			kick_resolution(family, addr, ifindex);
		poll(NULL, 0, 20);
	}
	if (ret == EAGAIN)
		ret = EHOSTUNREACH;

	nl_addr_put(dst);
	nl_socket_free(sk);
	return ret;
}

__ibx_export
int ibx_resolve_roce_dmac(struct ibv_context *context, uint8_t port_num,
			  const struct ibv_ah_attr *attr, uint8_t dmac[6])
{
	const union ibv_gid *dgid = &attr->grh.dgid;
	char ifname[IF_NAMESIZE] = "";
	int family, ifindex = 0;
	const void *addr;

	if (!attr->is_global)
		return EINVAL;

	if (gid_is_v4mapped(dgid)) {
		family = AF_INET;
		addr = &dgid->raw[12];
		/* IPv4 multicast 224/4 -> 01:00:5e + low 23 bits (RFC 1112) */
		if ((dgid->raw[12] & 0xf0) == 0xe0) {
			dmac[0] = 0x01;
			dmac[1] = 0x00;
			dmac[2] = 0x5e;
			dmac[3] = dgid->raw[13] & 0x7f;
			dmac[4] = dgid->raw[14];
			dmac[5] = dgid->raw[15];
			return 0;
		}
	} else {
		family = AF_INET6;
		addr = dgid->raw;
		/* IPv6 multicast -> 33:33 + low 32 bits (RFC 2464) */
		if (dgid->raw[0] == 0xff) {
			dmac[0] = 0x33;
			dmac[1] = 0x33;
			memcpy(&dmac[2], &dgid->raw[12], 4);
			return 0;
		}
		/* Link-local with a MAC-derived EUI-64 interface ID. */
		if (dgid->raw[0] == 0xfe && (dgid->raw[1] & 0xc0) == 0x80 &&
		    dgid->raw[11] == 0xff && dgid->raw[12] == 0xfe) {
			dmac[0] = dgid->raw[8] ^ 2;
			dmac[1] = dgid->raw[9];
			dmac[2] = dgid->raw[10];
			dmac[3] = dgid->raw[13];
			dmac[4] = dgid->raw[14];
			dmac[5] = dgid->raw[15];
			return 0;
		}
	}

	/* Our own address (loopback traffic): our own MAC. */
	if (local_address(family, addr, ifname))
		return read_mac(ifname, dmac);

	if (!gid_netdev(context, port_num, attr->grh.sgid_index, ifname))
		ifindex = if_nametoindex(ifname);
	if (!ifindex)
		ifindex = subnet_ifindex(family, addr);
	if (!ifindex)
		return ENETUNREACH;
	return resolve_neigh(family, addr, ifindex, dmac);
}

__ibx_export
int ibv_resolve_eth_l2_from_gid(struct ibv_context *context,
				struct ibv_ah_attr *attr,
				uint8_t eth_mac[ETHERNET_LL_SIZE],
				uint16_t *vid)
{
	int ret;

	ret = ibx_resolve_roce_dmac(context, attr->port_num, attr, eth_mac);
	if (ret) {
		errno = ret;
		return -1;
	}
	if (vid)
		*vid = 0xffff;	/* no VLAN */
	return 0;
}
