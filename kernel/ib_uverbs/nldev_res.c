// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * nldev_res.c - the resource commands of RDMA_NL_NLDEV: RES_GET (counts
 * per type, `rdma res`) and the QP, CQ, MR and PD listings (`rdma res show
 * qp|cq|mr|pd`).  The objects are those of the open uverbs files; the core
 * creates no kernel objects of its own yet.
 *
 * Walking a file's objects excludes its commands (cmd_mutex) and its
 * teardown (teardown_rwsem for read), the two paths that add and destroy
 * them.  Lock order: ibx_devices_lock, core->lock, teardown_rwsem,
 * cmd_mutex, as unregistration takes them.  A file whose teardown is under
 * way is skipped (trylock): its objects are going away.
 */
#include <linux/module.h>
#include <linux/pid.h>
#include <net/sock.h>
#include "core_priv.h"
#include "nldev.h"

/* The summary's names, in ib_core's order (restrack types). */
static const struct {
	const char *name;
	int type;			/* enum ibx_obj_type, -1: none */
} ibx_res_names[] = {
	{ "pd", IBX_OBJ_PD },
	{ "cq", IBX_OBJ_CQ },
	{ "qp", IBX_OBJ_QP },
	{ "cm_id", -1 },
	{ "mr", IBX_OBJ_MR },
	{ "ctx", IBX_OBJ_NTYPES },	/* counted per file with a context */
	{ "srq", IBX_OBJ_SRQ },
};

/* Calls @fn for each object of @type of the device; stops on nonzero. */
static int ibx_res_walk(struct ibx_core_dev *core, int type,
			int (*fn)(struct ibx_uobj *uo, void *arg), void *arg)
{
	struct ibx_ufile *uf;
	struct ibx_uobj *uo;
	int ret = 0;

	lockdep_assert_held(&core->lock);
	list_for_each_entry(uf, &core->files, node) {
		if (!down_read_trylock(&uf->teardown_rwsem))
			continue;
		if (uf->torn_down) {
			up_read(&uf->teardown_rwsem);
			continue;
		}
		mutex_lock(&uf->cmd_mutex);
		if (type == IBX_OBJ_NTYPES) {
			if (uf->ucontext)
				ret = fn(NULL, arg);
		} else {
			list_for_each_entry(uo, &uf->uobjs, list) {
				if (uo->type != type || !uo->published)
					continue;
				ret = fn(uo, arg);
				if (ret)
					break;
			}
		}
		mutex_unlock(&uf->cmd_mutex);
		up_read(&uf->teardown_rwsem);
		if (ret)
			break;
	}
	return ret;
}

static int ibx_res_count_one(struct ibx_uobj *uo, void *arg)
{
	(*(u64 *)arg)++;
	return 0;
}

static int ibx_res_fill_summary(struct sk_buff *msg, struct ibx_core_dev *core,
				u32 port, struct net *net)
{
	struct nlattr *table, *entry;
	unsigned int i;

	if (ibx_nldev_put_handle(msg, core))
		return -EMSGSIZE;
	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_RES_SUMMARY);
	if (!table)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(ibx_res_names); i++) {
		u64 n = 0;

		if (ibx_res_names[i].type >= 0)
			ibx_res_walk(core, ibx_res_names[i].type,
				     ibx_res_count_one, &n);
		entry = nla_nest_start(msg, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY);
		if (!entry ||
		    nla_put_string(msg, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME,
				   ibx_res_names[i].name) ||
		    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR,
				      n, RDMA_NLDEV_ATTR_PAD))
			return -EMSGSIZE;
		nla_nest_end(msg, entry);
	}
	nla_nest_end(msg, table);
	return 0;
}

int ibx_nldev_res_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ibx_core_dev *core;
	struct sk_buff *msg;
	void *hdr;
	int ret;

	ret = ibx_nldev_parse(nlh, tb, extack);
	if (ret)
		return ret;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX])
		return -EINVAL;
	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = ibx_nldev_put_hdr(msg, NETLINK_CB(skb).portid, nlh->nlmsg_seq,
				RDMA_NLDEV_CMD_RES_GET, 0);
	core = ibx_nldev_get(sock_net(skb->sk),
			     nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]));
	if (!core) {
		ret = -EINVAL;
	} else {
		ret = hdr ? ibx_res_fill_summary(msg, core, 0, NULL) : -EMSGSIZE;
		ibx_nldev_put(core);
	}
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	nlmsg_end(msg, hdr);
	return ibx_nl_unicast(skb, msg);
}

int ibx_nldev_res_get_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ibx_nldev_dump(skb, cb, RDMA_NLDEV_CMD_RES_GET,
			      ibx_res_fill_summary);
}

