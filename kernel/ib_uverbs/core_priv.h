/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * core_priv.h - internal structures of the verbs core, shared by its files.
 */
#ifndef IBX_CORE_PRIV_H
#define IBX_CORE_PRIV_H

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include "ibx_core.h"
#include "ibx_compat.h"

#define IBX_UVERBS_ABI_VERSION	6	/* IB_USER_VERBS_ABI_VERSION */
#define IBX_MAX_DEVICES		32	/* uverbs minors */

/* Core-private half of an ibx_device; lives as long as its uverbs device. */
struct ibx_core_dev {
	struct ibx_device *ibdev;	/* NULL once deallocated */
	int index;			/* N of uverbsN, -1 if unregistered */

	struct device udev;		/* class infiniband_verbs, owns us */
	struct cdev cdev;
	struct device *hca_dev;		/* the ibdev's "device" (has net/) */
	bool hca_dev_ours;		/* made by the core, not the driver's */
	struct kobject *net_kobj;
	/*
	 * /sys/class/infiniband/<ibdev> in the namespace that owns the
	 * device (under @lock), and in shared mode one more in every other
	 * namespace (under @view_lock; netns.c), as ib_core's compat devices.
	 */
	struct ibx_ib_view *view;
	struct mutex view_lock;
	struct list_head compat_views;	/* ibx_ib_view.node */
	bool views_open;		/* registered: compat views may be added */

	/*
	 * Serializes registration, unregistration and moves to another
	 * network namespace (upstream's unregistration_lock); taken before
	 * the clients' lock and @lock.
	 */
	struct mutex reg_lock;
	/*
	 * The owning namespace (init_net in shared mode); not referenced:
	 * the namespace's exit moves the device back to init_net first.
	 * Written under reg_lock and @lock, read with READ_ONCE elsewhere.
	 */
	struct net *net;

	/* Registration state, the open files and the netdev links. */
	struct mutex lock;
	struct list_head files;
	bool registered;
	bool dying;			/* unregister or a move: no new opens */
	struct list_head node;		/* in the global device list */

	/* Async event files of all contexts (port events), any context. */
	spinlock_t event_lock;
	struct list_head async_files;

	/* Protects ibdev->gids (read from any context). */
	spinlock_t gid_lock;

	/*
	 * XRC domains shared through files (ibx_xrcd_core.node) and the
	 * reference counts of all XRC domains and XRC TGT QPs
	 * (cmd_xrcd.c); also serializes MODIFY_QP of XRC TGT QPs, which
	 * several files may hold.
	 */
	struct mutex xrcd_lock;
	struct list_head xrcds;

	/* ibx_client pointers by client_id (client.c). */
	struct xarray client_data;
	bool clients_added;		/* add() ran for the clients */
};

static inline struct ibx_core_dev *ibx_cdev(struct ibx_device *dev)
{
	return dev->core_priv;
}

/* ---- event files (event.c) ---- */

struct ibx_event_file {
	struct kref ref;
	spinlock_t lock;
	wait_queue_head_t wait;
	struct list_head events;
	bool closed;			/* no more events: reads end in -EIO */
	bool is_async;
	const void *owner;		/* the ibx_ufile that created it */
	struct list_head dev_node;	/* async: core->async_files;
					 * comp: ufile->comp_channels */
};

struct ibx_event {
	struct list_head list;		/* in the event file's queue */
	struct list_head obj_list;	/* in the object's pending list */
	u32 *counter;			/* incremented when read */
	union {
		struct ib_uverbs_comp_event_desc comp;
		struct ib_uverbs_async_event_desc async;
	} desc;
};

struct ibx_event_file *ibx_event_file_alloc(bool is_async, const void *owner);
void ibx_event_file_put(struct ibx_event_file *ef);
/* Creates the anon file and a reserved fd (installed by the caller). */
int ibx_event_file_open(struct ibx_event_file *ef, struct file **filp);
struct ibx_event_file *ibx_comp_channel_get(int fd, const void *owner);
void ibx_event_file_close(struct ibx_event_file *ef);
void ibx_event_purge(struct ibx_event_file *ef, struct list_head *obj_list);
void ibx_async_event_raw(struct ibx_event_file *ef, u64 element, u32 type,
			 struct list_head *obj_list, u32 *counter);

/* ---- the open uverbs file and its objects (uobject.c) ---- */

