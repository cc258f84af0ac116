// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cma.c - the connection manager id: its state machine, device binding
 * by source GID, route resolution on RoCE, options and the QP attributes
 * it hands to user space.  Port reservation is in cma_port.c, address
 * resolution in addr.c, multicast in cma_mcast.c, connections in
 * cma_conn.c on top of the IB CM (cm.h).
 *
 * Each id lives in one network namespace (the creating process's, as
 * upstream ucma's current->nsproxy->net_ns), which it holds: it binds to
 * addresses of that namespace, on devices it may use whose GIDs belong to
 * netdevs of that namespace, and resolves routes there.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/random.h>
#include <linux/xarray.h>
#include <linux/inetdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <rdma/ib_user_sa.h>
#include "ibx_kverbs.h"
#include "cma_priv.h"

static const char *const cma_state_names[] = {
	[CMA_IDLE] = "IDLE",
	[CMA_ADDR_QUERY] = "ADDR_QUERY",
	[CMA_ADDR_RESOLVED] = "ADDR_RESOLVED",
	[CMA_ROUTE_QUERY] = "ROUTE_QUERY",
	[CMA_ROUTE_RESOLVED] = "ROUTE_RESOLVED",
	[CMA_CONNECT] = "CONNECT",
	[CMA_DISCONNECT] = "DISCONNECT",
	[CMA_ADDR_BOUND] = "ADDR_BOUND",
	[CMA_LISTEN] = "LISTEN",
	[CMA_DEVICE_REMOVAL] = "DEVICE_REMOVAL",
	[CMA_DESTROYING] = "DESTROYING",
};

const char *cma_state_name(enum cma_state state)
{
	if (state < ARRAY_SIZE(cma_state_names) && cma_state_names[state])
		return cma_state_names[state];
	return "?";
}

DEFINE_MUTEX(cma_dev_lock);
LIST_HEAD(cma_dev_list);
atomic_t cma_id_count = ATOMIC_INIT(0);
atomic_t cma_mcast_count = ATOMIC_INIT(0);

/* ---- ids ---- */

static void cma_route_work(struct work_struct *work);
static void cma_addr_change_work(struct work_struct *work);

struct cma_id *cma_create_id(struct net *net, u16 ps, u8 qp_type,
			     cma_event_handler handler, void *context)
{
	struct cma_id *id = kzalloc(sizeof(*id), GFP_KERNEL);

	if (!id)
		return ERR_PTR(-ENOMEM);
	id->net = get_net(net);
	mutex_init(&id->lock);
	id->state = CMA_IDLE;
	atomic_set(&id->refs, 1);
	init_completion(&id->done);
	id->handler = handler;
	id->context = context;
	id->ps = ps;
	id->qp_type = qp_type;
	id->qkey = qp_type == IB_UVERBS_QPT_UD ? CMA_UDP_QKEY : 0;
	id->seq_num = get_random_u32() & 0xffffff;
	id->hop_limit = 64;
	INIT_HLIST_NODE(&id->bind_node);
	INIT_LIST_HEAD(&id->dev_node);
	INIT_LIST_HEAD(&id->mcasts);
	INIT_DELAYED_WORK(&id->addr_work, cma_addr_work);
	INIT_WORK(&id->route_work, cma_route_work);
	INIT_WORK(&id->addr_change_work, cma_addr_change_work);
	atomic_inc(&cma_id_count);
	return id;
}

/* ---- device binding ---- */

/*
 * Whether GID entry @i of @port belongs to a netdev of @net, as upstream
 * cma_validate_port asks the GID's netdev.
 */
static bool cma_gid_in_net(struct ibx_device *dev, u32 port, unsigned int i,
			   struct net *net)
{
	struct net_device *nd = ibx_get_gid_ndev(dev, port, i);
	bool ret;

	if (!nd)
		return false;
	ret = net_eq(dev_net(nd), net);
	dev_put(nd);
	return ret;
}

/*
 * Binds @id to the device port whose GID table holds @src as a RoCEv2
 * GID (IPv4-mapped for IPv4) of a netdev in the id's namespace, on a
 * device the namespace may use, as upstream cma_acquire_dev_by_src_ip
 * with its default GID type.
 */
int cma_acquire_dev(struct cma_id *id, const struct sockaddr *src,
		    int ifindex)
{
	struct cma_device *cdev;
	enum ibx_gid_type type;
	union ibx_gid want, gid;
	unsigned int i;
	u32 port;

	cma_ip_to_gid(src, &want);
	mutex_lock(&cma_dev_lock);
	list_for_each_entry(cdev, &cma_dev_list, node) {
		if (!ibx_dev_access_netns(cdev->dev, id->net))
			continue;
		for (port = 1; port <= cdev->dev->attr.base.phys_port_cnt; port++) {
			for (i = 0; i < IBX_GID_TABLE_LEN; i++) {
				if (ibx_get_gid(cdev->dev, port, i, &gid, &type) ||
				    type != IBX_GID_TYPE_ROCE_V2 ||
				    memcmp(&gid, &want, sizeof(gid)) ||
				    !cma_gid_in_net(cdev->dev, port, i, id->net))
					continue;
				id->cdev = cdev;
				id->port = port;
				id->sgid_index = i;
				id->ifindex = ifindex;
				list_add_tail(&id->dev_node, &cdev->ids);
				mutex_unlock(&cma_dev_lock);
				return 0;
			}
		}
	}
	mutex_unlock(&cma_dev_lock);
	return -ENODEV;
}

/*
 * An id bound to no device resolving a wildcard or loopback destination
 * (upstream cma_bind_loopback): of the devices of the id's namespace (the
 * netdev of GID 0 is there), the first with an active port, else the
 * first one's port 1, source GID index 0.  The source address
 * becomes the family's loopback (the port stays).  No netdev is bound
 * (ifindex 0), so a later RESOLVE_ROUTE fails with ENODEV as upstream's
 * does on RoCE; the id stays usable for what needs only the device.
 */
int cma_bind_loopback(struct cma_id *id)
{
	struct ib_uverbs_query_port_resp attr;
	struct cma_device *cdev, *found = NULL;
	u32 port = 1, p;

	mutex_lock(&cma_dev_lock);
	list_for_each_entry(cdev, &cma_dev_list, node) {
		if (!ibx_dev_access_netns(cdev->dev, id->net) ||
		    !cma_gid_in_net(cdev->dev, 1, 0, id->net))
			continue;
		if (!found)
			found = cdev;
		for (p = 1; p <= cdev->dev->attr.base.phys_port_cnt; p++) {
			if (!ibx_query_port(cdev->dev, p, &attr) &&
			    attr.state == CMA_PORT_ACTIVE) {
				found = cdev;
				port = p;
				goto bind;
			}
		}
	}
	if (!found) {
		mutex_unlock(&cma_dev_lock);
		return -ENODEV;
	}
bind:
	id->cdev = found;
	id->port = port;
	id->sgid_index = 0;
	id->ifindex = 0;
	list_add_tail(&id->dev_node, &found->ids);
	mutex_unlock(&cma_dev_lock);
	if (id->src.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&id->src)->sin6_addr = in6addr_loopback;
	else
		((struct sockaddr_in *)&id->src)->sin_addr.s_addr =
			htonl(INADDR_LOOPBACK);
	return 0;
}

/*
 * The namespace a connection request for @local came in to on @dev/@port:
 * the one of the netdev whose GID is @local's (referenced; put_net() it),
 * as upstream takes the namespace of the REQ's netdev.  NULL: none.
 */
struct net *cma_req_net(struct ibx_device *dev, u32 port,
			const struct sockaddr *local)
{
	union ibx_gid want, gid;
	enum ibx_gid_type type;
	struct net_device *nd;
	struct net *net;
	unsigned int i;

	cma_ip_to_gid(local, &want);
	for (i = 0; i < IBX_GID_TABLE_LEN; i++) {
		if (ibx_get_gid(dev, port, i, &gid, &type) ||
		    type != IBX_GID_TYPE_ROCE_V2 ||
		    memcmp(&gid, &want, sizeof(gid)))
			continue;
		nd = ibx_get_gid_ndev(dev, port, i);
		if (!nd)
			continue;
		net = maybe_get_net(dev_net(nd));
		dev_put(nd);
		return net;
	}
	return NULL;
}

void cma_release_dev(struct cma_id *id)
{
	mutex_lock(&cma_dev_lock);
	if (id->cdev) {
		list_del_init(&id->dev_node);
		id->cdev = NULL;
	}
	mutex_unlock(&cma_dev_lock);
}

int cma_device_index(struct cma_id *id)
{
	return id->cdev ? ibx_device_index(id->cdev->dev) : 0;
}

u64 cma_node_guid(struct cma_id *id)
{
	return id->cdev ? (__force u64)id->cdev->dev->attr.base.node_guid : 0;
}

/* The netdev of @net that owns a local IP address, or 0. */
int cma_translate_ip(struct net *net, const struct sockaddr *addr)
{
	struct net_device *ndev;
	int ifindex = 0;

	if (addr->sa_family == AF_INET) {
		ndev = ip_dev_find(net,
				   ((const struct sockaddr_in *)addr)->sin_addr.s_addr);
		if (ndev) {
			ifindex = ndev->ifindex;
			dev_put(ndev);
		}
		return ifindex;
	}
	rcu_read_lock();
	for_each_netdev_rcu(net, ndev) {
		if (ipv6_chk_addr(net,
				  &((const struct sockaddr_in6 *)addr)->sin6_addr,
				  ndev, 1)) {
			ifindex = ndev->ifindex;
			break;
		}
	}
	rcu_read_unlock();
	return ifindex;
}

/* ---- operations ---- */

int cma_bind_addr(struct cma_id *id, const struct sockaddr *addr)
{
	int ifindex = 0, ret;

	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return -EAFNOSUPPORT;	/* AF_IB: see ucma_bind() */
	if (id->state != CMA_IDLE)
		return -EINVAL;
	memset(&id->src, 0, sizeof(id->src));
	memcpy(&id->src, addr, cma_addr_size(addr));
	if (!cma_any_addr(addr)) {
		ifindex = cma_translate_ip(id->net, addr);
		if (!ifindex)
			return -EADDRNOTAVAIL;
		ret = cma_acquire_dev(id, addr, ifindex);
		if (ret)
			return ret;
	}
	if (!id->afonly_set && addr->sa_family == AF_INET6)
		id->afonly = READ_ONCE(id->net->ipv6.sysctl.bindv6only);
	ret = cma_get_port(id);
	if (ret) {
		cma_release_dev(id);
		return ret;
	}
	id->state = CMA_ADDR_BOUND;
	return 0;
}

/*
 * A listener needs no CM state: a REQ's service ID names (ps, port), and
 * cma_req_handler() finds the listener in that port's owners.
 */
int cma_listen(struct cma_id *id, int backlog)
{
	struct sockaddr_in any = { .sin_family = AF_INET };
	int ret;

	if (id->state == CMA_IDLE) {
		ret = cma_bind_addr(id, (struct sockaddr *)&any);
		if (ret)
			return ret;
	}
	if (id->state != CMA_ADDR_BOUND)
		return -EINVAL;
	/* A listener shares its port only with REUSEADDR non-listeners. */
	if (id->reuseaddr) {
		ret = cma_check_listen_port(id);
		if (ret)
			return ret;
	}
	id->backlog = backlog;
	id->state = CMA_LISTEN;
	return 0;
}

enum ibx_mtu cma_netdev_mtu(int mtu)
{
	/* The IB MTU that fits the netdev MTU minus RoCE headers (iboe_get_mtu). */
	mtu -= 96;
	if (mtu >= 4096)
		return IBX_MTU_4096;
	if (mtu >= 2048)
		return IBX_MTU_2048;
	if (mtu >= 1024)
		return IBX_MTU_1024;
	if (mtu >= 512)
		return IBX_MTU_512;
	return IBX_MTU_256;
}

static void cma_route_work(struct work_struct *work)
{
	struct cma_id *id = container_of(work, struct cma_id, route_work);
	struct cma_event ev = { .event = RDMA_CM_EVENT_ROUTE_RESOLVED };

	mutex_lock(&id->lock);
	if (id->state == CMA_ROUTE_QUERY) {
		id->state = CMA_ROUTE_RESOLVED;
		id->handler(id, &ev);
	}
	mutex_unlock(&id->lock);
}

/* Fills the RoCE path as upstream cma_resolve_iboe_route does. */
static int cma_build_path(struct cma_id *id)
{
	struct cm_path *p = &id->path;
	struct net_device *ndev;
	u16 sport, dport;

	ndev = dev_get_by_index(id->net, id->ifindex);
	if (!ndev)
		return -ENODEV;
	p->mtu = cma_netdev_mtu(READ_ONCE(ndev->mtu));
	dev_put(ndev);
	cma_ip_to_gid((struct sockaddr *)&id->src, &p->sgid);
	cma_ip_to_gid((struct sockaddr *)&id->dst, &p->dgid);
	p->hop_limit = id->hop_limit;
	p->traffic_class = id->tos;
	p->sl = 0;
	p->packet_life_time = id->ack_timeout ? id->ack_timeout - 1 :
			      CMA_IBOE_PACKET_LIFETIME;
	sport = ntohs(cma_port((struct sockaddr *)&id->src));
	dport = ntohs(cma_port((struct sockaddr *)&id->dst));
	p->flow_label = 0;
	if (id->dst.ss_family == AF_INET6)
		p->flow_label = ntohl(((struct sockaddr_in6 *)&id->dst)->sin6_flowinfo) &
				0xfffff;
	if (!p->flow_label)
		p->flow_label = ((u32)sport * 31 + dport) & 0xfffff;
	id->path_valid = true;
	return 0;
}

int cma_resolve_route(struct cma_id *id, unsigned long timeout_ms)
{
	int ret;

	if (id->state != CMA_ADDR_RESOLVED)
		return -EINVAL;
	ret = cma_build_path(id);
	if (ret)
		return ret;
	id->state = CMA_ROUTE_QUERY;
	queue_work(system_wq, &id->route_work);
	return 0;
}

int cma_set_option(struct cma_id *id, u32 level, u32 name, const void *val,
		   size_t len)
{
	if (level != RDMA_OPTION_ID)
		return -ENOSYS;
	switch (name) {
	case RDMA_OPTION_ID_TOS:
		if (len != sizeof(u8))
			return -EINVAL;
		id->tos = *(const u8 *)val;
		id->tos_set = true;
		return 0;
	case RDMA_OPTION_ID_REUSEADDR:
		if (len != sizeof(int))
			return -EINVAL;
		if ((*(const int *)val && id->state != CMA_LISTEN) ||
		    id->state == CMA_IDLE) {
			id->reuseaddr = !!*(const int *)val;
			return 0;
		}
		return -EINVAL;
	case RDMA_OPTION_ID_AFONLY:
		if (len != sizeof(int))
			return -EINVAL;
		if (id->state != CMA_IDLE && id->state != CMA_ADDR_BOUND)
			return -EINVAL;
		id->afonly = !!*(const int *)val;
		id->afonly_set = true;
		return 0;
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		if (len != sizeof(u8))
			return -EINVAL;
		if (id->qp_type != IB_UVERBS_QPT_RC)
			return -EINVAL;
		id->ack_timeout = *(const u8 *)val;
		return 0;
	}
	return -ENOSYS;
}

void cma_fill_ah_attr(struct cma_id *id, const union ibx_gid *dgid,
		      struct ib_uverbs_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	memcpy(ah->grh.dgid, dgid->raw, 16);
	ah->grh.sgid_index = id->sgid_index;
	ah->grh.hop_limit = id->hop_limit;
	ah->grh.traffic_class = id->tos;
	ah->is_global = 1;
	ah->port_num = id->port;
}

/*
 * Without a CM connection (and for UD ids) upstream answers every state
 * with the INIT attributes (cma_ib_init_qp_attr); a connection's come from
 * the CM.  Either way the receive PSN is the one this side announced.
 */
int cma_init_qp_attr(struct cma_id *id, u32 qp_state,
		     struct ib_uverbs_qp_attr *attr)
{
	int ret = 0;

	if (!id->cdev)
		return -EINVAL;
	if (id->cm && id->qp_type != IB_UVERBS_QPT_UD) {
		ret = cm_init_qp_attr(id->cm, qp_state, attr);
	} else {
		attr->qp_state = qp_state;
		attr->pkey_index = 0;		/* the default P_Key 0xffff */
		attr->port_num = id->port;
		attr->qp_attr_mask = IBX_QP_STATE | IBX_QP_PKEY_INDEX |
				     IBX_QP_PORT;
		if (id->qp_type == IB_UVERBS_QPT_UD) {
			attr->qkey = id->qkey;
			attr->qp_attr_mask |= IBX_QP_QKEY;
		} else {
			attr->qp_access_flags = 0;
			attr->qp_attr_mask |= IBX_QP_ACCESS_FLAGS;
		}
	}
	if (ret)
		return ret;
	if (qp_state == IBX_QPS_RTR)
		attr->rq_psn = id->seq_num;
	if ((attr->qp_attr_mask & IBX_QP_TIMEOUT) && id->ack_timeout)
		attr->timeout = id->ack_timeout;
	return 0;
}

/* Drops a reference taken while the id was reachable (lookups, removal). */
void cma_id_put(struct cma_id *id)
{
	if (atomic_dec_and_test(&id->refs))
		complete(&id->done);
}

/*
 * Destroys @id: no handler call is made once it returns.  The caller
 * (ucma) no longer reaches the id through any table.
 */
void cma_destroy_id(struct cma_id *id)
{
	struct cm_id *cm;

	mutex_lock(&id->lock);
	id->state = CMA_DESTROYING;
	cm = cma_take_cm(id);
	mutex_unlock(&id->lock);
	/* Ends the connection (REJ, DREQ, ...); its handler sees DESTROYING. */
	if (cm)
		cm_destroy_id(cm);
	/* The works see DESTROYING and do nothing; wait for running ones. */
	cancel_delayed_work_sync(&id->addr_work);
	cancel_work_sync(&id->route_work);
	if (cancel_work_sync(&id->addr_change_work))
		cma_id_put(id);
	cma_leave_all(id);
	cma_release_dev(id);
	cma_release_port(id);
	/* Device removal may still hold a reference: wait for it. */
	if (!atomic_dec_and_test(&id->refs))
		wait_for_completion(&id->done);
	atomic_dec(&cma_id_count);
	put_net(id->net);
	kfree(id);
}

/*
 * The device goes away (client remove): every id bound to it gets
 * DEVICE_REMOVAL and loses its device; the ucma context stays until user
 * space destroys it, as upstream.
 */
void cma_remove_device(struct cma_device *cdev)
{
	struct cma_event ev = { .event = RDMA_CM_EVENT_DEVICE_REMOVAL };
	struct cm_id *cm;
	struct cma_id *id;

	for (;;) {
		mutex_lock(&cma_dev_lock);
		id = list_first_entry_or_null(&cdev->ids, struct cma_id,
					      dev_node);
		if (id)
			atomic_inc(&id->refs);
		mutex_unlock(&cma_dev_lock);
		if (!id)
			break;
		mutex_lock(&id->lock);
		cm = cma_take_cm(id);
		if (id->state != CMA_DESTROYING) {
			id->state = CMA_DEVICE_REMOVAL;
			id->handler(id, &ev);
		}
		cma_release_dev(id);
		mutex_unlock(&id->lock);
		if (cm)
			cm_destroy_id(cm);
		cma_id_put(id);
	}
	/* Memberships keep no device pointer; cma_leave_all frees them. */
}

static void cma_addr_change_work(struct work_struct *work)
{
	struct cma_id *id = container_of(work, struct cma_id,
					 addr_change_work);
	struct cma_event ev = { .event = RDMA_CM_EVENT_ADDR_CHANGE };

	mutex_lock(&id->lock);
	if (id->cdev && id->state != CMA_DESTROYING &&
	    id->state != CMA_DEVICE_REMOVAL)
		id->handler(id, &ev);
	mutex_unlock(&id->lock);
	cma_id_put(id);
}

/*
 * The hardware address of netdev @ndev changed (a MAC change, a bonding
 * failover): every id bound through it gets ADDR_CHANGE, as upstream
 * cma_netdev_callback; peers must resolve it again.  Under RTNL, so the
 * events go out from work items.
 */
void cma_netdev_changed(struct net_device *ndev)
{
	struct cma_device *cdev;
	struct cma_id *id;

	ASSERT_RTNL();
	mutex_lock(&cma_dev_lock);
	list_for_each_entry(cdev, &cma_dev_list, node) {
		list_for_each_entry(id, &cdev->ids, dev_node) {
			if (id->ifindex != ndev->ifindex ||
			    !net_eq(id->net, dev_net(ndev)))
				continue;
			atomic_inc(&id->refs);
			if (!queue_work(system_wq, &id->addr_change_work))
				cma_id_put(id);
		}
	}
	mutex_unlock(&cma_dev_lock);
}

/*
 * RDMA_OPTION_IB_PATH (rdma_set_ib_path): the caller supplies the route;
 * the id becomes ROUTE_RESOLVED and reports it, as upstream ucma does.
 */
int cma_set_ib_path(struct cma_id *id, const struct cm_path *path)
{
	struct cma_event ev = { .event = RDMA_CM_EVENT_ROUTE_RESOLVED };

	if (!id->cdev)
		return -EINVAL;
	if (id->state != CMA_ADDR_RESOLVED)
		return -EINVAL;
	id->path = *path;
	id->path_valid = true;
	id->state = CMA_ROUTE_RESOLVED;
	id->handler(id, &ev);
	return 0;
}
