/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mad_priv.h - what the two halves of the MAD layer share: mad.c (agents,
 * sends, receives) and mad_port.c (QP1 of each port, the kernel client).
 */
#ifndef IBX_MAD_PRIV_H
#define IBX_MAD_PRIV_H

#include <linux/workqueue.h>
#include "core_priv.h"
#include "ibx_mad.h"

/* Receive buffers kept posted: a burst of connection requests (cmtime
 * connects hundreds at once) must not find QP1 without one, since a lost
 * REQ costs the peer a 6 s retry. */
#define IBX_MAD_RECV_BUFS	512
#define IBX_MAD_SEND_WRS	128	/* sends in flight per port */
#define IBX_MAD_BUF_LEN		(IBX_MAD_GRH_LEN + IBX_MAD_SIZE)
#define IBX_MAD_POLL		8	/* completions per poll call */

enum {
	C_RCVD, C_RCVD_BAD, C_UNCLAIMED, C_UNCLAIMED_CM, C_RESPONSES, C_SENT,
	C_SEND_ERRORS, C_TIMEOUTS, C_RETRIES, C_NUM
};

struct ibx_mad_port {
	struct ibx_device *dev;
	u32 port;
	struct ibx_pd *pd;
	struct ibx_mr *mr;		/* DMA key for buffers and sends */
	struct ibx_cq *cq;		/* sends and receives */
	struct ibx_qp *qp;		/* the GSI QP, qp_num 1 */
	u8 *rbufs;			/* IBX_MAD_RECV_BUFS of BUF_LEN */
	struct workqueue_struct *wq;	/* ordered: all completion work */
	struct work_struct cq_work;
	spinlock_t lock;		/* agents, sends' flags, dying */
	struct list_head agents;
	unsigned int wrs_posted;	/* send WRs on the QP */
	struct list_head backlog;	/* sends waiting for a WR (wr_node) */
	bool dying;			/* being torn down: no new sends */
	atomic64_t cnt[C_NUM];
};

struct ibx_mad_agent_priv {
	struct ibx_mad_agent agent;
	struct ibx_mad_port *port;	/* NULL once the port is gone */
	struct list_head node;		/* in port->agents */
	ibx_mad_recv_handler recv_handler;
	ibx_mad_send_handler send_handler;
	struct list_head sends;		/* active sends, under port->lock */
	unsigned int active;		/* their number */
	wait_queue_head_t wait;		/* for active == 0 */
	atomic_t next_tid;
};

struct ibx_mad_dev {
	u32 nports;
	struct ibx_mad_port *ports[IBX_MAX_PORTS + 1];
};

/* Registration and port lifetime; never taken by the workqueue handlers. */
extern struct mutex ibx_mad_lock;
extern struct ibx_client ibx_mad_client;

static inline struct ibx_mad_agent_priv *to_priv(struct ibx_mad_agent *a)
{
	return container_of(a, struct ibx_mad_agent_priv, agent);
}

static inline void ibx_mad_count(struct ibx_mad_port *port, int c)
{
	atomic64_inc(&port->cnt[c]);
}

/* mad.c */
void ibx_mad_complete(struct ibx_mad_port *port, struct ibx_mad_send *send,
		      int status);
int ibx_mad_post_rbuf(struct ibx_mad_port *port, u32 idx);
void ibx_mad_cq_work(struct work_struct *work);
void ibx_mad_comp_handler(struct ibx_cq *cq, void *ctx);

#endif /* IBX_MAD_PRIV_H */
