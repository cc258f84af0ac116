// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * qp_state.c - the IBA QP state machine: which transitions exist and which
 * attributes each one requires or allows, per QP type.  Source: IBA vol 1
 * section 11.2.5.2 "Modify Queue Pair", table "QP State Transition
 * Properties" (with the XRC and raw Ethernet columns of the annexes).
 */
#include <linux/module.h>
#include "core_priv.h"

enum {
	T_RC, T_UC, T_UD, T_RAW, T_XRC_INI, T_XRC_TGT, T_NTYPES
};

struct ibx_qp_transition {
	bool valid;
	u32 req[T_NTYPES];
	u32 opt[T_NTYPES];
};

#define S(x) IBX_QPS_##x
#define M(x) IBX_QP_##x

/* Attributes shared by several rows. */
#define ALT_ACC_MIG	(M(ALT_PATH) | M(ACCESS_FLAGS) | M(PATH_MIG_STATE))

static const struct ibx_qp_transition
ibx_qp_table[IBX_QPS_ERR + 1][IBX_QPS_ERR + 1] = {
	[S(RESET)] = {
		[S(RESET)] = { .valid = true },
		[S(INIT)] = {
			.valid = true,
			.req = {
				[T_RC] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
				[T_UC] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
				[T_UD] = M(PKEY_INDEX) | M(PORT) | M(QKEY),
				[T_RAW] = M(PORT),
				[T_XRC_INI] = M(PKEY_INDEX) | M(PORT) |
					      M(ACCESS_FLAGS),
				[T_XRC_TGT] = M(PKEY_INDEX) | M(PORT) |
					      M(ACCESS_FLAGS),
			},
		},
		[S(ERR)] = { .valid = true },
	},
	[S(INIT)] = {
		[S(RESET)] = { .valid = true },
		[S(ERR)] = { .valid = true },
		[S(INIT)] = {
			.valid = true,
			.opt = {
				[T_RC] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
				[T_UC] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
				[T_UD] = M(PKEY_INDEX) | M(PORT) | M(QKEY),
				[T_RAW] = M(PORT),
				[T_XRC_INI] = M(PKEY_INDEX) | M(PORT) |
					      M(ACCESS_FLAGS),
				[T_XRC_TGT] = M(PKEY_INDEX) | M(PORT) |
					      M(ACCESS_FLAGS),
			},
		},
		[S(RTR)] = {
			.valid = true,
			.req = {
				[T_RC] = M(AV) | M(PATH_MTU) | M(DEST_QPN) |
					 M(RQ_PSN) | M(MAX_DEST_RD_ATOMIC) |
					 M(MIN_RNR_TIMER),
				[T_UC] = M(AV) | M(PATH_MTU) | M(DEST_QPN) |
					 M(RQ_PSN),
				[T_XRC_INI] = M(AV) | M(PATH_MTU) |
					      M(DEST_QPN) | M(RQ_PSN),
				[T_XRC_TGT] = M(AV) | M(PATH_MTU) |
					      M(DEST_QPN) | M(RQ_PSN) |
					      M(MAX_DEST_RD_ATOMIC) |
					      M(MIN_RNR_TIMER),
			},
			.opt = {
				[T_RC] = M(ALT_PATH) | M(ACCESS_FLAGS) |
					 M(PKEY_INDEX),
				[T_UC] = M(ALT_PATH) | M(ACCESS_FLAGS) |
					 M(PKEY_INDEX),
				[T_UD] = M(PKEY_INDEX) | M(QKEY),
				[T_XRC_INI] = M(ALT_PATH) | M(ACCESS_FLAGS) |
					      M(PKEY_INDEX),
				[T_XRC_TGT] = M(ALT_PATH) | M(ACCESS_FLAGS) |
					      M(PKEY_INDEX),
			},
		},
	},
	[S(RTR)] = {
		[S(RESET)] = { .valid = true },
		[S(ERR)] = { .valid = true },
		[S(RTS)] = {
			.valid = true,
			.req = {
				[T_RC] = M(TIMEOUT) | M(RETRY_CNT) |
					 M(RNR_RETRY) | M(SQ_PSN) |
					 M(MAX_QP_RD_ATOMIC),
				[T_UC] = M(SQ_PSN),
				[T_UD] = M(SQ_PSN),
				[T_XRC_INI] = M(TIMEOUT) | M(RETRY_CNT) |
					      M(RNR_RETRY) | M(SQ_PSN) |
					      M(MAX_QP_RD_ATOMIC),
				[T_XRC_TGT] = M(TIMEOUT) | M(SQ_PSN),
			},
			.opt = {
				[T_RC] = M(CUR_STATE) | ALT_ACC_MIG |
					 M(MIN_RNR_TIMER),
				[T_UC] = M(CUR_STATE) | ALT_ACC_MIG,
				[T_UD] = M(CUR_STATE) | M(QKEY),
				[T_XRC_INI] = M(CUR_STATE) | ALT_ACC_MIG,
				[T_XRC_TGT] = M(CUR_STATE) | ALT_ACC_MIG |
					      M(MIN_RNR_TIMER),
			},
		},
	},
	[S(RTS)] = {
		[S(RESET)] = { .valid = true },
		[S(ERR)] = { .valid = true },
		[S(RTS)] = {
			.valid = true,
			.opt = {
				[T_RC] = M(CUR_STATE) | ALT_ACC_MIG |
					 M(MIN_RNR_TIMER),
				[T_UC] = M(CUR_STATE) | ALT_ACC_MIG,
				[T_UD] = M(CUR_STATE) | M(QKEY),
				[T_XRC_INI] = M(CUR_STATE) | ALT_ACC_MIG,
				[T_XRC_TGT] = M(CUR_STATE) | ALT_ACC_MIG |
					      M(MIN_RNR_TIMER),
			},
		},
		[S(SQD)] = {
			.valid = true,
			.opt = {
				[T_RC] = M(EN_SQD_ASYNC_NOTIFY),
				[T_UC] = M(EN_SQD_ASYNC_NOTIFY),
				[T_UD] = M(EN_SQD_ASYNC_NOTIFY),
				[T_RAW] = M(EN_SQD_ASYNC_NOTIFY),
				[T_XRC_INI] = M(EN_SQD_ASYNC_NOTIFY),
				[T_XRC_TGT] = M(EN_SQD_ASYNC_NOTIFY),
			},
		},
	},
	[S(SQD)] = {
		[S(RESET)] = { .valid = true },
		[S(ERR)] = { .valid = true },
		[S(RTS)] = {
			.valid = true,
			.opt = {
				[T_RC] = M(CUR_STATE) | ALT_ACC_MIG |
					 M(MIN_RNR_TIMER),
				[T_UC] = M(CUR_STATE) | ALT_ACC_MIG,
				[T_UD] = M(CUR_STATE) | M(QKEY),
				[T_XRC_INI] = M(CUR_STATE) | ALT_ACC_MIG,
				[T_XRC_TGT] = M(CUR_STATE) | ALT_ACC_MIG |
					      M(MIN_RNR_TIMER),
			},
		},
		[S(SQD)] = {
			.valid = true,
			.opt = {
				[T_RC] = M(PORT) | M(AV) | M(TIMEOUT) |
					 M(RETRY_CNT) | M(RNR_RETRY) |
					 M(MAX_QP_RD_ATOMIC) |
					 M(MAX_DEST_RD_ATOMIC) | ALT_ACC_MIG |
					 M(PKEY_INDEX) | M(MIN_RNR_TIMER),
				[T_UC] = M(AV) | ALT_ACC_MIG | M(PKEY_INDEX),
				[T_UD] = M(PKEY_INDEX) | M(QKEY),
				[T_XRC_INI] = M(PORT) | M(AV) | M(TIMEOUT) |
					      M(RETRY_CNT) | M(RNR_RETRY) |
					      M(MAX_QP_RD_ATOMIC) |
					      ALT_ACC_MIG | M(PKEY_INDEX),
				[T_XRC_TGT] = M(PORT) | M(AV) | M(TIMEOUT) |
					      M(MAX_DEST_RD_ATOMIC) |
					      ALT_ACC_MIG | M(PKEY_INDEX) |
					      M(MIN_RNR_TIMER),
			},
		},
	},
	[S(SQE)] = {
		[S(RESET)] = { .valid = true },
		[S(ERR)] = { .valid = true },
		/* Only unreliable QPs enter SQE (IBA 10.3.1). */
		[S(RTS)] = {
			.valid = true,
			.opt = {
				[T_UC] = M(CUR_STATE) | M(ACCESS_FLAGS),
				[T_UD] = M(CUR_STATE) | M(QKEY),
			},
		},
	},
	[S(ERR)] = {
		[S(RESET)] = { .valid = true },
		[S(ERR)] = { .valid = true },
	},
};

