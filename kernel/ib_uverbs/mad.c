// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mad.c - the MAD layer: QP1 of every port and the agents that use it
 * (API and rules in ibx_mad.h).  A built-in kernel client gives each port
 * a PD, a CQ and the GSI QP with receive buffers; completions are handled
 * by one ordered workqueue per port, which serializes everything that
 * touches a port's receive buffers and a send's state machine:
 *
 *   post -> [on the SQ] -> send CQE -> done                (no response)
 *                                   -> waiting -> response -> done
 *                                              -> timeout -> post again
 *                                                         -> -ETIMEDOUT
 *
 * On RoCE there is no QP0 and no SM: only GSI classes (the CM) matter.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/ipv6.h>
#include <net/dsfield.h>
#include "core_priv.h"
#include "ibx_mad.h"

#define IBX_MAD_RECV_BUFS	64	/* receive buffers kept posted */
#define IBX_MAD_SEND_WRS	128	/* sends in flight per port */
#define IBX_MAD_BUF_LEN		(IBX_MAD_GRH_LEN + IBX_MAD_SIZE)
#define IBX_MAD_POLL		8	/* completions per poll call */

enum {
	C_RCVD, C_RCVD_BAD, C_UNCLAIMED, C_UNCLAIMED_CM, C_RESPONSES, C_SENT,
	C_SEND_ERRORS, C_TIMEOUTS, C_RETRIES, C_NUM
};

struct ibx_mad_port {
	struct ibx_device *dev;
	u32 port;
	struct ibx_pd *pd;
	struct ibx_mr *mr;		/* DMA key for buffers and sends */
	struct ibx_cq *cq;		/* sends and receives */
	struct ibx_qp *qp;		/* the GSI QP, qp_num 1 */
	u8 *rbufs;			/* IBX_MAD_RECV_BUFS of BUF_LEN */
	struct workqueue_struct *wq;	/* ordered: all completion work */
	struct work_struct cq_work;
	spinlock_t lock;		/* agents, sends' flags, dying */
	struct list_head agents;
	bool dying;			/* being torn down: no new sends */
	atomic64_t cnt[C_NUM];
};

struct ibx_mad_agent_priv {
	struct ibx_mad_agent agent;
	struct ibx_mad_port *port;	/* NULL once the port is gone */
	struct list_head node;		/* in port->agents */
	ibx_mad_recv_handler recv_handler;
	ibx_mad_send_handler send_handler;
	struct list_head sends;		/* active sends, under port->lock */
	unsigned int active;		/* their number */
	wait_queue_head_t wait;		/* for active == 0 */
	atomic_t next_tid;
};

struct ibx_mad_dev {
	u32 nports;
	struct ibx_mad_port *ports[IBX_MAX_PORTS + 1];
};

/* Registration and port lifetime; never taken by the workqueue handlers. */
static DEFINE_MUTEX(ibx_mad_lock);
static atomic_t ibx_mad_hi_tid = ATOMIC_INIT(0);
static struct ibx_client ibx_mad_client;

static inline struct ibx_mad_agent_priv *to_priv(struct ibx_mad_agent *a)
{
	return container_of(a, struct ibx_mad_agent_priv, agent);
}

static void ibx_mad_count(struct ibx_mad_port *port, int c)
{
	atomic64_inc(&port->cnt[c]);
}

/* ---------------- sends ---------------- */

/* Puts @send on the GSI QP's send queue once more. */
static int ibx_mad_xmit(struct ibx_mad_port *port, struct ibx_mad_send *send)
{
	struct ibx_sge sge = {
		.addr = (u64)(uintptr_t)&send->mad,
		.length = IBX_MAD_SIZE,
		.lkey = port->mr->lkey,
	};
	struct ibx_send_wr wr = {
		.wr_id = (u64)(uintptr_t)send,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBX_WR_SEND,
		.send_flags = IBX_SEND_SIGNALED,
	};
	int ret;

	wr.wr.ud.ah = send->ah;
	wr.wr.ud.remote_qpn = send->remote_qpn;
	wr.wr.ud.remote_qkey = IBX_GSI_QKEY;
	send->posted = true;
	send->sends++;
	ret = ibx_post_send(port->qp, &wr, NULL);
	if (ret) {
		send->posted = false;
		send->sends--;
		return ret;
	}
	ibx_mad_count(port, C_SENT);
	return 0;
}

