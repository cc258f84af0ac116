// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * nldev.c - the RDMA_NL_NLDEV commands about devices and ports: GET,
 * PORT_GET, GET_CHARDEV, SYS_GET and STAT_GET, answered as ib_core's
 * nldev.c answers them (iproute2's rdma tool and rdma-core read them).
 * The resource listings are in nldev_res.c, SET and SYS_SET (network
 * namespaces) in netns.c.  A device another namespace owns (exclusive
 * mode) is not there for the sender's socket.
 *
 * Locking: a command looks a device up and fills its message under
 * ibx_devices_lock (the ibdev stays allocated while listed) and core->lock
 * (it stays registered, its netdev stays bound).
 */
#include <linux/module.h>
#include <linux/kdev_t.h>
#include <linux/slab.h>
#include <net/sock.h>
#include "core_priv.h"
#include "nldev.h"

#define IBX_NL_CHARDEV_TYPE_SIZE	32	/* as ib_core's limit */

const struct nla_policy ibx_nldev_policy[RDMA_NLDEV_ATTR_MAX] = {
	[RDMA_NLDEV_ATTR_DEV_INDEX] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_DEV_NAME] = { .type = NLA_NUL_STRING,
				       .len = IBX_DEVICE_NAME_MAX - 1 },
	[RDMA_NLDEV_ATTR_PORT_INDEX] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_CHARDEV_TYPE] = { .type = NLA_NUL_STRING,
					   .len = IBX_NL_CHARDEV_TYPE_SIZE },
	[RDMA_NLDEV_ATTR_NDEV_NAME] = { .type = NLA_NUL_STRING,
					.len = IFNAMSIZ - 1 },
	[RDMA_NLDEV_ATTR_LINK_TYPE] = { .type = NLA_NUL_STRING,
					.len = IFNAMSIZ - 1 },
	[RDMA_NLDEV_ATTR_RES_LQPN] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_CQN] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_MRN] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_PDN] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_RES] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_MODE] = { .type = NLA_U32 },
	[RDMA_NLDEV_SYS_ATTR_NETNS_MODE] = { .type = NLA_U8 },
	[RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK] = { .type = NLA_U8 },
	[RDMA_NLDEV_NET_NS_FD] = { .type = NLA_U32 },
};

int ibx_nldev_parse(const struct nlmsghdr *nlh, struct nlattr **tb,
		    struct netlink_ext_ack *extack)
{
	/* Liberal parsing, as ib_core: unknown attributes are ignored. */
	return nlmsg_parse_deprecated(nlh, 0, tb, RDMA_NLDEV_ATTR_MAX - 1,
				      ibx_nldev_policy, extack);
}

/* Another namespace's device (exclusive mode) is no device, as upstream. */
static struct ibx_core_dev *ibx_nldev_find(struct net *net, u32 index)
{
	struct ibx_core_dev *core;

	lockdep_assert_held(&ibx_devices_lock);
	list_for_each_entry(core, &ibx_devices, node)
		if (core->index >= 0 && core->index == index)
			return ibx_core_access_netns(core, net) ? core : NULL;
	return NULL;
}

/*
 * Takes core->lock of a listed device; false (lock not held) once its
 * unregistration began.
 */
static bool ibx_nldev_lock(struct ibx_core_dev *core)
{
	mutex_lock(&core->lock);
	if (core->registered && !core->dying)
		return true;
	mutex_unlock(&core->lock);
	return false;
}

struct ibx_core_dev *ibx_nldev_get(struct net *net, u32 index)
{
	struct ibx_core_dev *core;

	mutex_lock(&ibx_devices_lock);
	core = ibx_nldev_find(net, index);
	if (core && ibx_nldev_lock(core))
		return core;
	mutex_unlock(&ibx_devices_lock);
	return NULL;
}

void ibx_nldev_put(struct ibx_core_dev *core)
{
	mutex_unlock(&core->lock);
	mutex_unlock(&ibx_devices_lock);
}

void *ibx_nldev_put_hdr(struct sk_buff *msg, u32 portid, u32 seq, u32 cmd,
			int flags)
{
	struct nlmsghdr *nlh;

	nlh = nlmsg_put(msg, portid, seq, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd),
			0, flags);
	return nlh;
}

int ibx_nldev_put_handle(struct sk_buff *msg, struct ibx_core_dev *core)
{
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, core->index) ||
	    nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_NAME, core->ibdev->name))
		return -EMSGSIZE;
	return 0;
}

