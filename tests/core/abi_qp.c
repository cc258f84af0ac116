// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* uverbs_abi_test: the IBA QP state table per QP type (section qp). */
#define _GNU_SOURCE
#include "uverbs_abi.h"

/* ---------------- QP state machine ---------------- */

static void av_fill(struct ctx *c, struct ib_uverbs_qp_dest *d)
{
	memset(d, 0, sizeof(*d));
	d->is_global = 1;
	d->port_num = 1;
	d->sgid_index = c->gid_ok;
	d->hop_limit = 64;
	memcpy(d->dgid, c->gid, 16);
}

static uint8_t query_state(struct ctx *c, uint32_t qp)
{
	struct ib_uverbs_query_qp_resp r = {};

	if (query_qp(c, qp, &r))
		return 0xff;
	return r.qp_state;
}

void to_init(struct ctx *c, uint8_t type, struct ib_uverbs_modify_qp *m,
	     uint32_t qp)
{
	memset(m, 0, sizeof(*m));
	m->qp_handle = qp;
	m->qp_state = IB_UVERBS_QPS_INIT;
	m->port_num = 1;
	m->attr_mask = IB_UVERBS_QP_STATE | IB_UVERBS_QP_PKEY_INDEX |
		       IB_UVERBS_QP_PORT;
	if (type == IB_UVERBS_QPT_UD) {
		m->qkey = 0x11111111;
		m->attr_mask |= IB_UVERBS_QP_QKEY;
	} else {
		m->attr_mask |= IB_UVERBS_QP_ACCESS_FLAGS;
	}
}

void to_rtr(struct ctx *c, uint8_t type, struct ib_uverbs_modify_qp *m,
	    uint32_t qp, uint32_t dqpn)
{
	memset(m, 0, sizeof(*m));
	m->qp_handle = qp;
	m->qp_state = IB_UVERBS_QPS_RTR;
	m->attr_mask = IB_UVERBS_QP_STATE;
	if (type == IB_UVERBS_QPT_UD)
		return;
	av_fill(c, &m->dest);
	m->path_mtu = 1;
	m->dest_qp_num = dqpn;
	m->rq_psn = 0x123456;
	m->attr_mask |= IB_UVERBS_QP_AV | IB_UVERBS_QP_PATH_MTU |
			IB_UVERBS_QP_DEST_QPN | IB_UVERBS_QP_RQ_PSN;
	/* Responders of reliable traffic (RC, XRC TGT) need RDMA limits. */
	if (type == IB_UVERBS_QPT_RC || type == IB_UVERBS_QPT_XRC_TGT) {
		m->max_dest_rd_atomic = 1;
		m->min_rnr_timer = 12;
		m->attr_mask |= IB_UVERBS_QP_MAX_DEST_RD_ATOMIC |
				IB_UVERBS_QP_MIN_RNR_TIMER;
	}
}

void to_rts(uint8_t type, struct ib_uverbs_modify_qp *m, uint32_t qp)
{
	memset(m, 0, sizeof(*m));
	m->qp_handle = qp;
	m->qp_state = IB_UVERBS_QPS_RTS;
	m->sq_psn = 0x1abcdef;	/* more than 24 bits: masked */
	m->attr_mask = IB_UVERBS_QP_STATE | IB_UVERBS_QP_SQ_PSN;
	/* An XRC TGT QP has no send queue: of the RC set only the timeout. */
	if (type == IB_UVERBS_QPT_XRC_TGT) {
		m->timeout = 14;
		m->attr_mask |= IB_UVERBS_QP_TIMEOUT;
	} else if (type == IB_UVERBS_QPT_RC || type == IB_UVERBS_QPT_XRC_INI) {
		m->timeout = 14;
		m->retry_cnt = 7;
		m->rnr_retry = 7;
		m->max_rd_atomic = 1;
		m->attr_mask |= IB_UVERBS_QP_TIMEOUT | IB_UVERBS_QP_RETRY_CNT |
				IB_UVERBS_QP_RNR_RETRY |
				IB_UVERBS_QP_MAX_QP_RD_ATOMIC;
	}
}

