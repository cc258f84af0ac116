// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ep_example - an RC client and server on librdmacm's endpoint helpers
 * alone: rdma_getaddrinfo, rdma_create_ep, rdma_listen/rdma_get_request/
 * rdma_accept on the server, rdma_connect on the client, rdma_reg_msgs,
 * rdma_post_recv/rdma_post_send and rdma_get_recv_comp/rdma_get_send_comp.
 *
 *   server: ep_example -s [-b LOCAL_ADDR] [-p PORT] [-c COUNT] [-l LENGTH]
 *                      [-R READY_FILE] [-t SECONDS]
 *   client: ep_example [-p PORT] [-c COUNT] [-l LENGTH] [-r RETRY_SECONDS]
 *                      [-t SECONDS] SERVER
 *
 * The client sends COUNT messages; the server verifies each and answers
 * with a message of its own derived from it, which the client verifies.
 * Each side posts its next receive before the peer can send into it.  The
 * server writes "ready" to READY_FILE once it listens; the client retries
 * a refused connect for up to RETRY_SECONDS (default 0).
 *
 * Exit status 0 only when all COUNT exchanges were verified on this side.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_verbs.h>
#include "ex_util.h"

#define REPLY_TAG	0x5e4e	/* the server's messages */

struct ep {
	bool server;
	const char *node, *port, *ready;
	unsigned int count, len, retry_s;
	uint8_t *send_buf, *recv_buf;
	struct ibv_mr *send_mr, *recv_mr;
};

static void usage(void)
{
	fprintf(stderr,
		"usage: %s -s [-b LOCAL_ADDR] [-p PORT] [-c COUNT] [-l LENGTH] [-R READY_FILE]\n"
		"          [-t SECONDS]                                  (server)\n"
		"       %s [-p PORT] [-c COUNT] [-l LENGTH] [-r RETRY_SECONDS] [-t SECONDS]\n"
		"          SERVER                                        (client)\n"
		"  -p PORT    rdma_cm port (default 7471)\n"
		"  -c COUNT   messages each way (default 10)\n"
		"  -l LENGTH  bytes per message, 16 to 65536 (default 64)\n"
		"  -r SECS    client: retry a refused connect this long (default 0)\n"
		"  -R FILE    server: append \"ready\" to FILE once it listens\n"
		"  -t SECONDS give up after this long (default 60)\n", ex_prog, ex_prog);
	exit(EX_USAGE);
}

/* Registers both buffers and posts the first receive. */
static int ep_prepare(struct rdma_cm_id *id, void *arg)
{
	struct ep *e = arg;

	e->recv_mr = rdma_reg_msgs(id, e->recv_buf, e->len);
	e->send_mr = e->recv_mr ? rdma_reg_msgs(id, e->send_buf, e->len) : NULL;
	if (!e->send_mr) {
		ex_perr("rdma_reg_msgs");
		return -1;
	}
	if (rdma_post_recv(id, NULL, e->recv_buf, e->len, e->recv_mr)) {
		ex_perr("rdma_post_recv");
		return -1;
	}
	return 0;
}

static void ep_unprepare(struct rdma_cm_id *id, void *arg)
{
	struct ep *e = arg;

	(void)id;
	if (e->send_mr)
		rdma_dereg_mr(e->send_mr);
	if (e->recv_mr)
		rdma_dereg_mr(e->recv_mr);
	e->send_mr = e->recv_mr = NULL;
}

/* Waits for the receive of message @seq and checks it; reposts it if @more. */
static int ep_recv(struct ep *e, struct rdma_cm_id *id, uint32_t seq,
		   uint32_t tag, bool more)
{
	struct ibv_wc wc;
	struct ex_hdr h;

	if (rdma_get_recv_comp(id, &wc) <= 0) {
		ex_perr("rdma_get_recv_comp");
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.byte_len != e->len) {
		ex_err("receive %u: %s, %u bytes (want %u)", seq,
		       ibv_wc_status_str(wc.status), wc.byte_len, e->len);
		return -1;
	}
	if (!ex_verify(e->recv_buf, e->len, &h))
		return -1;
	if (h.seq != seq || h.tag != tag) {
		ex_err("got message %u tag %#x, want %u tag %#x", h.seq, h.tag, seq, tag);
		return -1;
	}
	if (more && rdma_post_recv(id, NULL, e->recv_buf, e->len, e->recv_mr)) {
		ex_perr("rdma_post_recv");
		return -1;
	}
	return 0;
}

static int ep_send(struct ep *e, struct rdma_cm_id *id, uint32_t seq, uint32_t tag)
{
	struct ibv_wc wc;

	ex_fill(e->send_buf, e->len, seq, tag, e->len);
	if (rdma_post_send(id, NULL, e->send_buf, e->len, e->send_mr, IBV_SEND_SIGNALED)) {
		ex_perr("rdma_post_send");
		return -1;
	}
	if (rdma_get_send_comp(id, &wc) <= 0) {
		ex_perr("rdma_get_send_comp");
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		ex_err("send %u: %s", seq, ibv_wc_status_str(wc.status));
		return -1;
	}
	return 0;
}

