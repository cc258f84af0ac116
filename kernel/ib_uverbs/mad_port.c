// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mad_port.c - the MAD layer's kernel client: QP1 (the GSI QP) with its PD,
 * CQ, workqueue and receive buffers on every port of a device that
 * registers, torn down before it unregisters; and the small helpers of
 * ibx_mad.h (GIDs, address vectors, counters).  The data path is mad.c.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include "mad_priv.h"

DEFINE_MUTEX(ibx_mad_lock);

/* ---------------- helpers ---------------- */

/**
 * ibx_find_gid_index() - where a GID is in a port's table
 * @dev: the device
 * @port: the port number
 * @gid: the GID to look for
 *
 * Any context.
 *
 * Return: its index, or -ENOENT.
 */
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

/**
 * ibx_mad_init_ah_attr() - an address vector for a MAD to a GID
 * @dev: the device
 * @port: the port number
 * @sgid_index: the source GID's index (a RoCE v2 GID)
 * @dgid: the destination GID (its QP1 is the target)
 * @attr: the address vector, filled (hop limit 64, global)
 *
 * Return: 0, or -EINVAL if the source GID is not set.
 */
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

/**
 * ibx_mad_get_counters() - the MAD layer's counters of a port
 * @dev: the device
 * @port: the port number
 * @c: filled with the counts (received, bad, unclaimed, sent, retries...)
 *
 * May sleep; not from a MAD handler.
 *
 * Return: 0, or -ENODEV if the port has no MAD layer.
 */
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
	INIT_LIST_HEAD(&port->backlog);
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
		pr_warn("mad: %s: agent of class 0x%x still registered\n",
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
			pr_warn("mad: %s port %u: no QP1 (%ld)\n",
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

struct ibx_client ibx_mad_client = {
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