enum ibx_obj_type {
	IBX_OBJ_PD,
	IBX_OBJ_MR,
	IBX_OBJ_MW,
	IBX_OBJ_CQ,
	IBX_OBJ_QP,
	IBX_OBJ_SRQ,
	IBX_OBJ_AH,
	IBX_OBJ_XRCD,
	IBX_OBJ_NTYPES
};

struct ibx_ufile {
	struct ibx_core_dev *core;
	struct file *filp;
	struct list_head node;		/* in core->files */
	struct module *owner;		/* driver module, pinned while open */
	struct pid *pid;		/* the opener (netlink RES_PID) */

	/*
	 * Commands, mmap and ioctl hold this for read; close and device
	 * disassociation hold it for write while they destroy everything.
	 */
	struct rw_semaphore teardown_rwsem;
	bool torn_down;
	bool disassociated;
	/* Serializes the write() commands of this file. */
	struct mutex cmd_mutex;

	struct ibx_ucontext *ucontext;
	struct ibx_event_file *async_file;
	struct list_head comp_channels;	/* ibx_event_file.dev_node, ref'd */
	struct xarray handles;		/* u32 handle -> struct ibx_uobj */
	struct list_head uobjs;		/* creation order */
};

#define IBX_MAX_DEPS	4

struct ibx_mcast {
	struct list_head list;
	union ibx_gid gid;
	u16 lid;
};

struct ibx_uobj {
	struct list_head list;		/* in ufile->uobjs */
	struct ibx_ufile *ufile;
	u32 handle;
	enum ibx_obj_type type;		/* cls->type */
	const struct ibx_uobj_type *cls;	/* how it is destroyed */
	unsigned int usecnt;		/* dependents (under cmd_mutex) */
	void *obj;			/* driver object, core struct first */
	struct ibx_uobj *deps[IBX_MAX_DEPS];	/* we hold their usecnt */
	u64 user_handle;
	bool reserved;			/* handle allocated */
	bool published;			/* visible to lookups */

	/* CQ, QP, SRQ: events and their counts for the destroy response. */
	struct ibx_event_file *comp_file;	/* CQ only, referenced */
	struct list_head comp_events;		/* under comp_file->lock */
	struct list_head async_events;		/* under async file lock */
	u32 comp_events_reported;
	u32 async_events_reported;
	struct list_head mcast;			/* QP: attached groups */
	struct list_head tgt_node;		/* XRC TGT QP: in its handles */
};

/*
 * What the core does for one kind of object, as upstream's
 * uverbs_obj_type_class.  The file whose commands create such objects
 * owns its class, and each object points to the class it was created
 * with: uobject.c destroys every kind the same way, through it.
 */
struct ibx_uobj_type {
	enum ibx_obj_type type;		/* what its handle names */
	/* Optional: uo->obj's memory (default kzalloc of obj_size) ... */
	void *(*alloc_obj)(struct ibx_ufile *uf);
	/* ... and its release (default kfree), NULL included. */
	void (*free_obj)(struct ibx_uobj *uo);
	/* Optional: may refuse DESTROY/DEREG before anything is undone. */
	int (*begin_destroy)(struct ibx_uobj *uo);
	/* Destroys the driver object and what the core holds for it. */
	void (*destroy_hw)(struct ibx_uobj *uo);
	/* Optional: undoes the core's preparation when create never ran. */
	void (*free_uncreated)(struct ibx_uobj *uo);
};
extern const char *const ibx_obj_type_names[IBX_OBJ_NTYPES];

static inline const struct ibx_device_ops *ibx_uobj_ops(struct ibx_uobj *uo)
{
	return uo->ufile->core->ibdev->ops;
}

struct ibx_uobj *ibx_uobj_alloc(struct ibx_ufile *uf,
				const struct ibx_uobj_type *cls,
				size_t obj_size);
void *ibx_qp_obj_alloc(const struct ibx_device_ops *ops);
void ibx_qp_obj_free(const struct ibx_device_ops *ops, void *obj);
/* Reserves the handle; the object is not yet visible to lookups. */
int ibx_uobj_reserve(struct ibx_uobj *uo);
/* Makes a reserved, successfully created object visible. */
void ibx_uobj_publish(struct ibx_uobj *uo);
void ibx_uobj_add_dep(struct ibx_uobj *uo, struct ibx_uobj *dep);
/* Frees an object whose driver create op was not called or failed. */
void ibx_uobj_free_uncreated(struct ibx_uobj *uo);
/* Calls the driver destroy op and frees; no busy check. */
void ibx_uobj_destroy(struct ibx_uobj *uo);
/*
 * Destroy command: -EINVAL for a bad handle, -EBUSY while dependents
 * exist; returns the events reported for the destroy response.
 */
