/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cm.h - the IB Communication Manager (IBA vol 1 chapter 12) as the CMA
 * uses it: connection ids that exchange REQ/MRA/REJ/REP/RTU/DREQ/DREP and
 * SIDR_REQ/SIDR_REP MADs over QP1 (ibx_mad.h), as Linux's ib_cm does on
 * RoCE.  The CM knows nothing of IP addresses or files: the CMA puts its
 * header in the private data and maps service IDs to listeners.
 *
 * Calls down (cm_send_*(), cm_init_qp_attr(), cm_notify()) may sleep and
 * may be made with the caller's locks held.  Events come up through the
 * id's handler, in order, one at a time, from process context and with no
 * CM lock held; a handler may call down on any id but must not destroy
 * its own id (return non-zero to have the CM do it).
 */
#ifndef IBX_CM_H
#define IBX_CM_H

#include "ibx_core.h"

/*
 * A path in the orientation of its user: sgid is ours, dgid the peer's.
 * The CMA resolves one (QUERY_ROUTE reports it); a passive id gets one
 * from the REQ.  packet_life_time is in IBA time units (4.096 us * 2^x).
 */
struct cm_path {
	union ibx_gid sgid, dgid;	/* IPv4-mapped or IPv6 addresses */
	u32 flow_label;			/* 20 bits */
	u8 hop_limit;			/* route hop limit, 64 normally */
	u8 traffic_class;		/* the TOS option */
	u8 sl;				/* 0: no priority map on a plain netdev */
	u8 mtu;				/* enum ibx_mtu */
	u8 packet_life_time;
};

/* Upstream rdma_cm's CM timing on RoCE: 2^20 * 4.096 us, 15 retries. */
#define CM_RESPONSE_TIMEOUT	20
#define CM_MAX_RETRIES		15
/* The MRA service timeout a slow consumer asks for (upstream CMA: 24). */
#define CM_MRA_SERVICE_TIMEOUT	24
/* Private data sizes (IBA 12.6). */
#define CM_REQ_PDATA		92
#define CM_MRA_PDATA		222
#define CM_REJ_PDATA		148
#define CM_REP_PDATA		196
#define CM_RTU_PDATA		224
#define CM_DREQ_PDATA		220
#define CM_DREP_PDATA		224
#define CM_SIDR_REQ_PDATA	216
#define CM_SIDR_REP_PDATA	136
#define CM_REJ_ARI_LEN		72
#define CM_MAX_PDATA		CM_RTU_PDATA

/* SIDR_REP status (IBA 12.11.2, table 226). */
enum cm_sidr_status {
	CM_SIDR_SUCCESS = 0,
	CM_SIDR_UNSUPPORTED = 1,	/* no listener for the service ID */
	CM_SIDR_REJECT = 2,
	CM_SIDR_NO_QP = 3,
};

enum cm_event_type {
	CM_EV_REQ_RCVD,		/* to the REQ handler, with a new id */
	CM_EV_REP_RCVD,
	CM_EV_ESTABLISHED,	/* RTU received, or COMM_EST notified */
	CM_EV_REJ_RCVD,
	CM_EV_REQ_ERROR,	/* REQ unanswered after its retries */
	CM_EV_REP_ERROR,	/* REP unanswered after its retries */
	CM_EV_DREQ_RCVD,
	CM_EV_DREP_RCVD,
	CM_EV_DREQ_ERROR,	/* DREQ unanswered: the id is in timewait */
	CM_EV_TIMEWAIT_EXIT,
	CM_EV_SIDR_REQ_RCVD,	/* to the REQ handler, with a new id */
	CM_EV_SIDR_REP_RCVD,
	CM_EV_SIDR_REQ_ERROR,
};

const char *cm_event_name(enum cm_event_type type);

/* What the peer said, per event (fields not named for an event are 0). */
struct cm_event {
	enum cm_event_type type;
	/* REQ_RCVD, SIDR_REQ_RCVD: where it came in and what it asks. */
	struct ibx_device *dev;
	u32 port;
	__be64 service_id;
	struct cm_path path;		/* REQ: its primary path, our view */
	u8 sgid_index;			/* our GID it was sent to */
	/* REQ_RCVD, REP_RCVD: the peer's QP and its settings. */
	u32 remote_qpn;
	u8 responder_resources;
	u8 initiator_depth;
	u8 flow_control;
	u8 retry_count;			/* REQ only */
	u8 rnr_retry_count;
	u8 srq;
	/* REJ_RCVD */
	u16 reason;
	/* SIDR_REP_RCVD */
	u8 sidr_status;
	u32 qkey;
	/* The message's private data, always its full size. */
	u8 private_data_len;
	u8 private_data[CM_MAX_PDATA];
};

struct cm_id;
/*
 * Return 0, or non-zero to have the CM destroy @id after the handler
 * (a REQ handler's non-zero rejects the request: -ENOENT with "invalid
 * service ID", anything else as consumer-defined).
 */
typedef int (*cm_handler)(struct cm_id *id, const struct cm_event *ev);

/* The active side's REQ (RC) or SIDR_REQ (UD). */
struct cm_req_param {
	struct ibx_device *dev;
	u32 port;
	u8 sgid_index;
	const struct cm_path *path;
	__be64 service_id;
	u32 qpn;
	u32 starting_psn;		/* the PSN our receive queue expects */
	u8 responder_resources;
	u8 initiator_depth;
	u8 flow_control;
	u8 retry_count;			/* <= 7 */
	u8 rnr_retry_count;		/* <= 7 */
	u8 srq;
	const void *private_data;
	u8 private_data_len;
};

/* The passive side's REP (RC) or SIDR_REP (UD). */
struct cm_rep_param {
	u32 qpn;
	u32 starting_psn;
	u8 responder_resources;
	u8 initiator_depth;
	u8 flow_control;
	u8 rnr_retry_count;
	u8 srq;
	u8 sidr_status;			/* SIDR_REP */
	u32 qkey;			/* SIDR_REP */
	const void *private_data;
	u8 private_data_len;
};

/* Registers the consumer of REQ and SIDR_REQ (the CMA); at module init. */
int cm_init(cm_handler req_handler);
void cm_exit(void);

struct cm_id *cm_create_id(cm_handler handler, void *context);
/* For a new passive id inside the REQ handler. */
void cm_set_handler(struct cm_id *id, cm_handler handler, void *context);
void *cm_context(struct cm_id *id);
/*
 * Ends whatever exchange @id is in as IBA 12.9 says (REJ, DREQ, DREP or
 * timewait), then drops it: no handler call once it returns.  Not from
 * @id's own handler.
 */
void cm_destroy_id(struct cm_id *id);

int cm_send_req(struct cm_id *id, const struct cm_req_param *p);
int cm_send_sidr_req(struct cm_id *id, const struct cm_req_param *p);
int cm_send_rep(struct cm_id *id, const struct cm_rep_param *p);
int cm_send_sidr_rep(struct cm_id *id, const struct cm_rep_param *p);
int cm_send_rtu(struct cm_id *id);
int cm_send_rej(struct cm_id *id, u16 reason, const void *pdata, u8 len);
int cm_send_dreq(struct cm_id *id);
int cm_send_drep(struct cm_id *id);
/* IBX_EVENT_COMM_EST on the passive QP before the RTU came (IBA 12.9.7.3). */
int cm_notify(struct cm_id *id, u32 event);
/* The QP attributes of the connection for @qp_state (INIT, RTR, RTS). */
int cm_init_qp_attr(struct cm_id *id, u32 qp_state,
		    struct ib_uverbs_qp_attr *attr);

#endif /* IBX_CM_H */