void test_qp_states(struct ctx *c, uint8_t type, uint32_t qp, uint32_t qpn)
{
	/* Sending reliable QPs: the full RC set of RTR -> RTS attributes. */
	int rc_sender = type == IB_UVERBS_QPT_RC ||
			type == IB_UVERBS_QPT_XRC_INI;
	struct ib_uverbs_modify_qp m;
	struct ib_uverbs_query_qp_resp qr;

	printf("  qp type %u\n", type);
	VERIFY(query_state(c, qp) == IB_UVERBS_QPS_RESET, "new QP not RESET");
	VERIFY(qpn > 1 && qpn <= 0xffffff, "qpn 0x%x", qpn);

	/* RESET -> RTR and RTS skip INIT (IBA 10.3.1). */
	to_rtr(c, type, &m, qp, qpn);
	EXPECT(modify_qp(c, &m), -EINVAL);
	to_rts(type, &m, qp);
	EXPECT(modify_qp(c, &m), -EINVAL);
	/* RESET -> INIT missing a required attribute, or with a foreign one. */
	to_init(c, type, &m, qp);
	m.attr_mask &= ~IB_UVERBS_QP_PORT;
	EXPECT(modify_qp(c, &m), -EINVAL);
	to_init(c, type, &m, qp);
	m.attr_mask |= IB_UVERBS_QP_RQ_PSN;
	EXPECT(modify_qp(c, &m), -EINVAL);
	to_init(c, type, &m, qp);
	m.port_num = 2;
	EXPECT(modify_qp(c, &m), -EINVAL);
	to_init(c, type, &m, qp);
	m.pkey_index = 1000;
	EXPECT(modify_qp(c, &m), -EINVAL);
	to_init(c, type, &m, qp);
	m.qp_state = 9;
	EXPECT(modify_qp(c, &m), -EINVAL);
	to_init(c, type, &m, qp);
	m.attr_mask |= 1u << 30;
	EXPECT(modify_qp(c, &m), -EOPNOTSUPP);
	/* Claiming a current state is only allowed from RTR/RTS/SQD/SQE. */
	to_init(c, type, &m, qp);
	m.attr_mask |= IB_UVERBS_QP_CUR_STATE;
	m.cur_qp_state = IB_UVERBS_QPS_RESET;
	EXPECT(modify_qp(c, &m), -EINVAL);
	/* RESET -> SQE/SQD do not exist. */
	to_init(c, type, &m, qp);
	m.qp_state = IB_UVERBS_QPS_SQE;
	EXPECT(modify_qp(c, &m), -EINVAL);
	m.qp_state = IB_UVERBS_QPS_SQD;
	EXPECT(modify_qp(c, &m), -EINVAL);
	to_init(c, type, &m, qp);
	EXPECT(modify_qp(c, &m), 0);
	VERIFY(query_state(c, qp) == IB_UVERBS_QPS_INIT, "not INIT");
	/* INIT -> SQD does not exist either. */
	memset(&m, 0, sizeof(m));
	m.qp_handle = qp;
	m.qp_state = IB_UVERBS_QPS_SQD;
	m.attr_mask = IB_UVERBS_QP_STATE;
	EXPECT(modify_qp(c, &m), -EINVAL);
	/* INIT -> INIT with the optional attributes. */
	to_init(c, type, &m, qp);
	EXPECT(modify_qp(c, &m), 0);
	/* INIT -> RTS skips RTR. */
	to_rts(type, &m, qp);
	EXPECT(modify_qp(c, &m), -EINVAL);

	if (type != IB_UVERBS_QPT_UD) {
		to_rtr(c, type, &m, qp, qpn);
		m.attr_mask &= ~IB_UVERBS_QP_AV;
		EXPECT(modify_qp(c, &m), -EINVAL);
		to_rtr(c, type, &m, qp, qpn);
		m.path_mtu = 6;
		EXPECT(modify_qp(c, &m), -EINVAL);
		to_rtr(c, type, &m, qp, qpn);
		m.path_mtu = c->active_mtu + 1;
		if (m.path_mtu <= 5)
			EXPECT(modify_qp(c, &m), -EINVAL);
		to_rtr(c, type, &m, qp, qpn);
		m.dest.is_global = 0;
		EXPECT(modify_qp(c, &m), -EINVAL);
		if (c->gid_bad >= 0) {
			to_rtr(c, type, &m, qp, qpn);
			m.dest.sgid_index = c->gid_bad;
			EXPECT(modify_qp(c, &m), -EINVAL);
		}
		to_rtr(c, type, &m, qp, qpn);
		m.dest.port_num = 3;
		EXPECT(modify_qp(c, &m), -EINVAL);
	} else {
		/* UD has no address vector in the QP. */
		to_rtr(c, type, &m, qp, qpn);
		av_fill(c, &m.dest);
		m.attr_mask |= IB_UVERBS_QP_AV;
		EXPECT(modify_qp(c, &m), -EINVAL);
	}
	to_rtr(c, type, &m, qp, qpn);
	EXPECT(modify_qp(c, &m), 0);
	VERIFY(query_state(c, qp) == IB_UVERBS_QPS_RTR, "not RTR");

	if (type != IB_UVERBS_QPT_UC && type != IB_UVERBS_QPT_UD) {
		to_rts(type, &m, qp);
		m.attr_mask &= ~IB_UVERBS_QP_TIMEOUT;
		EXPECT(modify_qp(c, &m), -EINVAL);
	}
	if (rc_sender) {
		to_rts(type, &m, qp);
		m.retry_cnt = 8;
		EXPECT(modify_qp(c, &m), -EINVAL);
	}
	if (type == IB_UVERBS_QPT_XRC_TGT) {
		/* No send queue: no retry counts (IBA A14.4.1, table). */
		to_rts(type, &m, qp);
		m.retry_cnt = 7;
		m.attr_mask |= IB_UVERBS_QP_RETRY_CNT;
		EXPECT(modify_qp(c, &m), -EINVAL);
	}
	to_rts(type, &m, qp);
	m.attr_mask |= IB_UVERBS_QP_PORT;	/* not allowed RTR->RTS */
	EXPECT(modify_qp(c, &m), -EINVAL);
	to_rts(type, &m, qp);
	EXPECT(modify_qp(c, &m), 0);
	memset(&qr, 0, sizeof(qr));
	EXPECT(query_qp(c, qp, &qr), 0);
	VERIFY(qr.qp_state == IB_UVERBS_QPS_RTS, "not RTS (%u)", qr.qp_state);
	VERIFY(qr.sq_psn == 0xabcdef, "sq_psn 0x%x not masked to 24 bits",
	      qr.sq_psn);
	VERIFY(qr.port_num == 1, "port %u", qr.port_num);
	if (type != IB_UVERBS_QPT_UD)
		VERIFY(qr.rq_psn == 0x123456 && qr.dest_qp_num == qpn &&
		      qr.path_mtu == 1 && qr.dest.is_global,
		      "rq_psn 0x%x dqpn 0x%x mtu %u", qr.rq_psn,
		      qr.dest_qp_num, qr.path_mtu);

	/* RTS -> INIT / RTR do not exist. */
	to_init(c, type, &m, qp);
	EXPECT(modify_qp(c, &m), -EINVAL);
	to_rtr(c, type, &m, qp, qpn);
	EXPECT(modify_qp(c, &m), -EINVAL);
	/* Only UD and UC QPs know SQE (IBA 10.3.1): claiming it fails. */
	if (type != IB_UVERBS_QPT_UC && type != IB_UVERBS_QPT_UD) {
		memset(&m, 0, sizeof(m));
		m.qp_handle = qp;
		m.qp_state = IB_UVERBS_QPS_RTS;
		m.cur_qp_state = IB_UVERBS_QPS_SQE;
		m.attr_mask = IB_UVERBS_QP_STATE | IB_UVERBS_QP_CUR_STATE;
		EXPECT(modify_qp(c, &m), -EINVAL);
	}
	/* RTS -> RTS with the current state claimed. */
	memset(&m, 0, sizeof(m));
	m.qp_handle = qp;
	m.qp_state = IB_UVERBS_QPS_RTS;
	m.cur_qp_state = IB_UVERBS_QPS_RTS;
	m.attr_mask = IB_UVERBS_QP_STATE | IB_UVERBS_QP_CUR_STATE;
	EXPECT(modify_qp(c, &m), 0);
	/* -> ERR from anywhere, then only RESET or ERR. */
	m.qp_state = IB_UVERBS_QPS_ERR;
	m.attr_mask = IB_UVERBS_QP_STATE;
	EXPECT(modify_qp(c, &m), 0);
	VERIFY(query_state(c, qp) == IB_UVERBS_QPS_ERR, "not ERR");
	to_rts(type, &m, qp);
	EXPECT(modify_qp(c, &m), -EINVAL);
	to_init(c, type, &m, qp);
	EXPECT(modify_qp(c, &m), -EINVAL);
	memset(&m, 0, sizeof(m));
	m.qp_handle = qp;
	m.qp_state = IB_UVERBS_QPS_RESET;
	m.attr_mask = IB_UVERBS_QP_STATE;
	EXPECT(modify_qp(c, &m), 0);
	VERIFY(query_state(c, qp) == IB_UVERBS_QPS_RESET, "not RESET");
	/* And around again, now via the extended command. */
	{
		struct ib_uverbs_ex_modify_qp x = {};
		struct ib_uverbs_ex_modify_qp_resp xr = {};

		to_init(c, type, &x.base, qp);
		EXPECT(ex_cmd(c->fd, IB_USER_VERBS_EX_CMD_MODIFY_QP, &x,
			      sizeof(x), &xr, sizeof(xr)), 0);
		VERIFY(xr.response_length == sizeof(xr), "ex modify length %u",
		      xr.response_length);
		to_rts(type, &x.base, qp);
		EXPECT(ex_cmd(c->fd, IB_USER_VERBS_EX_CMD_MODIFY_QP, &x,
			      sizeof(x), &xr, sizeof(xr)), -EINVAL);
	}
}