static int ibx_nldev_fill_dev(struct sk_buff *msg, struct ibx_core_dev *core)
{
	struct ibx_device *dev = core->ibdev;
	const struct ib_uverbs_query_device_resp *a = &dev->attr.base;
	u64 caps = a->device_cap_flags | dev->attr.device_cap_flags_ex;

	if (ibx_nldev_put_handle(msg, core) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, a->phys_port_cnt) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CAP_FLAGS, caps,
			      RDMA_NLDEV_ATTR_PAD))
		return -EMSGSIZE;
	if (dev->fw_ver[0] &&
	    nla_put_string(msg, RDMA_NLDEV_ATTR_FW_VERSION, dev->fw_ver))
		return -EMSGSIZE;
	/* GUIDs in host byte order, as the UAPI header says. */
	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_NODE_GUID,
			      be64_to_cpu((__force __be64)a->node_guid),
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID,
			      be64_to_cpu((__force __be64)a->sys_image_guid),
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, dev->node_type) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_DIM, 0) ||
	    /* Every port of this core is RoCE (v2). */
	    nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_PROTOCOL, "roce"))
		return -EMSGSIZE;
	return 0;
}

static int ibx_nldev_fill_port(struct sk_buff *msg, struct ibx_core_dev *core,
			       u32 port, struct net *net)
{
	struct ibx_device *dev = core->ibdev;
	struct ib_uverbs_query_port_resp r;
	struct net_device *nd;
	int ret;

	ret = ibx_port_query(dev, port, &r);
	if (ret)
		return ret;
	/* LID, SM LID, LMC and the capability mask are IB-only: not sent. */
	if (ibx_nldev_put_handle(msg, core) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, port) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_PORT_STATE, r.state) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_PORT_PHYS_STATE, r.phys_state))
		return -EMSGSIZE;
	nd = dev->netdev[port];		/* stable under core->lock */
	if (nd && net_eq(dev_net(nd), net) &&
	    (nla_put_u32(msg, RDMA_NLDEV_ATTR_NDEV_INDEX, nd->ifindex) ||
	     nla_put_string(msg, RDMA_NLDEV_ATTR_NDEV_NAME, nd->name)))
		return -EMSGSIZE;
	return 0;
}

/*
 * One doit about one device (and port): parse, look up, fill under the
 * locks, reply.  @fill gets the port or 0.
 */
static int ibx_nldev_doit_one(struct sk_buff *skb, struct nlmsghdr *nlh,
			      struct netlink_ext_ack *extack, u32 cmd,
			      bool need_port, ibx_nldev_fill_t fill)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ibx_core_dev *core;
	struct sk_buff *msg;
	u32 port = 0;
	int ret;

	ret = ibx_nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] ||
	    (need_port && !tb[RDMA_NLDEV_ATTR_PORT_INDEX]))
		return -EINVAL;
	if (need_port)
		port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);

	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	if (!ibx_nldev_put_hdr(msg, NETLINK_CB(skb).portid, nlh->nlmsg_seq,
			       cmd, 0)) {
		ret = -EMSGSIZE;
		goto err;
	}
	core = ibx_nldev_get(sock_net(skb->sk),
			     nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]));
	if (!core) {
		ret = -EINVAL;		/* ib_core: no such index */
	} else {
		if (need_port && !ibx_port_valid(core->ibdev, port))
			ret = -EINVAL;
		else
			ret = fill(msg, core, port, sock_net(skb->sk));
		ibx_nldev_put(core);
	}
	if (ret)
		goto err;
	nlmsg_end(msg, nlmsg_hdr(msg));
	return ibx_nl_unicast(skb, msg);
err:
	nlmsg_free(msg);
	return ret;
}

/* One dump step: a message per device from where the last step stopped. */
int ibx_nldev_dump(struct sk_buff *skb, struct netlink_callback *cb, u32 cmd,
		   ibx_nldev_fill_t fill)
{
	struct ibx_core_dev *core;
	long idx = 0, skip = cb->args[0];

	mutex_lock(&ibx_devices_lock);
	list_for_each_entry(core, &ibx_devices, node) {
		void *hdr;
		int ret;

		if (idx++ < skip ||
		    !ibx_core_access_netns(core, sock_net(skb->sk)) ||
		    !ibx_nldev_lock(core))
			continue;
		hdr = ibx_nldev_put_hdr(skb, NETLINK_CB(cb->skb).portid,
					cb->nlh->nlmsg_seq, cmd, NLM_F_MULTI);
		ret = hdr ? fill(skb, core, 0, sock_net(skb->sk)) : -EMSGSIZE;
		mutex_unlock(&core->lock);
		if (ret) {
			if (hdr)
				nlmsg_cancel(skb, hdr);
			idx--;		/* again in the next step */
			break;
		}
		nlmsg_end(skb, hdr);
	}
	mutex_unlock(&ibx_devices_lock);
	cb->args[0] = idx;
	return skb->len;
}

static int ibx_fill_dev(struct sk_buff *msg, struct ibx_core_dev *core,
			u32 port, struct net *net)
{
	return ibx_nldev_fill_dev(msg, core);
}

