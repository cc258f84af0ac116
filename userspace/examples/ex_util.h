/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ex_util.h - what the RDMA_CM example programs share: a whole-run time
 * limit that names the step it interrupted, the payload pattern every
 * receiver verifies, the "ready" signal a server or receiver gives its
 * test, a client connect that retries while nobody listens yet, and a
 * bounded wait for one completion of a CQ with a completion channel.
 *
 * Exit status of every example: 0 only when everything it received was
 * verified; EX_FAIL on any error; EX_USAGE for bad arguments; EX_UNSUPPORTED
 * when the stack lacks what the example demonstrates (rdma_connect answered
 * EOPNOTSUPP, or the device has no automatic path migration), so that a test
 * can tell "not there yet" from "broken".
 */
#ifndef EX_UTIL_H
#define EX_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define EX_FAIL		1
#define EX_USAGE	2
#define EX_UNSUPPORTED	3

/* A message's first bytes; the rest is ex_fill()'s pattern of its seed. */
struct ex_hdr {
	uint32_t magic;		/* EX_MAGIC, big-endian */
	uint32_t seq;		/* big-endian, as every field */
	uint32_t tag;		/* example-specific (QP index, flags, ...) */
	uint32_t value;		/* example-specific */
};
#define EX_MAGIC 0x52434d58u	/* "RCMX" */

extern const char *ex_prog;	/* for messages: the program's name */
extern const char *volatile ex_step;	/* what the program is doing now */

/* Prints "PROG: message" on stderr; the errno variant appends strerror. */
void ex_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ex_perr(const char *what);
/* Ends the run with EX_FAIL, naming ex_step, after @seconds (0: never). */
void ex_set_time_limit(unsigned int seconds);

/* Fills a message: header plus a pattern derived from (seq, tag, value). */
void ex_fill(void *buf, size_t len, uint32_t seq, uint32_t tag, uint32_t value);
/*
 * Verifies a message of @len bytes; the header is returned in @h.  Returns
 * false (and says why) on a bad magic or a pattern byte that differs.
 */
bool ex_verify(const void *buf, size_t len, struct ex_hdr *h);

/* Appends "ready\n" to @path (a file or FIFO), if @path is set. */
int ex_signal_ready(const char *path);

/*
 * Client side of rdma_create_ep + rdma_connect: when the server is not
 * listening yet (REJECTED: ECONNREFUSED), destroys the endpoint and tries
 * again every 100 ms for up to @retry_s seconds.  @prepare (may be NULL)
 * runs on each new endpoint before the connect, to register memory and
 * post receives; @undo releases what it set up when a try fails.
 * Returns 0, EX_FAIL or EX_UNSUPPORTED (no IB CM: EOPNOTSUPP).
 */
int ex_connect(struct rdma_addrinfo *rai, struct ibv_qp_init_attr *attr,
	       struct rdma_conn_param *param, unsigned int retry_s,
	       struct rdma_cm_id **id,
	       int (*prepare)(struct rdma_cm_id *id, void *arg),
	       void (*undo)(struct rdma_cm_id *id, void *arg), void *arg);

/* rdma_getaddrinfo for TCP port space; @passive for a server. */
struct rdma_addrinfo *ex_addrinfo(const char *node, const char *port,
				  bool passive);

/*
 * One work completion of @cq, which was created on @ch: polls, arms,
 * polls again, then sleeps in the channel.  Returns 0 with @wc filled, or
 * -1 after an error (said).  A WC with an error status is returned too.
 */
int ex_wait_wc(struct ibv_cq *cq, struct ibv_comp_channel *ch,
	       struct ibv_wc *wc);

/* Parses a positive decimal option value or exits with EX_USAGE. */
unsigned int ex_uint(const char *s, const char *what, unsigned int max);

#endif /* EX_UTIL_H */