int ibx_uobj_destroy_cmd(struct ibx_ufile *uf, u32 handle,
			 enum ibx_obj_type type, u32 *comp_events,
			 u32 *async_events);
struct ibx_uobj *ibx_uobj_lookup(struct ibx_ufile *uf, u32 handle,
				 enum ibx_obj_type type);
struct ibx_uobj *ibx_uobj_lookup_write(struct ibx_ufile *uf, u32 handle,
				       enum ibx_obj_type type);
void ibx_ufile_teardown(struct ibx_ufile *uf, bool disassociate);

/* ---- command dispatch (cmd.c) ---- */

/* One write() command: the core in/out buffers and the driver udata. */
struct ibx_cmd {
	struct ibx_ufile *uf;
	const void __user *inbuf;
	void __user *outbuf;
	size_t inlen;
	size_t outlen;
	struct ibx_udata udata;
};

int ibx_cmd_in(struct ibx_cmd *c, void *req, size_t len);
int ibx_cmd_out(struct ibx_cmd *c, const void *resp, size_t len);
size_t ibx_cmd_resp_len(struct ibx_cmd *c, size_t len);
ssize_t ibx_cmd_dispatch(struct ibx_ufile *uf, const char __user *buf,
			 size_t count);
/* The context of the file, or -EINVAL before GET_CONTEXT. */
struct ibx_ucontext *ibx_cmd_ucontext(struct ibx_cmd *c);
/* Writes a create response and publishes @uo, or destroys it on failure. */
int ibx_cmd_commit(struct ibx_cmd *c, struct ibx_uobj *uo, const void *resp,
		   size_t len);

#define IBX_CMD(name) int ibx_cmd_##name(struct ibx_cmd *c)
IBX_CMD(get_context);
IBX_CMD(query_device);
IBX_CMD(ex_query_device);
IBX_CMD(query_port);
IBX_CMD(create_comp_channel);
IBX_CMD(alloc_pd);
IBX_CMD(dealloc_pd);
IBX_CMD(reg_mr);
IBX_CMD(dereg_mr);
IBX_CMD(rereg_mr);
IBX_CMD(alloc_mw);
IBX_CMD(dealloc_mw);
IBX_CMD(create_cq);
IBX_CMD(ex_create_cq);
IBX_CMD(resize_cq);
IBX_CMD(destroy_cq);
IBX_CMD(req_notify_cq);
IBX_CMD(create_qp);
IBX_CMD(ex_create_qp);
IBX_CMD(query_qp);
IBX_CMD(modify_qp);
IBX_CMD(ex_modify_qp);
IBX_CMD(destroy_qp);
IBX_CMD(attach_mcast);
IBX_CMD(detach_mcast);
IBX_CMD(create_srq);
IBX_CMD(create_xsrq);
IBX_CMD(modify_srq);
IBX_CMD(query_srq);
IBX_CMD(destroy_srq);
IBX_CMD(create_ah);
IBX_CMD(destroy_ah);
IBX_CMD(open_xrcd);
IBX_CMD(close_xrcd);
IBX_CMD(open_qp);

/* ---- XRC (cmd_xrcd.c) ---- */

/* CREATE_QP of an XRC TGT QP: cmd->pd_handle names an XRC domain. */
int ibx_xrc_tgt_create(struct ibx_cmd *c, struct ib_uverbs_ex_create_qp *cmd,
		       struct ibx_uobj **out);

/* ---- pieces used across files ---- */

int ibx_port_query(struct ibx_device *dev, u32 port,
		   struct ib_uverbs_query_port_resp *resp);
bool ibx_port_valid(struct ibx_device *dev, u32 port);
bool ibx_gid_valid(struct ibx_device *dev, u32 port, unsigned int index);
int ibx_ah_attr_from_user(struct ibx_device *dev, struct ibx_ah_attr *ah,
			  const struct ib_uverbs_qp_dest *d);

