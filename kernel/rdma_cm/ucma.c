// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ucma.c - the file side of /dev/infiniband/rdma_cm: the write() command
 * framing of <rdma/rdma_user_cm.h>, per-file id ownership, the event queue
 * (GET_EVENT, poll) and teardown on close.  The commands themselves are in
 * ucma_cmd_id.c and ucma_cmd_mc.c.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/poll.h>
#include <linux/nospec.h>
#include <linux/cred.h>
#include "ucma.h"
#include "ibx_compat.h"

DEFINE_XARRAY_ALLOC(ucma_ctx_table);
DEFINE_XARRAY_ALLOC(ucma_mc_table);

/*
 * Looks up a context of @file: another file's id is -EINVAL, an unknown
 * or dying one -ENOENT, as upstream _ucma_find_context.
 */
struct ucma_context *ucma_get_ctx(struct ucma_file *file, u32 id)
{
	struct ucma_context *ctx;

	xa_lock(&ucma_ctx_table);
	ctx = xa_load(&ucma_ctx_table, id);
	if (!ctx)
		ctx = ERR_PTR(-ENOENT);
	else if (READ_ONCE(ctx->file) != file)
		ctx = ERR_PTR(-EINVAL);
	else if (!refcount_inc_not_zero(&ctx->ref))
		ctx = ERR_PTR(-ENOENT);
	xa_unlock(&ucma_ctx_table);
	return ctx;
}

/* The same, for commands that need the id bound to a device. */
struct ucma_context *ucma_get_ctx_dev(struct ucma_file *file, u32 id)
{
	struct ucma_context *ctx = ucma_get_ctx(file, id);

	if (IS_ERR(ctx))
		return ctx;
	if (!READ_ONCE(ctx->cid->cdev)) {
		ucma_put_ctx(ctx);
		return ERR_PTR(-EINVAL);
	}
	return ctx;
}

void ucma_put_ctx(struct ucma_context *ctx)
{
	if (refcount_dec_and_test(&ctx->ref))
		complete(&ctx->comp);
}

/*
 * A context in @file's list, numbered but not yet in ucma_ctx_table (the
 * caller publishes it with xa_store once it is complete).
 */
struct ucma_context *ucma_alloc_ctx(struct ucma_file *file, u64 uid)
{
	struct ucma_context *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return NULL;
	ctx->file = file;
	ctx->uid = uid;
	refcount_set(&ctx->ref, 1);
	init_completion(&ctx->comp);
	INIT_LIST_HEAD(&ctx->mc_list);
	if (xa_alloc(&ucma_ctx_table, &ctx->id, NULL, xa_limit_32b,
		     GFP_KERNEL)) {
		kfree(ctx);
		return NULL;
	}
	mutex_lock(&file->mut);
	list_add_tail(&ctx->list, &file->ctx_list);
	mutex_unlock(&file->mut);
	return ctx;
}

static struct ucma_event *ucma_new_event(struct ucma_context *ctx,
					 struct cma_event *ev)
{
	struct ucma_event *uevent = kzalloc(sizeof(*uevent), GFP_KERNEL);

	if (!uevent)
		return NULL;
	uevent->ctx = ctx;
	uevent->resp.uid = ctx->uid;
	uevent->resp.id = ctx->id;
	uevent->resp.event = ev->event;
	uevent->resp.status = ev->status;
	memcpy(&uevent->resp.param, &ev->param, sizeof(ev->param));
	if (ev->mc) {
		uevent->mc = ev->mc->context;
		uevent->resp.uid = uevent->mc->uid;
		uevent->resp.id = uevent->mc->id;
	}
	return uevent;
}

static void ucma_queue_event(struct ucma_file *file, struct ucma_event *e)
{
	mutex_lock(&file->mut);
	list_add_tail(&e->list, &file->event_list);
	mutex_unlock(&file->mut);
	wake_up_interruptible(&file->poll_wait);
}

/*
 * CONNECT_REQUEST on a listener: a new context for the new id, published
 * at once (user space learns its number from the event).  The listener's
 * backlog bounds the unread ones; refusing makes the CM reject.
 */
static int ucma_connect_request(struct ucma_context *listen,
				struct cma_event *ev)
{
	struct ucma_context *ctx;
	struct ucma_event *uevent;

