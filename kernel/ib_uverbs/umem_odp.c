// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * umem_odp.c - user memory for on-demand paging MRs: nothing is pinned.
 * The device's page table for the range starts empty, is filled by
 * ibx_umem_odp_fault() (process context, hmm_range_fault) and is emptied
 * by the mm's invalidations (mmu_interval_notifier: munmap, mremap,
 * madvise(DONTNEED), fork's write protection, migration, reclaim).
 *
 * The table is a sparse array of chunks (2 MiB of address space each) so
 * that an implicit MR, which covers the whole address space, costs only
 * what was touched.  Chunks are never freed before the umem.
 *
 * The engine reads pages in any context, softirq included.  A page it
 * found stays valid while it holds odp->lock for read
 * (ibx_umem_odp_lock_page .. ibx_umem_odp_unlock): invalidate() takes the
 * lock for write before it lets the mm free or remap the page.
 */
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/hmm.h>
#include <linux/mmu_notifier.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include "core_priv.h"

#define IBX_ODP_CHUNK_PAGES	512
#define IBX_ODP_CHUNK_SHIFT	(PAGE_SHIFT + 9)

struct ibx_umem_odp {
	struct ibx_umem umem;
	struct mmu_interval_notifier notifier;
	struct mm_struct *mm;		/* mmgrab: the notifier's mm */
	rwlock_t lock;			/* read: engine access; write: changes */
	struct xarray chunks;		/* ibx_odp_chunk_idx() -> struct page *[] */
	unsigned long start, end;	/* page-aligned range covered */
	void (*invalidated)(void *arg, unsigned long npages);
	void *invalidated_arg;
};

static struct ibx_umem_odp *to_odp(struct ibx_umem *umem)
{
	return container_of(umem, struct ibx_umem_odp, umem);
}

/*
 * The index of @va's chunk, counted from the umem's first one.  Small
 * indexes keep the xarray shallow: an MR of up to 128 MiB is one node,
 * where the chunk number of a user address (near 2^26) would make every
 * lookup of the data path walk five levels.
 */
static unsigned long ibx_odp_chunk_idx(const struct ibx_umem_odp *odp,
				       unsigned long va)
{
	return (va >> IBX_ODP_CHUNK_SHIFT) - (odp->start >> IBX_ODP_CHUNK_SHIFT);
}

/* The first address of chunk @idx. */
static unsigned long ibx_odp_chunk_va(const struct ibx_umem_odp *odp,
				      unsigned long idx)
{
	return ((odp->start >> IBX_ODP_CHUNK_SHIFT) + idx) << IBX_ODP_CHUNK_SHIFT;
}

/* The table slot of @va; NULL if its chunk was never faulted. */
static struct page **ibx_odp_slot(struct ibx_umem_odp *odp, unsigned long va)
{
	struct page **chunk = xa_load(&odp->chunks, ibx_odp_chunk_idx(odp, va));

	if (!chunk)
		return NULL;
	return &chunk[(va >> PAGE_SHIFT) & (IBX_ODP_CHUNK_PAGES - 1)];
}

static bool ibx_odp_invalidate(struct mmu_interval_notifier *mni,
			       const struct mmu_notifier_range *range,
			       unsigned long cur_seq)
{
	struct ibx_umem_odp *odp = container_of(mni, struct ibx_umem_odp,
						notifier);
	unsigned long start = max(range->start, odp->start);
	unsigned long end = min(range->end, odp->end), va, lo, hi, ci, n = 0;
	struct page **chunk, **slot;

	if (start >= end)
		return true;
	/*
	 * A spinning lock, so non-blockable invalidations (the OOM reaper)
	 * are served too: readers hold it only for one page's copy.  Only
	 * chunks that exist are visited: munmap of a huge reservation costs
	 * an implicit MR only what it touched.
	 */
	write_lock_bh(&odp->lock);
	mmu_interval_set_seq(mni, cur_seq);
	xa_for_each_range(&odp->chunks, ci, chunk, ibx_odp_chunk_idx(odp, start),
			  ibx_odp_chunk_idx(odp, end - 1)) {
		lo = max(start, ibx_odp_chunk_va(odp, ci));
		hi = min(end, ibx_odp_chunk_va(odp, ci + 1));
		for (va = lo; va < hi; va += PAGE_SIZE) {
			slot = &chunk[(va >> PAGE_SHIFT) &
				      (IBX_ODP_CHUNK_PAGES - 1)];
			if (*slot) {
				WRITE_ONCE(*slot, NULL);
				n++;
			}
		}
	}
	write_unlock_bh(&odp->lock);
	if (n && odp->invalidated)
		odp->invalidated(odp->invalidated_arg, n);
	return true;
}

static const struct mmu_interval_notifier_ops ibx_odp_ops = {
	.invalidate = ibx_odp_invalidate,
};

/*
 * An ODP umem for [addr, addr + length) of the current mm, or for all of
 * it (implicit: addr 0, length U64_MAX).  Nothing is pinned or charged to
 * RLIMIT_MEMLOCK.
 */
