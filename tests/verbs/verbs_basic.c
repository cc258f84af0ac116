// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * verbs_basic - exercises the library half of the verbs on whatever device
 * comes first (the fake provider natively, mlx_hw in the VM): discovery,
 * open, queries, PD, MR under fork protection, CQ, unsupported verbs.
 * Exit 0 when every check passed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>
#include "check.h"

static uint16_t csum16(const uint8_t *p, int len)
{
	uint32_t sum = 0;
	int i;

	for (i = 0; i < len; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

/*
 * ibv_init_ah_from_wc on a GRH as the device leaves it: IPv6/GRH with our
 * GID 0 as destination, and RoCEv2/IPv4 (header in the last 20 bytes) to
 * our IPv4-mapped GID, if the port has one at index 1.
 */
static void check_ah_from_wc(struct ibv_context *ctx)
{
	struct ibv_wc wc = { .wc_flags = IBV_WC_GRH, .slid = 0, .sl = 0 };
	union ibv_gid gid0, gid1;
	struct ibv_ah_attr ah;
	uint8_t buf[40];
	struct ibv_grh *grh = (struct ibv_grh *)buf;
	int ret;

	VERIFY(ibv_query_gid(ctx, 1, 0, &gid0) == 0, "query gid 0");
	memset(buf, 0, sizeof(buf));
	grh->version_tclass_flow = htobe32(6u << 28 | 0x12u << 20 | 0x345);
	grh->dgid = gid0;
	memset(grh->sgid.raw, 0xab, 16);
	ret = ibv_init_ah_from_wc(ctx, 1, &wc, grh, &ah);
	VERIFY(ret == 0 && ah.is_global && ah.grh.sgid_index == 0 &&
	      ah.grh.flow_label == 0x345 && ah.grh.traffic_class == 0x12 &&
	      ah.grh.dgid.raw[0] == 0xab && ah.port_num == 1,
	      "init_ah_from_wc IPv6 ret %d idx %d", ret, ah.grh.sgid_index);

	if (ibv_query_gid(ctx, 1, 1, &gid1) || gid1.raw[10] != 0xff)
		return;
	memset(buf, 0x66, 20);	/* undefined bytes that look like IPv6 */
	buf[20] = 0x45;
	buf[21] = 0x08;		/* TOS */
	buf[22] = 0; buf[23] = 60;
	buf[28] = 64;		/* TTL */
	buf[29] = 17;		/* UDP */
	buf[30] = buf[31] = 0;
	buf[32] = 10; buf[33] = 9; buf[34] = 0; buf[35] = 5;
	memcpy(&buf[36], &gid1.raw[12], 4);
	{
		uint16_t c = csum16(&buf[20], 20);

		buf[30] = c >> 8;
		buf[31] = c & 0xff;
	}
	ret = ibv_init_ah_from_wc(ctx, 1, &wc, grh, &ah);
	VERIFY(ret == 0 && ah.is_global && ah.grh.sgid_index == 1 &&
	      ah.grh.traffic_class == 0x08 && ah.grh.dgid.raw[11] == 0xff &&
	      ah.grh.dgid.raw[15] == 5,
	      "init_ah_from_wc IPv4 ret %d idx %d", ret, ah.grh.sgid_index);

	wc.wc_flags = 0;
	ret = ibv_init_ah_from_wc(ctx, 1, &wc, grh, &ah);
	VERIFY(ret == 0 && !ah.is_global, "init_ah_from_wc without GRH");
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_device_attr dattr;
	struct ibv_device_attr_ex xattr;
	struct ibv_port_attr pattr;
	union ibv_gid gid;
	struct ibv_pd *pd;
	struct ibv_mr *mr, *mr2;
	struct ibv_cq *cq;
	struct ibv_mw *mw;
	struct ibv_xrcd *xrcd;
	struct ibv_wc wc;
	char *buf;
	int n, ret;

	VERIFY(ibv_fork_init() == 0, "ibv_fork_init");
	VERIFY(ibv_is_fork_initialized() == IBV_FORK_ENABLED, "fork status");

	list = ibv_get_device_list(&n);
	if (!list || n < 1) {
		fprintf(stderr, "no device (%s)\n", strerror(errno));
		return 1;
	}
	VERIFY(list[n] == NULL, "list not NULL terminated");
	printf("device %s guid %016llx\n", ibv_get_device_name(list[0]),
	       (unsigned long long)be64toh(ibv_get_device_guid(list[0])));

	ctx = ibv_open_device(list[0]);
	if (!ctx) {
		fprintf(stderr, "open: %s\n", strerror(errno));
		return 1;
	}
	ibv_free_device_list(list);

	VERIFY(verbs_get_ctx(ctx) != NULL, "context is not extended");
	ret = ibv_query_device(ctx, &dattr);
	VERIFY(ret == 0 && dattr.phys_port_cnt >= 1, "query_device %d", ret);
	ret = ibv_query_device_ex(ctx, NULL, &xattr);
	VERIFY(ret == 0 && xattr.orig_attr.max_qp == dattr.max_qp,
	      "query_device_ex %d", ret);
	ret = ibv_query_port(ctx, 1, &pattr);
	VERIFY(ret == 0 && pattr.state == IBV_PORT_ACTIVE, "query_port %d", ret);
	VERIFY(ibv_query_gid(ctx, 1, 0, &gid) == 0, "query_gid");
	check_ah_from_wc(ctx);

	pd = ibv_alloc_pd(ctx);
	VERIFY(pd && pd->context == ctx, "alloc_pd");
	if (!pd)
		return 1;

	buf = aligned_alloc(4096, 3 * 4096);
	mr = ibv_reg_mr(pd, buf, 2 * 4096, IBV_ACCESS_LOCAL_WRITE);
	VERIFY(mr && mr->addr == buf && mr->length == 2 * 4096 &&
	      mr->pd == pd, "reg_mr");
	/* Overlapping registration: fork protection is counted per page. */
	mr2 = ibv_reg_mr(pd, buf + 4096, 2 * 4096,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING);
	VERIFY(mr2 != NULL, "reg_mr overlapping with optional flag");
	VERIFY(mr && ibv_dereg_mr(mr) == 0, "dereg_mr");
	VERIFY(mr2 && ibv_dereg_mr(mr2) == 0, "dereg_mr 2");

	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	VERIFY(cq && cq->context == ctx && cq->cqe >= 16, "create_cq");
	if (cq) {
		VERIFY(ibv_poll_cq(cq, 1, &wc) == 0, "poll empty cq");
		VERIFY(ibv_destroy_cq(cq) == 0, "destroy_cq");
	}
	VERIFY(ibv_create_cq(ctx, 0, NULL, NULL, 0) == NULL && errno == EINVAL,
	      "create_cq with 0 entries");

	/* Optional verbs: either they work or they fail cleanly. */
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	VERIFY(mw || errno, "alloc_mw failed without errno");
	if (mw)
		VERIFY(ibv_dealloc_mw(mw) == 0, "dealloc_mw");
	xrcd = ibv_open_xrcd(ctx, &(struct ibv_xrcd_init_attr){});
	VERIFY(!xrcd && errno, "open_xrcd without attributes must fail");
	VERIFY(ibv_dealloc_pd(pd) == 0, "dealloc_pd");
	free(buf);

	VERIFY(strcmp(ibv_wc_status_str(IBV_WC_SUCCESS), "success") == 0,
	      "wc_status_str");
	VERIFY(ibv_rate_to_mult(IBV_RATE_10_GBPS) == 4, "rate_to_mult");
	VERIFY(mult_to_ibv_rate(4) == IBV_RATE_10_GBPS, "mult_to_rate");
	VERIFY(ibv_rate_to_mbps(IBV_RATE_100_GBPS) == 103125, "rate_to_mbps");

	VERIFY(ibv_close_device(ctx) == 0, "close");
	printf("%s: %u checks, %u failed\n",
	       check_failures || !check_count ? "FAILED" : "PASSED",
	       check_count, check_failures);
	return check_failures || !check_count ? 1 : 0;
}