/* Ends @send with @status and tells its agent; workqueue or teardown. */
static void ibx_mad_complete(struct ibx_mad_port *port,
			     struct ibx_mad_send *send, int status)
{
	struct ibx_mad_agent_priv *priv = to_priv(send->agent);
	unsigned long flags;

	spin_lock_irqsave(&port->lock, flags);
	if (!send->active) {
		spin_unlock_irqrestore(&port->lock, flags);
		return;
	}
	list_del_init(&send->node);
	send->active = false;
	send->waiting = false;
	priv->active--;
	spin_unlock_irqrestore(&port->lock, flags);
	ibx_destroy_ah(send->ah);
	send->ah = NULL;
	send->status = status;
	/* The handler may free or repost @send: not touched afterwards. */
	if (priv->send_handler)
		priv->send_handler(&priv->agent, send);
	wake_up(&priv->wait);
}

static void ibx_mad_send_done(struct ibx_mad_port *port,
			      const struct ibx_wc *wc)
{
	struct ibx_mad_send *send = (void *)(uintptr_t)wc->wr_id;
	unsigned long flags;
	int status = 0;

	spin_lock_irqsave(&port->lock, flags);
	send->posted = false;
	if (wc->status != IBX_WC_SUCCESS)
		status = wc->status == IBX_WC_WR_FLUSH_ERR ? -ECANCELED : -EIO;
	else if (send->cancelled)
		status = -ECANCELED;
	else if (send->timeout_ms && !send->responded) {
		/* Now the response may take timeout_ms. */
		send->waiting = true;
		queue_delayed_work(port->wq, &send->timeout_work,
				   msecs_to_jiffies(send->timeout_ms));
		spin_unlock_irqrestore(&port->lock, flags);
		return;
	}
	spin_unlock_irqrestore(&port->lock, flags);
	if (status == -EIO)
		ibx_mad_count(port, C_SEND_ERRORS);
	ibx_mad_complete(port, send, status);
}

static void ibx_mad_timeout_work(struct work_struct *work)
{
	struct ibx_mad_send *send = container_of(to_delayed_work(work),
						 struct ibx_mad_send,
						 timeout_work);
	struct ibx_mad_port *port = to_priv(send->agent)->port;
	unsigned long flags;
	int status;

	spin_lock_irqsave(&port->lock, flags);
	if (!send->active || !send->waiting) {
		spin_unlock_irqrestore(&port->lock, flags);
		return;
	}
	send->waiting = false;
	if (send->cancelled || port->dying)
		status = -ECANCELED;
	else if (send->sends > send->retries)
		status = -ETIMEDOUT;
	else
		status = 0;
	spin_unlock_irqrestore(&port->lock, flags);
	if (!status) {
		ibx_mad_count(port, C_RETRIES);
		if (!ibx_mad_xmit(port, send))
			return;
		status = -EIO;
	}
	if (status == -ETIMEDOUT)
		ibx_mad_count(port, C_TIMEOUTS);
	ibx_mad_complete(port, send, status);
}

/**
 * ibx_mad_alloc_send - a send buffer of an agent
 * @agent: the agent that will send it
 * @gfp: allocation flags
 *
 * Return: a zeroed send with remote_qpn 1, or NULL.
 */
struct ibx_mad_send *ibx_mad_alloc_send(struct ibx_mad_agent *agent, gfp_t gfp)
{
	/* kmalloc memory: the DMA key reaches it (not module data). */
	struct ibx_mad_send *send = kzalloc(sizeof(*send), gfp);

	if (!send)
		return NULL;
	send->agent = agent;
	send->remote_qpn = IBX_GSI_QPN;
	INIT_LIST_HEAD(&send->node);
	INIT_DELAYED_WORK(&send->timeout_work, ibx_mad_timeout_work);
	return send;
}
EXPORT_SYMBOL_GPL(ibx_mad_alloc_send);