void test_qp(void)
{
	static const uint8_t types[] = {
		IB_UVERBS_QPT_RC, IB_UVERBS_QPT_UC, IB_UVERBS_QPT_UD,
		IB_UVERBS_QPT_XRC_INI,
	};
	struct ctx c;
	uint32_t pd, cq, qp, qpn;
	size_t i;

	if (open_ctx(&c) || alloc_pd(&c, &pd) ||
	    create_cq(&c, 64, 0, -1, &cq)) {
		VERIFY(0, "setup");
		return;
	}
	VERIFY(c.gid_ok >= 0, "no valid GID on port 1");
	/* XRC TGT QPs: section xrc (they need an XRC domain). */
	for (i = 0; i < sizeof(types); i++) {
		if (create_qp(&c, types[i], pd, cq, -1, &qp, &qpn)) {
			VERIFY(0, "create qp type %u", types[i]);
			continue;
		}
		test_qp_states(&c, types[i], qp, qpn);
		EXPECT(destroy_qp(&c, qp, NULL), 0);
	}
	/* An XRC TGT QP names its domain in pd_handle: a PD is refused. */
	EXPECT(create_qp(&c, IB_UVERBS_QPT_XRC_TGT, pd, cq, -1, &qp, NULL),
	       -EINVAL);
	close_ctx(&c);
}