/* umem.c */
int ibx_umem_get(u64 addr, u64 length, u32 access, struct ibx_umem **out);
void ibx_umem_release(struct ibx_umem *umem);
/* umem_odp.c */
int ibx_umem_odp_get(u64 addr, u64 length, u32 access, struct ibx_umem **out);
void ibx_umem_odp_release(struct ibx_umem *umem);
/* Whether MRs with @access get their pages pinned for writing. */
bool ibx_umem_access_writable(u32 access);

/* mad.c: the built-in MAD client (QP1 of every port) */
int ibx_mad_init(void);
void ibx_mad_exit(void);

/* qp_state.c */
bool ibx_qp_transition_ok(enum ibx_qp_state cur, enum ibx_qp_state next,
			  u32 qp_type, u32 mask);
const char *ibx_qp_state_name(enum ibx_qp_state state);
bool ibx_qp_mig_state_ok(u32 path_mig_state);

/* The QP's attributes as the device has them now (ops->query_qp). */
static inline void ibx_qp_attr_current(struct ibx_qp *qp,
				       struct ibx_qp_attr *attr)
{
	*attr = qp->attr;
	if (qp->dev->ops->query_qp)
		qp->dev->ops->query_qp(qp, attr);
}

/* sysfs.c */

/*
 * /sys/class/infiniband/<ibdev> as the network namespace @net sees it: the
 * class "infiniband" is tagged by namespace, as upstream's, so that each
 * sysfs mount shows the devices of its own namespace.
 */
struct ibx_ib_view {
	struct device dev;		/* class infiniband, tagged with @net */
	struct ibx_core_dev *core;
	struct net *net;		/* not referenced (see core->net) */
	struct kobject *ports_kobj;
	struct ibx_port_sysfs *ports[IBX_MAX_PORTS + 1];
	struct list_head node;		/* compat views: in core->compat_views */
};

struct ibx_ib_view *ibx_view_add(struct ibx_core_dev *core, struct net *net);
void ibx_view_del(struct ibx_ib_view *view);
/* The view in the device's own namespace (core->view), under core->lock. */
int ibx_sysfs_add(struct ibx_core_dev *core);
void ibx_sysfs_del(struct ibx_core_dev *core);
extern const struct attribute_group *ibx_uverbs_dev_groups[];

/* main.c */
extern struct class *ibx_ib_class;
extern struct class *ibx_uverbs_class;
extern dev_t ibx_uverbs_base;
extern const struct file_operations ibx_uverbs_fops;

/* device.c */
void ibx_device_close_file(struct ibx_ufile *uf);
void ibx_disassociate_files(struct ibx_core_dev *core);

/* The registered devices (device.c); lock order in client.c. */
extern struct mutex ibx_devices_lock;
extern struct list_head ibx_devices;

/* debugfs.c: what the core holds, for leak checks */
extern atomic_t ibx_obj_count[IBX_OBJ_NTYPES];	/* user objects per type */
extern atomic_t ibx_ufile_count;		/* open uverbs files */
extern atomic64_t ibx_pinned_pages;		/* pages of all umems */
void ibx_debugfs_init(void);
void ibx_debugfs_exit(void);

/* client.c */
void ibx_clients_add_device(struct ibx_core_dev *core);
void ibx_clients_remove_device(struct ibx_core_dev *core);
int ibx_client_get_nl_info(struct ibx_device *dev, const char *name,
			   struct ibx_client_nl_info *res);

/* netns.c: network namespaces (shared and exclusive mode, moves) */
extern bool ibx_shared_netns;
bool ibx_core_access_netns(struct ibx_core_dev *core, const struct net *net);
/*
 * Under ibx_netns_lock(): makes @dev->net core->net if it is a live
 * namespace (else, and in shared mode, init_net).
 */
void ibx_netns_lock(void);
void ibx_netns_unlock(void);
void ibx_netns_assign(struct ibx_core_dev *core);
/* Compat views: opened once registered, closed at unregistration. */
void ibx_netns_open_views(struct ibx_core_dev *core);
void ibx_netns_close_views(struct ibx_core_dev *core);
int ibx_netns_init(void);
void ibx_netns_exit(void);

/* A character device as netlink GET_CHARDEV reports it. */
struct ibx_nl_chardev {
	dev_t devt;
	u64 abi;
	char name[64];
};

/*
 * GET_CHARDEV of client @name for device @index (-1: global); -ENOENT
 * for no such client or device.
 */
int ibx_client_nl_chardev(struct net *net, int index, const char *name,
			  struct ibx_nl_chardev *cd);

#endif /* IBX_CORE_PRIV_H */
