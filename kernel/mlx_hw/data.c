// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * data.c - validated scatter/gather lists over MRs, and the copies between
 * them and packets: payload goes into an sk_buff either copied or, for
 * packets that never leave the host, as page frags referencing the pinned
 * user pages themselves (zero-copy); it comes out of an sk_buff straight
 * into pinned user pages (kmap_local_page).  Plus the 8-byte atomics.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <linux/spinlock.h>
#include <linux/sched.h>
#include "mlx_hw.h"

/* Makes atomics of all mlx_hw devices atomic with respect to each other. */
static DEFINE_SPINLOCK(mlx_hw_atomic_lock);

/*
 * Appends a local SGE: the lkey must name a valid MR of @pd that covers the
 * range and grants @access (only LOCAL_WRITE matters locally).
 * -EACCES: protection error, -EMSGSIZE: message too long.
 */
int mlx_hw_sgl_add(struct mlx_hw_dev *dev, struct mlx_hw_pd *pd,
		   struct mlx_hw_sgl *sgl, u32 lkey, u64 addr, u32 len,
		   u32 access)
{
	struct mlx_hw_mr *mr;
	struct mlx_hw_seg *seg;

	if (!len)
		return 0;
	if (sgl->num >= sgl->cap)
		return -EINVAL;
	if ((u64)sgl->total + len > MLX_HW_MAX_MSG_SZ)
		return -EMSGSIZE;
	mr = mlx_hw_mr_get(dev, lkey);
	if (!mr)
		return -EACCES;
	if (mr->ibx.pd != &pd->ibx || READ_ONCE(mr->invalid) ||
	    (access & ~mr->ibx.access) || !mlx_hw_mr_covers(mr, addr, len)) {
		mlx_hw_mr_put(mr);
		return -EACCES;
	}
	seg = &sgl->seg[sgl->num++];
	seg->mr = mr;
	sgl->odp |= mlx_hw_mr_odp(mr);
	seg->key = lkey;
	seg->off = addr - mr->ibx.iova;
	seg->len = len;
	sgl->total += len;
	return 0;
}

/*
 * Sets @sgl to one remote range: the QP must allow the remote access
 * (its access flags, IBA 10.2.4) and the rkey must name an MR or a bound
 * window (mw.c) granting it that covers [va, va + len).  -EACCES otherwise.
 */
int mlx_hw_sgl_set_remote(struct mlx_hw_dev *dev, struct mlx_hw_qp *qp,
			  struct mlx_hw_sgl *sgl, u32 rkey, u64 va, u32 len,
			  u32 access)
{
	struct mlx_hw_mr *mr;

	mlx_hw_sgl_init(sgl);
	if ((qp->access & access) != access)
		return -EACCES;
	mr = mlx_hw_rkey_resolve(dev, qp, rkey, va, len, access);
	if (!mr)
		return -EACCES;
	sgl->remote = true;
	sgl->rkey = rkey;
	sgl->va = va;
	sgl->access = access;
	sgl->seg[0].mr = mr;
	sgl->odp = mlx_hw_mr_odp(mr);
	sgl->seg[0].off = va - mr->ibx.iova;
	sgl->seg[0].len = len;
	sgl->num = 1;
	sgl->total = len;
	return 0;
}

void mlx_hw_sgl_release(struct mlx_hw_sgl *sgl)
{
	mlx_hw_sgl_park(sgl);
	mlx_hw_sgl_init(sgl);
}

/* Drops the MR references of a list that is going to wait. */
void mlx_hw_sgl_park(struct mlx_hw_sgl *sgl)
{
	u32 i;

	if (sgl->parked || sgl->kbuf || !sgl->num)
		return;
	for (i = 0; i < sgl->num; i++) {
		if (sgl->seg[i].mr)
			mlx_hw_mr_put(sgl->seg[i].mr);
		sgl->seg[i].mr = NULL;
	}
	sgl->parked = true;
}

/*
 * Takes the references of a parked list again; -EACCES (list left parked)
 * if a key no longer names a usable MR (deregistered or invalidated).
 */
int mlx_hw_sgl_unpark(struct mlx_hw_dev *dev, struct mlx_hw_qp *qp,
		      struct mlx_hw_sgl *sgl)
{
	struct mlx_hw_seg *seg;
	u32 i;

