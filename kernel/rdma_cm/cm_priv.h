/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cm_priv.h - the inside of the IB CM: the id, its states, its tables and
 * the per-port MAD agents.  cm.c owns ids, tables, event delivery and
 * timewait; cm_send.c formats and sends messages (calls down); cm_recv.c
 * parses and acts on received ones and on send timeouts.  One message
 * moves through the files in that order: cm_send.c on one side,
 * cm_recv.c on the other.
 *
 * Locking:
 *  - cm_id.mutex serializes the state machine of one id: every send and
 *    every received message for it.  It is never held while a handler
 *    runs, so a handler may call down into any id.
 *  - cm_table_lock (spinlock) protects the lookup tables and the
 *    reference taken by a lookup.
 *  - Everything the network does (receives, send completions, timeouts)
 *    runs on the MAD layer's ordered workqueue of the port; timewait
 *    expiry on system_wq.
 */
#ifndef IBX_CM_PRIV_H
#define IBX_CM_PRIV_H

#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/workqueue.h>
#include <linux/wait.h>
#include "ibx_mad.h"
#include "cm.h"
#include "cm_msgs.h"

/* Connection states (IBA 12.9.7, figure 161; upstream enum ib_cm_state). */
enum cm_state {
	CM_IDLE,
	CM_REQ_SENT,
	CM_REQ_RCVD,
	CM_MRA_REQ_SENT,	/* we asked the active side to wait */
	CM_MRA_REQ_RCVD,	/* the passive side asked us to wait */
	CM_REP_SENT,
	CM_REP_RCVD,
	CM_MRA_REP_SENT,
	CM_MRA_REP_RCVD,
	CM_ESTABLISHED,
	CM_DREQ_SENT,
	CM_DREQ_RCVD,
	CM_TIMEWAIT,
	CM_SIDR_REQ_SENT,
	CM_SIDR_REQ_RCVD,
};

const char *cm_state_name(enum cm_state state);

/* One port of a device: its CM agent on QP1. */
struct cm_port {
	struct cm_device *cmdev;
	u32 port_num;
	struct ibx_mad_agent *agent;
};

/* A device known to the CM (ibx client "ibx_cm"). */
struct cm_device {
	struct ibx_device *dev;
	__be64 guid;			/* node GUID: REQ/REP LocalCAGUID */
	u8 ack_delay;			/* local_ca_ack_delay */
	bool going_down;		/* no new exchange starts */
	struct list_head ids;		/* cm_id.dev_node, under cm_table_lock */
	struct cm_port port[IBX_MAX_PORTS];
};

/* A queued event, delivered in order by cm_deliver(). */
struct cm_work {
	struct list_head node;
	struct cm_id *new_id;		/* REQ/SIDR_REQ: the passive id */
	struct cm_event ev;
};

struct cm_id {
	struct mutex mutex;		/* the state machine (see above) */
	enum cm_state state;
	refcount_t ref;			/* owner, lookups, sends, timewait */
	cm_handler handler;
	void *context;

	/* Event delivery: one deliverer at a time, in queue order. */
	spinlock_t ev_lock;
	struct list_head events;	/* cm_work.node */
	bool delivering;		/* a thread runs cm_deliver() */
	bool dead;			/* destroyed: events are dropped */
	struct task_struct *deliverer;	/* for destroy from a handler */
	struct work_struct deliver_work;	/* events queued by a call down */
	wait_queue_head_t wait;		/* !delivering */

	/* Where: set when the first message is sent or received. */
	struct cm_port *port;
	struct list_head dev_node;	/* in cmdev->ids */
	struct ibx_ah_attr av;		/* the QP's path to the peer */
	u8 av_timeout;			/* local ACK timeout for that path */
	u8 path_mtu;
	u8 packet_life_time;
	struct ibx_ah_attr msg_av;	/* where CM messages go */

	/* The connection (IBA 12.6 fields, host order). */
	u32 local_id, remote_id;	/* communication IDs */
	__be64 remote_guid;		/* the peer's CA GUID */
	__be64 service_id;
	u32 local_qpn, remote_qpn;
	u32 sq_psn, rq_psn;
	u8 responder_resources;
	u8 initiator_depth;
	u8 retry_count;
	u8 rnr_retry_count;
	u8 max_cm_retries;
	u8 remote_cm_timeout;		/* how long the peer may take to answer */
	bool passive;
	bool sidr;
	unsigned int timeout_ms;	/* wait for an answer before a retry */

