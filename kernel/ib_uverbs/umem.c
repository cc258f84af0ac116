// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * umem.c - pinning user memory for MRs.  Pages are pinned FOLL_LONGTERM
 * (the device may access them at any time) and charged to mm->pinned_vm
 * against RLIMIT_MEMLOCK, like ib_umem_get().  The mm is kept (mmgrab) so
 * that the charge is returned to the right mm even when the MR is released
 * by another task or after the owner exited.
 */
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/capability.h>
#include "core_priv.h"

struct ibx_umem_priv {
	struct ibx_umem umem;
	struct mm_struct *mm;
};

bool ibx_umem_access_writable(u32 access)
{
	/* A bound MW may grant remote write, so MW_BIND counts too. */
	return access & (IB_UVERBS_ACCESS_LOCAL_WRITE |
			 IB_UVERBS_ACCESS_REMOTE_WRITE |
			 IB_UVERBS_ACCESS_REMOTE_ATOMIC |
			 IB_UVERBS_ACCESS_MW_BIND);
}

int ibx_umem_get(u64 addr, u64 length, u32 access, struct ibx_umem **out)
{
	unsigned int gup_flags = FOLL_LONGTERM;
	struct mm_struct *mm = current->mm;
	unsigned long npages, done = 0, lock_limit;
	struct ibx_umem_priv *p;
	u64 end = addr + length;
	s64 new_pinned;
	int ret;

	if (access & IB_UVERBS_ACCESS_ON_DEMAND)
		return ibx_umem_odp_get(addr, length, access, out);
	if (!length || end < addr || PAGE_ALIGN(end) < end)
		return -EINVAL;
	npages = (PAGE_ALIGN(end) - (addr & PAGE_MASK)) >> PAGE_SHIFT;
	if (!npages || npages > UINT_MAX)
		return -EINVAL;
	if (!can_do_mlock())
		return -EPERM;
	if (!mm)
		return -EFAULT;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->umem.address = addr;
	p->umem.length = length;
	p->umem.offset = addr & ~PAGE_MASK;
	p->umem.writable = ibx_umem_access_writable(access);
	p->mm = mm;
	mmgrab(mm);

	lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	new_pinned = atomic64_add_return(npages, &mm->pinned_vm);
	if (new_pinned > lock_limit && !capable(CAP_IPC_LOCK)) {
		ret = -ENOMEM;
		goto err_charge;
	}

	p->umem.pages = kvmalloc_array(npages, sizeof(struct page *),
				       GFP_KERNEL);
	if (!p->umem.pages) {
		ret = -ENOMEM;
		goto err_charge;
	}
	if (p->umem.writable)
		gup_flags |= FOLL_WRITE;

	while (done < npages) {
		int n = min_t(unsigned long, npages - done, 1UL << 16);

		ret = pin_user_pages_fast((addr & PAGE_MASK) + done * PAGE_SIZE,
					  n, gup_flags, p->umem.pages + done);
		if (ret <= 0) {
			ret = ret ? ret : -EFAULT;
			goto err_unpin;
		}
		done += ret;
		cond_resched();
	}
	p->umem.npages = npages;
	atomic64_add(npages, &ibx_pinned_pages);
	*out = &p->umem;
	return 0;

err_unpin:
	unpin_user_pages(p->umem.pages, done);
	kvfree(p->umem.pages);
err_charge:
	atomic64_sub(npages, &mm->pinned_vm);
	mmdrop(mm);
	kfree(p);
	return ret;
}

void ibx_umem_release(struct ibx_umem *umem)
{
	struct ibx_umem_priv *p;

	if (!umem)
		return;
	if (umem->odp) {
		ibx_umem_odp_release(umem);
		return;
	}
	p = container_of(umem, struct ibx_umem_priv, umem);
	unpin_user_pages_dirty_lock(umem->pages, umem->npages, umem->writable);
	atomic64_sub(umem->npages, &ibx_pinned_pages);
	atomic64_sub(umem->npages, &p->mm->pinned_vm);
	mmdrop(p->mm);
	kvfree(umem->pages);
	kfree(p);
}
