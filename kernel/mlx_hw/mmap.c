// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mmap.c - memory shared with userspace: refcounted vmalloc regions and the
 * per-context table of mmap keys (docs/prm.md section 1).
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "ibx_compat.h"
#include "mlx_hw.h"

atomic_t mlx_hw_region_count;	/* regions alive (debugfs.c: leaks) */

struct mlx_hw_region *mlx_hw_region_alloc(size_t size, bool read_only)
{
	struct mlx_hw_region *region;

	region = kzalloc(sizeof(*region), GFP_KERNEL);
	if (!region)
		return NULL;
	region->size = PAGE_ALIGN(size);
	region->vaddr = vmalloc_user(region->size);	/* zeroed */
	if (!region->vaddr) {
		kfree(region);
		return NULL;
	}
	region->read_only = read_only;
	kref_init(&region->ref);
	atomic_inc(&mlx_hw_region_count);
	return region;
}

static void mlx_hw_region_release(struct kref *ref)
{
	struct mlx_hw_region *region = container_of(ref, struct mlx_hw_region,
						    ref);

	vfree(region->vaddr);
	kfree(region);
	atomic_dec(&mlx_hw_region_count);
}

void mlx_hw_region_put(struct mlx_hw_region *region)
{
	kref_put(&region->ref, mlx_hw_region_release);
}

/* Keys are page offsets; index 0 is never used so a zero key is invalid. */
int mlx_hw_mmap_insert(struct mlx_hw_ucontext *uctx,
		       struct mlx_hw_region *region, u64 *key)
{
	u32 index;
	int err;

	kref_get(&region->ref);
	err = xa_alloc_cyclic(&uctx->mmap_xa, &index, region,
			      XA_LIMIT(1, (U32_MAX >> PAGE_SHIFT) - 1),
			      &uctx->mmap_next, GFP_KERNEL);
	if (err < 0) {
		mlx_hw_region_put(region);
		return err;
	}
	*key = (u64)index << PAGE_SHIFT;
	return 0;
}

/*
 * A new zeroed region of @size bytes, already offered to @uctx's mmap
 * under *@key: what a resize hands the provider.  ERR_PTR on failure;
 * undo with mlx_hw_mmap_remove() and mlx_hw_region_put().
 */
struct mlx_hw_region *mlx_hw_region_alloc_mapped(struct mlx_hw_ucontext *uctx,
						 size_t size, u64 *key)
{
	struct mlx_hw_region *region = mlx_hw_region_alloc(size, false);
	int err;

	if (!region)
		return ERR_PTR(-ENOMEM);
	err = mlx_hw_mmap_insert(uctx, region, key);
	if (err) {
		mlx_hw_region_put(region);
		return ERR_PTR(err);
	}
	return region;
}

void mlx_hw_mmap_remove(struct mlx_hw_ucontext *uctx, u64 key)
{
	struct mlx_hw_region *region;

	region = xa_erase(&uctx->mmap_xa, key >> PAGE_SHIFT);
	if (region)
		mlx_hw_region_put(region);
}

void mlx_hw_mmap_remove_all(struct mlx_hw_ucontext *uctx)
{
	struct mlx_hw_region *region;
	unsigned long index;

	xa_for_each(&uctx->mmap_xa, index, region) {
		xa_erase(&uctx->mmap_xa, index);
		mlx_hw_region_put(region);
	}
	xa_destroy(&uctx->mmap_xa);
}

/* A VMA keeps its region alive; splitting a VMA takes another reference. */
static void mlx_hw_vma_open(struct vm_area_struct *vma)
{
	struct mlx_hw_region *region = vma->vm_private_data;

	kref_get(&region->ref);
}

static void mlx_hw_vma_close(struct vm_area_struct *vma)
{
	struct mlx_hw_region *region = vma->vm_private_data;

	mlx_hw_region_put(region);
}

static const struct vm_operations_struct mlx_hw_vm_ops = {
	.open = mlx_hw_vma_open,
	.close = mlx_hw_vma_close,
};

int mlx_hw_mmap(struct ibx_ucontext *ibuctx, struct vm_area_struct *vma)
{
	struct mlx_hw_ucontext *uctx = to_muctx(ibuctx);
	unsigned long len = vma->vm_end - vma->vm_start;
	struct mlx_hw_region *region;
	int err;

	xa_lock(&uctx->mmap_xa);
	region = xa_load(&uctx->mmap_xa, vma->vm_pgoff);
	if (region)
		kref_get(&region->ref);
	xa_unlock(&uctx->mmap_xa);
	if (!region)
		return -EINVAL;

	err = -EINVAL;
	if (len != region->size)
		goto out_put;
	if (!(vma->vm_flags & VM_SHARED))
		goto out_put;
	if (region->read_only) {
		err = -EPERM;
		if (vma->vm_flags & VM_WRITE)
			goto out_put;
		ibx_vm_flags_clear(vma, VM_MAYWRITE);
	}
	ibx_vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND);
	err = remap_vmalloc_range(vma, region->vaddr, 0);
	if (err)
		goto out_put;
	vma->vm_ops = &mlx_hw_vm_ops;
	vma->vm_private_data = region;	/* the reference taken above */
	return 0;