static int ibx_nldev_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			      struct netlink_ext_ack *extack)
{
	return ibx_nldev_doit_one(skb, nlh, extack, RDMA_NLDEV_CMD_GET, false,
				  ibx_fill_dev);
}

static int ibx_nldev_get_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ibx_nldev_dump(skb, cb, RDMA_NLDEV_CMD_GET, ibx_fill_dev);
}

static int ibx_nldev_port_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
				   struct netlink_ext_ack *extack)
{
	return ibx_nldev_doit_one(skb, nlh, extack, RDMA_NLDEV_CMD_PORT_GET,
				  true, ibx_nldev_fill_port);
}

/* ib_core dumps the ports of one device: DEV_INDEX is required. */
static int ibx_nldev_port_get_dump(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ibx_core_dev *core;
	u32 port, start = cb->args[0];
	int ret;

	ret = ibx_nldev_parse(cb->nlh, tb, NULL);
	if (ret)
		return ret;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX])
		return -EINVAL;
	core = ibx_nldev_get(sock_net(skb->sk),
			     nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]));
	if (!core)
		return -EINVAL;
	for (port = start + 1; port <= core->ibdev->attr.base.phys_port_cnt;
	     port++) {
		void *hdr = ibx_nldev_put_hdr(skb, NETLINK_CB(cb->skb).portid,
					      cb->nlh->nlmsg_seq,
					      RDMA_NLDEV_CMD_PORT_GET,
					      NLM_F_MULTI);

		if (!hdr || ibx_nldev_fill_port(skb, core, port,
						sock_net(skb->sk))) {
			if (hdr)
				nlmsg_cancel(skb, hdr);
			break;
		}
		nlmsg_end(skb, hdr);
		cb->args[0] = port;
	}
	ibx_nldev_put(core);
	return skb->len;
}

/*
 * GET_CHARDEV: where the character device of an ABI is, so that rdma-core
 * need not scan sysfs.  "uverbs" is ours (per device); other names go to
 * the kernel client of that name.  Unknown names: -EOPNOTSUPP, as ib_core
 * (which would first request_module("rdma-client-NAME"): never here, that
 * alias is in-tree).
 */
static int ibx_nldev_get_chardev(struct sk_buff *skb, struct nlmsghdr *nlh,
				 struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	char type[IBX_NL_CHARDEV_TYPE_SIZE + 1];
	struct ibx_nl_chardev cd = {};
	struct sk_buff *msg;
	int index = -1;
	void *hdr;
	int ret;

	ret = ibx_nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;
	if (!tb[RDMA_NLDEV_ATTR_CHARDEV_TYPE])
		return -EINVAL;
	nla_strscpy(type, tb[RDMA_NLDEV_ATTR_CHARDEV_TYPE], sizeof(type));
	if (tb[RDMA_NLDEV_ATTR_DEV_INDEX]) {
		u32 i = nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);

		if (i >= IBX_MAX_DEVICES)
			return -EINVAL;
		index = i;
	}

	if (!strcmp(type, "uverbs")) {
		struct ibx_core_dev *core;

		/* A port makes no sense for uverbs; no global uverbs node. */
		if (tb[RDMA_NLDEV_ATTR_PORT_INDEX])
			return -EINVAL;
		if (index < 0)
			return -EOPNOTSUPP;
		core = ibx_nldev_get(sock_net(skb->sk), index);
		if (core) {
			cd.devt = core->udev.devt;
			cd.abi = core->ibdev->driver_abi_version;
			strscpy(cd.name, dev_name(&core->udev),
				sizeof(cd.name));
			ibx_nldev_put(core);
		} else {
			ret = -EINVAL;
		}
	} else {
		if (tb[RDMA_NLDEV_ATTR_PORT_INDEX])
			return -EINVAL;
		ret = ibx_client_nl_chardev(sock_net(skb->sk), index, type,
					    &cd);
		if (ret == -ENOENT)
			ret = -EOPNOTSUPP;
	}
	if (ret)
		return ret;

	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = ibx_nldev_put_hdr(msg, NETLINK_CB(skb).portid, nlh->nlmsg_seq,
				RDMA_NLDEV_CMD_GET_CHARDEV, 0);
	if (!hdr ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CHARDEV,
			      huge_encode_dev(cd.devt), RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CHARDEV_ABI, cd.abi,
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_string(msg, RDMA_NLDEV_ATTR_CHARDEV_NAME, cd.name)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	nlmsg_end(msg, hdr);
	return ibx_nl_unicast(skb, msg);
}

/*
 * SYS_GET (`rdma system`): the netns mode (1 shared, ib_core's default; 0
 * exclusive; netns.c), and MRs behave as with copy-on-fork (ours pin with
 * FOLL_LONGTERM, so a fork never moves pinned pages).
 */
