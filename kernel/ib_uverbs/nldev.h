/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * nldev.h - the RDMA_NL_NLDEV commands (nldev.c, nldev_res.c) and the
 * netlink plumbing they use (netlink.c).
 */
#ifndef IBX_NLDEV_H
#define IBX_NLDEV_H

#include <net/netlink.h>
#include <uapi/rdma/rdma_netlink.h>

#define IBX_NL_ADMIN	0x1	/* needs CAP_NET_ADMIN (as RDMA_NL_ADMIN_PERM) */

struct ibx_core_dev;

struct ibx_nl_op {
	int (*doit)(struct sk_buff *skb, struct nlmsghdr *nlh,
		    struct netlink_ext_ack *extack);
	int (*dump)(struct sk_buff *skb, struct netlink_callback *cb);
	u8 flags;
};

/* Indexed by RDMA_NLDEV_CMD_*; a command with neither op is -EINVAL. */
extern const struct ibx_nl_op ibx_nldev_ops[RDMA_NLDEV_NUM_OPS];

int ibx_nl_unicast(struct sk_buff *req_skb, struct sk_buff *msg);
int ibx_nl_init(void);
void ibx_nl_exit(void);

/* nldev.c, for nldev_res.c */
extern const struct nla_policy ibx_nldev_policy[RDMA_NLDEV_ATTR_MAX];
int ibx_nldev_parse(const struct nlmsghdr *nlh, struct nlattr **tb,
		    struct netlink_ext_ack *extack);
/*
 * The registered device of @index that @net may see, with ibx_devices_lock
 * and its core->lock held (release with ibx_nldev_put()), or NULL with
 * neither held.
 */
struct ibx_core_dev *ibx_nldev_get(struct net *net, u32 index);
void ibx_nldev_put(struct ibx_core_dev *core);
typedef int (*ibx_nldev_fill_t)(struct sk_buff *msg, struct ibx_core_dev *core,
				u32 port, struct net *net);
/* One step of a dump with a message per device (GET, RES_GET). */
int ibx_nldev_dump(struct sk_buff *skb, struct netlink_callback *cb, u32 cmd,
		   ibx_nldev_fill_t fill);
int ibx_nldev_put_handle(struct sk_buff *msg, struct ibx_core_dev *core);
void *ibx_nldev_put_hdr(struct sk_buff *msg, u32 portid, u32 seq, u32 cmd,
			int flags);

/* link.c */
int ibx_nldev_newlink(struct sk_buff *skb, struct nlmsghdr *nlh,
		      struct netlink_ext_ack *extack);
int ibx_nldev_dellink(struct sk_buff *skb, struct nlmsghdr *nlh,
		      struct netlink_ext_ack *extack);

/* netns.c */
int ibx_nldev_set(struct sk_buff *skb, struct nlmsghdr *nlh,
		  struct netlink_ext_ack *extack);
int ibx_nldev_sys_set(struct sk_buff *skb, struct nlmsghdr *nlh,
		      struct netlink_ext_ack *extack);

/* nldev_res.c */
int ibx_nldev_res_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			   struct netlink_ext_ack *extack);
int ibx_nldev_res_get_dump(struct sk_buff *skb, struct netlink_callback *cb);
int ibx_nldev_res_qp_dump(struct sk_buff *skb, struct netlink_callback *cb);
int ibx_nldev_res_cq_dump(struct sk_buff *skb, struct netlink_callback *cb);
int ibx_nldev_res_mr_dump(struct sk_buff *skb, struct netlink_callback *cb);
int ibx_nldev_res_pd_dump(struct sk_buff *skb, struct netlink_callback *cb);

#endif /* IBX_NLDEV_H */
