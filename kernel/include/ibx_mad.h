/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ibx_mad.h - the MAD layer of the verbs core (kernel/ib_uverbs/mad.c):
 * management datagrams on the GSI QP (QP1) of each port.
 *
 * When a device registers, the core (a built-in kernel client) creates on
 * each port a PD, a CQ and the GSI QP (qp_num 1, Q_Key 0x80010000, IBA
 * 13.5.1), posts receive buffers (40-byte GRH + 256-byte MAD) and keeps
 * them posted; it destroys them before the device unregisters, after the
 * kernel clients registered later (the CM) had their remove().
 *
 * A consumer registers an agent for (device, port, management class, class
 * version).  Received MADs are validated (base version 1, at least a MAD
 * header; a CM MAD must use method Send) and go to the agent of their
 * class; a response (method bit 0x80) whose TID matches a request the
 * agent sent and still waits for is delivered with that request attached
 * and completes it.  Bad MADs and MADs no agent claims are counted and
 * dropped.  Handlers run in process context (an ordered workqueue per
 * port): they may sleep, but must not unregister their own agent.
 *
 * On RoCE the address of a MAD is the GID pair of its packet: a request's
 * destination is an address vector (ibx_ah_attr: dgid, sgid_index) and
 * remote QP 1; the reply to a received MAD uses ibx_mad_recv.ah_attr.
 */
#ifndef IBX_MAD_H
#define IBX_MAD_H

#include <linux/workqueue.h>
#include "ibx_kverbs.h"

#define IBX_MAD_SIZE		256
#define IBX_MAD_GRH_LEN		40
#define IBX_MAD_BASE_VERSION	1
#define IBX_MGMT_CLASS_CM	0x07
#define IBX_CM_CLASS_VERSION	2

/* Methods (IBA 13.4.5). */
#define IBX_MGMT_METHOD_GET		0x01
#define IBX_MGMT_METHOD_SET		0x02
#define IBX_MGMT_METHOD_SEND		0x03
#define IBX_MGMT_METHOD_GET_RESP	0x81
#define IBX_MGMT_METHOD_RESP		0x80	/* the response bit */
#define IBX_MAD_ATTR_CLASS_PORT_INFO	0x0001

/* The common MAD header (IBA 13.4.3), network byte order. */
struct ibx_mad_hdr {
	u8 base_version;
	u8 mgmt_class;
	u8 class_version;
	u8 method;
	__be16 status;
	__be16 class_specific;
	__be64 tid;
	__be16 attr_id;
	__be16 resv;
	__be32 attr_mod;
} __packed;

struct ibx_mad {
	struct ibx_mad_hdr hdr;
	u8 data[IBX_MAD_SIZE - sizeof(struct ibx_mad_hdr)];
} __packed;

struct ibx_mad_agent;

/*
 * A MAD to send.  Allocate with ibx_mad_alloc_send(), fill @mad, @ah_attr
 * and the retry policy, post with ibx_mad_post_send(); the send handler
 * reports the outcome once, after which the sender may free it (or post
 * it again).
 */
struct ibx_mad_send {
	struct ibx_mad mad;		/* what goes on the wire */
	struct ibx_ah_attr ah_attr;	/* destination path */
	u32 remote_qpn;			/* 1 (QP1) unless told otherwise */
	/*
	 * 0: done once sent.  Else wait this long for a response (a MAD of
	 * the agent's class with the response bit and this TID), sending
	 * again up to @retries times.
	 */
	unsigned int timeout_ms;
	unsigned int retries;
	void *context;			/* the sender's */
	/* Outcome, valid in the send handler. */
	unsigned int sends;		/* times put on the wire */
	int status;			/* 0, -ETIMEDOUT, -ECANCELED, -EIO */

	/* Private to the MAD layer. */
	struct ibx_mad_agent *agent;
	struct list_head node;		/* in the agent's outstanding list */
	struct list_head wr_node;	/* in the port's backlog while queued */
	struct delayed_work timeout_work;
	struct ibx_ah *ah;
	bool posted;			/* a WR is on the send queue */
	bool queued;			/* waits for a free send WR */
	bool waiting;			/* timer running for a response */
	bool responded;			/* the response arrived */
	bool cancelled;
	bool active;			/* between post and the handler */
};

