// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fake_provider.c - a provider without hardware or kernel for native tests
 * of libibverbs: its devices are "fakehca*" in a fake sysfs, its verbs
 * answer from memory.  Loaded through IBX_PROVIDER_DIR only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/ibx_driver.h>

struct fake_context {
	int pad;			/* the verbs_context need not be first */
	struct verbs_context vctx;
	uint32_t next_key;
};

static struct fake_context *to_fctx(struct ibv_context *ctx)
{
	return (struct fake_context *)((char *)verbs_get_ctx(ctx) -
				       offsetof(struct fake_context, vctx));
}

static int fake_query_device_ex(struct ibv_context *context,
				const struct ibv_query_device_ex_input *input,
				struct ibv_device_attr_ex *attr,
				size_t attr_size)
{
	struct ibv_device_attr_ex full = {};

	strcpy(full.orig_attr.fw_ver, "1.2.3");
	full.orig_attr.node_guid = htobe64(0x0002c9fffe000001ULL);
	full.orig_attr.sys_image_guid = full.orig_attr.node_guid;
	full.orig_attr.vendor_id = 0x02c9;
	full.orig_attr.vendor_part_id = 4242;
	full.orig_attr.hw_ver = 7;
	full.orig_attr.max_qp = 64;
	full.orig_attr.max_qp_wr = 1024;
	full.orig_attr.max_cq = 64;
	full.orig_attr.max_cqe = 4096;
	full.orig_attr.max_mr = 128;
	full.orig_attr.max_pd = 16;
	full.orig_attr.max_mr_size = 1ULL << 32;
	full.orig_attr.page_size_cap = 4096;
	full.orig_attr.max_pkeys = 1;
	full.orig_attr.phys_port_cnt = 1;
	full.phys_port_cnt_ex = 1;
	if (attr_size > sizeof(full))
		attr_size = sizeof(full);
	memcpy(attr, &full, attr_size);
	return 0;
}

static int fake_query_port(struct ibv_context *context, uint8_t port_num,
			   struct ibv_port_attr *attr)
{
	if (port_num != 1)
		return EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->state = IBV_PORT_ACTIVE;
	attr->max_mtu = IBV_MTU_4096;
	attr->active_mtu = IBV_MTU_1024;
	attr->gid_tbl_len = 2;
	attr->pkey_tbl_len = 1;
	attr->max_msg_sz = 1 << 30;
	attr->phys_state = 5;
	attr->active_width = 1;
	attr->active_speed = 1;
	attr->link_layer = IBV_LINK_LAYER_ETHERNET;
	attr->port_cap_flags2 = IBV_PORT_LINK_WIDTH_2X_SUP;
	return 0;
}

static struct ibv_pd *fake_alloc_pd(struct ibv_context *context)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));

	if (!pd)
		errno = ENOMEM;
	return pd;
}

static int fake_dealloc_pd(struct ibv_pd *pd)
{
	free(pd);
	return 0;
}

static struct ibv_mr *fake_reg_mr(struct ibv_pd *pd, void *addr,
				  size_t length, uint64_t hca_va, int access)
{
	struct verbs_mr *vmr = calloc(1, sizeof(*vmr));

	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}
	vmr->ibv_mr.lkey = vmr->ibv_mr.rkey = ++to_fctx(pd->context)->next_key;
	vmr->access = access;
	return &vmr->ibv_mr;
}

static int fake_dereg_mr(struct verbs_mr *vmr)
{
	free(vmr);
	return 0;
}

static struct ibv_cq *fake_create_cq(struct ibv_context *context, int cqe,
				     struct ibv_comp_channel *channel,
				     int comp_vector)
{
	struct ibv_cq *cq = calloc(1, sizeof(*cq));

	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	cq->cqe = cqe;
	pthread_mutex_init(&cq->mutex, NULL);
	pthread_cond_init(&cq->cond, NULL);
	return cq;
}

static int fake_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	return 0;
}

static int fake_destroy_cq(struct ibv_cq *cq)
{
	free(cq);
	return 0;
}

static const struct ibx_context_ops fake_ops = {
	.query_device_ex = fake_query_device_ex,
	.query_port = fake_query_port,
	.alloc_pd = fake_alloc_pd,
	.dealloc_pd = fake_dealloc_pd,
	.reg_mr = fake_reg_mr,
	.dereg_mr = fake_dereg_mr,
	.create_cq = fake_create_cq,
	.poll_cq = fake_poll_cq,
	.destroy_cq = fake_destroy_cq,
};

static struct ibv_context *fake_alloc_context(struct ibv_device *device,
					      int cmd_fd)
{
	struct fake_context *ctx;

	ctx = ibx_alloc_context(device, cmd_fd, sizeof(*ctx),
				offsetof(struct fake_context, vctx));
	if (!ctx)
		return NULL;
	ibx_set_context_ops(&ctx->vctx, &fake_ops);
	return &ctx->vctx.context;
}

static void fake_free_context(struct ibv_context *context)
{
	ibx_free_context(context);
}

static const struct ibx_provider fake_provider = {
	.name = "fakehca",
	.ibdev_prefix = "fakehca",
	.alloc_context = fake_alloc_context,
	.free_context = fake_free_context,
};

static void __attribute__((constructor)) fake_register(void)
{
	ibx_register_provider(&fake_provider);
}