	if (!atomic_add_unless(&listen->backlog, -1, 0))
		return -ENOMEM;
	ctx = ucma_alloc_ctx(listen->file, 0);
	if (!ctx)
		goto err_backlog;
	uevent = ucma_new_event(listen, ev);
	if (!uevent)
		goto err_ctx;
	ctx->cid = ev->new_id;
	ev->new_id->context = ctx;
	uevent->conn_req_ctx = ctx;
	uevent->resp.id = ctx->id;
	xa_store(&ucma_ctx_table, ctx->id, ctx, GFP_KERNEL);
	ucma_queue_event(listen->file, uevent);
	return 0;

err_ctx:
	mutex_lock(&listen->file->mut);
	list_del(&ctx->list);
	mutex_unlock(&listen->file->mut);
	xa_erase(&ucma_ctx_table, ctx->id);
	kfree(ctx);
err_backlog:
	atomic_inc(&listen->backlog);
	return -ENOMEM;
}

/*
 * The cma_id handler: queues one rdma_ucm_event_resp.  Called with the
 * id's lock held, from a work item, a command or device removal (process
 * context), so the allocation may sleep.  A new connection reports nothing
 * until ACCEPT gave it a uid, as upstream: an error before then makes the
 * ACCEPT fail.
 */
int ucma_event_handler(struct cma_id *cid, struct cma_event *ev)
{
	struct ucma_context *ctx = cid->context;
	struct ucma_event *uevent;

	lockdep_assert_held(&cid->lock);
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return ucma_connect_request(ctx, ev);
	if (!ctx->uid)
		return 0;
	uevent = ucma_new_event(ctx, ev);
	if (!uevent) {
		pr_warn_ratelimited("event %u of id %u lost (no memory)\n",
				    ev->event, ctx->id);
		return 0;
	}
	ucma_queue_event(ctx->file, uevent);
	return 0;
}

UCMA_HANDLER(ucma_get_event)
{
	struct rdma_ucm_get_event *c = cmd;
	struct ucma_event *uevent;
	struct rdma_ucm_event_resp *r;

	/* Older 32-bit user space has no reserved/ece tail. */
	if (out_len < offsetof(struct rdma_ucm_event_resp, reserved))
		return -ENOSPC;
	mutex_lock(&file->mut);
	while (list_empty(&file->event_list)) {
		mutex_unlock(&file->mut);
		if (file->filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(file->poll_wait,
					     !list_empty(&file->event_list)))
			return -ERESTARTSYS;
		mutex_lock(&file->mut);
	}
	uevent = list_first_entry(&file->event_list, struct ucma_event, list);
	r = &uevent->resp;
	if (copy_to_user(u64_to_user_ptr(c->response), r,
			 min_t(size_t, out_len, sizeof(*r)))) {
		mutex_unlock(&file->mut);
		return -EFAULT;		/* the event stays queued */
	}
	list_del(&uevent->list);
	uevent->ctx->events_reported++;
	if (uevent->mc)
		uevent->mc->events_reported++;
	if (uevent->conn_req_ctx)
		atomic_inc(&uevent->ctx->backlog);
	mutex_unlock(&file->mut);
	kfree(uevent);
	return 0;
}

/*
 * Takes the queued events of @ctx (and only of @mc if set) off the list
 * into @out; file->mut held.
 */
static void ucma_take_events(struct ucma_file *file, struct ucma_context *ctx,
			     struct ucma_multicast *mc, struct list_head *out)
{
	struct ucma_event *e, *tmp;

	lockdep_assert_held(&file->mut);
	list_for_each_entry_safe(e, tmp, &file->event_list, list) {
		if (e->ctx != ctx || (mc && e->mc != mc))
			continue;
		list_move_tail(&e->list, out);
	}
}

/*
 * Frees unread events; a CONNECT_REQUEST nobody read takes its new
 * connection along (the CM rejects it), as upstream
 * ucma_cleanup_ctx_events.
 */
static void ucma_free_events(struct list_head *events)
{
	struct ucma_event *e, *tmp;

	list_for_each_entry_safe(e, tmp, events, list) {
		list_del(&e->list);
		if (e->conn_req_ctx &&
		    xa_cmpxchg(&ucma_ctx_table, e->conn_req_ctx->id,
			       e->conn_req_ctx, NULL, GFP_KERNEL) ==
		    e->conn_req_ctx)
			ucma_destroy_ctx(e->conn_req_ctx);
		kfree(e);
	}
}

/*
 * Destroys a context already erased from ucma_ctx_table: waits for the
 * commands using it, destroys the kernel id (no event after that), then
 * drops its unread events and memberships.
 */
