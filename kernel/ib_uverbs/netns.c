// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * netns.c - network namespaces, as upstream ib_core has them
 * (`rdma system set netns shared|exclusive`, `rdma dev set DEV netns NS`).
 *
 * Shared mode (the default, module parameter netns_mode=1): every device
 * belongs to init_net and every namespace sees it; /sys/class/infiniband,
 * which is tagged by namespace, gets a "compat" view of each device in
 * each other namespace.  Exclusive mode: a device belongs to one namespace
 * (the one of its netdev when the driver says so, else init_net) and only
 * that namespace sees it in sysfs, in netlink and at open().  The mode may
 * change only while no namespace but init_net exists (-EBUSY).
 *
 * A move to another namespace works as upstream's rdma_dev_change_netns:
 * the kernel clients are removed, every open context is disassociated as
 * at device removal, the sysfs view moves, the clients come back.  A
 * namespace that goes away hands the devices it owns back to init_net.
 *
 * Lock order: a device's reg_lock, ibx_nets_rwsem, the clients' lock,
 * ibx_devices_lock, core->lock; core->view_lock is taken last (under
 * ibx_nets_rwsem and ibx_devices_lock, or reg_lock).  A namespace's exit
 * drops ibx_nets_rwsem before it moves devices (reg_lock).
 */
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>
#include "core_priv.h"
#include "nldev.h"

bool ibx_shared_netns = true;
module_param_named(netns_mode, ibx_shared_netns, bool, 0444);
MODULE_PARM_DESC(netns_mode,
		 "share devices among network namespaces (1, default) or give each to one (0)");

/*
 * The live namespaces other than init_net: the mode and this list change
 * under the write side, compat views are added under the read side.
 */
static DECLARE_RWSEM(ibx_nets_rwsem);
static DEFINE_XARRAY_FLAGS(ibx_nets, XA_FLAGS_ALLOC);

struct ibx_rdma_net {
	struct net *net;
	u32 id;				/* in ibx_nets */
};

static unsigned int ibx_rdma_net_id;

bool ibx_core_access_netns(struct ibx_core_dev *core, const struct net *net)
{
	return READ_ONCE(ibx_shared_netns) || net_eq(READ_ONCE(core->net), net);
}

/**
 * ibx_dev_access_netns() - may a namespace see and use a device
 * @dev: the device
 * @net: the namespace
 *
 * Return: true in shared mode, else whether @net owns @dev.
 */
bool ibx_dev_access_netns(struct ibx_device *dev, const struct net *net)
{
	return ibx_core_access_netns(ibx_cdev(dev), net);
}
EXPORT_SYMBOL_GPL(ibx_dev_access_netns);

/* Whether @net is init_net or in ibx_nets (not yet going away). */
static bool ibx_net_live(struct net *net)
{
	struct ibx_rdma_net *rnet;

	lockdep_assert_held(&ibx_nets_rwsem);
	if (net_eq(net, &init_net))
		return true;
	rnet = net_generic(net, ibx_rdma_net_id);
	return rnet->net == net && xa_load(&ibx_nets, rnet->id) == rnet;
}

void ibx_netns_lock(void)
{
	down_read(&ibx_nets_rwsem);
}

void ibx_netns_unlock(void)
{
	up_read(&ibx_nets_rwsem);
}

void ibx_netns_assign(struct ibx_core_dev *core)
{
	struct net *net = core->ibdev->net;

	lockdep_assert_held(&ibx_nets_rwsem);
	if (ibx_shared_netns || !net || !ibx_net_live(net))
		net = &init_net;
	WRITE_ONCE(core->net, net);
}

/* ---- compat views (shared mode) ---- */

static struct ibx_ib_view *ibx_compat_view_find(struct ibx_core_dev *core,
						struct net *net)
{
	struct ibx_ib_view *view;

	lockdep_assert_held(&core->view_lock);
	list_for_each_entry(view, &core->compat_views, node)
		if (net_eq(view->net, net))
			return view;
	return NULL;
}

/*
 * Shows @core in @net too.  Both a new namespace and a new device call it
 * for the pairs they find, so one of them sees the other; a second call
 * finds the view there.
 */
static void ibx_compat_view_add(struct ibx_core_dev *core, struct net *net)
{
	struct ibx_ib_view *view;

	lockdep_assert_held(&ibx_nets_rwsem);
	if (!ibx_shared_netns)
		return;
	mutex_lock(&core->view_lock);
	if (core->views_open && !net_eq(net, READ_ONCE(core->net)) &&
	    !ibx_compat_view_find(core, net)) {
		view = ibx_view_add(core, net);
		if (IS_ERR(view))
			pr_warn("%s: no sysfs view in a namespace (%ld)\n",
				core->ibdev->name, PTR_ERR(view));
		else
			list_add_tail(&view->node, &core->compat_views);
	}
	mutex_unlock(&core->view_lock);
}

