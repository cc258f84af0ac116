// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cq.c - completion queues: creation, the owner-bit polling of the CQE
 * ring (classic ibv_poll_cq and the extended start/next/end_poll API),
 * arming through the doorbell record, resizing, and dropping the CQEs of
 * a QP that went to RESET.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "mlx_hw.h"

static void cq_lock(struct mlx_hw_cq *cq)
{
	if (!cq->single_threaded)
		pthread_spin_lock(&cq->lock);
}

static void cq_unlock(struct mlx_hw_cq *cq)
{
	if (!cq->single_threaded)
		pthread_spin_unlock(&cq->lock);
}

/* The owner bit a valid CQE at free-running index @idx has. */
static uint8_t cq_owner_of(const struct mlx_hw_cq *cq, uint32_t idx)
{
	return 1 ^ ((idx >> cq->log_entries) & 1);
}

/*
 * The CQE at index @idx if the engine has written it, else NULL.  The
 * engine writes owner last, as 1 ^ (pass parity) (mlx_hw-abi.h), so a slot
 * left over from the previous pass (or the zeroed ring) never matches.
 */
static struct mlx_hw_cqe *cq_cqe_at(struct mlx_hw_cq *cq, uint32_t idx)
{
	struct mlx_hw_cqe *cqe = &cq->ring[idx & (cq->entries - 1)];

	if ((__atomic_load_n(&cqe->owner, __ATOMIC_RELAXED) & 1) !=
	    cq_owner_of(cq, idx))
		return NULL;
	/* Read barrier: the CQE body must not be read before its owner. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	mlx_hw_mem_defined(cqe, sizeof(*cqe));
	return cqe;
}

static struct mlx_hw_cqe *cq_next_cqe(struct mlx_hw_cq *cq)
{
	return cq_cqe_at(cq, cq->ci);
}

/* Hands the slots below cq->ci back to the engine. */
static void cq_publish_ci(struct mlx_hw_cq *cq)
{
	/* Release: our reads of the consumed CQEs finish before reuse. */
	__atomic_store_n(&cq->db->ci, htole32(cq->ci), __ATOMIC_RELEASE);
}

static void cqe_to_wc(const struct mlx_hw_cqe *cqe, struct ibv_wc *wc)
{
	wc->wr_id = le64toh(cqe->wr_id);
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = le32toh(cqe->byte_len);
	wc->wc_flags = cqe->wc_flags;
	if (wc->wc_flags & IBV_WC_WITH_INV)
		wc->invalidated_rkey = le32toh(cqe->invalidated_rkey);
	else
		wc->imm_data = cqe->imm_data;
	wc->qp_num = le32toh(cqe->qp_num);
	wc->src_qp = le32toh(cqe->src_qp);
	wc->pkey_index = le16toh(cqe->pkey_index);
	wc->slid = 0;			/* RoCE: no LIDs */
	wc->sl = cqe->sl;
	wc->dlid_path_bits = 0;
}

int mlx_hw_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct mlx_hw_cq *cq = to_mcq(ibcq);
	struct mlx_hw_cqe *cqe;
	int n;

	cq_lock(cq);
	for (n = 0; n < num_entries; n++) {
		cqe = cq_next_cqe(cq);
		if (!cqe)
			break;
		cqe_to_wc(cqe, &wc[n]);
		cq->ci++;
	}
	if (n)
		cq_publish_ci(cq);
	cq_unlock(cq);
	return n;
}

/*
 * Drops the unpolled CQEs of QP @qpn (it went to RESET): the older CQEs of
 * other QPs move up over them, each rewritten with the owner bit of its new
 * slot, and ci advances past the freed slots.  Only slots the engine has
 * handed over (valid, below its producer) are touched.
 */
void mlx_hw_cq_clean(struct mlx_hw_cq *cq, uint32_t qpn)
{
	uint32_t end, i, nfreed = 0;

	cq_lock(cq);
	for (end = cq->ci; end - cq->ci < cq->entries; end++)
		if (!cq_cqe_at(cq, end))
			break;
	for (i = end; i != cq->ci;) {
		struct mlx_hw_cqe *src = &cq->ring[--i & (cq->entries - 1)];
		struct mlx_hw_cqe *dst;

		if (le32toh(src->qp_num) == qpn) {
			nfreed++;
			continue;
		}
		if (!nfreed)
			continue;
		dst = &cq->ring[(i + nfreed) & (cq->entries - 1)];
		*dst = *src;
		dst->owner = cq_owner_of(cq, i + nfreed);
	}
	if (nfreed) {
		cq->ci += nfreed;
		cq_publish_ci(cq);
	}
	cq_unlock(cq);
}

/*
 * Arming (mlx_hw-abi.h): ci first, then the arm word with a new sequence
 * number; the engine arms on a new number and fires at once if CQEs beyond
 * ci exist, so no completion that raced with the arm is lost.
 */