	if (!sgl->parked)
		return 0;
	for (i = 0; i < sgl->num; i++) {
		seg = &sgl->seg[i];
		if (sgl->remote) {
			seg->mr = mlx_hw_rkey_resolve(dev, qp, sgl->rkey,
						      sgl->va, seg->len,
						      sgl->access);
			/* A window may now be bound to another MR. */
			if (seg->mr) {
				seg->off = sgl->va - seg->mr->ibx.iova;
				sgl->odp = mlx_hw_mr_odp(seg->mr);
			}
		} else
			seg->mr = mlx_hw_mr_get(dev, seg->key);
		if (!seg->mr || READ_ONCE(seg->mr->invalid) ||
		    seg->mr->ibx.length < seg->len ||
		    seg->off > seg->mr->ibx.length - seg->len) {
			if (seg->mr)
				mlx_hw_mr_put(seg->mr);
			seg->mr = NULL;
			sgl->parked = false;
			mlx_hw_sgl_park(sgl);
			return -EACCES;
		}
	}
	sgl->parked = false;
	return 0;
}

/*
 * The page of a kernel MR's byte at kernel virtual address @va: linear
 * map or vmalloc memory only (what kmalloc, vmalloc and alloc_pages
 * give); anything else (module text, an unmapped or user address) is no
 * memory a consumer may name, and fails as a protection error would.
 */
static struct page *mlx_hw_kva_page(u64 va, unsigned int *in_page)
{
	const void *p = (const void *)(uintptr_t)va;
	struct page *page = NULL;

	if (is_vmalloc_addr(p))
		page = vmalloc_to_page(p);
	else if (virt_addr_valid(p))
		page = virt_to_page(p);
	*in_page = offset_in_page(va);
	return page;
}

/*
 * The page holding byte @off of segment @seg, and the offset in it, for
 * one access that mlx_hw_seg_page_done() ends: a page of an ODP MR stays
 * valid only until then (umem_odp.c).  NULL with *@err -EAGAIN when an
 * ODP page is not mapped for the device now (odp.c faults it in), or
 * -EFAULT when there is no such page.
 */
static struct page *mlx_hw_seg_page(const struct mlx_hw_seg *seg, u64 off,
				    unsigned int *in_page, int *err)
{
	struct ibx_umem *umem = seg->mr->ibx.umem;
	struct page *page;
	u64 pos;
	unsigned long idx;

	*err = -EFAULT;
	if (!umem) {
		page = mlx_hw_kva_page(seg->mr->ibx.iova + seg->off + off,
				       in_page);
	} else if (umem->odp) {
		pos = umem->address + seg->off + off;
		*in_page = pos & ~PAGE_MASK;
		page = ibx_umem_odp_lock_page(umem, pos);
		if (!page)
			*err = -EAGAIN;
	} else {
		pos = umem->offset + seg->off + off;
		idx = pos >> PAGE_SHIFT;
		*in_page = pos & ~PAGE_MASK;
		page = idx < umem->npages ? umem->pages[idx] : NULL;
	}
	return page;
}

/* Ends the access mlx_hw_seg_page() began (a page it returned). */
static void mlx_hw_seg_page_done(const struct mlx_hw_seg *seg)
{
	if (mlx_hw_mr_odp(seg->mr))
		ibx_umem_odp_unlock(seg->mr->ibx.umem);
}

/* Bytes left in the cursor's current segment, skipping exhausted ones. */
static u32 mlx_hw_cursor_avail(struct mlx_hw_cursor *c)
{
	const struct mlx_hw_sgl *sgl = c->sgl;

	if (sgl->kbuf)
		return sgl->total - c->off;
	while (c->idx < sgl->num && c->off >= sgl->seg[c->idx].len) {
		c->idx++;
		c->off = 0;
	}
	if (c->idx >= sgl->num)
		return 0;
	return sgl->seg[c->idx].len - c->off;
}

/* Moves a cursor forward by @len bytes. */
void mlx_hw_cursor_skip(struct mlx_hw_cursor *c, u32 len)
{
	const struct mlx_hw_sgl *sgl = c->sgl;

	if (sgl->kbuf) {
		c->off += len;
		return;
	}
	while (len && c->idx < sgl->num) {
		u32 n = min(len, sgl->seg[c->idx].len - c->off);

		c->off += n;
		len -= n;
		if (c->off == sgl->seg[c->idx].len) {
			c->idx++;
			c->off = 0;
		}
	}
}

/*
 * Copies @len bytes of @skb, from @off, to @dst (MR-backed) and advances
 * it.  -EMSGSIZE if @dst runs out, -EFAULT if the skb or a page is short.
 */