	/* The message awaiting an answer (REQ, REP, DREQ, SIDR_REQ). */
	struct ibx_mad_send *msg;

	/* Lookups (cm_table_lock). */
	bool in_remote_id, in_remote_qpn;
	struct hlist_node remote_id_node;	/* (remote_id, remote_guid) */
	struct hlist_node remote_qpn_node;	/* (remote_qpn, remote_guid) */
	struct delayed_work timewait_work;
	bool timewait_queued;
};

/* cm.c */
extern spinlock_t cm_table_lock;
struct cm_id *cm_alloc_id(cm_handler handler, void *context);
void cm_put_id(struct cm_id *id);
struct cm_id *cm_lookup_local(u32 local_id);
struct cm_id *cm_lookup_remote_id(u32 remote_id, __be64 guid);
struct cm_id *cm_lookup_remote_qpn(u32 remote_qpn, __be64 guid);
int cm_bind_port(struct cm_id *id, struct cm_port *port);
void cm_insert_remote(struct cm_id *id, bool by_id, bool by_qpn);
void cm_queue_event(struct cm_id *id, struct cm_work *w);
void cm_flush_events(struct cm_id *id);
struct cm_work *cm_new_work(enum cm_event_type type, const void *pdata,
			    u8 len);
void cm_enter_timewait(struct cm_id *id);
void cm_set_state(struct cm_id *id, enum cm_state state);
struct cm_port *cm_find_port(struct ibx_device *dev, u32 port_num);
cm_handler cm_req_consumer(void);

/* What the CM saw, for tests and for whoever debugs a peer (sysfs ibx_cm). */
struct cm_counters {
	atomic64_t rcvd;	/* well-formed messages */
	atomic64_t dropped;	/* malformed, or no id/state takes them */
	atomic64_t duplicates;	/* answered by sending again */
	atomic64_t stale;	/* REQ/REP refused: QP still connected */
	atomic64_t unowned;	/* DREQs answered for a forgotten id */
	atomic64_t timeouts;	/* REQ/REP/DREQ/SIDR_REQ unanswered */
};
extern struct cm_counters cm_counters;
int cm_live_ids(void);
void cm_schedule_events(struct cm_id *id);

/* cm_send.c */
static inline unsigned int cm_time_ms(u8 iba_time)
{
	/* 4.096 us * 2^t, roughly, as upstream cm_convert_to_ms(). */
	return 1u << max_t(int, iba_time - 8, 0);
}
struct ibx_mad_send *cm_alloc_msg(struct cm_id *id, u16 attr_id);
int cm_post_msg(struct cm_id *id, struct ibx_mad_send *msg, bool awaits);
void cm_cancel_msg(struct cm_id *id);
int cm_send_rej_locked(struct cm_id *id, u16 reason, const void *ari,
		       u8 ari_len, const void *pdata, u8 len);
int cm_reject_locked(struct cm_id *id, u16 reason, const void *ari,
		     u8 ari_len, const void *pdata, u8 len);
int cm_send_dreq_locked(struct cm_id *id);
int cm_send_drep_locked(struct cm_id *id);
int cm_send_rtu_locked(struct cm_id *id);
int cm_send_mra_locked(struct cm_id *id, u8 msg_mraed);
int cm_resend_rep_locked(struct cm_id *id);
int cm_send_sidr_rep_locked(struct cm_id *id, const struct cm_rep_param *p);
/* A reply to a message no id owns (REJ, DREP), from its receive. */
void cm_reply_unowned(struct cm_port *port, const struct ibx_mad_recv *r,
		      u16 attr_id, u32 local_id, u32 remote_id, u16 reason);

/* cm_recv.c */
void cm_recv_handler(struct ibx_mad_agent *agent, struct ibx_mad_recv *r);
void cm_send_handler(struct ibx_mad_agent *agent, struct ibx_mad_send *send);

#endif /* IBX_CM_PRIV_H */