int mlx_hw_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct mlx_hw_cq *cq = to_mcq(ibcq);
	uint32_t arm;

	cq_lock(cq);
	cq->arm_sn++;
	arm = (cq->arm_sn << MLX_HW_CQ_ARM_SN_SHIFT) |
	      (solicited_only ? MLX_HW_CQ_ARM_SOLICITED : MLX_HW_CQ_ARM_NEXT);
	/* Plain store: the release store of the arm word orders it. */
	__atomic_store_n(&cq->db->ci, htole32(cq->ci), __ATOMIC_RELAXED);
	/* Release: an engine that sees the new arm_sn sees that ci too. */
	__atomic_store_n(&cq->db->arm, htole32(arm), __ATOMIC_RELEASE);
	cq_unlock(cq);
	mlx_hw_ring_doorbell(ibcq->context, MLX_HW_DB_KIND_CQ, cq->cqn);
	return 0;
}

/* ---- extended polling (ibv_create_cq_ex) ---- */

static int cq_take(struct mlx_hw_cq *cq)
{
	struct mlx_hw_cqe *cqe = cq_next_cqe(cq);

	if (!cqe)
		return ENOENT;
	cq->cur = cqe;
	cq->ci++;		/* published by end_poll */
	cq->cq_ex.status = cqe->status;
	cq->cq_ex.wr_id = le64toh(cqe->wr_id);
	return 0;
}

static int cq_start_poll(struct ibv_cq_ex *ibcq, struct ibv_poll_cq_attr *attr)
{
	struct mlx_hw_cq *cq = to_mcq_ex(ibcq);
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	cq_lock(cq);
	ret = cq_take(cq);
	if (ret)
		cq_unlock(cq);	/* no end_poll follows an ENOENT start */
	return ret;
}

static int cq_next_poll(struct ibv_cq_ex *ibcq)
{
	return cq_take(to_mcq_ex(ibcq));
}

static void cq_end_poll(struct ibv_cq_ex *ibcq)
{
	struct mlx_hw_cq *cq = to_mcq_ex(ibcq);

	cq_publish_ci(cq);
	cq->cur = NULL;
	cq_unlock(cq);
}

static enum ibv_wc_opcode cq_read_opcode(struct ibv_cq_ex *ibcq)
{
	return to_mcq_ex(ibcq)->cur->opcode;
}

static uint32_t cq_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return to_mcq_ex(ibcq)->cur->vendor_err;
}

static uint32_t cq_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return le32toh(to_mcq_ex(ibcq)->cur->byte_len);
}

/*
 * ibv_wc_read_invalidated_rkey() also lands here and takes the value
 * without a byte swap: the rkey is returned in host order.
 */
static __be32 cq_read_imm_data(struct ibv_cq_ex *ibcq)
{
	struct mlx_hw_cqe *cqe = to_mcq_ex(ibcq)->cur;

	if (cqe->wc_flags & IBV_WC_WITH_INV)
		return (__be32)le32toh(cqe->invalidated_rkey);
	return cqe->imm_data;
}

static uint32_t cq_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return le32toh(to_mcq_ex(ibcq)->cur->qp_num);
}

static uint32_t cq_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return le32toh(to_mcq_ex(ibcq)->cur->src_qp);
}

static unsigned int cq_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return to_mcq_ex(ibcq)->cur->wc_flags;
}

/* RoCE has no LIDs. */
static uint32_t cq_read_slid(struct ibv_cq_ex *ibcq)
{
	return 0;
}

static uint8_t cq_read_sl(struct ibv_cq_ex *ibcq)
{
	return to_mcq_ex(ibcq)->cur->sl;
}

static uint8_t cq_read_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	return 0;
}

/* ---- creation ---- */

#define MLX_HW_CQ_WC_FLAGS IBV_WC_STANDARD_FLAGS

static struct mlx_hw_cq *cq_alloc(void)
{
	struct mlx_hw_cq *cq = calloc(1, sizeof(*cq));

	if (!cq)
		return NULL;
	if (pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE)) {
		free(cq);
		return NULL;
	}
	return cq;
}

static void cq_free(struct mlx_hw_cq *cq)
{
	pthread_spin_destroy(&cq->lock);
	free(cq);
}

/*
 * Maps and checks a region (the ring at @ring_offset) and makes it the
 * CQ's, polling from index 0.
 */
static int cq_use_region(struct ibv_context *ibctx, struct mlx_hw_cq *cq,
			 uint64_t key, uint32_t len, uint32_t ring_offset,
			 uint32_t entries)
{
	uint64_t ring_end = ring_offset + (uint64_t)entries * sizeof(*cq->ring);
	void *region;

	if (!entries || (entries & (entries - 1)) || ring_end > len)
		return EPROTO;
	region = mlx_hw_mmap_region(ibctx, key, len, 1);
	if (!region)
		return errno;
	cq->region = region;
	cq->region_len = len;
	cq->ring = (struct mlx_hw_cqe *)((uint8_t *)region + ring_offset);
	cq->entries = entries;
	cq->log_entries = __builtin_ctz(entries);
	cq->ci = 0;
	return 0;
}

/*
 * Maps the ring and finds the doorbell record the create response
 * describes; sets the poll ops.
 */
