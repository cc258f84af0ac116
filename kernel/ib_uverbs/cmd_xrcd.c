// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cmd_xrcd.c - XRC domains and XRC target QPs (IBA annex A14): OPEN_XRCD,
 * CLOSE_XRCD, OPEN_QP, and the CREATE_QP of XRC TGT QPs.
 *
 * An XRC domain opened on a file is shared by every process that opens it
 * on the same inode (as ib_uverbs: O_CREAT creates it, O_EXCL refuses an
 * existing one); fd -1 gives a private one.  Each file holds its own handle
 * (an IBX_OBJ_XRCD uobject whose obj is the shared domain).
 *
 * An XRC TGT QP belongs to its domain, not to the file that created it:
 * every file that created or opened it holds a handle (an IBX_OBJ_QP
 * uobject of class ibx_xrc_tgt_type, whose obj is the shared QP), and the
 * QP is destroyed when the last handle is closed, whichever process that
 * is (as ib_uverbs).  The
 * domain lives while a handle of it or one of its TGT QPs exists.  The
 * counts and lists are under core->xrcd_lock.
 */
#include <linux/module.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include "core_priv.h"

/* Core half of an XRC domain (its ibx_xrcd.core_priv). */
struct ibx_xrcd_core {
	struct ibx_xrcd *xrcd;		/* the driver object */
	struct list_head node;		/* in core->xrcds if shared */
	struct inode *inode;		/* held; NULL for a private domain */
	unsigned int refs;		/* handles + TGT QPs */
	struct list_head tgt_qps;	/* ibx_xrc_tgt.node */
};

/* Core half of an XRC TGT QP (its ibx_qp.core_priv). */
struct ibx_xrc_tgt {
	struct ibx_qp *qp;
	struct list_head node;		/* in the domain's tgt_qps */
	unsigned int nhandles;		/* handles in all files */
	spinlock_t lock;		/* handles: events come from any context */
	struct list_head handles;	/* ibx_uobj.tgt_node */
};

static struct ibx_xrcd *ibx_xrcd_find(struct ibx_core_dev *core,
				      struct inode *inode)
{
	struct ibx_xrcd_core *xc;

	list_for_each_entry(xc, &core->xrcds, node)
		if (xc->inode == inode)
			return xc->xrcd;
	return NULL;
}

/* A new domain with one reference; xrcd_lock held. */
static struct ibx_xrcd *ibx_xrcd_alloc(struct ibx_core_dev *core,
				       struct inode *inode,
				       struct ibx_udata *udata)
{
	const struct ibx_device_ops *ops = core->ibdev->ops;
	struct ibx_xrcd_core *xc;
	struct ibx_xrcd *xrcd;
	int ret;

	lockdep_assert_held(&core->xrcd_lock);
	xc = kzalloc(sizeof(*xc), GFP_KERNEL);
	xrcd = kzalloc(max(ops->size_xrcd, sizeof(*xrcd)), GFP_KERNEL);
	if (!xc || !xrcd) {
		ret = -ENOMEM;
		goto err;
	}
	xrcd->dev = core->ibdev;
	xrcd->core_priv = xc;
	xc->xrcd = xrcd;
	xc->refs = 1;
	INIT_LIST_HEAD(&xc->node);
	INIT_LIST_HEAD(&xc->tgt_qps);
	ret = ops->alloc_xrcd(xrcd, udata);
	if (ret)
		goto err;
	if (inode) {
		/* The table entry keeps the inode (not the file) alive. */
		xc->inode = igrab(inode);
		list_add(&xc->node, &core->xrcds);
	}
	return xrcd;
err:
	kfree(xrcd);
	kfree(xc);
	return ERR_PTR(ret);
}

/* Drops a reference; the last one frees the domain.  xrcd_lock held. */
static void ibx_xrcd_put_locked(struct ibx_core_dev *core,
				struct ibx_xrcd *xrcd)
{
	struct ibx_xrcd_core *xc = xrcd->core_priv;

	lockdep_assert_held(&core->xrcd_lock);
	if (--xc->refs)
		return;
	WARN_ON(!list_empty(&xc->tgt_qps));
	if (xc->inode) {
		list_del(&xc->node);
		iput(xc->inode);
	}
	if (core->ibdev->ops->dealloc_xrcd)
		core->ibdev->ops->dealloc_xrcd(xrcd);
	kfree(xc);
	kfree(xrcd);
}

/* Closes one handle of an XRC domain; the last reference frees it. */
static void ibx_xrcd_close(struct ibx_uobj *uo)
{
	struct ibx_core_dev *core = uo->ufile->core;

	mutex_lock(&core->xrcd_lock);
	ibx_xrcd_put_locked(core, uo->obj);
	mutex_unlock(&core->xrcd_lock);
	uo->obj = NULL;		/* not ours to free */
}

static const struct ibx_uobj_type ibx_xrcd_type = {
	.type = IBX_OBJ_XRCD,
	.destroy_hw = ibx_xrcd_close,
};

