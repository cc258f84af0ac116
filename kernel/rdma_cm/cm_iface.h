/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cm_iface.h - where the IB CM (the REQ/REP/RTU/REJ/DREQ/DREP/SIDR message
 * exchange over QP1, IBA chapter 12) plugs into the CMA.
 *
 * Today no CM exists: CONNECT, ACCEPT, REJECT and DISCONNECT are validated
 * by ucma.c and cma.c and then fail (see docs/rdma_cm.md for the errnos).
 * Nothing pretends a connection.
 *
 * The CM module calls ibx_cma_register_cm() at init and
 * ibx_cma_unregister_cm() at exit (after destroying its cm ids).  Calls down (cma -> CM) are made
 * with the cma_id's lock held and may sleep; calls up (CM -> cma, the
 * cma_cm_*() functions below) must be made from process context without
 * CM-internal locks that a call down could take.
 */
#ifndef IBX_CMA_CM_IFACE_H
#define IBX_CMA_CM_IFACE_H

#include "cma_priv.h"

/* The connection parameters of REQ/REP (from rdma_ucm_conn_param). */
struct cma_conn_param {
	u32 qp_num;			/* 24 bits */
	u32 qkey;			/* UD (SIDR) only */
	const u8 *private_data;		/* user data, after the CMA header */
	u8 private_data_len;
	u8 responder_resources;
	u8 initiator_depth;
	u8 flow_control;
	u8 retry_count;			/* clamped to 7 */
	u8 rnr_retry_count;		/* clamped to 7 */
	u8 srq;
	u32 ece_vendor_id, ece_attr_mod;
};

/*
 * What the CMA needs from the IB CM.  Every op gets the cma_id (whose
 * path, addresses, device/port, ps and seq_num are set) and owns
 * id->cm_priv.
 */
struct cma_cm_ops {
	/* Listen for REQ/SIDR_REQ on service id (ps << 16 | port). */
	int (*listen)(struct cma_id *id, __be64 service_id, __be64 mask);
	/* Active side: REQ (RC) or SIDR_REQ (UD) with the 36-byte CMA header. */
	int (*send_req)(struct cma_id *id, const struct cma_conn_param *p);
	/* Passive side: REP (RC) or SIDR_REP (UD). */
	int (*send_rep)(struct cma_id *id, const struct cma_conn_param *p);
	/* Active side after CONNECT_RESPONSE (ACCEPT with valid=0). */
	int (*send_rtu)(struct cma_id *id);
	int (*send_rej)(struct cma_id *id, u16 reason, const void *pdata,
			u8 len);
	int (*send_dreq)(struct cma_id *id);
	int (*send_drep)(struct cma_id *id);
	/* The RTR/RTS attributes of the connected QP (INIT_QP_ATTR). */
	int (*init_qp_attr)(struct cma_id *id, u32 qp_state,
			    struct ib_uverbs_qp_attr *attr);
	/* Drop all CM state of the id (no events after it returns). */
	void (*destroy)(struct cma_id *id);
};

/*
 * Received messages and timeouts, reported by the CM to the CMA.  The CMA
 * turns them into CONNECT_REQUEST (with a new cma_id created by
 * cma_cm_new_conn), CONNECT_RESPONSE, ESTABLISHED, REJECTED, UNREACHABLE
 * (-ETIMEDOUT), DISCONNECTED and TIMEWAIT_EXIT.  Not implemented yet: they
 * come with the CM.
 */
enum cma_cm_event {
	CMA_CM_REQ_RCVD,
	CMA_CM_REP_RCVD,
	CMA_CM_RTU_RCVD,
	CMA_CM_REJ_RCVD,
	CMA_CM_DREQ_RCVD,
	CMA_CM_DREP_RCVD,
	CMA_CM_SIDR_REQ_RCVD,
	CMA_CM_SIDR_REP_RCVD,
	CMA_CM_TIMEOUT,
	CMA_CM_TIMEWAIT_EXIT,
};

int ibx_cma_register_cm(const struct cma_cm_ops *ops);
void ibx_cma_unregister_cm(const struct cma_cm_ops *ops);
/* The registered CM or NULL (read under the id's lock). */
const struct cma_cm_ops *cma_cm_ops(void);

#endif /* IBX_CMA_CM_IFACE_H */