int mlx_hw_copy_from_skb(struct mlx_hw_cursor *dst, const struct sk_buff *skb,
			 u32 off, u32 len)
{
	while (len) {
		u32 davail = mlx_hw_cursor_avail(dst);
		unsigned int doff;
		const struct mlx_hw_seg *seg;
		struct page *dpage;
		u8 *dmap;
		u32 n;
		int err;

		if (!davail || dst->sgl->kbuf)
			return -EMSGSIZE;
		seg = &dst->sgl->seg[dst->idx];
		dpage = mlx_hw_seg_page(seg, dst->off, &doff, &err);
		if (!dpage)
			return err;
		n = min3(len, davail, (u32)(PAGE_SIZE - doff));
		dmap = kmap_local_page(dpage);
		err = skb_copy_bits(skb, off, dmap + doff, n);
		kunmap_local(dmap);
		mlx_hw_seg_page_done(seg);
		if (err)
			return -EFAULT;
		dst->off += n;
		off += n;
		len -= n;
	}
	return 0;
}

/* Page-bounded pieces the next @len bytes of @c span (frags needed). */
static unsigned int mlx_hw_cursor_pieces(const struct mlx_hw_cursor *c,
					 u32 len)
{
	struct mlx_hw_cursor w = *c;
	const struct ibx_umem *umem;
	unsigned int pieces = 0;
	u32 n, in_page;

	while (len) {
		u32 avail = mlx_hw_cursor_avail(&w);

		/*
		 * Kernel memory is always copied: slab pages must not be
		 * referenced from packets, and the consumer may free it
		 * once its WQE completes.  User memory, ODP included, goes
		 * as page frags holding page references: a loopback packet
		 * is read by the local responder within the WQE's life, as a
		 * HCA's DMA reads its buffer, and an invalidation meanwhile
		 * cannot free the page under it (mlx_hw_skb_add_data()).
		 * umem->offset is byte 0's offset in its page for both kinds.
		 */
		if (!avail)
			return UINT_MAX;
		umem = w.sgl->seg[w.idx].mr->ibx.umem;
		if (!umem)
			return UINT_MAX;
		in_page = (umem->offset + w.sgl->seg[w.idx].off + w.off) &
			  ~PAGE_MASK;
		n = min3(len, avail, (u32)PAGE_SIZE - in_page);
		w.off += n;
		len -= n;
		pieces++;
	}
	return pieces;
}

/*
 * Whether the next @len bytes of @src can go into a packet as page frags:
 * they come from MRs (not a kernel buffer that will be reused) and span no
 * more pages than an skb has frags.
 */
bool mlx_hw_can_zcopy(const struct mlx_hw_cursor *src, u32 len)
{
	return !src->sgl->kbuf &&
	       mlx_hw_cursor_pieces(src, len) <= MAX_SKB_FRAGS;
}

/*
 * Appends @len bytes from @src to @skb and advances @src: with @zcopy as
 * page frags holding page references (the caller checked
 * mlx_hw_can_zcopy() and allocated no linear room for them), else copied
 * into the linear tail.  -EMSGSIZE / -EFAULT if @src is short.
 */
int mlx_hw_skb_add_data(struct sk_buff *skb, struct mlx_hw_cursor *src,
			u32 len, bool zcopy)
{
	while (len) {
		u32 savail = mlx_hw_cursor_avail(src);
		const struct mlx_hw_seg *seg;
		unsigned int soff;
		struct page *spage;
		u8 *smap;
		u32 n;
		int err;

		if (!savail)
			return -EMSGSIZE;
		if (src->sgl->kbuf) {
			n = min(len, savail);
			skb_put_data(skb, src->sgl->kbuf + src->off, n);
			src->off += n;
			len -= n;
			continue;
		}
		seg = &src->sgl->seg[src->idx];
		spage = mlx_hw_seg_page(seg, src->off, &soff, &err);
		if (!spage)
			return err;
		n = min3(len, savail, (u32)(PAGE_SIZE - soff));
		if (zcopy) {
			/*
			 * The packet keeps the page even past a dereg or,
			 * ODP, an invalidation: taken while the page is
			 * locked for the device (mlx_hw_seg_page()).
			 */
			get_page(spage);
			skb_fill_page_desc(skb, skb_shinfo(skb)->nr_frags,
					   spage, soff, n);
			skb->len += n;
			skb->data_len += n;
			skb->truesize += n;
		} else {
			smap = kmap_local_page(spage);
			skb_put_data(skb, smap + soff, n);
			kunmap_local(smap);
		}
		mlx_hw_seg_page_done(seg);
		src->off += n;
		len -= n;
	}
	return 0;
}

