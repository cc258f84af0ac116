// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cma_mcast.c - multicast on RoCE, as upstream cma_iboe_join_multicast:
 * no SA is asked.  The MGID of an IPv4 group is the IPv4-mapped group
 * address (RoCEv2 GID type); a full member also joins the IP group on the
 * netdev (ip_mc_inc_group, so the IP stack sends the IGMP report and the
 * NIC accepts the group MAC).  MULTICAST_JOIN is delivered from a work
 * item with the UD parameters the sender needs.
 */
#include <linux/slab.h>
#include <linux/inetdevice.h>
#include <linux/igmp.h>
#include <linux/rtnetlink.h>
#include "cma_priv.h"

/* ip_mc_inc_group/ip_mc_dec_group on the id's netdev, taking RTNL. */
static int cma_igmp(struct net *net, int ifindex, const union ibx_gid *mgid,
		    bool join)
{
	__be32 group = *(const __be32 *)&mgid->raw[12];
	struct net_device *ndev;
	struct in_device *in_dev;
	int ret = -ENODEV;

	ndev = dev_get_by_index(net, ifindex);
	if (!ndev)
		return -ENODEV;
	rtnl_lock();
	in_dev = __in_dev_get_rtnl(ndev);
	if (in_dev) {
		if (join)
			ip_mc_inc_group(in_dev, group);
		else
			ip_mc_dec_group(in_dev, group);
		ret = 0;
	}
	rtnl_unlock();
	dev_put(ndev);
	return ret;
}

static void cma_mcast_work(struct work_struct *work)
{
	struct cma_mcast *mc = container_of(work, struct cma_mcast, work);
	struct cma_id *id = mc->id;
	struct cma_event ev = {
		.event = RDMA_CM_EVENT_MULTICAST_JOIN,
		.mc = mc,
	};

	mutex_lock(&id->lock);
	if (mc->left || !id->cdev || id->state == CMA_DESTROYING ||
	    id->state == CMA_DEVICE_REMOVAL)
		goto out;
	/* ib_init_ah_from_mcmember: a GRH to the MGID, hop limit 64. */
	cma_fill_ah_attr(id, &mc->mgid, &ev.param.ud.ah_attr);
	ev.param.ud.ah_attr.grh.hop_limit = 64;
	ev.param.ud.qp_num = CMA_MCAST_QPN;
	ev.param.ud.qkey = id->qkey;
	id->handler(id, &ev);
out:
	mutex_unlock(&id->lock);
}

/*
 * Called with id->lock held.  On success *mcp is the membership; its
 * MULTICAST_JOIN follows from a work item.
 */
int cma_join_multicast(struct cma_id *id, const struct sockaddr *addr,
		       u8 join_state, void *context, struct cma_mcast **mcp)
{
	struct cma_mcast *mc;
	int ret;

	lockdep_assert_held(&id->lock);
	if (id->state != CMA_ADDR_BOUND && id->state != CMA_ADDR_RESOLVED)
		return -EINVAL;
	if (id->qp_type != IB_UVERBS_QPT_UD)
		return -EINVAL;
	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return -EINVAL;
	if (cma_zero_addr(addr))
		return -EINVAL;
	if (!id->cdev || !id->ifindex)
		return -ENODEV;
	/* Upstream refuses IPv6 groups on RoCEv2 with this same errno. */
	if (addr->sa_family == AF_INET6)
		return -ENOTSUPP;

	mc = kzalloc(sizeof(*mc), GFP_KERNEL);
	if (!mc)
		return -ENOMEM;
	mc->id = id;
	mc->context = context;
	mc->join_state = join_state;
	memcpy(&mc->addr, addr, cma_addr_size(addr));
	cma_ip_to_gid(addr, &mc->mgid);
	INIT_WORK(&mc->work, cma_mcast_work);
	if (join_state == RDMA_MC_JOIN_FLAG_FULLMEMBER) {
		ret = cma_igmp(id->net, id->ifindex, &mc->mgid, true);
		if (ret) {
			kfree(mc);
			return ret;
		}
		mc->igmp = true;
	}
	list_add_tail(&mc->node, &id->mcasts);
	atomic_inc(&cma_mcast_count);
	*mcp = mc;
	queue_work(system_wq, &mc->work);
	return 0;
}

static void cma_mcast_free(struct cma_id *id, struct cma_mcast *mc)
{
	cancel_work_sync(&mc->work);
	if (mc->igmp)
		cma_igmp(id->net, id->ifindex, &mc->mgid, false);
	atomic_dec(&cma_mcast_count);
	kfree(mc);
}

/* Called without id->lock: the work item takes it. */
void cma_leave_multicast(struct cma_id *id, struct cma_mcast *mc)
{
	mutex_lock(&id->lock);
	mc->left = true;	/* a running work item must not report it */
	list_del(&mc->node);
	mutex_unlock(&id->lock);
	cma_mcast_free(id, mc);
}

/* Leaves every group of @id; called without id->lock at destruction. */
void cma_leave_all(struct cma_id *id)
{
	struct cma_mcast *mc, *tmp;
	LIST_HEAD(list);

	mutex_lock(&id->lock);
	list_for_each_entry(mc, &id->mcasts, node)
		mc->left = true;
	list_splice_init(&id->mcasts, &list);
	mutex_unlock(&id->lock);
	list_for_each_entry_safe(mc, tmp, &list, node)
		cma_mcast_free(id, mc);
}