static int ibx_qp_type_index(u32 qp_type)
{
	switch (qp_type) {
	case IB_UVERBS_QPT_RC: return T_RC;
	case IB_UVERBS_QPT_UC: return T_UC;
	case IB_UVERBS_QPT_UD: return T_UD;
	case IBX_QPT_GSI: return T_UD;	/* kernel only; QP1 follows UD rules */
	case IB_UVERBS_QPT_RAW_PACKET: return T_RAW;
	case IB_UVERBS_QPT_XRC_INI: return T_XRC_INI;
	case IB_UVERBS_QPT_XRC_TGT: return T_XRC_TGT;
	default: return -1;
	}
}

/*
 * @cur is the state the consumer claims (IBX_QP_CUR_STATE) or the actual
 * one; the claim is allowed only from RTR/RTS/SQD/SQE, where an
 * asynchronous move to SQE/ERR may have happened unseen.
 */
bool ibx_qp_transition_ok(enum ibx_qp_state cur, enum ibx_qp_state next,
			  u32 qp_type, u32 mask)
{
	const struct ibx_qp_transition *t;
	int type = ibx_qp_type_index(qp_type);
	u32 req, opt;

	if (type < 0 || cur > IBX_QPS_ERR || next > IBX_QPS_ERR)
		return false;
	if ((mask & IBX_QP_CUR_STATE) && cur != IBX_QPS_RTR &&
	    cur != IBX_QPS_RTS && cur != IBX_QPS_SQD && cur != IBX_QPS_SQE)
		return false;
	t = &ibx_qp_table[cur][next];
	if (!t->valid)
		return false;
	req = t->req[type];
	opt = t->opt[type];
	if ((mask & req) != req)
		return false;
	return !(mask & ~(req | opt | IBX_QP_STATE));
}

/*
 * The path migration states a consumer may ask for (IBA 17.2.8): MIGRATED
 * (migrate now; the driver checks that the QP is ARMED) and REARM.  ARMED
 * is the device's to set, once the remote QP has shown it is rearmed too.
 */
bool ibx_qp_mig_state_ok(u32 path_mig_state)
{
	return path_mig_state == IBX_MIG_MIGRATED ||
	       path_mig_state == IBX_MIG_REARM;
}

const char *ibx_qp_state_name(enum ibx_qp_state state)
{
	static const char *const names[] = {
		[IBX_QPS_RESET] = "RESET", [IBX_QPS_INIT] = "INIT",
		[IBX_QPS_RTR] = "RTR", [IBX_QPS_RTS] = "RTS",
		[IBX_QPS_SQD] = "SQD", [IBX_QPS_SQE] = "SQE",
		[IBX_QPS_ERR] = "ERR",
	};

	return state < ARRAY_SIZE(names) ? names[state] : "UNKNOWN";
}