u32 ucma_destroy_ctx(struct ucma_context *ctx)
{
	struct ucma_multicast *mc, *tmp;
	struct ucma_file *file;
	LIST_HEAD(events);
	u32 reported;

	ucma_put_ctx(ctx);
	wait_for_completion(&ctx->comp);
	cma_destroy_id(ctx->cid);	/* leaves the groups too */
	file = ctx->file;
	mutex_lock(&file->mut);
	ucma_take_events(file, ctx, NULL, &events);
	list_del(&ctx->list);
	reported = ctx->events_reported;
	list_for_each_entry_safe(mc, tmp, &ctx->mc_list, list) {
		xa_erase(&ucma_mc_table, mc->id);
		list_del(&mc->list);
		kfree(mc);
	}
	mutex_unlock(&file->mut);
	ucma_free_events(&events);
	kfree(ctx);
	return reported;
}

/* MIGRATE_ID locks two files; a fixed order avoids an ABBA deadlock. */
void ucma_lock_files(struct ucma_file *a, struct ucma_file *b)
{
	if (a < b) {
		mutex_lock(&a->mut);
		mutex_lock_nested(&b->mut, SINGLE_DEPTH_NESTING);
	} else {
		mutex_lock(&b->mut);
		mutex_lock_nested(&a->mut, SINGLE_DEPTH_NESTING);
	}
}

void ucma_unlock_files(struct ucma_file *a, struct ucma_file *b)
{
	mutex_unlock(&a->mut);
	mutex_unlock(&b->mut);
}

/*
 * The command table: handler, bytes of the command struct copied from
 * user space (all of it regardless of hdr.in, as upstream), and the
 * smallest hdr.in accepted (0: any; CONNECT/ACCEPT take the ECE tail as
 * optional).  GET_OPTION has no handler: -ENOSYS.
 */
struct ucma_cmd {
	int (*handler)(struct ucma_file *file, void *cmd, int in_len,
		       int out_len);
	u16 size;
	u16 min_in;
};

