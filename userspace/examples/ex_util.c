// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ex_util.c - the helpers of the RDMA_CM example programs (ex_util.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "ex_util.h"

const char *ex_prog = "example";
const char *volatile ex_step = "starting";
static unsigned int time_limit;

void ex_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", ex_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void ex_perr(const char *what)
{
	ex_err("%s: %s", what, strerror(errno));
}

/* Only async-signal-safe calls: the step may be in the middle of anything. */
static void on_alarm(int sig)
{
	char msg[256];
	int n;

	(void)sig;
	n = snprintf(msg, sizeof(msg), "%s: FAIL: no progress within %u s while %s\n",
		     ex_prog, time_limit, ex_step);
	if (n > 0)
		(void)!write(2, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
	_exit(EX_FAIL);
}

void ex_set_time_limit(unsigned int seconds)
{
	time_limit = seconds;
	signal(SIGALRM, on_alarm);
	alarm(seconds);
}

static uint8_t pattern_byte(size_t i, uint32_t seq, uint32_t tag, uint32_t value)
{
	return (uint8_t)(i * 31 + seq * 7 + tag * 13 + value * 3 + (i >> 8));
}

void ex_fill(void *buf, size_t len, uint32_t seq, uint32_t tag, uint32_t value)
{
	struct ex_hdr h = { htonl(EX_MAGIC), htonl(seq), htonl(tag), htonl(value) };
	uint8_t *p = buf;
	size_t i;

	memcpy(p, &h, len < sizeof(h) ? len : sizeof(h));
	for (i = sizeof(h); i < len; i++)
		p[i] = pattern_byte(i, seq, tag, value);
}

bool ex_verify(const void *buf, size_t len, struct ex_hdr *out)
{
	const uint8_t *p = buf;
	struct ex_hdr h;
	size_t i;

	if (len < sizeof(h)) {
		ex_err("message of %zu bytes is shorter than its header", len);
		return false;
	}
	memcpy(&h, p, sizeof(h));
	h.magic = ntohl(h.magic);
	h.seq = ntohl(h.seq);
	h.tag = ntohl(h.tag);
	h.value = ntohl(h.value);
	if (h.magic != EX_MAGIC) {
		ex_err("message magic %#x, want %#x", h.magic, EX_MAGIC);
		return false;
	}
	for (i = sizeof(h); i < len; i++) {
		if (p[i] != pattern_byte(i, h.seq, h.tag, h.value)) {
			ex_err("message %u: byte %zu is %#x, want %#x", h.seq, i,
			       p[i], pattern_byte(i, h.seq, h.tag, h.value));
			return false;
		}
	}
	*out = h;
	return true;
}

int ex_signal_ready(const char *path)
{
	int fd;

	if (!path)
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, "ready\n", 6) != 6) {
		ex_perr(path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

struct rdma_addrinfo *ex_addrinfo(const char *node, const char *port,
				  bool passive)
{
	struct rdma_addrinfo hints, *rai = NULL;
	int ret;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	if (passive)
		hints.ai_flags = RAI_PASSIVE;
	ret = rdma_getaddrinfo(node, port, &hints, &rai);
	if (ret) {
		ex_err("rdma_getaddrinfo(%s, %s): %s", node ? node : "*", port,
		       ret == -1 ? strerror(errno) : gai_strerror(ret));
		return NULL;
	}
	return rai;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int ex_connect(struct rdma_addrinfo *rai, struct ibv_qp_init_attr *attr,
	       struct rdma_conn_param *param, unsigned int retry_s,
	       struct rdma_cm_id **idp,
	       int (*prepare)(struct rdma_cm_id *id, void *arg),
	       void (*undo)(struct rdma_cm_id *id, void *arg), void *arg)
{
	double deadline = now_s() + retry_s;
	unsigned int tries = 0;

	for (;;) {
		struct ibv_qp_init_attr a = *attr;	/* create_ep updates it */
		struct rdma_cm_id *id;
		int err;

		ex_step = "creating the endpoint (rdma_create_ep)";
		if (rdma_create_ep(&id, rai, NULL, &a)) {
			ex_perr("rdma_create_ep");
			return EX_FAIL;
		}
		if (prepare && prepare(id, arg)) {
			rdma_destroy_ep(id);
			return EX_FAIL;
		}
		ex_step = "connecting (rdma_connect)";
		tries++;
		if (!rdma_connect(id, param)) {
			*idp = id;
			return 0;
		}
		err = errno;
		if (undo)
			undo(id, arg);
		rdma_destroy_ep(id);
		if (err == EOPNOTSUPP) {
			ex_err("rdma_connect: %s: this RDMA stack cannot connect "
			       "through RDMA_CM (no IB CM)", strerror(err));
			return EX_UNSUPPORTED;
		}
		if (err != ECONNREFUSED || now_s() >= deadline) {
			ex_err("rdma_connect: %s (after %u tr%s)", strerror(err),
			       tries, tries == 1 ? "y" : "ies");
			return EX_FAIL;
		}
		/* Nobody listens yet: the server is still starting. */
		usleep(100000);
	}
}

int ex_wait_wc(struct ibv_cq *cq, struct ibv_comp_channel *ch,
	       struct ibv_wc *wc)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			break;
		if (ibv_req_notify_cq(cq, 0)) {
			ex_err("ibv_req_notify_cq failed");
			return -1;
		}
		/* A completion that came before the arming raises no event. */
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			break;
		if (ibv_get_cq_event(ch, &ev_cq, &ev_ctx)) {
			ex_perr("ibv_get_cq_event");
			return -1;
		}
		ibv_ack_cq_events(ev_cq, 1);
	}
	if (n < 0) {
		ex_err("ibv_poll_cq: %d", n);
		return -1;
	}
	return 0;
}

unsigned int ex_uint(const char *s, const char *what, unsigned int max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || !*s || *end || v == 0 || v > max) {
		ex_err("%s must be a number from 1 to %u, not '%s'", what, max, s);
		exit(EX_USAGE);
	}
	return (unsigned int)v;
}