/**
 * ibx_mad_free_send - frees a send that is not active
 * @send: from ibx_mad_alloc_send()
 */
void ibx_mad_free_send(struct ibx_mad_send *send)
{
	if (send)
		WARN_ON_ONCE(send->active);
	kfree(send);
}
EXPORT_SYMBOL_GPL(ibx_mad_free_send);

/**
 * ibx_mad_next_tid - a fresh transaction ID of an agent
 * @agent: the agent
 *
 * Return: hi_tid << 32 | a per-agent counter, network order.
 */
__be64 ibx_mad_next_tid(struct ibx_mad_agent *agent)
{
	u32 lo = atomic_inc_return(&to_priv(agent)->next_tid);

	return cpu_to_be64((u64)agent->hi_tid << 32 | lo);
}
EXPORT_SYMBOL_GPL(ibx_mad_next_tid);

/**
 * ibx_mad_post_send - sends a MAD
 * @send: filled by the caller (mad, ah_attr, timeout_ms, retries)
 *
 * The send handler of the agent reports the outcome exactly once.  May
 * sleep.
 *
 * Return: 0, -EBUSY (@send still active), -EINVAL (address vector),
 * -ENODEV (the port is going away), or the send queue's errno.
 */
int ibx_mad_post_send(struct ibx_mad_send *send)
{
	struct ibx_mad_agent_priv *priv = to_priv(send->agent);
	struct ibx_mad_port *port = priv->port;
	unsigned long flags;
	struct ibx_ah *ah;
	int ret;

	if (!port)
		return -ENODEV;
	if (send->active)
		return -EBUSY;
	send->ah_attr.port_num = port->port;
	ah = ibx_create_ah(port->pd, &send->ah_attr);
	if (IS_ERR(ah))
		return PTR_ERR(ah);
	send->ah = ah;
	send->sends = 0;
	send->status = 0;
	send->responded = false;
	send->cancelled = false;
	send->waiting = false;
	spin_lock_irqsave(&port->lock, flags);
	if (port->dying) {
		spin_unlock_irqrestore(&port->lock, flags);
		ret = -ENODEV;
		goto err;
	}
	send->active = true;
	list_add_tail(&send->node, &priv->sends);
	priv->active++;
	spin_unlock_irqrestore(&port->lock, flags);
	ret = ibx_mad_xmit(port, send);
	if (!ret)
		return 0;
	spin_lock_irqsave(&port->lock, flags);
	list_del_init(&send->node);
	send->active = false;
	priv->active--;
	spin_unlock_irqrestore(&port->lock, flags);
	wake_up(&priv->wait);
err:
	ibx_destroy_ah(ah);
	send->ah = NULL;
	return ret;
}
EXPORT_SYMBOL_GPL(ibx_mad_post_send);

/**
 * ibx_mad_cancel_send - gives up on a send
 * @send: an active send (a finished one is left alone)
 *
 * No retry follows; the send handler runs with -ECANCELED once the send
 * queue has let go of the MAD (at once if it waits for a response).
 */
void ibx_mad_cancel_send(struct ibx_mad_send *send)
{
	struct ibx_mad_port *port = to_priv(send->agent)->port;
	unsigned long flags;

	if (!port)
		return;
	spin_lock_irqsave(&port->lock, flags);
	if (send->active) {
		send->cancelled = true;
		if (send->waiting)
			mod_delayed_work(port->wq, &send->timeout_work, 0);
	}
	spin_unlock_irqrestore(&port->lock, flags);
}
EXPORT_SYMBOL_GPL(ibx_mad_cancel_send);

/* ---------------- receives ---------------- */

static int ibx_mad_post_rbuf(struct ibx_mad_port *port, u32 idx)
{
	struct ibx_sge sge = {
		.addr = (u64)(uintptr_t)(port->rbufs + idx * IBX_MAD_BUF_LEN),
		.length = IBX_MAD_BUF_LEN,
		.lkey = port->mr->lkey,
	};
	struct ibx_recv_wr wr = { .wr_id = idx, .sg_list = &sge, .num_sge = 1 };

	return ibx_post_recv(port->qp, &wr, NULL);
}