int mlx_hw_copy_from_kbuf(struct mlx_hw_cursor *dst, const void *buf, u32 len)
{
	const u8 *from = buf;

	while (len) {
		u32 davail = mlx_hw_cursor_avail(dst);
		const struct mlx_hw_seg *seg;
		unsigned int doff;
		struct page *dpage;
		u8 *dmap;
		u32 n;
		int err;

		if (!davail || dst->sgl->kbuf)
			return -EMSGSIZE;
		seg = &dst->sgl->seg[dst->idx];
		dpage = mlx_hw_seg_page(seg, dst->off, &doff, &err);
		if (!dpage)
			return err;
		n = min3(len, davail, (u32)(PAGE_SIZE - doff));
		dmap = kmap_local_page(dpage);
		memcpy(dmap + doff, from, n);
		kunmap_local(dmap);
		mlx_hw_seg_page_done(seg);
		dst->off += n;
		from += n;
		len -= n;
	}
	return 0;
}

/*
 * Copies @len bytes from @src (MR-backed or a kernel buffer) to @dst and
 * advances both: the payload of a request handed over directly
 * (direct.c), one copy from the sender's buffers to the receiver's.
 * -EMSGSIZE if @dst runs out, -EFAULT if @src is short or a page missing,
 * -EAGAIN if an ODP page of @dst is not mapped now, -ENODATA if one of
 * @src is not: the two faults are answered differently (resp.c).
 */
static int mlx_hw_copy_cursor(struct mlx_hw_cursor *dst,
			      struct mlx_hw_cursor *src, u32 len)
{
	while (len) {
		u32 savail = mlx_hw_cursor_avail(src);
		const struct mlx_hw_seg *seg;
		unsigned int soff;
		struct page *spage;
		u8 *smap;
		u32 n;
		int err;

		if (!savail)
			return -EFAULT;
		if (src->sgl->kbuf) {
			n = min(len, savail);
			err = mlx_hw_copy_from_kbuf(dst, src->sgl->kbuf +
						    src->off, n);
			if (err)
				return err;
			src->off += n;
			len -= n;
			continue;
		}
		seg = &src->sgl->seg[src->idx];
		spage = mlx_hw_seg_page(seg, src->off, &soff, &err);
		if (!spage)
			return err == -EAGAIN ? -ENODATA : -EFAULT;
		n = min3(len, savail, (u32)(PAGE_SIZE - soff));
		smap = kmap_local_page(spage);
		err = mlx_hw_copy_from_kbuf(dst, smap + soff, n);
		kunmap_local(smap);
		mlx_hw_seg_page_done(seg);
		if (err)
			return err;
		src->off += n;
		len -= n;
	}
	return 0;
}

/*
 * Copies the payload of @rx to @dst and advances @dst: from the packet, or
 * from the sender's buffers of a direct request, which @rx keeps pointing
 * at (the responder may place a payload again after an ODP fault of its
 * own pages).  Errors as mlx_hw_copy_from_skb(); also -ENODATA for a
 * direct request whose ODP source page is not mapped now.
 */
int mlx_hw_rx_copy(struct mlx_hw_cursor *dst, const struct mlx_hw_rx *rx)
{
	struct mlx_hw_cursor src;

	if (rx->skb)
		return mlx_hw_copy_from_skb(dst, rx->skb, rx->pkt.hdrlen,
					    rx->pkt.paylen);
	src = *rx->src;
	return mlx_hw_copy_cursor(dst, &src, rx->pkt.paylen);
}

/*
 * Executes an 8-byte atomic on an aligned remote segment: 0, -EAGAIN (an
 * ODP page not mapped now) or -EFAULT.
 */
int mlx_hw_atomic(struct mlx_hw_seg *seg, bool cmp_swp, u64 swap_add,
		  u64 compare, u64 *orig)
{
	unsigned int off;
	struct page *page;
	u64 *p;
	u8 *map;
	int err;

	page = mlx_hw_seg_page(seg, 0, &off, &err);
	if (!page)
		return err;
	if (off & 7) {	/* checked with the key: cannot happen */
		mlx_hw_seg_page_done(seg);
		return -EFAULT;
	}
	map = kmap_local_page(page);
	p = (u64 *)(map + off);
	spin_lock_bh(&mlx_hw_atomic_lock);
	*orig = READ_ONCE(*p);
	if (!cmp_swp)
		WRITE_ONCE(*p, *orig + swap_add);
	else if (*orig == compare)
		WRITE_ONCE(*p, swap_add);
	spin_unlock_bh(&mlx_hw_atomic_lock);
	kunmap_local(map);
	mlx_hw_seg_page_done(seg);
	return 0;
}
