// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * link.c - netlink NEWLINK and DELLINK (`rdma link add/delete`): the
 * drivers that create devices on a netdev register a link type here, as
 * rdma_rxe and siw do with ib_core.
 *
 * Unlike ib_core, an unknown type never triggers request_module(
 * "rdma-link-TYPE"): those aliases name in-tree drivers that need ib_core.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rwsem.h>
#include <net/sock.h>
#include "core_priv.h"
#include "nldev.h"

/* Held for read across newlink()/dellink(), for write to (un)register. */
static DECLARE_RWSEM(ibx_link_ops_rwsem);
static LIST_HEAD(ibx_link_ops_list);

static struct ibx_link_ops *ibx_link_ops_find(const char *type,
					      struct module *owner)
{
	struct ibx_link_ops *ops;

	list_for_each_entry(ops, &ibx_link_ops_list, node)
		if (type ? !strcmp(ops->type, type) : ops->owner == owner)
			return ops;
	return NULL;
}

/**
 * ibx_register_link_ops() - offer a link type to `rdma link add`
 * @ops: type name, owner and the newlink()/dellink() callbacks
 *
 * Return: 0, -EINVAL if a field is missing, -EEXIST if the type is taken.
 */
int ibx_register_link_ops(struct ibx_link_ops *ops)
{
	int ret = 0;

	if (!ops->type || !ops->newlink || !ops->dellink)
		return -EINVAL;
	down_write(&ibx_link_ops_rwsem);
	if (ibx_link_ops_find(ops->type, NULL))
		ret = -EEXIST;
	else
		list_add_tail(&ops->node, &ibx_link_ops_list);
	up_write(&ibx_link_ops_rwsem);
	return ret;
}
EXPORT_SYMBOL_GPL(ibx_register_link_ops);

/**
 * ibx_unregister_link_ops() - withdraw a link type
 * @ops: as registered
 *
 * Waits for a newlink() or dellink() of any type that is running; none
 * of @ops runs after this returns.
 */
void ibx_unregister_link_ops(struct ibx_link_ops *ops)
{
	down_write(&ibx_link_ops_rwsem);
	list_del(&ops->node);
	up_write(&ibx_link_ops_rwsem);
}
EXPORT_SYMBOL_GPL(ibx_unregister_link_ops);

int ibx_nldev_newlink(struct sk_buff *skb, struct nlmsghdr *nlh,
		      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	char ibdev_name[IBX_DEVICE_NAME_MAX];
	char type[IFNAMSIZ], ndev_name[IFNAMSIZ];
	struct ibx_link_ops *ops;
	struct net_device *ndev;
	int ret;

	ret = ibx_nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;
	if (!tb[RDMA_NLDEV_ATTR_DEV_NAME] || !tb[RDMA_NLDEV_ATTR_LINK_TYPE] ||
	    !tb[RDMA_NLDEV_ATTR_NDEV_NAME])
		return -EINVAL;
	nla_strscpy(ibdev_name, tb[RDMA_NLDEV_ATTR_DEV_NAME],
		    sizeof(ibdev_name));
	/* A name, not a pattern; '/' would make a bad sysfs name. */
	if (!ibdev_name[0] || strchr(ibdev_name, '%') ||
	    strchr(ibdev_name, '/'))
		return -EINVAL;
	nla_strscpy(type, tb[RDMA_NLDEV_ATTR_LINK_TYPE], sizeof(type));
	nla_strscpy(ndev_name, tb[RDMA_NLDEV_ATTR_NDEV_NAME],
		    sizeof(ndev_name));

	ndev = dev_get_by_name(sock_net(skb->sk), ndev_name);
	if (!ndev)
		return -ENODEV;
	down_read(&ibx_link_ops_rwsem);
	ops = ibx_link_ops_find(type, NULL);
	ret = ops ? ops->newlink(ibdev_name, ndev) : -EINVAL;
	up_read(&ibx_link_ops_rwsem);
	dev_put(ndev);
	return ret;
}

/*
 * DELLINK names the device by index.  Only devices of a driver with a
 * link type can be deleted (ib_core: IBK_ALLOW_USER_UNREG); -EINVAL for
 * the others and for unknown indexes.
 */
int ibx_nldev_dellink(struct sk_buff *skb, struct nlmsghdr *nlh,
		      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	char name[IBX_DEVICE_NAME_MAX];
	struct ibx_link_ops *ops;
	struct ibx_core_dev *core;
	struct module *owner = NULL;
	int ret;

	ret = ibx_nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX])
		return -EINVAL;
	core = ibx_nldev_get(sock_net(skb->sk),
			     nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]));
	if (core) {
		owner = core->ibdev->ops->owner;
		strscpy(name, core->ibdev->name, sizeof(name));
		ibx_nldev_put(core);
	}
	if (!owner)
		return -EINVAL;

	/*
	 * By name from here: the device may be going away already, and the
	 * driver's own lock decides (-ENODEV then).
	 */
	down_read(&ibx_link_ops_rwsem);
	ops = ibx_link_ops_find(NULL, owner);
	ret = ops ? ops->dellink(name) : -EINVAL;
	up_read(&ibx_link_ops_rwsem);
	return ret;
}