#define UCMA_CMD(op, fn, type, min) \
	[RDMA_USER_CM_CMD_##op] = { fn, sizeof(struct type), min }

static const struct ucma_cmd ucma_cmd_table[] = {
	UCMA_CMD(CREATE_ID, ucma_create_id, rdma_ucm_create_id, 0),
	UCMA_CMD(DESTROY_ID, ucma_destroy_id, rdma_ucm_destroy_id, 0),
	UCMA_CMD(BIND_IP, ucma_bind_ip, rdma_ucm_bind_ip, 0),
	UCMA_CMD(RESOLVE_IP, ucma_resolve_ip, rdma_ucm_resolve_ip, 0),
	UCMA_CMD(RESOLVE_ROUTE, ucma_resolve_route, rdma_ucm_resolve_route, 0),
	UCMA_CMD(QUERY_ROUTE, ucma_query_route, rdma_ucm_query, 0),
	UCMA_CMD(CONNECT, ucma_connect, rdma_ucm_connect,
		 offsetofend(struct rdma_ucm_connect, reserved)),
	UCMA_CMD(LISTEN, ucma_listen, rdma_ucm_listen, 0),
	UCMA_CMD(ACCEPT, ucma_accept, rdma_ucm_accept,
		 offsetofend(struct rdma_ucm_accept, reserved)),
	UCMA_CMD(REJECT, ucma_reject, rdma_ucm_reject, 0),
	UCMA_CMD(DISCONNECT, ucma_disconnect, rdma_ucm_disconnect, 0),
	UCMA_CMD(INIT_QP_ATTR, ucma_init_qp_attr, rdma_ucm_init_qp_attr, 0),
	UCMA_CMD(GET_EVENT, ucma_get_event, rdma_ucm_get_event, 0),
	[RDMA_USER_CM_CMD_GET_OPTION] = { NULL, 0, 0 },
	UCMA_CMD(SET_OPTION, ucma_set_option, rdma_ucm_set_option, 0),
	UCMA_CMD(NOTIFY, ucma_notify, rdma_ucm_notify, 0),
	UCMA_CMD(JOIN_IP_MCAST, ucma_join_ip_multicast, rdma_ucm_join_ip_mcast, 0),
	UCMA_CMD(LEAVE_MCAST, ucma_leave_multicast, rdma_ucm_destroy_id, 0),
	UCMA_CMD(MIGRATE_ID, ucma_migrate_id, rdma_ucm_migrate_id, 0),
	UCMA_CMD(QUERY, ucma_query, rdma_ucm_query, 0),
	UCMA_CMD(BIND, ucma_bind, rdma_ucm_bind, 0),
	UCMA_CMD(RESOLVE_ADDR, ucma_resolve_addr, rdma_ucm_resolve_addr, 0),
	UCMA_CMD(JOIN_MCAST, ucma_join_multicast, rdma_ucm_join_mcast, 0),
};

/* The largest command struct (ACCEPT, 296 bytes). */
#define UCMA_MAX_CMD sizeof(struct rdma_ucm_accept)

static ssize_t ucma_write(struct file *filp, const char __user *buf,
			  size_t len, loff_t *pos)
{
	struct ucma_file *file = filp->private_data;
	const struct ucma_cmd *op;
	struct rdma_ucm_cmd_hdr hdr;
	u64 cmd[UCMA_MAX_CMD / sizeof(u64)];
	size_t copy;
	int ret;

	BUILD_BUG_ON(sizeof(struct rdma_ucm_resolve_addr) > UCMA_MAX_CMD ||
		     sizeof(struct rdma_ucm_connect) > UCMA_MAX_CMD ||
		     sizeof(struct rdma_ucm_reject) > UCMA_MAX_CMD);
	/* A file passed to a process with other credentials (ib_safe_file_access). */
	if (filp->f_cred != current_cred()) {
		pr_err_once("process %d (%s) changed security contexts after opening the file\n",
			    task_tgid_vnr(current), current->comm);
		return -EACCES;
	}
	if (len < sizeof(hdr))
		return -EINVAL;
	if (copy_from_user(&hdr, buf, sizeof(hdr)))
		return -EFAULT;
	if (hdr.cmd >= ARRAY_SIZE(ucma_cmd_table))
		return -EINVAL;
	hdr.cmd = array_index_nospec(hdr.cmd, ARRAY_SIZE(ucma_cmd_table));
	if (hdr.in + sizeof(hdr) > len)
		return -EINVAL;
	op = &ucma_cmd_table[hdr.cmd];
	if (!op->handler)
		return -ENOSYS;
	if (hdr.in < op->min_in)
		return -EINVAL;
	copy = op->min_in ? min_t(size_t, hdr.in, op->size) : op->size;
	memset(cmd, 0, sizeof(cmd));
	if (copy_from_user(cmd, buf + sizeof(hdr), copy))
		return -EFAULT;
	ret = op->handler(file, cmd, hdr.in, hdr.out);
	return ret ? ret : len;
}

static __poll_t ucma_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct ucma_file *file = filp->private_data;
	__poll_t mask = 0;

	poll_wait(filp, &file->poll_wait, wait);
	mutex_lock(&file->mut);
	if (!list_empty(&file->event_list))
		mask = EPOLLIN | EPOLLRDNORM;
	mutex_unlock(&file->mut);
	return mask;
}

static int ucma_open(struct inode *inode, struct file *filp)
{
	struct ucma_file *file = kzalloc(sizeof(*file), GFP_KERNEL);

	if (!file)
		return -ENOMEM;
	mutex_init(&file->mut);
	INIT_LIST_HEAD(&file->ctx_list);
	INIT_LIST_HEAD(&file->event_list);
	init_waitqueue_head(&file->poll_wait);
	file->filp = filp;
	filp->private_data = file;
	return stream_open(inode, filp);
}

/*
 * The last reference is gone, so no command of this file runs; another
 * file's MIGRATE_ID holds a reference on this one while it moves ids.
 */
static int ucma_close(struct inode *inode, struct file *filp)
{
	struct ucma_file *file = filp->private_data;
	struct ucma_context *ctx;

	for (;;) {
		mutex_lock(&file->mut);
		ctx = list_first_entry_or_null(&file->ctx_list,
					       struct ucma_context, list);
		mutex_unlock(&file->mut);
		if (!ctx)
			break;
		xa_erase(&ucma_ctx_table, ctx->id);
		ucma_destroy_ctx(ctx);
	}
	WARN_ON(!list_empty(&file->event_list));
	kfree(file);
	return 0;
}

const struct file_operations ucma_fops = {
	.owner = THIS_MODULE,
	.open = ucma_open,
	.release = ucma_close,
	.write = ucma_write,
	.poll = ucma_poll,
	.llseek = IBX_NO_LLSEEK,
};