IBX_CMD(open_xrcd)
{
	struct ibx_core_dev *core = c->uf->core;
	struct ib_uverbs_open_xrcd_resp resp = {};
	struct ib_uverbs_open_xrcd cmd;
	struct ibx_xrcd *xrcd = NULL;
	struct inode *inode = NULL;
	struct file *file = NULL;
	struct ibx_uobj *uo;
	int ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	/* The inode rules come before the context check, as upstream. */
	mutex_lock(&core->xrcd_lock);
	if (cmd.fd != (u32)-1) {
		file = fget(cmd.fd);
		if (!file) {
			ret = -EBADF;
			goto out;
		}
		inode = file_inode(file);
		xrcd = ibx_xrcd_find(core, inode);
		/* Errnos as ib_uverbs_open_xrcd(). */
		if (!xrcd && !(cmd.oflags & O_CREAT)) {
			ret = -EAGAIN;
			goto out;
		}
		if (xrcd && (cmd.oflags & O_EXCL)) {
			ret = -EINVAL;
			goto out;
		}
	}
	if (IS_ERR(ibx_cmd_ucontext(c))) {
		ret = -EINVAL;
		goto out;
	}
	/* The uobject's obj will be the shared domain: allocate none. */
	uo = ibx_uobj_alloc(c->uf, &ibx_xrcd_type, 0);
	if (!uo) {
		ret = -ENOMEM;
		goto out;
	}
	ret = ibx_uobj_reserve(uo);
	if (!ret && !xrcd) {
		xrcd = ibx_xrcd_alloc(core, inode, &c->udata);
		if (IS_ERR(xrcd))
			ret = PTR_ERR(xrcd);
	} else if (!ret) {
		((struct ibx_xrcd_core *)xrcd->core_priv)->refs++;
	}
	if (ret) {
		ibx_uobj_free_uncreated(uo);
		goto out;
	}
	uo->obj = xrcd;
	resp.xrcd_handle = uo->handle;
	mutex_unlock(&core->xrcd_lock);
	if (file)
		fput(file);
	return ibx_cmd_commit(c, uo, &resp, sizeof(resp));
out:
	mutex_unlock(&core->xrcd_lock);
	if (file)
		fput(file);
	return ret;
}

IBX_CMD(close_xrcd)
{
	struct ib_uverbs_close_xrcd cmd;
	int ret = ibx_cmd_in(c, &cmd, sizeof(cmd));

	if (ret)
		return ret;
	/* -EBUSY while SRQs or TGT QP handles of this file use it. */
	return ibx_uobj_destroy_cmd(c->uf, cmd.xrcd_handle, IBX_OBJ_XRCD, NULL,
				    NULL);
}

/* Links a new handle @uo of a TGT QP; xrcd_lock held. */
static void ibx_xrc_tgt_add_handle(struct ibx_core_dev *core,
				   struct ibx_xrc_tgt *tgt,
				   struct ibx_uobj *uo)
{
	unsigned long flags;

	lockdep_assert_held(&core->xrcd_lock);
	tgt->nhandles++;
	spin_lock_irqsave(&tgt->lock, flags);
	list_add_tail(&uo->tgt_node, &tgt->handles);
	spin_unlock_irqrestore(&tgt->lock, flags);
	uo->obj = tgt->qp;
}

/* An affiliated event of an XRC TGT QP goes to every handle of it. */
static void ibx_xrc_tgt_event(struct ibx_qp *qp, enum ibx_event_type type)
{
	struct ibx_xrc_tgt *tgt = qp->core_priv;
	struct ibx_uobj *uo;
	unsigned long flags;

	spin_lock_irqsave(&tgt->lock, flags);
	list_for_each_entry(uo, &tgt->handles, tgt_node)
		ibx_async_event_raw(uo->ufile->async_file, uo->user_handle,
				    type, &uo->async_events,
				    &uo->async_events_reported);
	spin_unlock_irqrestore(&tgt->lock, flags);
}

/* Closes one handle of an XRC TGT QP; the last one destroys the QP. */
static void ibx_xrc_tgt_close(struct ibx_uobj *uo)
{
	struct ibx_core_dev *core = uo->ufile->core;
	struct ibx_qp *qp = uo->obj;
	struct ibx_xrc_tgt *tgt = qp->core_priv;
	unsigned long flags;
	bool last;

	spin_lock_irqsave(&tgt->lock, flags);
	list_del_init(&uo->tgt_node);
	spin_unlock_irqrestore(&tgt->lock, flags);
	uo->obj = NULL;		/* not ours to free */

	mutex_lock(&core->xrcd_lock);
	last = !--tgt->nhandles;
	if (last)
		list_del(&tgt->node);	/* OPEN_QP no longer finds it */
	mutex_unlock(&core->xrcd_lock);
	if (!last)
		return;
	if (core->ibdev->ops->destroy_qp)
		core->ibdev->ops->destroy_qp(qp);
	mutex_lock(&core->xrcd_lock);
	ibx_xrcd_put_locked(core, qp->xrcd);
	mutex_unlock(&core->xrcd_lock);
	kfree(tgt);
	ibx_qp_obj_free(core->ibdev->ops, qp);
}

