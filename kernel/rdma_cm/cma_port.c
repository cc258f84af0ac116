// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cma_port.c - rdma_cm port reservation: one table per port space (TCP,
 * UDP, IB, IPoIB) in each network namespace, as upstream's cma_pernet.
 * rdma_cm ports are separate from TCP/UDP ports.  A REQ finds its listener
 * in the tables of the namespace it arrived in (cma_conn.c), so a listener
 * never hears of a connection made to another namespace.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/random.h>
#include <linux/xarray.h>
#include <linux/nsproxy.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include "cma_priv.h"

/* All ids holding one (port space, port) in one namespace. */
struct cma_bind {
	u16 ps;
	u16 port;
	struct hlist_head owners;
};

/* The port tables of one namespace; ids hold the namespace. */
struct cma_pernet {
	struct xarray tcp, udp, ib, ipoib;
};

static unsigned int cma_pernet_id;
static DEFINE_MUTEX(cma_bind_lock);

static struct xarray *cma_ps_table(struct net *net, u16 ps)
{
	struct cma_pernet *pn = net_generic(net, cma_pernet_id);

	switch (ps) {
	case RDMA_PS_TCP: return &pn->tcp;
	case RDMA_PS_UDP: return &pn->udp;
	case RDMA_PS_IB: return &pn->ib;
	case RDMA_PS_IPOIB: return &pn->ipoib;
	}
	return NULL;
}

bool cma_zero_addr(const struct sockaddr *a)
{
	if (a->sa_family == AF_INET6)
		return ipv6_addr_any(&((const struct sockaddr_in6 *)a)->sin6_addr);
	return ((const struct sockaddr_in *)a)->sin_addr.s_addr == htonl(INADDR_ANY);
}

static bool cma_loopback_addr(const struct sockaddr *a)
{
	if (a->sa_family == AF_INET6)
		return ipv6_addr_loopback(&((const struct sockaddr_in6 *)a)->sin6_addr);
	return ipv4_is_loopback(((const struct sockaddr_in *)a)->sin_addr.s_addr);
}

/*
 * Upstream's cma_any_addr: a loopback address (127.0.0.0/8, ::1) counts
 * as a wildcard.  Binding one binds no device, it conflicts with every
 * other owner of its port, a listener on it takes connections to any
 * address of the family, and a destination of it means this host.
 */
bool cma_any_addr(const struct sockaddr *a)
{
	return cma_zero_addr(a) || cma_loopback_addr(a);
}

static bool cma_addr_equal(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return ipv6_addr_equal(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr);
}

/*
 * May @id share bind->port with its owners?  The rules of upstream
 * cma_check_port: two ids that both set REUSEADDR share; AF_ONLY ids of
 * different families do not meet; a wildcard meeting anything is
 * EADDRNOTAVAIL, the same address twice EADDRINUSE.
 */
static int cma_check_port(struct cma_bind *bind, struct cma_id *id,
			  bool reuseaddr)
{
	const struct sockaddr *addr = (struct sockaddr *)&id->src, *cur_addr;
	struct cma_id *cur;

	lockdep_assert_held(&cma_bind_lock);
	hlist_for_each_entry(cur, &bind->owners, bind_node) {
		if (cur == id)
			continue;
		if (reuseaddr && cur->reuseaddr)
			continue;
		cur_addr = (struct sockaddr *)&cur->src;
		if (id->afonly && cur->afonly &&
		    addr->sa_family != cur_addr->sa_family)
			continue;
		if (cma_any_addr(addr) || cma_any_addr(cur_addr))
			return -EADDRNOTAVAIL;
		if (cma_addr_equal(addr, cur_addr))
			return -EADDRINUSE;
	}
	return 0;
}

static int cma_bind_port(struct cma_id *id, struct xarray *xa, u16 port,
			 bool reuseaddr)
{
	struct cma_bind *bind = xa_load(xa, port);
	int ret;

	if (bind) {
		ret = cma_check_port(bind, id, reuseaddr);
		if (ret)
			return ret;
	} else {
		bind = kzalloc(sizeof(*bind), GFP_KERNEL);
		if (!bind)
			return -ENOMEM;
		bind->ps = id->ps;
		bind->port = port;
		ret = xa_err(xa_store(xa, port, bind, GFP_KERNEL));
		if (ret) {
			kfree(bind);
			return ret;
		}
	}
	id->bind = bind;
	hlist_add_head(&id->bind_node, &bind->owners);
	cma_set_port((struct sockaddr *)&id->src, htons(port));
	return 0;
}

/*
 * Reserves the id's source port in its namespace, a random free one from
 * the namespace's ip_local_port_range for port 0.
 */
int cma_get_port(struct cma_id *id)
{
	struct xarray *xa = cma_ps_table(id->net, id->ps);
	int low, high, range, i, ret = -EADDRNOTAVAIL;
	u16 port = ntohs(cma_port((struct sockaddr *)&id->src));
	u32 start;

	if (!xa)
		return -EPROTONOSUPPORT;
	mutex_lock(&cma_bind_lock);
	if (port) {
		ret = cma_bind_port(id, xa, port, id->reuseaddr);
		goto out;
	}
	inet_get_local_port_range(id->net, &low, &high);
	range = high - low + 1;
	start = get_random_u32();
	for (i = 0; i < range; i++) {
		port = low + (start + i) % range;
		if (xa_load(xa, port))
			continue;	/* a random port is never shared */
		ret = cma_bind_port(id, xa, port, false);
		if (ret != -EADDRNOTAVAIL && ret != -EADDRINUSE)
			break;
	}
out:
	mutex_unlock(&cma_bind_lock);
	return ret;
}