/* ---- the listings: one message per step, entries nested in a table ---- */

struct ibx_res_list {
	struct sk_buff *msg;
	bool admin;			/* keys only for CAP_NET_ADMIN */
	long skip;			/* entries sent by earlier steps */
	long idx;			/* entries seen in this step */
	long filled;			/* entries added in this step */
	u32 entry_attr;
	int (*fill)(struct ibx_res_list *l, struct ibx_uobj *uo);
};

/* Who created it: the process that opened the file (user objects only). */
static int ibx_res_put_pid(struct sk_buff *msg, struct ibx_uobj *uo)
{
	pid_t pid = pid_vnr(uo->ufile->pid);

	/* 0: not visible in the reader's pid namespace; say nothing. */
	if (pid && nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PID, pid))
		return -EMSGSIZE;
	return 0;
}

/**
 * ibx_nl_put_driver_u32() - add one driver attribute to a resource entry
 * @msg: the message ops->fill_res_qp_entry() fills
 * @name: the attribute's name (the rdma tool prints it as drv_NAME)
 * @value: its value
 *
 * A name, then its value, flat in the entry's RDMA_NLDEV_ATTR_DRIVER
 * nest, as ib_core lays them out: the rdma tool pairs each value with the
 * string before it.  Any context.
 *
 * Return: 0, or -EMSGSIZE when @msg is full.
 */
int ibx_nl_put_driver_u32(struct sk_buff *msg, const char *name, u32 value)
{
	if (nla_put_string(msg, RDMA_NLDEV_ATTR_DRIVER_STRING, name) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_DRIVER_U32, value))
		return -EMSGSIZE;
	return 0;
}
EXPORT_SYMBOL_GPL(ibx_nl_put_driver_u32);

static int ibx_res_fill_qp_driver(struct sk_buff *msg, struct ibx_qp *qp)
{
	const struct ibx_device_ops *ops = qp->dev->ops;
	struct nlattr *nest;

	if (!ops->fill_res_qp_entry)
		return 0;
	nest = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	if (ops->fill_res_qp_entry(msg, qp)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int ibx_res_fill_qp(struct ibx_res_list *l, struct ibx_uobj *uo)
{
	struct ibx_qp *qp = uo->obj;
	struct sk_buff *msg = l->msg;
	u32 type = qp->qp_type;
	bool conn = type == IB_UVERBS_QPT_RC || type == IB_UVERBS_QPT_UC;

	if (qp->attr.port_num &&
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, qp->attr.port_num))
		return -EMSGSIZE;
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LQPN, qp->qp_num))
		return -EMSGSIZE;
	/* Remote QPN and RQ PSN: connected types only (IBA 11.2.5.3). */
	if (conn &&
	    (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_RQPN, qp->attr.dest_qp_num) ||
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_RQ_PSN, qp->attr.rq_psn)))
		return -EMSGSIZE;
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_SQ_PSN, qp->attr.sq_psn))
		return -EMSGSIZE;
	if ((conn || type == IB_UVERBS_QPT_XRC_INI ||
	     type == IB_UVERBS_QPT_XRC_TGT) &&
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE,
		       qp->attr.path_mig_state))
		return -EMSGSIZE;
	/* The driver may move a QP to Error itself (ibx_core.h). */
	if (nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_TYPE, type) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_STATE,
		       READ_ONCE(qp->attr.qp_state)))
		return -EMSGSIZE;
	if (ibx_res_put_pid(msg, uo))
		return -EMSGSIZE;
	return ibx_res_fill_qp_driver(msg, qp);
}

