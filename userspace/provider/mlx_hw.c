// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mlx_hw.c - registration, device context, and the verbs objects that need
 * nothing from the device rings: PD, MR, MW, AH, queries.
 *
 * Assumptions where docs/prm.md and mlx_hw-abi.h are silent:
 * - no command carries a driver-private request (the ABI defines none), so
 *   every ibx_cmd_* call passes drv_in = NULL;
 * - a context whose GET_CONTEXT response has another abi_version or
 *   cqe_size than this provider was built with is refused
 *   (EPROTONOSUPPORT), and a create response whose rings do not fit its
 *   mapping is refused with EPROTO (the object is destroyed again);
 * - sq_sig_all is applied by the engine (PRM 4.2), the provider never sets
 *   SIGNALED on its own;
 * - posting sends below RTS fails with EINVAL at once, as rxe and siw do.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "mlx_hw.h"

/*
 * A clock for the heartbeat's age: the TSC where the kernel gives its rate
 * (under TCG a 6.1 guest's clocksource is the HPET, and clock_gettime()
 * costs a system call's time), else CLOCK_MONOTONIC.  Returns the time in
 * its own ticks and, in @per_us, how many make a microsecond.
 */
static uint64_t mlx_hw_clock(const struct mlx_hw_context *ctx,
			     uint64_t *per_us)
{
	struct timespec ts;
#if defined(__x86_64__) || defined(__i386__)
	uint32_t khz = le32toh(ctx->engine->tsc_khz);

	if (khz) {
		*per_us = khz / 1000 ? khz / 1000 : 1;
		return __rdtsc();
	}
#endif
	*per_us = 1000;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/*
 * Whether the engine thread, awake (NEED_WAKEUP clear), has not looked for
 * work in stale_us: its heartbeat stood still since we last saw it move,
 * for that long.  Its vCPU was preempted, or another task has its CPU; a
 * post then serves itself through WAKE instead of waiting for it (PRM 2.4).
 */
static bool engine_stalled(struct mlx_hw_context *ctx)
{
	uint32_t stale_us = le32toh(ctx->engine->stale_us);
	uint32_t hb = le32toh(__atomic_load_n(&ctx->engine->heartbeat,
					      __ATOMIC_RELAXED));
	uint64_t now, per_us;

	if (!stale_us)
		return false;
	now = mlx_hw_clock(ctx, &per_us);
	if (hb != __atomic_load_n(&ctx->hb_seen, __ATOMIC_RELAXED)) {
		__atomic_store_n(&ctx->hb_seen, hb, __ATOMIC_RELAXED);
		__atomic_store_n(&ctx->hb_since, now, __ATOMIC_RELAXED);
		return false;
	}
	return now - __atomic_load_n(&ctx->hb_since, __ATOMIC_RELAXED) >
	       (uint64_t)stale_us * per_us;
}

/*
 * Wakes a sleeping engine, or serves our own doorbells where the awake
 * engine stalls, naming the object rung if @entry is not 0.
 */
static void kick(struct ibv_context *ibctx, uint32_t entry)
{
	struct mlx_hw_context *ctx = to_mctx(ibctx);
	uint32_t flags;

	/*
	 * Full barrier: the ring entry (or overflow) store must be visible
	 * before we read the engine's flags (store->load order); the engine
	 * sets NEED_WAKEUP, fences, then re-reads the rings before sleeping,
	 * so one of the two sides always sees the other.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	flags = le32toh(__atomic_load_n(&ctx->engine->flags, __ATOMIC_RELAXED));
	if (!(flags & MLX_HW_ENGINE_NEED_WAKEUP) && !engine_stalled(ctx))
		return;
	if (entry)
		ioctl(ibctx->cmd_fd, MLX_HW_IOCTL_WAKE_DB, (unsigned long)entry);
	else
		ioctl(ibctx->cmd_fd, MLX_HW_IOCTL_WAKE);
}

void mlx_hw_kick_engine(struct ibv_context *ibctx)
{
	kick(ibctx, 0);
}

/*
 * Claims a slot only while the ring has room (a slot below ci + entries
 * was consumed and zeroed by the engine, which published ci with release
 * ordering after the zeroing), so a claimed slot is always free; a full
 * ring makes the engine look at every object of this context instead.
 */
void mlx_hw_ring_doorbell(struct ibv_context *ibctx, uint32_t kind,
			  uint32_t num)
{
	struct mlx_hw_context *ctx = to_mctx(ibctx);
	struct mlx_hw_db_ring *ring = ctx->db_ring;
	uint32_t raw = __atomic_load_n(&ring->pi, __ATOMIC_RELAXED), pi, ci;
	uint32_t entry = kind << MLX_HW_DB_KIND_SHIFT | num;

	for (;;) {
		pi = le32toh(raw);
		/* Acquire: pairs with the engine's release of ci (slot zeroed). */
		ci = le32toh(__atomic_load_n(&ring->ci, __ATOMIC_ACQUIRE));
		if (pi - ci >= ctx->db_entries) {
			/* Release: the doorbell record before the overflow word. */
			__atomic_store_n(&ring->overflow, htole32(1),
					 __ATOMIC_RELEASE);
			break;
		}
		if (__atomic_compare_exchange_n(&ring->pi, &raw,
						htole32(pi + 1), 0,
						__ATOMIC_RELAXED,
						__ATOMIC_RELAXED)) {
			/* Release: the doorbell record before the entry. */
			__atomic_store_n(&ctx->db_entry[pi & (ctx->db_entries - 1)],
					 htole32(entry), __ATOMIC_RELEASE);
			break;
		}
	}
	/* A sleeping engine serves the object rung first (WAKE_DB). */
	kick(ibctx, entry);
}

void *mlx_hw_mmap_region(struct ibv_context *ibctx, uint64_t key, size_t len,
			 int writable)
{
	void *p;

	p = mmap(NULL, len, PROT_READ | (writable ? PROT_WRITE : 0),
		 MAP_SHARED, ibctx->cmd_fd, (off_t)key);
	if (p == MAP_FAILED)
		return NULL;
	return p;
}

void *mlx_hw_dbrec(struct ibv_context *ibctx, uint64_t key, uint32_t offset)
{
	struct mlx_hw_context *ctx = to_mctx(ibctx);
	size_t page_size = sysconf(_SC_PAGESIZE);
	struct mlx_hw_dbpage *pages;
	void *addr = NULL;
	unsigned int i;

	if (offset % MLX_HW_DBREC_SIZE || offset >= page_size) {
		errno = EPROTO;
		return NULL;
	}
	pthread_mutex_lock(&ctx->dbpage_lock);
	for (i = 0; i < ctx->n_dbpages; i++) {
		if (ctx->dbpages[i].key == key) {
			addr = ctx->dbpages[i].addr;
			goto out;
		}
	}
	if (ctx->n_dbpages == ctx->max_dbpages) {
		unsigned int max = ctx->max_dbpages ? 2 * ctx->max_dbpages : 8;

		pages = realloc(ctx->dbpages, max * sizeof(*pages));
		if (!pages) {
			errno = ENOMEM;
			goto out;
		}
		ctx->dbpages = pages;
		ctx->max_dbpages = max;
	}
	addr = mlx_hw_mmap_region(ibctx, key, page_size, 1);
	if (addr) {
		ctx->dbpages[ctx->n_dbpages].key = key;
		ctx->dbpages[ctx->n_dbpages++].addr = addr;
	}
out:
	pthread_mutex_unlock(&ctx->dbpage_lock);
	return addr ? (uint8_t *)addr + offset : NULL;
}

static int mlx_hw_query_device_ex(struct ibv_context *ibctx,
				  const struct ibv_query_device_ex_input *input,
				  struct ibv_device_attr_ex *attr,
				  size_t attr_size)
{
	if (input && input->comp_mask)
		return EINVAL;
	return ibx_cmd_query_device_ex(ibctx, attr, attr_size);
}

static int mlx_hw_query_port(struct ibv_context *ibctx, uint8_t port,
			     struct ibv_port_attr *attr)
{
	return ibx_cmd_query_port(ibctx, port, attr);
}

static struct ibv_pd *mlx_hw_alloc_pd(struct ibv_context *ibctx)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));
	int ret;

	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibx_cmd_alloc_pd(ibctx, pd, NULL, 0);
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return pd;
}

