// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * uobject.c - the objects of one open uverbs file: handles (one xarray
 * for all types, as ib_uverbs), ownership, dependency counts and the
 * two-phase create: a handle is reserved, the driver creates the object,
 * the response is written, and only then does the handle resolve.
 *
 * All of this but the QP object allocators (kverbs.c's kernel QPs use
 * them too, with no file) runs under the file's cmd_mutex (commands) or
 * with its teardown_rwsem held for write (close, disassociation).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include "core_priv.h"

/* What the header says: a command of @uf runs, or its teardown. */
static inline void ibx_ufile_assert_locked(struct ibx_ufile *uf)
{
	lockdep_assert(lockdep_is_held(&uf->cmd_mutex) ||
		       lockdep_is_held_type(&uf->teardown_rwsem, 0));
}

struct ibx_uobj *ibx_uobj_alloc(struct ibx_ufile *uf,
				const struct ibx_uobj_type *cls,
				size_t obj_size)
{
	struct ibx_uobj *uo;

	ibx_ufile_assert_locked(uf);
	uo = kzalloc(sizeof(*uo), GFP_KERNEL);
	if (!uo)
		return NULL;
	uo->obj = cls->alloc_obj ? cls->alloc_obj(uf) :
				   kzalloc(obj_size, GFP_KERNEL);
	if (!uo->obj) {
		kfree(uo);
		return NULL;
	}
	uo->ufile = uf;
	uo->cls = cls;
	uo->type = cls->type;
	atomic_inc(&ibx_obj_count[uo->type]);
	INIT_LIST_HEAD(&uo->list);
	INIT_LIST_HEAD(&uo->comp_events);
	INIT_LIST_HEAD(&uo->async_events);
	INIT_LIST_HEAD(&uo->mcast);
	return uo;
}

/* A zeroed QP object of the driver (ibx_device_ops.alloc_qp_obj). */
void *ibx_qp_obj_alloc(const struct ibx_device_ops *ops)
{
	if (ops->alloc_qp_obj)
		return ops->alloc_qp_obj();
	return kzalloc(max(ops->size_qp, sizeof(struct ibx_qp)), GFP_KERNEL);
}

void ibx_qp_obj_free(const struct ibx_device_ops *ops, void *obj)
{
	if (obj && ops->free_qp_obj)
		ops->free_qp_obj(obj);
	else
		kfree(obj);
}

int ibx_uobj_reserve(struct ibx_uobj *uo)
{
	int ret;

	ibx_ufile_assert_locked(uo->ufile);
	/* A NULL entry reserves the index; xa_load() returns NULL for it. */
	ret = xa_alloc(&uo->ufile->handles, &uo->handle, NULL, xa_limit_32b,
		       GFP_KERNEL);
	if (!ret)
		uo->reserved = true;
	return ret;
}

void ibx_uobj_publish(struct ibx_uobj *uo)
{
	ibx_ufile_assert_locked(uo->ufile);
	xa_store(&uo->ufile->handles, uo->handle, uo, GFP_KERNEL);
	list_add_tail(&uo->list, &uo->ufile->uobjs);
	uo->published = true;
}

void ibx_uobj_add_dep(struct ibx_uobj *uo, struct ibx_uobj *dep)
{
	int i;

	ibx_ufile_assert_locked(uo->ufile);
	if (!dep)
		return;
	for (i = 0; i < IBX_MAX_DEPS; i++) {
		if (!uo->deps[i]) {
			uo->deps[i] = dep;
			dep->usecnt++;
			return;
		}
	}
	WARN_ON_ONCE(1);
}

static void ibx_uobj_free(struct ibx_uobj *uo)
{
	int i;

	atomic_dec(&ibx_obj_count[uo->type]);
	for (i = 0; i < IBX_MAX_DEPS; i++)
		if (uo->deps[i])
			uo->deps[i]->usecnt--;
	if (uo->published) {
		xa_erase(&uo->ufile->handles, uo->handle);
		list_del(&uo->list);
	} else if (uo->reserved) {
		xa_release(&uo->ufile->handles, uo->handle);
	}
	ibx_event_file_put(uo->comp_file);
	if (uo->cls->free_obj)
		uo->cls->free_obj(uo);
	else
		kfree(uo->obj);
	kfree(uo);
}

/* debugfs's object counts (enum ibx_obj_type). */
const char *const ibx_obj_type_names[IBX_OBJ_NTYPES] = {
	[IBX_OBJ_PD] = "pd", [IBX_OBJ_MR] = "mr", [IBX_OBJ_MW] = "mw",
	[IBX_OBJ_CQ] = "cq", [IBX_OBJ_QP] = "qp", [IBX_OBJ_SRQ] = "srq",
	[IBX_OBJ_AH] = "ah", [IBX_OBJ_XRCD] = "xrcd",
};

void ibx_uobj_free_uncreated(struct ibx_uobj *uo)
{
	ibx_ufile_assert_locked(uo->ufile);
	if (uo->cls->free_uncreated)
		uo->cls->free_uncreated(uo);
	ibx_uobj_free(uo);
}

