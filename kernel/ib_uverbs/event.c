// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * event.c - the async event file of a context and completion channels:
 * read() returns one struct ib_uverbs_{async,comp}_event_desc, poll/epoll
 * and O_NONBLOCK work as with ib_uverbs.  The ibx_*_event() entry points
 * run in any context: they only take spinlocks and allocate atomically.
 */
#include <linux/module.h>
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include "core_priv.h"

static void ibx_event_file_free(struct kref *ref)
{
	struct ibx_event_file *ef = container_of(ref, struct ibx_event_file,
						 ref);
	struct ibx_event *e, *tmp;

	list_for_each_entry_safe(e, tmp, &ef->events, list)
		kfree(e);
	kfree(ef);
}

struct ibx_event_file *ibx_event_file_alloc(bool is_async, const void *owner)
{
	struct ibx_event_file *ef = kzalloc(sizeof(*ef), GFP_KERNEL);

	if (!ef)
		return NULL;
	kref_init(&ef->ref);
	spin_lock_init(&ef->lock);
	init_waitqueue_head(&ef->wait);
	INIT_LIST_HEAD(&ef->events);
	INIT_LIST_HEAD(&ef->dev_node);
	ef->is_async = is_async;
	ef->owner = owner;
	return ef;
}

void ibx_event_file_put(struct ibx_event_file *ef)
{
	if (ef)
		kref_put(&ef->ref, ibx_event_file_free);
}

/* No more events will come: readers drain the queue, then get -EIO. */
void ibx_event_file_close(struct ibx_event_file *ef)
{
	unsigned long flags;

	spin_lock_irqsave(&ef->lock, flags);
	ef->closed = true;
	spin_unlock_irqrestore(&ef->lock, flags);
	wake_up_interruptible(&ef->wait);
}

static ssize_t ibx_event_read(struct file *filp, char __user *buf,
			      size_t count, loff_t *pos)
{
	struct ibx_event_file *ef = filp->private_data;
	size_t size = ef->is_async ? sizeof(struct ib_uverbs_async_event_desc) :
				     sizeof(struct ib_uverbs_comp_event_desc);
	struct ibx_event *e;
	u8 desc[sizeof(struct ib_uverbs_async_event_desc)];

	spin_lock_irq(&ef->lock);
	while (list_empty(&ef->events)) {
		spin_unlock_irq(&ef->lock);
		if (ef->closed)
			return -EIO;
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(ef->wait,
					     !list_empty(&ef->events) ||
					     READ_ONCE(ef->closed)))
			return -ERESTARTSYS;
		spin_lock_irq(&ef->lock);
	}
	if (count < size) {
		spin_unlock_irq(&ef->lock);
		return -EINVAL;
	}
	e = list_first_entry(&ef->events, struct ibx_event, list);
	list_del(&e->list);
	if (e->counter) {
		/* Counted for the destroy response once userspace saw it. */
		++*e->counter;
		list_del(&e->obj_list);
	}
	spin_unlock_irq(&ef->lock);

	memcpy(desc, &e->desc, size);
	kfree(e);
	if (copy_to_user(buf, desc, size))
		return -EFAULT;
	return size;
}

static __poll_t ibx_event_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct ibx_event_file *ef = filp->private_data;
	__poll_t mask = 0;

	poll_wait(filp, &ef->wait, wait);
	spin_lock_irq(&ef->lock);
	if (!list_empty(&ef->events))
		mask = EPOLLIN | EPOLLRDNORM;
	else if (ef->closed)
		mask = EPOLLERR;
	spin_unlock_irq(&ef->lock);
	return mask;
}

static int ibx_event_release(struct inode *inode, struct file *filp)
{
	ibx_event_file_put(filp->private_data);
	return 0;
}

static const struct file_operations ibx_event_fops = {
	.owner = THIS_MODULE,
	.read = ibx_event_read,
	.poll = ibx_event_poll,
	.release = ibx_event_release,
	.llseek = IBX_NO_LLSEEK,
};

/*
 * Creates the anon file (which takes its own reference on @ef) and returns
 * a reserved fd; the caller installs it (fd_install) once the command can
 * no longer fail, or calls fput + put_unused_fd.
 */
int ibx_event_file_open(struct ibx_event_file *ef, struct file **filp)
{
	struct file *f;
	int fd;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return fd;
	kref_get(&ef->ref);
	f = anon_inode_getfile("[infinibandevent]", &ibx_event_fops, ef,
			       O_RDONLY);
	if (IS_ERR(f)) {
		ibx_event_file_put(ef);
		put_unused_fd(fd);
		return PTR_ERR(f);
	}
	*filp = f;
	return fd;
}

/* A completion channel fd of this context, referenced; NULL if not one. */
struct ibx_event_file *ibx_comp_channel_get(int fd, const void *owner)
{
	struct ibx_event_file *ef = NULL;
	struct file *f = fget(fd);

	if (!f)
		return NULL;
	if (f->f_op == &ibx_event_fops) {
		ef = f->private_data;
		if (ef->is_async || ef->owner != owner)
			ef = NULL;
		else
			kref_get(&ef->ref);
	}
	fput(f);
	return ef;
}