out_put:
	mlx_hw_region_put(region);
	return err;
}

/* ---------------- doorbell records (docs/prm.md 1.2) ---------------- */

void mlx_hw_dbrec_ctx_init(struct mlx_hw_ucontext *uctx)
{
	mutex_init(&uctx->dbrec_lock);
	INIT_LIST_HEAD(&uctx->dbrec_pages);
}

/* After every object of the context is gone; mappings keep their pages. */
void mlx_hw_dbrec_ctx_fini(struct mlx_hw_ucontext *uctx)
{
	struct mlx_hw_dbrec_page *page, *next;

	list_for_each_entry_safe(page, next, &uctx->dbrec_pages, node) {
		WARN_ON(!bitmap_empty(page->used, MLX_HW_DBRECS_PER_PAGE));
		mlx_hw_region_put(page->region);
		kfree(page);
	}
}

static struct mlx_hw_dbrec_page *
mlx_hw_dbrec_page_new(struct mlx_hw_ucontext *uctx)
{
	struct mlx_hw_dbrec_page *page;

	lockdep_assert_held(&uctx->dbrec_lock);
	page = kzalloc(sizeof(*page), GFP_KERNEL);
	if (!page)
		return NULL;
	page->region = mlx_hw_region_alloc_mapped(uctx, PAGE_SIZE, &page->key);
	if (IS_ERR(page->region)) {
		kfree(page);
		return NULL;
	}
	list_add(&page->node, &uctx->dbrec_pages);
	return page;
}

/*
 * A zeroed record for a new object of @uctx, or with @uctx NULL for an
 * object nothing maps (a kernel consumer's, an XRC TGT QP's).
 */
int mlx_hw_dbrec_alloc(struct mlx_hw_ucontext *uctx, struct mlx_hw_dbrec *rec)
{
	struct mlx_hw_dbrec_page *page;
	unsigned int slot = 0;

	if (!uctx) {
		rec->page = NULL;
		rec->vaddr = kzalloc(MLX_HW_DBREC_SIZE, GFP_KERNEL);
		return rec->vaddr ? 0 : -ENOMEM;
	}
	mutex_lock(&uctx->dbrec_lock);
	list_for_each_entry(page, &uctx->dbrec_pages, node) {
		slot = find_first_zero_bit(page->used, MLX_HW_DBRECS_PER_PAGE);
		if (slot < MLX_HW_DBRECS_PER_PAGE)
			goto found;
	}
	page = mlx_hw_dbrec_page_new(uctx);
	if (!page) {
		mutex_unlock(&uctx->dbrec_lock);
		return -ENOMEM;
	}
	slot = 0;
found:
	__set_bit(slot, page->used);
	mutex_unlock(&uctx->dbrec_lock);
	rec->page = page;
	rec->vaddr = page->region->vaddr + slot * MLX_HW_DBREC_SIZE;
	/* A freed record may hold the indices of the object before. */
	memset(rec->vaddr, 0, MLX_HW_DBREC_SIZE);
	return 0;
}

static u32 mlx_hw_dbrec_offset(const struct mlx_hw_dbrec *rec)
{
	return rec->vaddr - rec->page->region->vaddr;
}

/* After the engine let go of the object: nothing writes the record now. */
void mlx_hw_dbrec_free(struct mlx_hw_ucontext *uctx, struct mlx_hw_dbrec *rec)
{
	if (!rec->page) {
		kfree(rec->vaddr);
		return;
	}
	mutex_lock(&uctx->dbrec_lock);
	__clear_bit(mlx_hw_dbrec_offset(rec) / MLX_HW_DBREC_SIZE,
		    rec->page->used);
	mutex_unlock(&uctx->dbrec_lock);
}

/* What a create response tells the provider: the page and the offset. */
void mlx_hw_dbrec_resp(const struct mlx_hw_dbrec *rec, __u64 *key,
		       __u32 *offset)
{
	*key = rec->page ? rec->page->key : 0;
	*offset = rec->page ? mlx_hw_dbrec_offset(rec) : 0;
}
