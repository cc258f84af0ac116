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