static int mlx_hw_dealloc_pd(struct ibv_pd *pd)
{
	int ret = ibx_cmd_dealloc_pd(pd);

	if (!ret)
		free(pd);
	return ret;
}

static struct ibv_mr *mlx_hw_reg_mr(struct ibv_pd *pd, void *addr,
				    size_t length, uint64_t hca_va, int access)
{
	struct verbs_mr *vmr = calloc(1, sizeof(*vmr));
	int ret;

	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibx_cmd_reg_mr(pd, addr, length, hca_va, access, vmr);
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

static int mlx_hw_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			   void *addr, size_t length, int access)
{
	return ibx_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
				access, pd);
}

static int mlx_hw_dereg_mr(struct verbs_mr *vmr)
{
	int ret = ibx_cmd_dereg_mr(vmr);

	if (!ret)
		free(vmr);
	return ret;
}

static struct ibv_mw *mlx_hw_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ibv_mw *mw = calloc(1, sizeof(*mw));
	int ret;

	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibx_cmd_alloc_mw(pd, type, mw);
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

static int mlx_hw_dealloc_mw(struct ibv_mw *mw)
{
	int ret = ibx_cmd_dealloc_mw(mw);

	if (!ret)
		free(mw);
	return ret;
}

/*
 * The AH is pure userspace state: the engine takes the whole address vector
 * from each UD WQE.  RoCE has no LRH (the port's LID is 0), so an address
 * vector without a GRH names no destination: EINVAL, as Linux's core (rxe)
 * and mlx5 answer (docs/prm.md 4.3).  The destination MAC comes from the
 * kernel's neighbour table when it can be resolved.
 */