static int ibx_nldev_sys_get(struct sk_buff *skb, struct nlmsghdr *nlh,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct sk_buff *msg;
	void *hdr;
	int ret;

	ret = ibx_nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;
	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = ibx_nldev_put_hdr(msg, NETLINK_CB(skb).portid, nlh->nlmsg_seq,
				RDMA_NLDEV_CMD_SYS_GET, 0);
	if (!hdr || nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_NETNS_MODE,
			       READ_ONCE(ibx_shared_netns)) ||
	    nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 1)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	nlmsg_end(msg, hdr);
	return ibx_nl_unicast(skb, msg);
}

/* The port's hw counters, as `rdma statistic show` reads them. */
static int ibx_nldev_fill_stat(struct sk_buff *msg, struct ibx_core_dev *core,
			       u32 port, struct net *net)
{
	const struct ibx_device_ops *ops = core->ibdev->ops;
	unsigned int i, n = ops->num_hw_counters;
	struct nlattr *table, *entry;
	u64 *values;
	int ret;

	if (!n || !ops->get_hw_counters || !ops->hw_counter_names)
		return -EOPNOTSUPP;
	values = kcalloc(n, sizeof(*values), GFP_KERNEL);
	if (!values)
		return -ENOMEM;
	ret = ops->get_hw_counters(core->ibdev, port, values);
	if (ret)
		goto out;
	ret = -EMSGSIZE;
	if (ibx_nldev_put_handle(msg, core) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, port))
		goto out;
	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	if (!table)
		goto out;
	for (i = 0; i < n; i++) {
		entry = nla_nest_start(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
		if (!entry ||
		    nla_put_string(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME,
				   ops->hw_counter_names[i]) ||
		    nla_put_u64_64bit(msg,
				      RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE,
				      values[i], RDMA_NLDEV_ATTR_PAD))
			goto out;
		nla_nest_end(msg, entry);
	}
	nla_nest_end(msg, table);
	ret = 0;
out:
	kfree(values);
	return ret;
}

static int ibx_nldev_stat_get(struct sk_buff *skb, struct nlmsghdr *nlh,
			      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	int ret;

	ret = ibx_nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;
	/* Per-QP counters (`rdma statistic qp`) are not implemented. */
	if (tb[RDMA_NLDEV_ATTR_STAT_RES])
		return -EOPNOTSUPP;
	return ibx_nldev_doit_one(skb, nlh, extack, RDMA_NLDEV_CMD_STAT_GET,
				  true, ibx_nldev_fill_stat);
}

const struct ibx_nl_op ibx_nldev_ops[RDMA_NLDEV_NUM_OPS] = {
	[RDMA_NLDEV_CMD_GET] = {
		.doit = ibx_nldev_get_doit,
		.dump = ibx_nldev_get_dump,
	},
	[RDMA_NLDEV_CMD_SET] = {
		.doit = ibx_nldev_set,
		.flags = IBX_NL_ADMIN,
	},
	[RDMA_NLDEV_CMD_PORT_GET] = {
		.doit = ibx_nldev_port_get_doit,
		.dump = ibx_nldev_port_get_dump,
	},
	[RDMA_NLDEV_CMD_NEWLINK] = {
		.doit = ibx_nldev_newlink,
		.flags = IBX_NL_ADMIN,
	},
	[RDMA_NLDEV_CMD_DELLINK] = {
		.doit = ibx_nldev_dellink,
		.flags = IBX_NL_ADMIN,
	},
	[RDMA_NLDEV_CMD_SYS_GET] = { .doit = ibx_nldev_sys_get },
	[RDMA_NLDEV_CMD_SYS_SET] = {
		.doit = ibx_nldev_sys_set,
		.flags = IBX_NL_ADMIN,
	},
	[RDMA_NLDEV_CMD_GET_CHARDEV] = { .doit = ibx_nldev_get_chardev },
	[RDMA_NLDEV_CMD_STAT_GET] = { .doit = ibx_nldev_stat_get },
	[RDMA_NLDEV_CMD_RES_GET] = {
		.doit = ibx_nldev_res_get_doit,
		.dump = ibx_nldev_res_get_dump,
	},
	[RDMA_NLDEV_CMD_RES_QP_GET] = { .dump = ibx_nldev_res_qp_dump },
	[RDMA_NLDEV_CMD_RES_CQ_GET] = { .dump = ibx_nldev_res_cq_dump },
	[RDMA_NLDEV_CMD_RES_MR_GET] = { .dump = ibx_nldev_res_mr_dump },
	[RDMA_NLDEV_CMD_RES_PD_GET] = { .dump = ibx_nldev_res_pd_dump },
};