int ibx_umem_odp_get(u64 addr, u64 length, u32 access, struct ibx_umem **out)
{
	struct mm_struct *mm = current->mm;
	bool implicit = !addr && length == U64_MAX;
	struct ibx_umem_odp *odp;
	u64 end = addr + length;
	int ret;

	if (!mm)
		return -EFAULT;
	if (!implicit && (!length || end < addr || PAGE_ALIGN(end) < end ||
			  PAGE_ALIGN(end) > TASK_SIZE))
		return -EINVAL;
	odp = kzalloc(sizeof(*odp), GFP_KERNEL);
	if (!odp)
		return -ENOMEM;
	odp->umem.address = addr;
	odp->umem.length = length;
	odp->umem.offset = addr & ~PAGE_MASK;
	odp->umem.writable = ibx_umem_access_writable(access);
	odp->umem.odp = true;
	odp->start = implicit ? 0 : addr & PAGE_MASK;
	odp->end = implicit ? TASK_SIZE : PAGE_ALIGN(end);
	rwlock_init(&odp->lock);
	xa_init(&odp->chunks);
	odp->mm = mm;
	mmgrab(mm);
	ret = mmu_interval_notifier_insert(&odp->notifier, mm, odp->start,
					   odp->end - odp->start, &ibx_odp_ops);
	if (ret) {
		mmdrop(mm);
		kfree(odp);
		return ret;
	}
	*out = &odp->umem;
	return 0;
}

void ibx_umem_odp_release(struct ibx_umem *umem)
{
	struct ibx_umem_odp *odp = to_odp(umem);
	struct page **chunk;
	unsigned long i;

	/* Waits for an invalidation under way; none can start after. */
	mmu_interval_notifier_remove(&odp->notifier);
	xa_for_each(&odp->chunks, i, chunk)
		kfree(chunk);
	xa_destroy(&odp->chunks);
	mmdrop(odp->mm);
	kfree(odp);
}

/**
 * ibx_umem_odp_set_notify() - name who hears of invalidations
 * @umem: an ODP umem
 * @fn: called after an invalidation took pages away, with their number
 * @arg: its first argument (the driver's device, for its counters)
 *
 * Set by the driver's reg_mr, before the MR is used.
 */
void ibx_umem_odp_set_notify(struct ibx_umem *umem,
			     void (*fn)(void *arg, unsigned long npages),
			     void *arg)
{
	struct ibx_umem_odp *odp = to_odp(umem);

	write_lock_bh(&odp->lock);
	odp->invalidated_arg = arg;
	odp->invalidated = fn;
	write_unlock_bh(&odp->lock);
}
EXPORT_SYMBOL_GPL(ibx_umem_odp_set_notify);

/**
 * ibx_umem_odp_lock_page() - the device's page of a user address, locked
 * @umem: an ODP umem
 * @va: the user address
 *
 * Any context.  The page stays valid until ibx_umem_odp_unlock(): an
 * invalidation waits for it.
 *
 * Return: the page, or NULL (and nothing held) if it is not mapped for the
 * device now.
 */
struct page *ibx_umem_odp_lock_page(struct ibx_umem *umem, u64 va)
{
	struct ibx_umem_odp *odp = to_odp(umem);
	struct page **slot;

	if (va < odp->start || va >= odp->end)
		return NULL;
	read_lock_bh(&odp->lock);
	slot = ibx_odp_slot(odp, va);
	if (slot && *slot)
		return *slot;
	read_unlock_bh(&odp->lock);
	return NULL;
}
EXPORT_SYMBOL_GPL(ibx_umem_odp_lock_page);

/**
 * ibx_umem_odp_unlock() - end the access ibx_umem_odp_lock_page() began
 * @umem: the umem it returned a page of
 */
void ibx_umem_odp_unlock(struct ibx_umem *umem)
{
	read_unlock_bh(&to_odp(umem)->lock);
}
EXPORT_SYMBOL_GPL(ibx_umem_odp_unlock);

/**
 * ibx_umem_odp_mapped() - whether a range is mapped for the device now
 * @umem: an ODP umem
 * @va: user address of the range
 * @len: its length in bytes
 *
 * A hint, read without the lock: the access itself checks again.
 *
 * Return: true if every page of [@va, @va + @len) is mapped.
 */
bool ibx_umem_odp_mapped(struct ibx_umem *umem, u64 va, u64 len)
{
	struct ibx_umem_odp *odp = to_odp(umem);
	unsigned long pos, end = va + len;
	struct page **slot;

	if (va < odp->start || end > odp->end || end < va)
		return false;
	for (pos = va & PAGE_MASK; pos < end; pos += PAGE_SIZE) {
		slot = ibx_odp_slot(odp, pos);
		if (!slot || !READ_ONCE(*slot))
			return false;
	}
	return true;
}
EXPORT_SYMBOL_GPL(ibx_umem_odp_mapped);

/* The chunk of @va, allocated on first use (process context). */
static struct page **ibx_odp_chunk(struct ibx_umem_odp *odp, unsigned long va)
{
	unsigned long idx = ibx_odp_chunk_idx(odp, va);
	struct page **chunk = xa_load(&odp->chunks, idx), **old;