static int ibx_res_fill_cq(struct ibx_res_list *l, struct ibx_uobj *uo)
{
	struct ibx_cq *cq = uo->obj;

	if (nla_put_u32(l->msg, RDMA_NLDEV_ATTR_RES_CQE, cq->cqe) ||
	    nla_put_u64_64bit(l->msg, RDMA_NLDEV_ATTR_RES_USECNT, uo->usecnt,
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u8(l->msg, RDMA_NLDEV_ATTR_DEV_DIM, 0))
		return -EMSGSIZE;
	return ibx_res_put_pid(l->msg, uo);
}

static int ibx_res_fill_mr(struct ibx_res_list *l, struct ibx_uobj *uo)
{
	struct ibx_mr *mr = uo->obj;

	/* The keys open the memory to the wire: administrators only. */
	if (l->admin &&
	    (nla_put_u32(l->msg, RDMA_NLDEV_ATTR_RES_RKEY, mr->rkey) ||
	     nla_put_u32(l->msg, RDMA_NLDEV_ATTR_RES_LKEY, mr->lkey)))
		return -EMSGSIZE;
	if (nla_put_u64_64bit(l->msg, RDMA_NLDEV_ATTR_RES_MRLEN, mr->length,
			      RDMA_NLDEV_ATTR_PAD))
		return -EMSGSIZE;
	return ibx_res_put_pid(l->msg, uo);
}

static int ibx_res_fill_pd(struct ibx_res_list *l, struct ibx_uobj *uo)
{
	/* No local DMA lkey or unsafe global rkey for user PDs. */
	if (nla_put_u64_64bit(l->msg, RDMA_NLDEV_ATTR_RES_USECNT, uo->usecnt,
			      RDMA_NLDEV_ATTR_PAD))
		return -EMSGSIZE;
	return ibx_res_put_pid(l->msg, uo);
}

static int ibx_res_list_one(struct ibx_uobj *uo, void *arg)
{
	struct ibx_res_list *l = arg;
	struct nlattr *entry;

	if (l->idx++ < l->skip)
		return 0;
	entry = nla_nest_start(l->msg, l->entry_attr);
	if (!entry)
		return -EMSGSIZE;
	if (l->fill(l, uo)) {
		/* Full: this entry starts the next step. */
		nla_nest_cancel(l->msg, entry);
		l->idx--;
		return -EMSGSIZE;
	}
	nla_nest_end(l->msg, entry);
	l->filled++;
	return 0;
}

static const struct {
	u32 cmd, table_attr, entry_attr;
	int (*fill)(struct ibx_res_list *l, struct ibx_uobj *uo);
} ibx_res_lists[] = {
	[IBX_OBJ_QP] = { RDMA_NLDEV_CMD_RES_QP_GET, RDMA_NLDEV_ATTR_RES_QP,
			 RDMA_NLDEV_ATTR_RES_QP_ENTRY, ibx_res_fill_qp },
	[IBX_OBJ_CQ] = { RDMA_NLDEV_CMD_RES_CQ_GET, RDMA_NLDEV_ATTR_RES_CQ,
			 RDMA_NLDEV_ATTR_RES_CQ_ENTRY, ibx_res_fill_cq },
	[IBX_OBJ_MR] = { RDMA_NLDEV_CMD_RES_MR_GET, RDMA_NLDEV_ATTR_RES_MR,
			 RDMA_NLDEV_ATTR_RES_MR_ENTRY, ibx_res_fill_mr },
	[IBX_OBJ_PD] = { RDMA_NLDEV_CMD_RES_PD_GET, RDMA_NLDEV_ATTR_RES_PD,
			 RDMA_NLDEV_ATTR_RES_PD_ENTRY, ibx_res_fill_pd },
};

/*
 * As ib_core: a dump names one device (DEV_INDEX required); each step is
 * one message with as many entries as fit, cb->args[0] counts the entries
 * sent, and a step that adds none ends the dump.
 */
static int ibx_res_list_dump(struct sk_buff *skb, struct netlink_callback *cb,
			     enum ibx_obj_type type)
{
	struct ibx_res_list l = {
		.msg = skb,
		.admin = netlink_capable(cb->skb, CAP_NET_ADMIN),
		.skip = cb->args[0],
		.entry_attr = ibx_res_lists[type].entry_attr,
		.fill = ibx_res_lists[type].fill,
	};
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ibx_core_dev *core;
	struct nlattr *table;
	void *hdr;
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
	ret = -EMSGSIZE;
	hdr = ibx_nldev_put_hdr(skb, NETLINK_CB(cb->skb).portid,
				cb->nlh->nlmsg_seq, ibx_res_lists[type].cmd,
				NLM_F_MULTI);
	if (!hdr || ibx_nldev_put_handle(skb, core))
		goto out;
	table = nla_nest_start(skb, ibx_res_lists[type].table_attr);
	if (!table)
		goto out;
	ibx_res_walk(core, type, ibx_res_list_one, &l);
	nla_nest_end(skb, table);
	ret = 0;
out:
	ibx_nldev_put(core);
	if (ret || !l.filled) {
		if (hdr)
			nlmsg_cancel(skb, hdr);
		/* Nothing (more) to send: an empty step ends the dump. */
		return ret && !l.skip ? ret : 0;
	}
	nlmsg_end(skb, hdr);
	cb->args[0] = l.idx;
	return skb->len;
}

int ibx_nldev_res_qp_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ibx_res_list_dump(skb, cb, IBX_OBJ_QP);
}

int ibx_nldev_res_cq_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ibx_res_list_dump(skb, cb, IBX_OBJ_CQ);
}

int ibx_nldev_res_mr_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ibx_res_list_dump(skb, cb, IBX_OBJ_MR);
}

int ibx_nldev_res_pd_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ibx_res_list_dump(skb, cb, IBX_OBJ_PD);
}
