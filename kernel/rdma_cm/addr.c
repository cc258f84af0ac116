// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * addr.c - address resolution on RoCE: the route and neighbour tables of
 * the id's network namespace give the source IP, the netdev, the hop limit
 * and the destination MAC; the source IP's GID gives the device and port.
 *
 * It runs from a delayed work item: an unresolved neighbour is asked for
 * (neigh_event_send) and looked at again every CMA_ADDR_RETRY_MS until
 * the caller's timeout, which then gives ADDR_ERROR -ETIMEDOUT, as
 * upstream addr.c.
 */
#include <linux/inetdevice.h>
#include <net/route.h>
#include <net/neighbour.h>
#include <net/ip6_route.h>
#include <net/addrconf.h>
#include <net/ipv6_stubs.h>
#include "cma_priv.h"

void cma_ip_to_gid(const struct sockaddr *addr, union ibx_gid *gid)
{
	if (addr->sa_family == AF_INET)
		ipv6_addr_set_v4mapped(((const struct sockaddr_in *)addr)->sin_addr.s_addr,
				       (struct in6_addr *)gid->raw);
	else
		memcpy(gid->raw, &((const struct sockaddr_in6 *)addr)->sin6_addr, 16);
}

/* What one route + neighbour lookup found. */
struct cma_addr_res {
	struct sockaddr_storage src;	/* the source IP the route picked */
	int ifindex;			/* the RoCE netdev (never lo) */
	u8 dmac[ETH_ALEN];
	u8 hop_limit;
	bool gateway;
};

/*
 * The destination MAC from the neighbour table, or -ENODATA after asking
 * for it.  Loopback routes use the source netdev's own MAC; NOARP
 * netdevs (dummy) need none, as upstream addr_resolve_neigh.
 */
static int cma_fetch_ha(struct dst_entry *dst, const void *daddr,
			struct net_device *ndev, struct cma_addr_res *res)
{
	struct neighbour *n;
	int ret = 0;

	if (dst->dev->flags & IFF_LOOPBACK) {
		memcpy(res->dmac, ndev->dev_addr, ETH_ALEN);
		return 0;
	}
	if (dst->dev->flags & IFF_NOARP)
		return 0;
	n = dst_neigh_lookup(dst, daddr);
	if (!n)
		return -ENODATA;
	if (n->nud_state & NUD_VALID) {
		neigh_ha_snapshot(res->dmac, n, dst->dev);
	} else {
		neigh_event_send(n, NULL);
		ret = -ENODATA;
	}
	neigh_release(n);
	return ret;
}

static int cma_lookup4(struct net *net, const struct sockaddr_in *src,
		       const struct sockaddr_in *dst, struct cma_addr_res *res)
{
	struct flowi4 fl4 = {
		.daddr = dst->sin_addr.s_addr,
		.saddr = src->sin_addr.s_addr,
	};
	struct sockaddr_in *out = (struct sockaddr_in *)&res->src;
	struct net_device *ndev, *owner;
	struct rtable *rt;
	int ret;

	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	out->sin_family = AF_INET;
	out->sin_addr.s_addr = fl4.saddr;
	rcu_read_lock();
	ndev = rt->dst.dev;
	if (ndev->flags & IFF_LOOPBACK) {
		/* A local destination: the netdev that owns the source IP. */
		owner = __ip_dev_find(net, fl4.saddr, false);
		ndev = owner && !(owner->flags & IFF_LOOPBACK) ? owner : NULL;
	}
	if (!ndev) {
		ret = -ENODEV;
		goto out;
	}
	res->ifindex = ndev->ifindex;
	res->hop_limit = ip4_dst_hoplimit(&rt->dst);
	res->gateway = rt->rt_uses_gateway;
	ret = cma_fetch_ha(&rt->dst, &fl4.daddr, ndev, res);
out:
	rcu_read_unlock();
	ip_rt_put(rt);
	return ret;
}

static int cma_lookup6(struct net *net, const struct sockaddr_in6 *src,
		       const struct sockaddr_in6 *dst, struct cma_addr_res *res)
{
	struct flowi6 fl6 = {
		.daddr = dst->sin6_addr,
		.saddr = src->sin6_addr,
		.flowi6_oif = dst->sin6_scope_id,
	};
	struct sockaddr_in6 *out = (struct sockaddr_in6 *)&res->src;
	struct net_device *ndev = NULL, *d;
	struct dst_entry *de;
	int ret;

	if (!ipv6_stub || !ipv6_stub->ipv6_dst_lookup_flow)
		return -EAFNOSUPPORT;
	de = ipv6_stub->ipv6_dst_lookup_flow(net, NULL, &fl6, NULL);
	if (IS_ERR(de))
		return PTR_ERR(de);
	out->sin6_family = AF_INET6;
	out->sin6_addr = fl6.saddr;
	out->sin6_scope_id = src->sin6_scope_id;
	rcu_read_lock();
	if (de->dev->flags & IFF_LOOPBACK) {
		for_each_netdev_rcu(net, d) {
			if (!(d->flags & IFF_LOOPBACK) &&
			    ipv6_chk_addr(net, &fl6.saddr, d, 1)) {
				ndev = d;
				break;
			}
		}
	} else {
		ndev = de->dev;
	}
	if (!ndev) {
		ret = -ENODEV;
		goto out;
	}
	res->ifindex = ndev->ifindex;
	res->hop_limit = ip6_dst_hoplimit(de);
	res->gateway = false;
	ret = cma_fetch_ha(de, &fl6.daddr, ndev, res);
out:
	rcu_read_unlock();
	dst_release(de);
	return ret;
}