static int cq_map(struct ibv_context *ibctx, struct mlx_hw_cq *cq,
		  const struct mlx_hw_create_cq_resp *r)
{
	int ret;

	mlx_hw_mem_defined(r, sizeof(*r));
	cq->db = mlx_hw_dbrec(ibctx, r->db_key, r->db_offset);
	if (!cq->db)
		return errno;
	ret = cq_use_region(ibctx, cq, r->mmap_key, r->mmap_len,
			    r->ring_offset, r->entries);
	if (ret)
		return ret;
	cq->cqn = r->cqn;

	cq->cq_ex.start_poll = cq_start_poll;
	cq->cq_ex.next_poll = cq_next_poll;
	cq->cq_ex.end_poll = cq_end_poll;
	cq->cq_ex.read_opcode = cq_read_opcode;
	cq->cq_ex.read_vendor_err = cq_read_vendor_err;
	cq->cq_ex.read_byte_len = cq_read_byte_len;
	cq->cq_ex.read_imm_data = cq_read_imm_data;
	cq->cq_ex.read_qp_num = cq_read_qp_num;
	cq->cq_ex.read_src_qp = cq_read_src_qp;
	cq->cq_ex.read_wc_flags = cq_read_wc_flags;
	cq->cq_ex.read_slid = cq_read_slid;
	cq->cq_ex.read_sl = cq_read_sl;
	cq->cq_ex.read_dlid_path_bits = cq_read_dlid_path_bits;
	return 0;
}

struct ibv_cq *mlx_hw_create_cq(struct ibv_context *ibctx, int cqe,
				struct ibv_comp_channel *channel,
				int comp_vector)
{
	struct mlx_hw_create_cq_resp resp = {};
	struct mlx_hw_cq *cq = cq_alloc();
	int ret;

	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibx_cmd_create_cq(ibctx, cqe, channel, comp_vector, &cq->cq,
				NULL, 0, &resp, sizeof(resp));
	if (ret)
		goto err;
	ret = cq_map(ibctx, cq, &resp);
	if (ret) {
		ibx_cmd_destroy_cq(&cq->cq);
		goto err;
	}
	return &cq->cq;
err:
	cq_free(cq);
	errno = ret;
	return NULL;
}

struct ibv_cq_ex *mlx_hw_create_cq_ex(struct ibv_context *ibctx,
				      struct ibv_cq_init_attr_ex *attr)
{
	struct mlx_hw_create_cq_resp resp = {};
	struct mlx_hw_cq *cq;
	int ret;

	if ((attr->wc_flags & ~(uint64_t)MLX_HW_CQ_WC_FLAGS) ||
	    (attr->comp_mask & ~IBV_CQ_INIT_ATTR_MASK_FLAGS) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (attr->flags & ~IBV_CREATE_CQ_ATTR_SINGLE_THREADED))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	cq = cq_alloc();
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS)
		cq->single_threaded =
			!!(attr->flags & IBV_CREATE_CQ_ATTR_SINGLE_THREADED);
	ret = ibx_cmd_create_cq_ex(ibctx, attr, &cq->cq_ex, NULL, 0, &resp,
				   sizeof(resp));
	if (ret)
		goto err;
	ret = cq_map(ibctx, cq, &resp);
	if (ret) {
		ibx_cmd_destroy_cq(&cq->cq);
		goto err;
	}
	return &cq->cq_ex;
err:
	cq_free(cq);
	errno = ret;
	return NULL;
}

/*
 * Resizing (docs/prm.md, "Resizing a CQ"): under the CQ lock, so nothing
 * polls or arms meanwhile, the kernel copies the unpolled CQEs to the start
 * of a new ring and the response names its region; we switch to it (ci
 * restarts at 0, in the same doorbell record) and drop the old mapping.
 * If mapping the new region fails after the kernel switched, the CQ is
 * unusable (ENOMEM-class error returned; only destroy is left).
 */
int mlx_hw_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct mlx_hw_cq *cq = to_mcq(ibcq);
	struct mlx_hw_resize_cq_resp resp = {};
	void *old_region;
	size_t old_len;
	int ret;

	cq_lock(cq);
	if (cq->cur) {
		/* Inside start_poll/end_poll: the ring cannot move now. */
		cq_unlock(cq);
		return EBUSY;
	}
	old_region = cq->region;
	old_len = cq->region_len;
	ret = ibx_cmd_resize_cq(ibcq, cqe, &resp, sizeof(resp));
	if (!ret) {
		mlx_hw_mem_defined(&resp, sizeof(resp));
		ret = cq_use_region(ibcq->context, cq, resp.mmap_key,
				    resp.mmap_len, resp.ring_offset,
				    resp.entries);
		if (!ret)
			munmap(old_region, old_len);
	}
	cq_unlock(cq);
	return ret;
}

int mlx_hw_destroy_cq(struct ibv_cq *ibcq)
{
	struct mlx_hw_cq *cq = to_mcq(ibcq);
	int ret;

	ret = ibx_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	munmap(cq->region, cq->region_len);
	cq_free(cq);
	return 0;
}
