// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * netlink.c - the NETLINK_RDMA family while this core is the RDMA core.
 *
 * Opening a NETLINK_RDMA socket makes the kernel request_module()
 * "net-pf-16-proto-20" unless some module registered the protocol; that
 * alias is the in-tree ib_core, which cannot load beside our classes.  So
 * we register a kernel socket for the protocol in every network namespace
 * (as ib_core does) and answer the RDMA_NL_NLDEV client, the one that
 * iproute2's rdma tool and rdma-core speak.  The other clients (iWARP port
 * mapper, IB local SA) have no user here: their messages get -EINVAL, as
 * ib_core answers a client with no handlers.
 *
 * Message types are RDMA_NL_GET_TYPE(client, op); attributes and their
 * meaning come from <rdma/rdma_netlink.h>.
 */
#include <linux/module.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/netlink.h>
#include <net/sock.h>
#include "core_priv.h"
#include "nldev.h"

struct ibx_nl_net {
	struct sock *sk;
};

static unsigned int ibx_nl_net_id;

static int ibx_nl_rcv_msg(struct sk_buff *skb, struct nlmsghdr *nlh,
			  struct netlink_ext_ack *extack)
{
	unsigned int client = RDMA_NL_GET_CLIENT(nlh->nlmsg_type);
	unsigned int op = RDMA_NL_GET_OP(nlh->nlmsg_type);
	const struct ibx_nl_op *o;

	if (client != RDMA_NL_NLDEV || op >= RDMA_NLDEV_NUM_OPS) {
		NL_SET_ERR_MSG(extack, "unsupported RDMA netlink client or op");
		return -EINVAL;
	}
	o = &ibx_nldev_ops[op];
	if (!o->doit && !o->dump)
		return -EINVAL;
	if ((o->flags & IBX_NL_ADMIN) &&
	    !netlink_capable(skb, CAP_NET_ADMIN))
		return -EPERM;

	if (nlh->nlmsg_flags & NLM_F_DUMP) {
		struct netlink_dump_control c = { .dump = o->dump };

		/* As ib_core: a dump of a command that has none is refused. */
		if (!o->dump)
			return -EINVAL;
		return netlink_dump_start(skb->sk, skb, nlh, &c);
	}
	if (!o->doit)
		return -EINVAL;
	return o->doit(skb, nlh, extack);
}

/*
 * netlink_rcv_skb() walks every message of the buffer, drops the ones
 * shorter than their header claims and acks errors (and NLM_F_ACK).
 */
static void ibx_nl_rcv(struct sk_buff *skb)
{
	netlink_rcv_skb(skb, ibx_nl_rcv_msg);
}

/* A reply to the sender of @req_skb (the netns of its socket). */
int ibx_nl_unicast(struct sk_buff *req_skb, struct sk_buff *msg)
{
	return nlmsg_unicast(req_skb->sk, msg, NETLINK_CB(req_skb).portid);
}

static int __net_init ibx_nl_net_init(struct net *net)
{
	struct ibx_nl_net *nn = net_generic(net, ibx_nl_net_id);
	struct netlink_kernel_cfg cfg = { .input = ibx_nl_rcv };

	nn->sk = netlink_kernel_create(net, NETLINK_RDMA, &cfg);
	if (!nn->sk)
		return -ENOMEM;
	return 0;
}

static void __net_exit ibx_nl_net_exit(struct net *net)
{
	struct ibx_nl_net *nn = net_generic(net, ibx_nl_net_id);

	netlink_kernel_release(nn->sk);
	nn->sk = NULL;
}

static struct pernet_operations ibx_nl_net_ops = {
	.init = ibx_nl_net_init,
	.exit = ibx_nl_net_exit,
	.id = &ibx_nl_net_id,
	.size = sizeof(struct ibx_nl_net),
};

int ibx_nl_init(void)
{
	/*
	 * A second kernel socket for a protocol would only share it; the
	 * in-tree ib_core cannot be loaded here (ibx_uverbs_init checks).
	 */
	return register_pernet_subsys(&ibx_nl_net_ops);
}

void ibx_nl_exit(void)
{
	unregister_pernet_subsys(&ibx_nl_net_ops);
}