/*
 * The addresses of a received datagram from its GRH area: for IPv4, 20
 * zero bytes and the IPv4 header (as rxe and our device write it), else
 * an IPv6 header.  False if it is neither.
 */
static bool ibx_mad_parse_grh(const u8 *grh, struct ibx_mad_recv *r)
{
	const struct iphdr *ip4 = (const void *)(grh + 20);
	const struct ipv6hdr *ip6 = (const void *)grh;

	if (ip6->version == 6) {
		memcpy(r->sgid.raw, &ip6->saddr, 16);
		memcpy(r->dgid.raw, &ip6->daddr, 16);
		r->ah_attr.traffic_class = ipv6_get_dsfield(ip6);
		return true;
	}
	if (ip4->version != 4 || memchr_inv(grh, 0, 20))
		return false;
	ipv6_addr_set_v4mapped(ip4->saddr, (struct in6_addr *)r->sgid.raw);
	ipv6_addr_set_v4mapped(ip4->daddr, (struct in6_addr *)r->dgid.raw);
	r->ah_attr.traffic_class = ip4->tos;
	return true;
}

/* IBA 13.4.3 and what ib_mad checks: false drops the MAD as bad. */
static bool ibx_mad_valid(const struct ibx_mad *mad, u32 len)
{
	const struct ibx_mad_hdr *h = &mad->hdr;

	if (len < sizeof(*h) || h->base_version != IBX_MAD_BASE_VERSION)
		return false;
	/* The CM uses only Send, but ClassPortInfo may be asked (ib_mad). */
	if (h->mgmt_class == IBX_MGMT_CLASS_CM &&
	    h->method != IBX_MGMT_METHOD_SEND &&
	    h->attr_id != cpu_to_be16(IBX_MAD_ATTR_CLASS_PORT_INFO))
		return false;
	return true;
}

/* The request a response answers: same agent, TID, still active. */
static struct ibx_mad_send *ibx_mad_match(struct ibx_mad_port *port,
					  struct ibx_mad_agent_priv *priv,
					  const struct ibx_mad *mad)
{
	struct ibx_mad_send *send, *found = NULL;
	unsigned long flags;

	if (!(mad->hdr.method & IBX_MGMT_METHOD_RESP))
		return NULL;
	spin_lock_irqsave(&port->lock, flags);
	list_for_each_entry(send, &priv->sends, node) {
		if (send->mad.hdr.tid == mad->hdr.tid && !send->responded &&
		    !send->cancelled) {
			send->responded = true;
			found = send;
			break;
		}
	}
	spin_unlock_irqrestore(&port->lock, flags);
	return found;
}

static struct ibx_mad_agent_priv *ibx_mad_find_agent(struct ibx_mad_port *port,
						     const struct ibx_mad *mad)
{
	struct ibx_mad_agent_priv *priv, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&port->lock, flags);
	list_for_each_entry(priv, &port->agents, node) {
		if (priv->agent.mgmt_class == mad->hdr.mgmt_class &&
		    priv->agent.class_version == mad->hdr.class_version) {
			found = priv;
			break;
		}
	}
	spin_unlock_irqrestore(&port->lock, flags);
	return found;
}