	if (chunk)
		return chunk;
	chunk = kcalloc(IBX_ODP_CHUNK_PAGES, sizeof(*chunk), GFP_KERNEL);
	if (!chunk)
		return NULL;
	old = xa_cmpxchg(&odp->chunks, idx, NULL, chunk, GFP_KERNEL);
	if (xa_is_err(old)) {
		kfree(chunk);
		return NULL;
	}
	if (old) {	/* another fault was first */
		kfree(chunk);
		return old;
	}
	return chunk;
}

/*
 * Maps [start, end), within one chunk, into the table.  @pfns has room for
 * a chunk.  Pages of a writable umem are entered only when writable, and
 * marked dirty: the engine writes them behind the CPU's page tables, and
 * writeback cleaning them again write-protects them, which invalidates.
 */
static int ibx_odp_map_chunk(struct ibx_umem_odp *odp, unsigned long start,
			     unsigned long end, unsigned long *pfns,
			     bool fault, unsigned long *mapped)
{
	unsigned long i, n = (end - start) >> PAGE_SHIFT, valid;
	struct hmm_range range = {
		.notifier = &odp->notifier,
		.start = start,
		.end = end,
		.hmm_pfns = pfns,
	};
	struct page **chunk, **slot, *page;
	int ret;

	valid = HMM_PFN_VALID | (odp->umem.writable ? HMM_PFN_WRITE : 0);
	if (fault)
		range.default_flags = HMM_PFN_REQ_FAULT |
			(odp->umem.writable ? HMM_PFN_REQ_WRITE : 0);
	chunk = ibx_odp_chunk(odp, start);
	if (!chunk)
		return -ENOMEM;
	for (;;) {
		if (fatal_signal_pending(current))
			return -EINTR;
		range.notifier_seq = mmu_interval_read_begin(&odp->notifier);
		mmap_read_lock(odp->mm);
		ret = hmm_range_fault(&range);
		mmap_read_unlock(odp->mm);
		if (ret == -EBUSY)
			continue;
		if (ret)
			return ret;
		write_lock_bh(&odp->lock);
		if (!mmu_interval_read_retry(&odp->notifier,
					     range.notifier_seq))
			break;
		write_unlock_bh(&odp->lock);
	}
	for (i = 0; i < n; i++) {
		slot = &chunk[((start >> PAGE_SHIFT) + i) &
			      (IBX_ODP_CHUNK_PAGES - 1)];
		if ((pfns[i] & valid) != valid)
			continue;
		page = hmm_pfn_to_page(pfns[i]);
		if (*slot == page) {
			pfns[i] = 0;
			continue;
		}
		WRITE_ONCE(*slot, page);
		(*mapped)++;
		if (odp->umem.writable)
			get_page(page);	/* for the dirtying below */
		else
			pfns[i] = 0;
	}
	write_unlock_bh(&odp->lock);
	for (i = 0; i < n; i++) {
		if ((pfns[i] & valid) != valid)
			continue;
		page = hmm_pfn_to_page(pfns[i]);
		set_page_dirty_lock(page);
		put_page(page);
	}
	return 0;
}

/**
 * ibx_umem_odp_fault() - map a range of an ODP umem for the device
 * @umem: an ODP umem
 * @va: user address of the range
 * @len: its length in bytes
 * @fault: fault the pages in first; false: take only what is present
 * @mapped: set to the number of pages entered into the table
 *
 * Process context: it takes the mm's mmap lock.
 *
 * Return: 0, or -EFAULT when part of the range is not mapped in the
 * process (or not writable for a writable MR) or the process is gone,
 * -ENOMEM, -EINTR.
 */
int ibx_umem_odp_fault(struct ibx_umem *umem, u64 va, u64 len, bool fault,
		       unsigned long *mapped)
{
	struct ibx_umem_odp *odp = to_odp(umem);
	unsigned long pos, next, end = va + len;
	unsigned long *pfns;
	int ret = 0;

	might_sleep();
	*mapped = 0;
	if (!len)
		return 0;
	if (va < odp->start || end > odp->end || end < va)
		return -EFAULT;
	if (!mmget_not_zero(odp->mm))
		return -EFAULT;
	pfns = kvmalloc_array(IBX_ODP_CHUNK_PAGES, sizeof(*pfns), GFP_KERNEL);
	if (!pfns) {
		mmput(odp->mm);
		return -ENOMEM;
	}
	for (pos = va & PAGE_MASK; pos < end && !ret; pos = next) {
		next = min_t(unsigned long, PAGE_ALIGN(end),
			     (pos | ((1UL << IBX_ODP_CHUNK_SHIFT) - 1)) + 1);
		ret = ibx_odp_map_chunk(odp, pos, next, pfns, fault, mapped);
		cond_resched();
	}
	kvfree(pfns);
	mmput(odp->mm);
	return ret;
}
EXPORT_SYMBOL_GPL(ibx_umem_odp_fault);
