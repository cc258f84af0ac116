// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * wire_data.h - what the parts of wire_data share: wire_data.c (set-up, the
 * control connection, main), wire_msgs.c (the message sequence) and
 * wire_bulk.c (bulk and cut modes).  See wire_data.c for the program.
 */
#ifndef WIRE_DATA_H
#define WIRE_DATA_H

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/wait.h>
#include <infiniband/verbs.h>
#include "check.h"
#include "wire_ctl.h"

#define MAX_MSG (1u << 20)
#define MSG_BASE 64		     /* bytes of guard before a message */
#define GUARD 32		     /* bytes of guard checked after it */
#define REGION (MAX_MSG + 4096)	     /* one message area */
#define ATOM_OFF (2 * REGION)	     /* atomics: target / results */
#define BULK_OFF (2 * REGION + 4096) /* bulk and cut modes' area */
#define MW_OFF REGION		     /* the server's window: 4 KiB */
#define GUARD_BYTE 0xa5
#define CTL_TIMEOUT_MS 120000
#define CQ_TIMEOUT_S 20
#define MIB (1u << 20)
#define BULK_MSG (64u << 10)	/* bytes per bulk work request */
#define BULK_DEPTH 16		/* send work requests in flight */
#define BULK_RECVS 64		/* receives the bulk server keeps posted */
#define BULK_TIMEOUT_S 120	/* longest wait for a bulk completion */
#define CUT_MSG 4096		/* bytes per WRITE in cut mode */
#define CUT_WRS 256		/* WRITEs that complete before the cut */
#define CUT_LIMIT_S 120		/* longest wait for the error after it */

struct peer {
	uint32_t qpn, psn, rkey, mtu, seed, max_msg;
	uint64_t addr;
	union ibv_gid gid;
};

enum cut_mode { CUT_NONE, CUT_STREAM, CUT_QUIET };

struct wire_state {
	bool server;
	int mtu, gid_index;
	unsigned int seed;
	unsigned int bulk_mib;	/* -b: bulk mode, MiB per transfer */
	const char *bulk_ops;	/* -o: of SEND, WRITE, READ ("swr") */
	enum cut_mode cut;	/* -c */
	const char *hook;	/* -C: the command that cuts the link */
	int timeout, retry_cnt; /* -t, -r: the QP's ACK timeout, retry count */
	size_t buf_size;	/* bytes registered at buf */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *channel; /* the CQ's events (bulk, cut) */
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	uint32_t mw_rkey;      /* the window's current rkey */
	unsigned int inv_flag; /* what says WITH_INV in wc_flags */
	uint8_t *buf;
	struct peer me, peer;
	const char *until;    /* -u: rounds until this file exists */
	unsigned int max_msg; /* -M */
	bool lossy;	      /* -l: the link loses packets */
	bool odp;	      /* -O: the buffer is an on-demand paging MR */
	unsigned int rounds;
	/* what is being checked, for the failure messages */
	const char *what;
	unsigned int msg, size;
};

extern struct wire_state g;

uint32_t ctl_expect(const char *word, unsigned int msg);
void abort_run(void) __attribute__((noreturn));
void post_send(struct ibv_send_wr *wr, void *addr, size_t len);
void post_recv(void *addr, size_t len, uint64_t wr_id);

/* wire_msgs.c */
void run_messages(void);

/* wire_bulk.c */
void run_bulk(void);
void cut_client(void);
void cut_server(void);

#endif /* WIRE_DATA_H */