static struct ibv_ah *mlx_hw_create_ah(struct ibv_pd *pd,
				       struct ibv_ah_attr *attr)
{
	struct mlx_hw_ah *ah;

	if (!attr->is_global) {
		errno = EINVAL;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	/* A zero dmac makes the engine resolve it itself (PRM 4.2). */
	if (ibx_resolve_roce_dmac(pd->context, attr->port_num, attr,
				  ah->av.dmac))
		memset(ah->av.dmac, 0, sizeof(ah->av.dmac));
	memcpy(ah->av.dgid, attr->grh.dgid.raw, sizeof(ah->av.dgid));
	ah->av.flow_label = htole32(attr->grh.flow_label);
	ah->av.sgid_index = attr->grh.sgid_index;
	ah->av.hop_limit = attr->grh.hop_limit;
	ah->av.traffic_class = attr->grh.traffic_class;
	ah->av.sl = attr->sl;
	ah->av.is_global = 1;
	ah->ibv_ah.context = pd->context;
	ah->ibv_ah.pd = pd;
	return &ah->ibv_ah;
}

static int mlx_hw_destroy_ah(struct ibv_ah *ah)
{
	free(to_mah(ah));
	return 0;
}

static int mlx_hw_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			       uint16_t lid)
{
	return ibx_cmd_attach_mcast(qp, gid, lid);
}

/*
 * ibv_advise_mr: prefetch ranges of ODP MRs (docs/prm.md 10.4).  The
 * kernel checks the keys; IBV_ADVISE_MR_FLAG_FLUSH waits for the pages.
 */
static int mlx_hw_advise_mr(struct ibv_pd *pd,
			    enum ibv_advise_mr_advice advice, uint32_t flags,
			    struct ibv_sge *sg_list, uint32_t num_sge)
{
	struct mlx_hw_advise_mr args = {
		.advice = advice,
		.flags = flags,
		.num_sge = num_sge,
		.sg_list = (uintptr_t)sg_list,
	};

	_Static_assert(sizeof(struct ibv_sge) ==
		       sizeof(struct mlx_hw_advise_sge), "ibv_sge layout");
	if (ioctl(pd->context->cmd_fd, MLX_HW_IOCTL_ADVISE_MR, &args))
		return errno;
	return 0;
}

static int mlx_hw_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			       uint16_t lid)
{
	return ibx_cmd_detach_mcast(qp, gid, lid);
}

static const struct ibx_context_ops mlx_hw_ops = {
	.query_device_ex = mlx_hw_query_device_ex,
	.query_port = mlx_hw_query_port,
	.alloc_pd = mlx_hw_alloc_pd,
	.dealloc_pd = mlx_hw_dealloc_pd,
	.reg_mr = mlx_hw_reg_mr,
	.rereg_mr = mlx_hw_rereg_mr,
	.dereg_mr = mlx_hw_dereg_mr,
	.alloc_mw = mlx_hw_alloc_mw,
	.dealloc_mw = mlx_hw_dealloc_mw,
	.bind_mw = mlx_hw_bind_mw,
	.advise_mr = mlx_hw_advise_mr,
	.create_cq = mlx_hw_create_cq,
	.create_cq_ex = mlx_hw_create_cq_ex,
	.poll_cq = mlx_hw_poll_cq,
	.req_notify_cq = mlx_hw_req_notify_cq,
	.resize_cq = mlx_hw_resize_cq,
	.destroy_cq = mlx_hw_destroy_cq,
	.create_srq = mlx_hw_create_srq,
	.create_srq_ex = mlx_hw_create_srq_ex,
	.modify_srq = mlx_hw_modify_srq,
	.query_srq = mlx_hw_query_srq,
	.destroy_srq = mlx_hw_destroy_srq,
	.post_srq_recv = mlx_hw_post_srq_recv,
	.create_qp = mlx_hw_create_qp,
	.create_qp_ex = mlx_hw_create_qp_ex,
	.query_qp = mlx_hw_query_qp,
	.modify_qp = mlx_hw_modify_qp,
	.destroy_qp = mlx_hw_destroy_qp,
	.open_qp = mlx_hw_open_qp,
	.open_xrcd = mlx_hw_open_xrcd,
	.close_xrcd = mlx_hw_close_xrcd,
	.post_send = mlx_hw_post_send,
	.post_recv = mlx_hw_post_recv,
	.create_ah = mlx_hw_create_ah,
	.destroy_ah = mlx_hw_destroy_ah,
	.attach_mcast = mlx_hw_attach_mcast,
	.detach_mcast = mlx_hw_detach_mcast,
};