static void ibx_compat_view_del(struct ibx_core_dev *core, struct net *net)
{
	struct ibx_ib_view *view;

	mutex_lock(&core->view_lock);
	view = ibx_compat_view_find(core, net);
	if (view) {
		list_del(&view->node);
		ibx_view_del(view);
	}
	mutex_unlock(&core->view_lock);
}

void ibx_netns_open_views(struct ibx_core_dev *core)
{
	struct ibx_rdma_net *rnet;
	unsigned long i;

	mutex_lock(&core->view_lock);
	core->views_open = true;
	mutex_unlock(&core->view_lock);
	down_read(&ibx_nets_rwsem);
	xa_for_each(&ibx_nets, i, rnet)
		ibx_compat_view_add(core, rnet->net);
	up_read(&ibx_nets_rwsem);
}

void ibx_netns_close_views(struct ibx_core_dev *core)
{
	struct ibx_ib_view *view, *tmp;

	mutex_lock(&core->view_lock);
	core->views_open = false;
	list_for_each_entry_safe(view, tmp, &core->compat_views, node) {
		list_del(&view->node);
		ibx_view_del(view);
	}
	mutex_unlock(&core->view_lock);
}

/* ---- moves ---- */

/*
 * Moves @core from @from (NULL: wherever it is) to @to, as upstream's
 * rdma_dev_change_netns: clients removed, open contexts disassociated,
 * the sysfs view re-made in @to, clients added again.  An unregistered
 * device only changes its namespace.  -ENODEV if it is not in @from.
 */
static int ibx_device_move(struct ibx_core_dev *core, struct net *from,
			   struct net *to)
{
	struct net *old;
	int ret = 0;

	mutex_lock(&core->reg_lock);
	old = core->net;
	if (from && !net_eq(old, from)) {
		ret = -ENODEV;
		goto out;
	}
	if (net_eq(old, to))
		goto out;
	if (!core->registered) {
		WRITE_ONCE(core->net, to);
		goto out;
	}
	ibx_clients_remove_device(core);
	mutex_lock(&core->lock);
	core->dying = true;		/* no open, no netlink meanwhile */
	ibx_sysfs_del(core);
	ibx_disassociate_files(core);
	WRITE_ONCE(core->net, to);
	ret = ibx_sysfs_add(core);
	if (ret && !net_eq(to, &init_net)) {
		/* Back where it was, visible again; the caller learns why. */
		WRITE_ONCE(core->net, old);
		if (ibx_sysfs_add(core))
			pr_warn("%s: no sysfs entry after a failed move\n",
				core->ibdev->name);
	} else if (ret) {
		pr_warn("%s: no sysfs entry in init_net (%d)\n",
			core->ibdev->name, ret);
	}
	core->dying = false;
	mutex_unlock(&core->lock);
	ibx_clients_add_device(core);
out:
	mutex_unlock(&core->reg_lock);
	return ret;
}

/*
 * The next listed device that @pred picks, with its uverbs device held so
 * that @core stays allocated; NULL when none is left.
 */
static struct ibx_core_dev *
ibx_next_device(struct net *net,
		bool (*pred)(struct ibx_core_dev *core, struct net *net))
{
	struct ibx_core_dev *core, *found = NULL;

	mutex_lock(&ibx_devices_lock);
	list_for_each_entry(core, &ibx_devices, node) {
		if (pred(core, net)) {
			found = core;
			get_device(&found->udev);
			break;
		}
	}
	mutex_unlock(&ibx_devices_lock);
	return found;
}

static bool ibx_owned_by(struct ibx_core_dev *core, struct net *net)
{
	return net_eq(READ_ONCE(core->net), net);
}

static bool ibx_has_compat_view(struct ibx_core_dev *core, struct net *net)
{
	bool ret;

	mutex_lock(&core->view_lock);
	ret = ibx_compat_view_find(core, net);
	mutex_unlock(&core->view_lock);
	return ret;
}

/* ---- the namespaces ---- */

static int __net_init ibx_rdma_net_init(struct net *net)
{
	struct ibx_rdma_net *rnet = net_generic(net, ibx_rdma_net_id);
	struct ibx_core_dev *core;
	int ret;

	if (net_eq(net, &init_net))
		return 0;
	rnet->net = net;
	down_write(&ibx_nets_rwsem);
	ret = xa_alloc(&ibx_nets, &rnet->id, rnet, xa_limit_32b, GFP_KERNEL);
	up_write(&ibx_nets_rwsem);
	if (ret)
		return ret;

	/* Shared mode: the devices registered so far show here too. */
	down_read(&ibx_nets_rwsem);
	mutex_lock(&ibx_devices_lock);
	list_for_each_entry(core, &ibx_devices, node)
		ibx_compat_view_add(core, net);
	mutex_unlock(&ibx_devices_lock);
	up_read(&ibx_nets_rwsem);
	return 0;
}

