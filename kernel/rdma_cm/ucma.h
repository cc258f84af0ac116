/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ucma.h - the user ABI side (/dev/infiniband/rdma_cm): open files, the
 * contexts user space names by 32-bit id, their queued events and
 * multicast memberships.  Lock order: cma_id->lock, then ucma_file->mut,
 * then the xarray locks.
 */
#ifndef IBX_UCMA_H
#define IBX_UCMA_H

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/xarray.h>
#include "cma_priv.h"

/* One open of /dev/infiniband/rdma_cm (an rdma_event_channel). */
struct ucma_file {
	struct mutex mut;		/* the two lists below */
	struct file *filp;
	struct list_head ctx_list;	/* ucma_context.list */
	struct list_head event_list;	/* ucma_event.list, oldest first */
	wait_queue_head_t poll_wait;	/* GET_EVENT and poll() sleepers */
};

/* An rdma_cm_id as user space sees it. */
struct ucma_context {
	u32 id;				/* key in ucma_ctx_table */
	struct ucma_file *file;		/* owner; changed by MIGRATE_ID under
					 * cid->lock and both files' mut */
	struct cma_id *cid;		/* the kernel id */
	u64 uid;			/* user's cookie, echoed in events; 0
					 * until ACCEPT for a new connection,
					 * whose events are dropped until then */
	u32 events_reported;		/* events GET_EVENT handed out (mut) */
	atomic_t backlog;		/* a listener's unread CONNECT_REQUESTs
					 * it may still take */
	refcount_t ref;			/* the table + each running command */
	struct completion comp;		/* ref reached 0 */
	struct list_head list;		/* in file->ctx_list (file->mut) */
	struct list_head mc_list;	/* ucma_multicast.list (file->mut) */
};

/* A multicast membership as user space sees it. */
struct ucma_multicast {
	u32 id;				/* key in ucma_mc_table */
	u64 uid;			/* user's cookie, echoed in its events */
	struct ucma_context *ctx;	/* the UD id that joined */
	struct cma_mcast *cmc;		/* the kernel membership */
	u32 events_reported;		/* its events handed out (file->mut) */
	struct list_head list;		/* in ctx->mc_list */
};

/* One queued event. */
struct ucma_event {
	struct ucma_context *ctx;	/* counts it when dequeued */
	struct ucma_multicast *mc;	/* also counts it, if set */
	struct ucma_context *conn_req_ctx;	/* CONNECT_REQUEST: the new id */
	struct list_head list;		/* in file->event_list */
	struct rdma_ucm_event_resp resp;
};

extern const struct file_operations ucma_fops;
extern struct xarray ucma_ctx_table, ucma_mc_table;
extern int ucma_max_backlog;

struct ucma_context *ucma_get_ctx(struct ucma_file *file, u32 id);
struct ucma_context *ucma_get_ctx_dev(struct ucma_file *file, u32 id);
void ucma_put_ctx(struct ucma_context *ctx);
int ucma_event_handler(struct cma_id *cid, struct cma_event *ev);
struct ucma_context *ucma_alloc_ctx(struct ucma_file *file, u64 uid);
size_t ucma_addr_size(const struct sockaddr *a, size_t max);
void ucma_lock_files(struct ucma_file *a, struct ucma_file *b);
void ucma_unlock_files(struct ucma_file *a, struct ucma_file *b);

/* The command handlers: @cmd is the copied command struct. */
#define UCMA_HANDLER(name) \
	int name(struct ucma_file *file, void *cmd, int in_len, int out_len)
UCMA_HANDLER(ucma_create_id);
UCMA_HANDLER(ucma_destroy_id);
UCMA_HANDLER(ucma_bind_ip);
UCMA_HANDLER(ucma_bind);
UCMA_HANDLER(ucma_resolve_ip);
UCMA_HANDLER(ucma_resolve_addr);
UCMA_HANDLER(ucma_resolve_route);
UCMA_HANDLER(ucma_query_route);
UCMA_HANDLER(ucma_query);
UCMA_HANDLER(ucma_connect);
UCMA_HANDLER(ucma_listen);
UCMA_HANDLER(ucma_accept);
UCMA_HANDLER(ucma_reject);
UCMA_HANDLER(ucma_disconnect);
UCMA_HANDLER(ucma_init_qp_attr);
UCMA_HANDLER(ucma_get_event);
UCMA_HANDLER(ucma_set_option);
UCMA_HANDLER(ucma_notify);
UCMA_HANDLER(ucma_join_ip_multicast);
UCMA_HANDLER(ucma_join_multicast);
UCMA_HANDLER(ucma_leave_multicast);
UCMA_HANDLER(ucma_migrate_id);

/* Destroys a context no longer in ucma_ctx_table; returns events_reported. */
u32 ucma_destroy_ctx(struct ucma_context *ctx);

/* path.c: the SA PathRecord wire format (IBA 15.2.5.16). */
void cma_pack_path(const struct cm_path *p, __be32 rec[16]);
void cma_unpack_path(const __be32 rec[16], struct cm_path *p);

#endif /* IBX_UCMA_H */
