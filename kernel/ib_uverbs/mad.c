// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mad.c - the MAD layer's data path: the agents that use QP1 (API and
 * rules in ibx_mad.h), their sends and the MADs received.  QP1 itself
 * (mad_port.c) comes with one ordered workqueue per port, which handles
 * all completions and so serializes everything that touches a port's
 * receive buffers and a send's state machine:
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
#include "mad_priv.h"

/* High halves of the agents' TIDs: one per agent ever registered. */
static atomic_t ibx_mad_hi_tid = ATOMIC_INIT(0);

/* ---------------- sends ---------------- */

/*
 * Puts @send on the GSI QP's send queue once more, or in the port's
 * backlog while all IBX_MAD_SEND_WRS are in flight: consumers may have
 * many more MADs outstanding than the queue holds.
 */
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
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&port->lock, flags);
	send->posted = true;
	send->sends++;
	if (port->wrs_posted >= IBX_MAD_SEND_WRS) {
		send->queued = true;
		list_add_tail(&send->wr_node, &port->backlog);
		spin_unlock_irqrestore(&port->lock, flags);
		return 0;
	}
	port->wrs_posted++;
	spin_unlock_irqrestore(&port->lock, flags);
	wr.wr.ud.ah = send->ah;
	wr.wr.ud.remote_qpn = send->remote_qpn;
	wr.wr.ud.remote_qkey = IBX_GSI_QKEY;
	ret = ibx_post_send(port->qp, &wr, NULL);
	if (ret) {
		spin_lock_irqsave(&port->lock, flags);
		port->wrs_posted--;
		send->posted = false;
		send->sends--;
		spin_unlock_irqrestore(&port->lock, flags);
		return ret;
	}
	ibx_mad_count(port, C_SENT);
	return 0;
}

/* A send WR completed: the oldest queued send takes its place. */
static void ibx_mad_xmit_backlog(struct ibx_mad_port *port)
{
	struct ibx_mad_send *next;
	unsigned long flags;

	spin_lock_irqsave(&port->lock, flags);
	port->wrs_posted--;
	next = list_first_entry_or_null(&port->backlog, struct ibx_mad_send,
					wr_node);
	if (next) {
		list_del_init(&next->wr_node);
		next->queued = false;
		next->posted = false;
		next->sends--;		/* counted again by the xmit */
	}
	spin_unlock_irqrestore(&port->lock, flags);
	if (!next)
		return;
	if (next->cancelled)
		ibx_mad_complete(port, next, -ECANCELED);
	else if (ibx_mad_xmit(port, next))
		ibx_mad_complete(port, next, -EIO);
}

/* Ends @send with @status and tells its agent; workqueue or teardown. */
void ibx_mad_complete(struct ibx_mad_port *port, struct ibx_mad_send *send,
		      int status)
{
	struct ibx_mad_agent_priv *priv = to_priv(send->agent);
	unsigned long flags;

	spin_lock_irqsave(&port->lock, flags);
	if (!send->active) {
		spin_unlock_irqrestore(&port->lock, flags);
		return;
	}
	list_del_init(&send->node);
	if (send->queued) {
		list_del_init(&send->wr_node);
		send->queued = false;
	}
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

	ibx_mad_xmit_backlog(port);
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
	INIT_LIST_HEAD(&send->wr_node);
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
		if (send->queued) {
			/* Never on the wire: it ends from the timer at once. */
			list_del_init(&send->wr_node);
			send->queued = false;
			send->posted = false;
			send->waiting = true;
		}
		if (send->waiting)
			mod_delayed_work(port->wq, &send->timeout_work, 0);
	}
	spin_unlock_irqrestore(&port->lock, flags);
}
EXPORT_SYMBOL_GPL(ibx_mad_cancel_send);

/**
 * ibx_mad_modify_send - changes how long a send waits for its answer
 * @send: an active send
 * @timeout_ms: the new wait, from now if it waits already, else from its
 *	next completion; later retries wait as long
 *
 * For a peer that asked for more time (a CM MRA, IBA 12.6.6).
 *
 * Return: 0, or -EINVAL if @send is not active.
 */
int ibx_mad_modify_send(struct ibx_mad_send *send, unsigned int timeout_ms)
{
	struct ibx_mad_port *port = to_priv(send->agent)->port;
	unsigned long flags;
	int ret = -EINVAL;

	if (!port)
		return -EINVAL;
	spin_lock_irqsave(&port->lock, flags);
	if (send->active && !send->cancelled) {
		send->timeout_ms = timeout_ms;
		if (send->waiting)
			mod_delayed_work(port->wq, &send->timeout_work,
					 msecs_to_jiffies(timeout_ms));
		ret = 0;
	}
	spin_unlock_irqrestore(&port->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(ibx_mad_modify_send);

/* ---------------- receives ---------------- */

int ibx_mad_post_rbuf(struct ibx_mad_port *port, u32 idx)
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
		pr_warn_ratelimited("mad: %s port %u: receive buffer lost\n",
				    port->dev->name, port->port);
}

void ibx_mad_cq_work(struct work_struct *work)
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

void ibx_mad_comp_handler(struct ibx_cq *cq, void *ctx)
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