/* Validates and dispatches the MAD in receive buffer @idx. */
static void ibx_mad_deliver(struct ibx_mad_port *port, u32 idx,
			    const struct ibx_wc *wc)
{
	u32 byte_len = wc->byte_len;
	const u8 *buf = port->rbufs + idx * IBX_MAD_BUF_LEN;
	struct ibx_mad_recv r = {};
	struct ibx_mad_agent_priv *priv;
	bool waited;
	int sgid;

	r.mad = (const void *)(buf + IBX_MAD_GRH_LEN);
	r.src_qp = wc->src_qp;
	r.mad_len = byte_len > IBX_MAD_GRH_LEN ? byte_len - IBX_MAD_GRH_LEN : 0;
	if (!ibx_mad_valid(r.mad, r.mad_len) || !ibx_mad_parse_grh(buf, &r)) {
		ibx_mad_count(port, C_RCVD_BAD);
		return;
	}
	ibx_mad_count(port, C_RCVD);
	priv = ibx_mad_find_agent(port, r.mad);
	if (!priv) {
		ibx_mad_count(port, C_UNCLAIMED);
		if (r.mad->hdr.mgmt_class == IBX_MGMT_CLASS_CM)
			ibx_mad_count(port, C_UNCLAIMED_CM);
		return;
	}
	/* The way back: from the GID the datagram was sent to. */
	sgid = ibx_find_gid_index(port->dev, port->port, &r.dgid);
	r.ah_attr.dgid = r.sgid;
	r.ah_attr.sgid_index = sgid < 0 ? 0 : sgid;
	r.ah_attr.hop_limit = 64;
	r.ah_attr.is_global = 1;
	r.ah_attr.port_num = port->port;
	r.send = ibx_mad_match(port, priv, r.mad);
	if (r.send)
		ibx_mad_count(port, C_RESPONSES);
	priv->recv_handler(&priv->agent, &r);
	if (!r.send)
		return;
	/*
	 * Answered: done now if it waits for the timer, else when its send
	 * completion comes (it sees responded).  The timer work runs on
	 * this ordered queue, so cancelling cannot race with it.
	 */
	waited = cancel_delayed_work(&r.send->timeout_work);
	if (waited || r.send->waiting)
		ibx_mad_complete(port, r.send, 0);
}

static void ibx_mad_recv_done(struct ibx_mad_port *port,
			      const struct ibx_wc *wc)
{
	u32 idx = wc->wr_id;

	if (wc->status == IBX_WC_WR_FLUSH_ERR)
		return;		/* the QP is going away */
	if (wc->status == IBX_WC_SUCCESS)
		ibx_mad_deliver(port, idx, wc);
	else
		ibx_mad_count(port, C_RCVD_BAD);
	if (ibx_mad_post_rbuf(port, idx))
		pr_warn_ratelimited("ibx_mad: %s port %u: receive buffer lost\n",
				    port->dev->name, port->port);
}

static void ibx_mad_cq_work(struct work_struct *work)
{
	struct ibx_mad_port *port = container_of(work, struct ibx_mad_port,
						 cq_work);
	struct ibx_wc wc[IBX_MAD_POLL];
	int n, i;

	do {
		while ((n = ibx_poll_cq(port->cq, IBX_MAD_POLL, wc)) > 0) {
			for (i = 0; i < n; i++) {
				/* Receive wr_ids are buffer indices. */
				if (wc[i].wr_id < IBX_MAD_RECV_BUFS)
					ibx_mad_recv_done(port, &wc[i]);
				else
					ibx_mad_send_done(port, &wc[i]);
			}
			cond_resched();
		}
	} while (ibx_req_notify_cq(port->cq, IBX_CQ_NEXT_COMP |
				   IBX_CQ_REPORT_MISSED_EVENTS) > 0);
}

static void ibx_mad_comp_handler(struct ibx_cq *cq, void *ctx)
{
	struct ibx_mad_port *port = ctx;

	queue_work(port->wq, &port->cq_work);
}

/* ---------------- agents ---------------- */

struct ibx_mad_agent *ibx_mad_register_agent(struct ibx_device *dev, u32 port,
					     u8 mgmt_class, u8 class_version,
					     ibx_mad_recv_handler recv_handler,
					     ibx_mad_send_handler send_handler,
					     void *context)
{
	struct ibx_mad_agent_priv *priv, *p;
	struct ibx_mad_port *mport;
	struct ibx_mad_dev *mdev;
	unsigned long flags;

	if (!recv_handler)
		return ERR_PTR(-EINVAL);
	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return ERR_PTR(-ENOMEM);
	mutex_lock(&ibx_mad_lock);
	mdev = ibx_get_client_data(dev, &ibx_mad_client);
	mport = mdev && port >= 1 && port <= mdev->nports ?
		mdev->ports[port] : NULL;
	if (!mport) {
		mutex_unlock(&ibx_mad_lock);
		kfree(priv);
		return ERR_PTR(-ENODEV);
	}
	priv->agent.dev = dev;
	priv->agent.port = port;
	priv->agent.mgmt_class = mgmt_class;
	priv->agent.class_version = class_version;
	priv->agent.hi_tid = atomic_inc_return(&ibx_mad_hi_tid);
	priv->agent.context = context;
	priv->port = mport;
	priv->recv_handler = recv_handler;
	priv->send_handler = send_handler;
	INIT_LIST_HEAD(&priv->sends);
	init_waitqueue_head(&priv->wait);
	spin_lock_irqsave(&mport->lock, flags);
	list_for_each_entry(p, &mport->agents, node) {
		if (p->agent.mgmt_class == mgmt_class &&
		    p->agent.class_version == class_version) {
			spin_unlock_irqrestore(&mport->lock, flags);
			mutex_unlock(&ibx_mad_lock);
			kfree(priv);
			return ERR_PTR(-EBUSY);
		}
	}
	list_add_tail(&priv->node, &mport->agents);
	spin_unlock_irqrestore(&mport->lock, flags);
	mutex_unlock(&ibx_mad_lock);
	return &priv->agent;
}
EXPORT_SYMBOL_GPL(ibx_mad_register_agent);