/*
 * A namespace goes away: no view is added for it from now on, its compat
 * views go, and the devices it owns move back to init_net (upstream's
 * rdma_dev_exit_net).  Devices on its netdevs went with those already.
 */
static void __net_exit ibx_rdma_net_exit(struct net *net)
{
	struct ibx_rdma_net *rnet = net_generic(net, ibx_rdma_net_id);
	struct ibx_core_dev *core;

	if (net_eq(net, &init_net))
		return;
	down_write(&ibx_nets_rwsem);
	xa_erase(&ibx_nets, rnet->id);
	up_write(&ibx_nets_rwsem);

	while ((core = ibx_next_device(net, ibx_has_compat_view))) {
		ibx_compat_view_del(core, net);
		put_device(&core->udev);
	}
	while ((core = ibx_next_device(net, ibx_owned_by))) {
		ibx_device_move(core, net, &init_net);
		put_device(&core->udev);
	}
	rnet->net = NULL;
}

static struct pernet_operations ibx_rdma_net_ops = {
	.init = ibx_rdma_net_init,
	.exit = ibx_rdma_net_exit,
	.id = &ibx_rdma_net_id,
	.size = sizeof(struct ibx_rdma_net),
};

int ibx_netns_init(void)
{
	return register_pernet_subsys(&ibx_rdma_net_ops);
}

void ibx_netns_exit(void)
{
	unregister_pernet_subsys(&ibx_rdma_net_ops);
	WARN_ON(!xa_empty(&ibx_nets));
}

/* ---- netlink: SYS_SET and SET ---- */

/*
 * `rdma system set netns shared|exclusive` (CAP_NET_ADMIN): -EBUSY while
 * any namespace but init_net exists, as upstream's rdma_compatdev_set.
 * With none, there are no compat views to add or remove either.
 */
int ibx_nldev_sys_set(struct sk_buff *skb, struct nlmsghdr *nlh,
		      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	int ret;
	u8 mode;

	ret = ibx_nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;
	if (!tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE])
		return -EINVAL;
	mode = nla_get_u8(tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]);
	if (mode > 1)
		return -EINVAL;
	down_write(&ibx_nets_rwsem);
	if (ibx_shared_netns != mode && !xa_empty(&ibx_nets))
		ret = -EBUSY;
	else
		WRITE_ONCE(ibx_shared_netns, mode);
	up_write(&ibx_nets_rwsem);
	if (ret == -EBUSY)
		NL_SET_ERR_MSG(extack,
			       "the mode changes only while init_net is the only network namespace");
	return ret;
}

/*
 * `rdma dev set DEV netns NS`: the namespace comes as a file descriptor of
 * the sender.  Errors as upstream's ib_device_set_netns_put: no such
 * device in the sender's namespace -EINVAL, a bad fd -EBADF (not a netns:
 * -EINVAL), no CAP_NET_ADMIN over the target -EPERM, shared mode
 * -EOPNOTSUPP; a device that is not in the caller's namespace -ENODEV.
 * Moving a device to the namespace it is in changes nothing.  Renames and
 * DIM are not supported (-EOPNOTSUPP).
 */
int ibx_nldev_set(struct sk_buff *skb, struct nlmsghdr *nlh,
		  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ibx_core_dev *core;
	struct net *net;
	int ret;

	ret = ibx_nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX])
		return -EINVAL;
	core = ibx_nldev_get(sock_net(skb->sk),
			     nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]));
	if (!core)
		return -EINVAL;
	get_device(&core->udev);	/* @core stays once unlocked */
	ibx_nldev_put(core);
	if (!tb[RDMA_NLDEV_NET_NS_FD]) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	net = get_net_ns_by_fd(nla_get_u32(tb[RDMA_NLDEV_NET_NS_FD]));
	if (IS_ERR(net)) {
		ret = PTR_ERR(net);
		goto out;
	}
	if (!netlink_ns_capable(skb, net->user_ns, CAP_NET_ADMIN)) {
		ret = -EPERM;
	} else if (READ_ONCE(ibx_shared_netns)) {
		NL_SET_ERR_MSG(extack, "devices move only in exclusive netns mode");
		ret = -EOPNOTSUPP;
	} else {
		/*
		 * The target stays live while we hold @net; its exit would
		 * wait for reg_lock and move the device back.
		 */
		ret = ibx_device_move(core, current->nsproxy->net_ns, net);
	}
	put_net(net);
out:
	put_device(&core->udev);
	return ret;
}