static struct ibv_context *mlx_hw_alloc_context(struct ibv_device *device,
						int cmd_fd)
{
	struct mlx_hw_alloc_ucontext_resp resp = {};
	struct mlx_hw_context *ctx;
	void *page;
	int ret;

	ctx = ibx_alloc_context(device, cmd_fd, sizeof(*ctx),
				offsetof(struct mlx_hw_context, vctx));
	if (!ctx)
		return NULL;

	ret = ibx_cmd_get_context(&ctx->vctx, NULL, 0, &resp, sizeof(resp));
	if (ret)
		goto err;
	mlx_hw_mem_defined(&resp, sizeof(resp));
	if (resp.abi_version != MLX_HW_ABI_VERSION ||
	    resp.cqe_size != sizeof(struct mlx_hw_cqe) ||
	    resp.engine_page_size < sizeof(struct mlx_hw_engine_page) ||
	    !resp.db_ring_entries ||
	    (resp.db_ring_entries & (resp.db_ring_entries - 1)) ||
	    resp.db_ring_offset < sizeof(struct mlx_hw_db_ring) ||
	    resp.db_ring_offset % 4 ||
	    resp.db_ring_offset + (uint64_t)resp.db_ring_entries * 4 >
	    resp.db_ring_size) {
		ret = EPROTONOSUPPORT;
		goto err;
	}
	page = mlx_hw_mmap_region(&ctx->vctx.context, resp.engine_page_key,
				  resp.engine_page_size, 0);
	if (!page) {
		ret = errno;
		goto err;
	}
	ctx->engine = page;
	ctx->engine_page_size = resp.engine_page_size;
	page = mlx_hw_mmap_region(&ctx->vctx.context, resp.db_ring_key,
				  resp.db_ring_size, 1);
	if (!page) {
		ret = errno;
		munmap((void *)ctx->engine, ctx->engine_page_size);
		goto err;
	}
	ctx->db_ring = page;
	ctx->db_entry = (__le32 *)((char *)page + resp.db_ring_offset);
	ctx->db_entries = resp.db_ring_entries;
	ctx->db_ring_size = resp.db_ring_size;
	ctx->max_inline_data = resp.max_inline_data;
	pthread_mutex_init(&ctx->dbpage_lock, NULL);
	ibx_set_context_ops(&ctx->vctx, &mlx_hw_ops);
	return &ctx->vctx.context;

err:
	ibx_free_context(&ctx->vctx.context);
	errno = ret;
	return NULL;
}

static void mlx_hw_free_context(struct ibv_context *ibctx)
{
	struct mlx_hw_context *ctx = to_mctx(ibctx);
	size_t page_size = sysconf(_SC_PAGESIZE);
	unsigned int i;

	for (i = 0; i < ctx->n_dbpages; i++)
		munmap(ctx->dbpages[i].addr, page_size);
	free(ctx->dbpages);
	pthread_mutex_destroy(&ctx->dbpage_lock);
	munmap(ctx->db_ring, ctx->db_ring_size);
	munmap((void *)ctx->engine, ctx->engine_page_size);
	ibx_free_context(ibctx);
}

static const struct ibx_provider mlx_hw_provider = {
	.name = "mlx_hw",
	.ibdev_prefix = "mlx_hw",
	.alloc_context = mlx_hw_alloc_context,
	.free_context = mlx_hw_free_context,
};

static __attribute__((constructor)) void mlx_hw_register(void)
{
	ibx_register_provider(&mlx_hw_provider);
}
