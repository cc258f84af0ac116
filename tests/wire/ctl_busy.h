// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ctl_busy.h - what the parts of ctl_busy share: ctl_busy.c (set-up, the
 * coordinates and messages, main), ctl_busy_send.c (the sender's
 * stream) and ctl_busy_target.c (the target's steps); wire_ctl.c is the
 * control connection.  See ctl_busy.c for the program.
 */
#ifndef CTL_BUSY_H
#define CTL_BUSY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <infiniband/verbs.h>
#include "check.h"
#include "wire_ctl.h"

#define SEND_DEPTH 32	/* send WRs in flight */
#define RECVS 64	/* receives the target keeps posted */
#define MAX_SEND 8192	/* bytes of a SEND (a receive buffer) */
#define MAX_WRITE 16384 /* bytes of a WRITE (a slot) */
/*
 * WRITE slots at the target: message i writes slot i % SLOTS.  The sender
 * posts message i only once message i - SEND_DEPTH has completed, so its
 * SEND took a receive, and the target reposts a receive only after it
 * checked the message: at most RECVS messages are taken and unchecked.
 * Message i - SLOTS was therefore checked before slot i is written again.
 */
#define SLOTS (SEND_DEPTH + RECVS)
#define MSG_MAGIC 0x43544c42u  /* "CTLB" */
#define CTL_TIMEOUT_MS 60000   /* longest wait for the peer's next line */
#define DRAIN_TIMEOUT_MS 30000 /* longest wait for a completion */

/* The steps of a round, in the order the rounds take them. */
enum step {
	STEP_RESIZE_CQ,	 /* the target resizes its receive CQ */
	STEP_ERR,	 /* the target's QP goes to ERR mid-stream */
	STEP_RESIZE_SRQ, /* the target's QP on an SRQ it resizes */
	STEP_DESTROY,	 /* the target destroys its QP and CQ */
	NUM_STEPS
};

extern const char *const step_names[NUM_STEPS];

/* What every SEND carries first: which message it is and what it says. */
struct msg_hdr {
	uint32_t magic;
	uint32_t round;
	uint32_t seq;	/* from 0 in each round */
	uint32_t len;	/* bytes of the SEND, this header included */
	uint32_t csum;	/* of the SEND's bytes after the header */
	uint32_t wlen;	/* bytes of the WRITE before it, or 0 */
	uint32_t wslot; /* the slot it wrote */
	uint32_t wcsum; /* of the WRITE's bytes */
};

/* A message's shape, a function of its round and sequence number. */
struct msg_shape {
	uint32_t len;  /* of its SEND */
	uint32_t wlen; /* of its WRITE (0: none) */
};

struct coords {
	uint32_t qpn, psn, rkey;
	uint64_t addr;
	union ibv_gid gid;
};

/* Counters of the target's port, by index into counter_names[]. */
enum counter {
	CNT_RX_REQUESTS,
	CNT_RX_DROP_STATE,
	CNT_RX_DROP_QPN,
	CNT_QP_RUNS,
	CNT_WAKEUPS,
	CNT_TX_ACKS,
	NUM_COUNTERS
};

struct counters {
	uint64_t v[NUM_COUNTERS];
};

struct busy_state {
	bool target; /* the server side */
	bool ours;   /* the device is mlx_hw: its counters exist */
	int mtu, gid_index;
	unsigned int budget_s; /* -T: rounds start until then */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf; /* sender: WR buffers; target: receives, slots */
	size_t buf_size;
	/* this round's objects */
	unsigned int round;
	enum step step;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct coords me, peer;
	/* where a FAIL line says the run was */
	uint32_t seq;
};

extern struct busy_state g;

/* ctl_busy.c */
uint64_t now_ms(void);
struct msg_shape msg_shape(uint32_t round, uint32_t seq);
void msg_fill(uint8_t *p, uint32_t len, uint32_t round, uint32_t seq,
	      uint32_t salt);
uint32_t csum(const uint8_t *p, uint32_t len);
struct ibv_qp *create_qp(struct ibv_cq *cq, struct ibv_srq *srq);
void connect_qp(struct ibv_qp *qp, const struct coords *peer, int retry_cnt);
void send_coords(const char *word);
void recv_coords(const char *word);
void counters_read(struct counters *c);
uint64_t counter_delta(const struct counters *a, const struct counters *b,
		       enum counter n);
extern const char *const counter_names[NUM_COUNTERS];

/* ctl_busy_send.c */
void sender_run(void);

/* ctl_busy_target.c */
void target_run(void);

#endif /* CTL_BUSY_H */