/* Cancels every active send of @priv and waits until all have ended. */
static void ibx_mad_agent_drain(struct ibx_mad_agent_priv *priv)
{
	struct ibx_mad_port *port = priv->port;
	struct ibx_mad_send *send;
	unsigned long flags;

	spin_lock_irqsave(&port->lock, flags);
	list_for_each_entry(send, &priv->sends, node) {
		send->cancelled = true;
		if (send->waiting)
			mod_delayed_work(port->wq, &send->timeout_work, 0);
	}
	spin_unlock_irqrestore(&port->lock, flags);
	wait_event(priv->wait, !READ_ONCE(priv->active));
}

void ibx_mad_unregister_agent(struct ibx_mad_agent *agent)
{
	struct ibx_mad_agent_priv *priv = to_priv(agent);
	struct ibx_mad_port *port;
	unsigned long flags;

	mutex_lock(&ibx_mad_lock);
	port = priv->port;
	if (port) {
		spin_lock_irqsave(&port->lock, flags);
		list_del(&priv->node);
		spin_unlock_irqrestore(&port->lock, flags);
		ibx_mad_agent_drain(priv);
		/* A receive handler of the agent may still be running. */
		flush_workqueue(port->wq);
	}
	mutex_unlock(&ibx_mad_lock);
	kfree(priv);
}
EXPORT_SYMBOL_GPL(ibx_mad_unregister_agent);

/* ---------------- helpers ---------------- */

int ibx_find_gid_index(struct ibx_device *dev, u32 port,
		       const union ibx_gid *gid)
{
	union ibx_gid g;
	unsigned int i;

	for (i = 0; i < IBX_GID_TABLE_LEN; i++)
		if (!ibx_get_gid(dev, port, i, &g, NULL) &&
		    !memcmp(&g, gid, sizeof(g)))
			return i;
	return -ENOENT;
}
EXPORT_SYMBOL_GPL(ibx_find_gid_index);

int ibx_mad_init_ah_attr(struct ibx_device *dev, u32 port, u32 sgid_index,
			 const union ibx_gid *dgid, struct ibx_ah_attr *attr)
{
	union ibx_gid g;

	if (ibx_get_gid(dev, port, sgid_index, &g, NULL))
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->dgid = *dgid;
	attr->sgid_index = sgid_index;
	attr->hop_limit = 64;
	attr->is_global = 1;
	attr->port_num = port;
	return 0;
}
EXPORT_SYMBOL_GPL(ibx_mad_init_ah_attr);

int ibx_mad_get_counters(struct ibx_device *dev, u32 port,
			 struct ibx_mad_counters *c)
{
	struct ibx_mad_port *p = NULL;
	struct ibx_mad_dev *mdev;