static void ibx_queue_event(struct ibx_event_file *ef, struct ibx_event *e,
			    struct list_head *obj_list)
{
	unsigned long flags;

	spin_lock_irqsave(&ef->lock, flags);
	if (ef->closed) {
		spin_unlock_irqrestore(&ef->lock, flags);
		kfree(e);
		return;
	}
	list_add_tail(&e->list, &ef->events);
	if (obj_list)
		list_add_tail(&e->obj_list, obj_list);
	else
		e->counter = NULL;
	spin_unlock_irqrestore(&ef->lock, flags);
	wake_up_interruptible(&ef->wait);
}

void ibx_async_event_raw(struct ibx_event_file *ef, u64 element, u32 type,
			 struct list_head *obj_list, u32 *counter)
{
	struct ibx_event *e;

	if (!ef)
		return;
	e = kzalloc(sizeof(*e), GFP_ATOMIC);
	if (!e)
		return;
	e->desc.async.element = element;
	e->desc.async.event_type = type;
	e->counter = counter;
	ibx_queue_event(ef, e, obj_list);
}

/**
 * ibx_cq_completion() - raise a completion event on a CQ's channel
 * @cq: the CQ, armed by its consumer
 *
 * Queues the event ibv_get_cq_event() returns.  Any context.
 */
void ibx_cq_completion(struct ibx_cq *cq)
{
	struct ibx_uobj *uo = cq->core_priv;
	struct ibx_event *e;

	/* A kernel CQ (kverbs.c): its consumer's handler, no channel. */
	if (!cq->uctx) {
		if (cq->comp_handler)
			cq->comp_handler(cq, cq->cq_context);
		return;
	}
	if (!uo || !uo->comp_file)
		return;
	e = kzalloc(sizeof(*e), GFP_ATOMIC);
	if (!e)
		return;
	e->desc.comp.cq_handle = uo->user_handle;
	e->counter = &uo->comp_events_reported;
	ibx_queue_event(uo->comp_file, e, &uo->comp_events);
}
EXPORT_SYMBOL_GPL(ibx_cq_completion);

static void ibx_obj_event(struct ibx_uobj *uo, enum ibx_event_type type)
{
	if (!uo)
		return;
	ibx_async_event_raw(uo->ufile->async_file, uo->user_handle, type,
			    &uo->async_events, &uo->async_events_reported);
}

/**
 * ibx_cq_event() - raise an affiliated asynchronous event of a CQ
 * @cq: the CQ
 * @type: the event (IBX_EVENT_CQ_ERR)
 *
 * Any context.
 */
void ibx_cq_event(struct ibx_cq *cq, enum ibx_event_type type)
{
	ibx_obj_event(cq->core_priv, type);
}
EXPORT_SYMBOL_GPL(ibx_cq_event);

/**
 * ibx_qp_event() - raise an affiliated asynchronous event of a QP
 * @qp: the QP (its event_handler, if the core set one, delivers it)
 * @type: the event, e.g. IBX_EVENT_QP_FATAL or IBX_EVENT_SQ_DRAINED
 *
 * Any context.
 */
void ibx_qp_event(struct ibx_qp *qp, enum ibx_event_type type)
{
	if (qp->event_handler)
		qp->event_handler(qp, type);
	else
		ibx_obj_event(qp->core_priv, type);
}
EXPORT_SYMBOL_GPL(ibx_qp_event);

/**
 * ibx_srq_event() - raise an affiliated asynchronous event of an SRQ
 * @srq: the SRQ
 * @type: the event (IBX_EVENT_SRQ_LIMIT_REACHED, IBX_EVENT_SRQ_ERR)
 *
 * Any context.
 */
void ibx_srq_event(struct ibx_srq *srq, enum ibx_event_type type)
{
	ibx_obj_event(srq->core_priv, type);
}
EXPORT_SYMBOL_GPL(ibx_srq_event);

/**
 * ibx_port_event() - raise an unaffiliated event of a port
 * @dev: the device
 * @port: the port number
 * @type: the event (PORT_ACTIVE, PORT_ERR, GID_CHANGE, ...)
 *
 * Every open context of @dev gets it.  Any context.
 */
void ibx_port_event(struct ibx_device *dev, u32 port, enum ibx_event_type type)
{
	struct ibx_core_dev *core = ibx_cdev(dev);
	struct ibx_event_file *ef;
	unsigned long flags;

	spin_lock_irqsave(&core->event_lock, flags);
	list_for_each_entry(ef, &core->async_files, dev_node)
		ibx_async_event_raw(ef, port, type, NULL, NULL);
	spin_unlock_irqrestore(&core->event_lock, flags);
}
EXPORT_SYMBOL_GPL(ibx_port_event);

/* Drops the events of a destroyed object still queued on @ef. */
void ibx_event_purge(struct ibx_event_file *ef, struct list_head *obj_list)
{
	struct ibx_event *e, *tmp;
	unsigned long flags;

	if (!ef)
		return;
	spin_lock_irqsave(&ef->lock, flags);
	list_for_each_entry_safe(e, tmp, obj_list, obj_list) {
		list_del(&e->list);
		list_del(&e->obj_list);
		kfree(e);
	}
	spin_unlock_irqrestore(&ef->lock, flags);
}