/* A handle of an XRC TGT QP: a QP handle that closes as one of several. */
static const struct ibx_uobj_type ibx_xrc_tgt_type = {
	.type = IBX_OBJ_QP,
	.destroy_hw = ibx_xrc_tgt_close,
};

int ibx_xrc_tgt_create(struct ibx_cmd *c, struct ib_uverbs_ex_create_qp *cmd,
		       struct ibx_uobj **out)
{
	struct ibx_core_dev *core = c->uf->core;
	struct ibx_device *dev = core->ibdev;
	const struct ibx_device_ops *ops = dev->ops;
	struct ibx_qp_init_attr init = {};
	struct ibx_uobj *uo, *xrcd_uo;
	struct ibx_xrc_tgt *tgt;
	struct ibx_xrcd *xrcd;
	struct ibx_qp *qp;
	int ret;

	/* pd_handle names the domain; a TGT QP has no CQ, SRQ or queues. */
	xrcd_uo = ibx_uobj_lookup(c->uf, cmd->pd_handle, IBX_OBJ_XRCD);
	if (!xrcd_uo)
		return -EINVAL;
	xrcd = xrcd_uo->obj;
	if (!ops->create_qp)
		return -EOPNOTSUPP;

	uo = ibx_uobj_alloc(c->uf, &ibx_xrc_tgt_type, 0);
	if (!uo)
		return -ENOMEM;
	uo->user_handle = cmd->user_handle;
	tgt = kzalloc(sizeof(*tgt), GFP_KERNEL);
	qp = ibx_qp_obj_alloc(ops);
	ret = -ENOMEM;
	if (!tgt || !qp)
		goto err;
	ret = ibx_uobj_reserve(uo);
	if (ret)
		goto err;
	spin_lock_init(&tgt->lock);
	INIT_LIST_HEAD(&tgt->handles);
	INIT_LIST_HEAD(&tgt->node);
	tgt->qp = qp;
	qp->dev = dev;
	qp->xrcd = xrcd;
	qp->qp_type = IB_UVERBS_QPT_XRC_TGT;
	qp->core_priv = tgt;
	qp->event_handler = ibx_xrc_tgt_event;
	qp->attr.qp_state = IBX_QPS_RESET;
	init.qp_type = IB_UVERBS_QPT_XRC_TGT;
	ret = ops->create_qp(qp, &init, &c->udata);
	if (ret)
		goto err;
	qp->attr.cap = init.cap;

	mutex_lock(&core->xrcd_lock);
	((struct ibx_xrcd_core *)xrcd->core_priv)->refs++;
	list_add_tail(&tgt->node,
		      &((struct ibx_xrcd_core *)xrcd->core_priv)->tgt_qps);
	ibx_xrc_tgt_add_handle(core, tgt, uo);
	mutex_unlock(&core->xrcd_lock);
	ibx_uobj_add_dep(uo, xrcd_uo);
	*out = uo;
	return 0;
err:
	ibx_qp_obj_free(ops, qp);
	kfree(tgt);
	ibx_uobj_free_uncreated(uo);
	return ret;
}

IBX_CMD(open_qp)
{
	struct ibx_core_dev *core = c->uf->core;
	struct ib_uverbs_create_qp_resp resp = {};
	struct ib_uverbs_open_qp cmd;
	struct ibx_uobj *uo, *xrcd_uo;
	struct ibx_xrcd_core *xc;
	struct ibx_xrc_tgt *tgt;
	int ret;

	ret = ibx_cmd_in(c, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (IS_ERR(ibx_cmd_ucontext(c)))
		return -EINVAL;
	xrcd_uo = ibx_uobj_lookup(c->uf, cmd.pd_handle, IBX_OBJ_XRCD);
	/* Only XRC TGT QPs can be opened (ib_open_qp). */
	if (!xrcd_uo || cmd.qp_type != IB_UVERBS_QPT_XRC_TGT)
		return -EINVAL;
	xc = ((struct ibx_xrcd *)xrcd_uo->obj)->core_priv;

	uo = ibx_uobj_alloc(c->uf, &ibx_xrc_tgt_type, 0);
	if (!uo)
		return -ENOMEM;
	uo->user_handle = cmd.user_handle;
	ret = ibx_uobj_reserve(uo);
	if (ret)
		goto err;
	ret = -EINVAL;
	mutex_lock(&core->xrcd_lock);
	list_for_each_entry(tgt, &xc->tgt_qps, node) {
		if (tgt->qp->qp_num == cmd.qpn) {
			ibx_xrc_tgt_add_handle(core, tgt, uo);
			ret = 0;
			break;
		}
	}
	mutex_unlock(&core->xrcd_lock);
	if (ret)
		goto err;
	ibx_uobj_add_dep(uo, xrcd_uo);
	resp.qp_handle = uo->handle;
	resp.qpn = cmd.qpn;
	return ibx_cmd_commit(c, uo, &resp, sizeof(resp));
err:
	ibx_uobj_free_uncreated(uo);
	return ret;
}