	mutex_lock(&ibx_mad_lock);
	mdev = ibx_get_client_data(dev, &ibx_mad_client);
	if (mdev && port >= 1 && port <= mdev->nports)
		p = mdev->ports[port];
	if (p) {
		c->rcvd = atomic64_read(&p->cnt[C_RCVD]);
		c->rcvd_bad = atomic64_read(&p->cnt[C_RCVD_BAD]);
		c->unclaimed = atomic64_read(&p->cnt[C_UNCLAIMED]);
		c->unclaimed_cm = atomic64_read(&p->cnt[C_UNCLAIMED_CM]);
		c->responses = atomic64_read(&p->cnt[C_RESPONSES]);
		c->sent = atomic64_read(&p->cnt[C_SENT]);
		c->send_errors = atomic64_read(&p->cnt[C_SEND_ERRORS]);
		c->timeouts = atomic64_read(&p->cnt[C_TIMEOUTS]);
		c->retries = atomic64_read(&p->cnt[C_RETRIES]);
	}
	mutex_unlock(&ibx_mad_lock);
	return p ? 0 : -ENODEV;
}
EXPORT_SYMBOL_GPL(ibx_mad_get_counters);

/* ---------------- QP1 of each port ---------------- */

static int ibx_mad_qp_up(struct ibx_mad_port *port)
{
	struct ibx_qp_attr a = {};
	u32 i;
	int ret;

	a.qp_state = IBX_QPS_INIT;
	a.port_num = port->port;
	a.qkey = IBX_GSI_QKEY;
	ret = ibx_modify_qp(port->qp, &a, IBX_QP_STATE | IBX_QP_PKEY_INDEX |
			    IBX_QP_PORT | IBX_QP_QKEY);
	a.qp_state = IBX_QPS_RTR;
	ret = ret ? ret : ibx_modify_qp(port->qp, &a, IBX_QP_STATE);
	a.qp_state = IBX_QPS_RTS;
	a.sq_psn = 0;	/* IB_MAD_SEND_Q_PSN */
	ret = ret ? ret : ibx_modify_qp(port->qp, &a,
					IBX_QP_STATE | IBX_QP_SQ_PSN);
	for (i = 0; !ret && i < IBX_MAD_RECV_BUFS; i++)
		ret = ibx_mad_post_rbuf(port, i);
	if (!ret && ibx_req_notify_cq(port->cq, IBX_CQ_NEXT_COMP |
				      IBX_CQ_REPORT_MISSED_EVENTS) > 0)
		queue_work(port->wq, &port->cq_work);
	return ret;
}

static void ibx_mad_port_free(struct ibx_mad_port *port)
{
	if (!IS_ERR_OR_NULL(port->qp))
		ibx_destroy_qp(port->qp);
	if (!IS_ERR_OR_NULL(port->cq))
		ibx_destroy_cq(port->cq);
	if (port->wq)
		destroy_workqueue(port->wq);
	if (!IS_ERR_OR_NULL(port->mr))
		ibx_dereg_mr(port->mr);
	if (!IS_ERR_OR_NULL(port->pd))
		ibx_dealloc_pd(port->pd);
	kfree(port->rbufs);
	kfree(port);
}