/* A received MAD, valid during the receive handler. */
struct ibx_mad_recv {
	const struct ibx_mad *mad;
	u32 mad_len;			/* bytes received (<= IBX_MAD_SIZE) */
	u32 src_qp;			/* the sender's QP (1 for QP1) */
	union ibx_gid sgid;		/* the sender's GID (packet source) */
	union ibx_gid dgid;		/* our GID it was sent to */
	struct ibx_ah_attr ah_attr;	/* the path back to the sender */
	struct ibx_mad_send *send;	/* the request it answers, or NULL */
};

typedef void (*ibx_mad_recv_handler)(struct ibx_mad_agent *agent,
				     struct ibx_mad_recv *recv);
typedef void (*ibx_mad_send_handler)(struct ibx_mad_agent *agent,
				     struct ibx_mad_send *send);

struct ibx_mad_agent {
	struct ibx_device *dev;
	u32 port;
	u8 mgmt_class;
	u8 class_version;
	u32 hi_tid;			/* high 32 bits of the agent's TIDs */
	void *context;			/* the consumer's */
};

/* Counters of one port's MAD layer. */
struct ibx_mad_counters {
	u64 rcvd;		/* valid MADs received */
	u64 rcvd_bad;		/* dropped: bad base version, length, method */
	u64 unclaimed;		/* dropped: no agent for the class/version */
	u64 unclaimed_cm;	/* of those, CM class */
	u64 responses;		/* responses matched to a request */
	u64 sent;		/* MADs put on the wire (retries included) */
	u64 send_errors;	/* send completions in error */
	u64 timeouts;		/* requests that ran out of retries */
	u64 retries;		/* requests sent again after a timeout */
};

/**
 * ibx_mad_register_agent - claims a management class on a port
 * @dev: the device
 * @port: its port (1..)
 * @mgmt_class: e.g. IBX_MGMT_CLASS_CM
 * @class_version: e.g. IBX_CM_CLASS_VERSION
 * @recv_handler: called for each MAD of the class (process context)
 * @send_handler: called once per posted send with its outcome (may be
 *	NULL if every send has timeout_ms 0 and the sender does not care)
 * @context: stored in the agent
 *
 * Return: the agent, ERR_PTR(-EBUSY) if the class/version is taken,
 * -ENODEV if the port has no MAD layer.  May sleep.
 */
struct ibx_mad_agent *ibx_mad_register_agent(struct ibx_device *dev, u32 port,
					     u8 mgmt_class, u8 class_version,
					     ibx_mad_recv_handler recv_handler,
					     ibx_mad_send_handler send_handler,
					     void *context);
/**
 * ibx_mad_unregister_agent - releases a management class
 * @agent: from ibx_mad_register_agent()
 *
 * Cancels the agent's outstanding sends (their handlers run with
 * -ECANCELED), waits for its handlers to finish and frees it.  May sleep;
 * not from the agent's own handlers.
 */
void ibx_mad_unregister_agent(struct ibx_mad_agent *agent);

/* A zeroed send of @agent, remote_qpn 1; free with ibx_mad_free_send(). */
struct ibx_mad_send *ibx_mad_alloc_send(struct ibx_mad_agent *agent,
					gfp_t gfp);
void ibx_mad_free_send(struct ibx_mad_send *send);
/* A new TID of the agent: hi_tid << 32 | a counter. */
__be64 ibx_mad_next_tid(struct ibx_mad_agent *agent);
/*
 * Posts @send (process context).  Return: 0 (the send handler will
 * report), -EINVAL (bad address vector), -EBUSY (still active), -ENODEV.
 */
int ibx_mad_post_send(struct ibx_mad_send *send);
/* Stops retries: the send handler runs with -ECANCELED (unless done). */
void ibx_mad_cancel_send(struct ibx_mad_send *send);
/* Waits @timeout_ms for the answer from now on (a peer's MRA). */
int ibx_mad_modify_send(struct ibx_mad_send *send, unsigned int timeout_ms);

/*
 * An address vector to @dgid from the port's GID @sgid_index (RoCE v2),
 * hop limit 64.  -EINVAL if that GID is not set.
 */
int ibx_mad_init_ah_attr(struct ibx_device *dev, u32 port, u32 sgid_index,
			 const union ibx_gid *dgid, struct ibx_ah_attr *attr);
/* The index of @gid in the port's GID table, or -ENOENT. */
int ibx_find_gid_index(struct ibx_device *dev, u32 port,
		       const union ibx_gid *gid);
int ibx_mad_get_counters(struct ibx_device *dev, u32 port,
			 struct ibx_mad_counters *c);

#endif /* IBX_MAD_H */