/* Called with id->lock held; sends ADDR_RESOLVED or ADDR_ERROR when done. */
static void cma_addr_done(struct cma_id *id, int status,
			  struct cma_addr_res *res)
{
	struct cma_event ev = { .event = RDMA_CM_EVENT_ADDR_RESOLVED };
	__be16 port = cma_port((struct sockaddr *)&id->src);

	lockdep_assert_held(&id->lock);
	if (!status && cma_any_addr((struct sockaddr *)&id->src)) {
		/* The route chose the source; the port stays reserved. */
		memcpy(&id->src, &res->src, sizeof(id->src));
		cma_set_port((struct sockaddr *)&id->src, port);
	}
	if (!status && !id->cdev)
		status = cma_acquire_dev(id, (struct sockaddr *)&id->src,
					 res->ifindex);
	if (!status) {
		id->ifindex = res->ifindex;
		memcpy(id->dmac, res->dmac, ETH_ALEN);
		id->hop_limit = res->hop_limit;
		id->gateway = res->gateway;
		id->state = CMA_ADDR_RESOLVED;
	} else {
		id->state = CMA_ADDR_BOUND;
		ev.event = RDMA_CM_EVENT_ADDR_ERROR;
		ev.status = status;
	}
	id->handler(id, &ev);
}

static void cma_addr_loopback_done(struct cma_id *id)
{
	struct cma_event ev = { .event = RDMA_CM_EVENT_ADDR_RESOLVED };

	id->state = CMA_ADDR_RESOLVED;
	id->handler(id, &ev);
}

void cma_addr_work(struct work_struct *work)
{
	struct cma_id *id = container_of(to_delayed_work(work), struct cma_id,
					 addr_work);
	struct cma_addr_res res = {};
	int ret;

	mutex_lock(&id->lock);
	if (id->state != CMA_ADDR_QUERY)
		goto out;
	if (id->cdev && !id->ifindex) {
		/* Bound by cma_bind_loopback(): there is nothing to look up. */
		cma_addr_loopback_done(id);
		goto out;
	}
	if (id->dst.ss_family == AF_INET)
		ret = cma_lookup4(id->net, (struct sockaddr_in *)&id->src,
				  (struct sockaddr_in *)&id->dst, &res);
	else
		ret = cma_lookup6(id->net, (struct sockaddr_in6 *)&id->src,
				  (struct sockaddr_in6 *)&id->dst, &res);
	if (ret == -ENODATA) {
		if (time_before(jiffies, id->addr_deadline)) {
			queue_delayed_work(system_wq, &id->addr_work,
					   msecs_to_jiffies(CMA_ADDR_RETRY_MS));
			goto out;
		}
		ret = -ETIMEDOUT;
	}
	cma_addr_done(id, ret, &res);
out:
	mutex_unlock(&id->lock);
}

/*
 * rdma_resolve_addr: binds an idle id first (to @src, or to the wildcard
 * of @dst's family), then resolves from a work item.  A wildcard or
 * loopback destination means this host (upstream's loopback case): an id
 * bound to an address reaches itself, one bound to no device is bound to
 * the first active port by cma_bind_loopback().
 */
int cma_resolve_addr(struct cma_id *id, const struct sockaddr *src,
		     const struct sockaddr *dst, unsigned long timeout_ms)
{
	struct sockaddr_storage any = {};
	int ret;

	if (dst->sa_family != AF_INET && dst->sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	if (id->state == CMA_IDLE) {
		if (!src || !src->sa_family) {
			any.ss_family = dst->sa_family;
			if (dst->sa_family == AF_INET6)
				((struct sockaddr_in6 *)&any)->sin6_scope_id =
					((const struct sockaddr_in6 *)dst)->sin6_scope_id;
			src = (struct sockaddr *)&any;
		}
		ret = cma_bind_addr(id, src);
		if (ret)
			return ret;
	}
	if (id->src.ss_family != dst->sa_family)
		return -EINVAL;
	if (id->state != CMA_ADDR_BOUND)
		return -EINVAL;
	memset(&id->dst, 0, sizeof(id->dst));
	memcpy(&id->dst, dst, cma_addr_size(dst));
	if (cma_any_addr(dst) && !id->cdev) {
		/* Upstream cma_resolve_loopback: the first active port. */
		ret = cma_bind_loopback(id);
		if (ret)
			return ret;
	} else if (cma_any_addr(dst)) {
		/* Loopback: the destination is the bound source itself. */
		memcpy(&id->dst, &id->src, sizeof(id->dst));
		cma_set_port((struct sockaddr *)&id->dst, cma_port(dst));
	}
	id->state = CMA_ADDR_QUERY;
	id->addr_deadline = jiffies + msecs_to_jiffies(timeout_ms);
	queue_delayed_work(system_wq, &id->addr_work, 0);
	return 0;
}