static void ibx_uobj_hw_destroy(struct ibx_uobj *uo)
{
	uo->cls->destroy_hw(uo);
	/* The driver raises no more events for it: drop the queued ones. */
	ibx_event_purge(uo->comp_file, &uo->comp_events);
	ibx_event_purge(uo->ufile->async_file, &uo->async_events);
}

void ibx_uobj_destroy(struct ibx_uobj *uo)
{
	ibx_ufile_assert_locked(uo->ufile);
	ibx_uobj_hw_destroy(uo);
	ibx_uobj_free(uo);
}

struct ibx_uobj *ibx_uobj_lookup(struct ibx_ufile *uf, u32 handle,
				 enum ibx_obj_type type)
{
	struct ibx_uobj *uo;

	ibx_ufile_assert_locked(uf);
	uo = xa_load(&uf->handles, handle);
	return uo && uo->type == type ? uo : NULL;
}

/*
 * The lookup of the commands that destroy or rewrite an object, with
 * upstream's errnos (rdma_lookup_get_uobject): -ENOENT for a handle that
 * names nothing, -EINVAL for one that names an object of another type.
 */
struct ibx_uobj *ibx_uobj_lookup_write(struct ibx_ufile *uf, u32 handle,
				       enum ibx_obj_type type)
{
	struct ibx_uobj *uo;

	ibx_ufile_assert_locked(uf);
	uo = xa_load(&uf->handles, handle);
	if (!uo)
		return ERR_PTR(-ENOENT);
	return uo->type == type ? uo : ERR_PTR(-EINVAL);
}

int ibx_uobj_destroy_cmd(struct ibx_ufile *uf, u32 handle,
			 enum ibx_obj_type type, u32 *comp_events,
			 u32 *async_events)
{
	struct ibx_uobj *uo = ibx_uobj_lookup_write(uf, handle, type);
	int ret;

	if (IS_ERR(uo))
		return PTR_ERR(uo);
	/* A PD with MRs/QPs, a CQ with QPs, a QP with multicast groups... */
	if (uo->usecnt || !list_empty(&uo->mcast))
		return -EBUSY;
	if (uo->cls->begin_destroy) {
		ret = uo->cls->begin_destroy(uo);
		if (ret)
			return ret;
	}
	ibx_uobj_hw_destroy(uo);
	if (comp_events)
		*comp_events = uo->comp_events_reported;
	if (async_events)
		*async_events = uo->async_events_reported;
	ibx_uobj_free(uo);
	return 0;
}

/*
 * Destroys everything of a file in dependency order, then the context.
 * On device removal (@disassociate) userspace first gets DEVICE_FATAL and
 * loses its mappings of device memory; later commands fail with -EIO.
 */
void ibx_ufile_teardown(struct ibx_ufile *uf, bool disassociate)
{
	static const enum ibx_obj_type order[] = {
		IBX_OBJ_QP, IBX_OBJ_SRQ, IBX_OBJ_XRCD, IBX_OBJ_AH, IBX_OBJ_MW,
		IBX_OBJ_MR, IBX_OBJ_CQ, IBX_OBJ_PD,
	};
	struct ibx_core_dev *core = uf->core;
	struct ibx_event_file *async;
	struct ibx_uobj *uo, *tmp;
	unsigned long flags;
	int i;

	down_write(&uf->teardown_rwsem);
	if (uf->torn_down)
		goto out;
	uf->torn_down = true;
	async = uf->async_file;

	if (disassociate) {
		ibx_async_event_raw(async, 0, IBX_EVENT_DEVICE_FATAL, NULL, NULL);
		unmap_mapping_range(uf->filp->f_mapping, 0, 0, 1);
	}
	for (i = 0; i < ARRAY_SIZE(order); i++)
		list_for_each_entry_safe(uo, tmp, &uf->uobjs, list)
			if (uo->type == order[i])
				ibx_uobj_destroy(uo);
	WARN_ON(!list_empty(&uf->uobjs));

	if (uf->ucontext) {
		if (core->ibdev->ops->dealloc_ucontext)
			core->ibdev->ops->dealloc_ucontext(uf->ucontext);
		kfree(uf->ucontext);
		uf->ucontext = NULL;
	}
	while (!list_empty(&uf->comp_channels)) {
		struct ibx_event_file *ef = list_first_entry(&uf->comp_channels,
						struct ibx_event_file, dev_node);

		list_del_init(&ef->dev_node);
		ibx_event_file_close(ef);
		ibx_event_file_put(ef);
	}
	if (async) {
		spin_lock_irqsave(&core->event_lock, flags);
		list_del_init(&async->dev_node);
		spin_unlock_irqrestore(&core->event_lock, flags);
		ibx_event_file_close(async);
		uf->async_file = NULL;
		ibx_event_file_put(async);
	}
out:
	if (disassociate)
		uf->disassociated = true;
	up_write(&uf->teardown_rwsem);
}