void cma_release_port(struct cma_id *id)
{
	struct cma_bind *bind = id->bind;

	if (!bind)
		return;
	mutex_lock(&cma_bind_lock);
	hlist_del(&id->bind_node);
	if (hlist_empty(&bind->owners)) {
		xa_erase(cma_ps_table(id->net, bind->ps), bind->port);
		kfree(bind);
	}
	id->bind = NULL;
	mutex_unlock(&cma_bind_lock);
}

/* LISTEN on a REUSEADDR id: it shares its port only with non-listeners. */
int cma_check_listen_port(struct cma_id *id)
{
	int ret;

	mutex_lock(&cma_bind_lock);
	ret = cma_check_port(id->bind, id, false);
	mutex_unlock(&cma_bind_lock);
	return ret;
}

/*
 * The listener of (ps, port) in @net for a connection to @local,
 * referenced (drop with cma_id_put()): an exact address first, else a
 * wildcard of the family (an IPv6 wildcard takes IPv4 too unless
 * AF_ONLY).  -ENOENT: nothing listens on the port, which the CM answers
 * with "invalid service ID" as Linux does; -ECONNREFUSED: listeners, none
 * for that address.
 */
struct cma_id *cma_find_listener(struct net *net, u16 ps, u16 port,
				 const struct sockaddr *local)
{
	struct xarray *xa = cma_ps_table(net, ps);
	struct cma_id *cur, *wild = NULL, *found = NULL;
	const struct sockaddr *a;
	struct cma_bind *bind;
	bool any = false;

	if (!xa)
		return ERR_PTR(-ENOENT);
	mutex_lock(&cma_bind_lock);
	bind = xa_load(xa, port);
	if (!bind) {
		mutex_unlock(&cma_bind_lock);
		return ERR_PTR(-ENOENT);
	}
	hlist_for_each_entry(cur, &bind->owners, bind_node) {
		/* Read without its lock; the caller checks it again. */
		if (READ_ONCE(cur->state) != CMA_LISTEN)
			continue;
		any = true;
		a = (struct sockaddr *)&cur->src;
		if (!cma_any_addr(a)) {
			if (cma_addr_equal(a, local)) {
				found = cur;
				break;
			}
		} else if (a->sa_family == local->sa_family ||
			   (a->sa_family == AF_INET6 && !cur->afonly)) {
			wild = cur;
		}
	}
	if (!found)
		found = wild;
	if (found)
		atomic_inc(&found->refs);
	mutex_unlock(&cma_bind_lock);
	if (!found)
		return ERR_PTR(any ? -ECONNREFUSED : -ENOENT);
	return found;
}

/*
 * One "ps port" line per listening port of the reader's namespace, for
 * sysfs ibx_listen (tests wait for a server with it).
 */
ssize_t cma_show_listeners(char *buf)
{
	static const u16 spaces[] = { RDMA_PS_TCP, RDMA_PS_UDP, RDMA_PS_IB,
				      RDMA_PS_IPOIB };
	struct net *net = current->nsproxy->net_ns;
	struct cma_bind *bind;
	struct cma_id *cur;
	unsigned long port;
	ssize_t len = 0;
	unsigned int i;

	mutex_lock(&cma_bind_lock);
	for (i = 0; i < ARRAY_SIZE(spaces); i++) {
		xa_for_each(cma_ps_table(net, spaces[i]), port, bind) {
			hlist_for_each_entry(cur, &bind->owners, bind_node) {
				if (READ_ONCE(cur->state) != CMA_LISTEN)
					continue;
				len += sysfs_emit_at(buf, len, "%#x %lu\n",
						     spaces[i], port);
				break;
			}
		}
	}
	mutex_unlock(&cma_bind_lock);
	return len;
}

static int __net_init cma_pernet_init(struct net *net)
{
	struct cma_pernet *pn = net_generic(net, cma_pernet_id);

	xa_init(&pn->tcp);
	xa_init(&pn->udp);
	xa_init(&pn->ib);
	xa_init(&pn->ipoib);
	return 0;
}

/* Every id holds its namespace: none is left when it goes away. */
static void __net_exit cma_pernet_exit(struct net *net)
{
	struct cma_pernet *pn = net_generic(net, cma_pernet_id);

	WARN_ON(!xa_empty(&pn->tcp) || !xa_empty(&pn->udp) ||
		!xa_empty(&pn->ib) || !xa_empty(&pn->ipoib));
	xa_destroy(&pn->tcp);
	xa_destroy(&pn->udp);
	xa_destroy(&pn->ib);
	xa_destroy(&pn->ipoib);
}

static struct pernet_operations cma_pernet_ops = {
	.init = cma_pernet_init,
	.exit = cma_pernet_exit,
	.id = &cma_pernet_id,
	.size = sizeof(struct cma_pernet),
};

int cma_port_init(void)
{
	return register_pernet_subsys(&cma_pernet_ops);
}

void cma_port_exit(void)
{
	unregister_pernet_subsys(&cma_pernet_ops);
}
