/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared by the files of hca_ops (see hca_ops.c): the connected QP pair
 * every section uses, and the sections, each defined in the ops_*.c file
 * of its topic.
 */
#ifndef HCA_OPS_H
#define HCA_OPS_H

#include "hca_util.h"

struct pair {
	struct ibv_qp *a, *b; /* a sends to b and b to a */
	struct ibv_srq *srq;
};

/*
 * Two QPs of @type connected to each other (64 WRs of 4 SGEs, 64 bytes
 * inline), b on a new SRQ if @use_srq.
 */
int pair_create(struct ut_ctx *c, struct pair *p, enum ibv_qp_type type,
		bool use_srq, uint8_t rnr_retry);
void pair_destroy(struct pair *p);

/* ops_data.c */
int test_rc_send(struct ut_ctx *c);
int test_uc_send(struct ut_ctx *c);
int test_srq_send(struct ut_ctx *c);
int test_rc_rdma(struct ut_ctx *c);
int test_uc_rdma(struct ut_ctx *c);
int test_atomics(struct ut_ctx *c);
int test_inline_unsignaled(struct ut_ctx *c);
int test_ud(struct ut_ctx *c);
int test_ud_local_ah(struct ut_ctx *c);
int test_iova(struct ut_ctx *c);
int test_fence(struct ut_ctx *c);
/* ops_errors.c */
int test_errors(struct ut_ctx *c);
int test_dereg_waiting(struct ut_ctx *c);
int test_resend_parse(struct ut_ctx *c);
/* ops_cq.c */
int test_events(struct ut_ctx *c);
int test_cq_overrun(struct ut_ctx *c);
int test_cq_resize(struct ut_ctx *c);
/* ops_mw.c */
int test_mw(struct ut_ctx *c);
int test_mw_dereg(struct ut_ctx *c);
/* ops_async.c */
int test_srq_limit(struct ut_ctx *c);
int test_srq_resize(struct ut_ctx *c);
int test_sqd(struct ut_ctx *c);
/* ops_destroy.c */
int test_ud_destroy_sends(struct ut_ctx *c);

#endif /* HCA_OPS_H */