static void qp_caps(struct ibv_qp_init_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->qp_type = IBV_QPT_RC;
	attr->cap.max_send_wr = attr->cap.max_recv_wr = 1;
	attr->cap.max_send_sge = attr->cap.max_recv_sge = 1;
}

static int run_server(struct ep *e, struct rdma_addrinfo *rai)
{
	struct rdma_cm_id *listen_id = NULL, *id = NULL;
	struct ibv_qp_init_attr attr;
	unsigned int i;
	int ret = EX_FAIL;

	qp_caps(&attr);
	ex_step = "creating the listening endpoint";
	if (rdma_create_ep(&listen_id, rai, NULL, &attr)) {
		ex_perr("rdma_create_ep");
		return EX_FAIL;
	}
	if (rdma_listen(listen_id, 1)) {
		ex_perr("rdma_listen");
		goto out;
	}
	printf("%s: listening on port %s\n", ex_prog, e->port);
	fflush(stdout);
	if (ex_signal_ready(e->ready))
		goto out;
	ex_step = "waiting for a connect request (rdma_get_request)";
	if (rdma_get_request(listen_id, &id)) {
		ex_perr("rdma_get_request");
		goto out;
	}
	if (!id->qp) {
		ex_err("rdma_get_request gave an id without a QP");
		goto out;
	}
	if (ep_prepare(id, e))
		goto out;
	ex_step = "accepting (rdma_accept)";
	if (rdma_accept(id, NULL)) {
		ex_perr("rdma_accept");
		goto out;
	}
	ex_step = "exchanging messages";
	for (i = 0; i < e->count; i++)
		if (ep_recv(e, id, i, 0, i + 1 < e->count) || ep_send(e, id, i, REPLY_TAG))
			goto out;
	printf("%s: server verified %u messages and answered each\n", ex_prog, e->count);
	ret = 0;
	ex_step = "disconnecting";
	if (rdma_disconnect(id)) {
		ex_perr("rdma_disconnect");
		ret = EX_FAIL;
	}
out:
	ep_unprepare(id, e);
	if (id)
		rdma_destroy_ep(id);
	rdma_destroy_ep(listen_id);
	return ret;
}

static int run_client(struct ep *e, struct rdma_addrinfo *rai)
{
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id;
	unsigned int i;
	int ret;

	qp_caps(&attr);
	ret = ex_connect(rai, &attr, NULL, e->retry_s, &id, ep_prepare, ep_unprepare, e);
	if (ret)
		return ret;
	ex_step = "exchanging messages";
	ret = EX_FAIL;
	for (i = 0; i < e->count; i++)
		if (ep_send(e, id, i, 0) || ep_recv(e, id, i, REPLY_TAG, i + 1 < e->count))
			goto out;
	printf("%s: client sent %u messages and verified every answer\n", ex_prog, e->count);
	ret = 0;
	ex_step = "disconnecting";
	if (rdma_disconnect(id)) {
		ex_perr("rdma_disconnect");
		ret = EX_FAIL;
	}
out:
	ep_unprepare(id, e);
	rdma_destroy_ep(id);
	return ret;
}

int main(int argc, char **argv)
{
	struct ep e = { .port = "7471", .count = 10, .len = 64 };
	struct rdma_addrinfo *rai;
	unsigned int limit = 60;
	int opt, ret;

	ex_prog = "ep_example";
	while ((opt = getopt(argc, argv, "sb:p:c:l:r:R:t:h")) != -1) {
		switch (opt) {
		case 's': e.server = true; break;
		case 'b': e.node = optarg; break;
		case 'p': e.port = optarg; break;
		case 'c': e.count = ex_uint(optarg, "-c COUNT", 1000000); break;
		case 'l': e.len = ex_uint(optarg, "-l LENGTH", 65536); break;
		case 'r': e.retry_s = ex_uint(optarg, "-r RETRY_SECONDS", 3600); break;
		case 'R': e.ready = optarg; break;
		case 't': limit = ex_uint(optarg, "-t SECONDS", 86400); break;
		default: usage();
		}
	}
	if (e.server ? optind != argc : (optind != argc - 1 || e.node))
		usage();
	if (!e.server)
		e.node = argv[optind];
	if (e.len < sizeof(struct ex_hdr))
		usage();
	ex_set_time_limit(limit);
	e.send_buf = calloc(1, e.len);
	e.recv_buf = calloc(1, e.len);
	if (!e.send_buf || !e.recv_buf) {
		ex_err("out of memory");
		return EX_FAIL;
	}
	ex_step = "looking up the address (rdma_getaddrinfo)";
	rai = ex_addrinfo(e.node, e.port, e.server);
	if (!rai)
		return EX_FAIL;
	ret = e.server ? run_server(&e, rai) : run_client(&e, rai);
	rdma_freeaddrinfo(rai);
	free(e.send_buf);
	free(e.recv_buf);
	if (ret == EX_FAIL)
		fprintf(stderr, "%s: FAIL\n", ex_prog);
	return ret;
}