static struct ibx_mad_port *ibx_mad_port_open(struct ibx_device *dev, u32 pn)
{
	struct ibx_kqp_init_attr init = {
		.qp_type = IBX_QPT_GSI,
		.cap = { .max_send_wr = IBX_MAD_SEND_WRS,
			 .max_recv_wr = IBX_MAD_RECV_BUFS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.port_num = pn,
	};
	struct ibx_mad_port *port;
	int i, ret = -ENOMEM;

	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return ERR_PTR(-ENOMEM);
	port->dev = dev;
	port->port = pn;
	spin_lock_init(&port->lock);
	INIT_LIST_HEAD(&port->agents);
	INIT_WORK(&port->cq_work, ibx_mad_cq_work);
	for (i = 0; i < C_NUM; i++)
		atomic64_set(&port->cnt[i], 0);
	port->rbufs = kcalloc(IBX_MAD_RECV_BUFS, IBX_MAD_BUF_LEN, GFP_KERNEL);
	port->wq = alloc_ordered_workqueue("ibx_mad_%s_%u", WQ_MEM_RECLAIM,
					   dev->name, pn);
	if (!port->rbufs || !port->wq)
		goto err;
	port->pd = ibx_alloc_pd(dev);
	ret = PTR_ERR_OR_ZERO(port->pd);
	if (ret)
		goto err;
	port->mr = ibx_get_dma_mr(port->pd, IB_UVERBS_ACCESS_LOCAL_WRITE);
	ret = PTR_ERR_OR_ZERO(port->mr);
	if (ret)
		goto err;
	port->cq = ibx_create_cq(dev, ibx_mad_comp_handler, port,
				 IBX_MAD_SEND_WRS + IBX_MAD_RECV_BUFS);
	ret = PTR_ERR_OR_ZERO(port->cq);
	if (ret)
		goto err;
	init.send_cq = port->cq;
	init.recv_cq = port->cq;
	port->qp = ibx_create_qp(port->pd, &init);
	ret = PTR_ERR_OR_ZERO(port->qp);
	if (ret)
		goto err;
	ret = ibx_mad_qp_up(port);
	if (ret)
		goto err;
	return port;
err:
	ibx_mad_port_free(port);
	return ERR_PTR(ret);
}

/*
 * Tears a port down: no new sends, QP1 destroyed (the device lets go of
 * every buffer), the completions already made handled, then what is left
 * ends with -ECANCELED.  Agents still registered (a consumer that forgot
 * to unregister) are detached; unregistering them later only frees.
 */
static void ibx_mad_port_close(struct ibx_mad_port *port)
{
	struct ibx_mad_agent_priv *priv, *tmp;
	struct ibx_mad_send *send;
	unsigned long flags;

	spin_lock_irqsave(&port->lock, flags);
	port->dying = true;
	spin_unlock_irqrestore(&port->lock, flags);
	ibx_destroy_qp(port->qp);
	port->qp = NULL;
	flush_workqueue(port->wq);
	list_for_each_entry_safe(priv, tmp, &port->agents, node) {
		pr_warn("ibx_mad: %s: agent of class 0x%x still registered\n",
			port->dev->name, priv->agent.mgmt_class);
		for (;;) {
			spin_lock_irqsave(&port->lock, flags);
			send = list_first_entry_or_null(&priv->sends,
							struct ibx_mad_send,
							node);
			spin_unlock_irqrestore(&port->lock, flags);
			if (!send)
				break;
			cancel_delayed_work_sync(&send->timeout_work);
			ibx_mad_complete(port, send, -ECANCELED);
		}
		list_del(&priv->node);
		priv->port = NULL;
	}
	ibx_mad_port_free(port);
}

static int ibx_mad_add(struct ibx_device *dev)
{
	struct ibx_mad_dev *mdev;
	struct ibx_mad_port *port;
	u32 pn, n = dev->attr.base.phys_port_cnt;

	if (!dev->ops->post_send || !n)
		return -EOPNOTSUPP;	/* no kernel data path: no QP1 */
	mdev = kzalloc(sizeof(*mdev), GFP_KERNEL);
	if (!mdev)
		return -ENOMEM;
	mutex_lock(&ibx_mad_lock);
	for (pn = 1; pn <= min_t(u32, n, IBX_MAX_PORTS); pn++) {
		port = ibx_mad_port_open(dev, pn);
		if (IS_ERR(port)) {
			pr_warn("ibx_mad: %s port %u: no QP1 (%ld)\n",
				dev->name, pn, PTR_ERR(port));
			continue;
		}
		mdev->ports[pn] = port;
		mdev->nports = pn;
	}
	ibx_set_client_data(dev, &ibx_mad_client, mdev);
	mutex_unlock(&ibx_mad_lock);
	return 0;
}

static void ibx_mad_remove(struct ibx_device *dev, void *data)
{
	struct ibx_mad_dev *mdev = data;
	u32 pn;

	if (!mdev)
		return;
	mutex_lock(&ibx_mad_lock);
	for (pn = 1; pn <= mdev->nports; pn++)
		if (mdev->ports[pn])
			ibx_mad_port_close(mdev->ports[pn]);
	mutex_unlock(&ibx_mad_lock);
	kfree(mdev);
}

static struct ibx_client ibx_mad_client = {
	.name = "ibx_mad",
	.add = ibx_mad_add,
	.remove = ibx_mad_remove,
};

int ibx_mad_init(void)
{
	return ibx_register_client(&ibx_mad_client);
}

void ibx_mad_exit(void)
{
	ibx_unregister_client(&ibx_mad_client);
}
