// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * srq_example - several RC connections made with rdma_create_ep whose
 * receives all come from one shared receive queue on the server.
 *
 *   server: srq_example -s [-b LOCAL_ADDR] [-p PORT] [-q QPS] [-c COUNT]
 *                       [-w SRQ_WRS] [-l LENGTH] [-R READY_FILE] [-t SECONDS]
 *   client: srq_example [-p PORT] [-q QPS] [-c COUNT] [-l LENGTH]
 *                       [-r RETRY_SECONDS] [-t SECONDS] SERVER
 *
 * The client opens QPS connections, one endpoint each, and sends COUNT
 * messages round-robin over them.  The server accepts QPS connect requests
 * (rdma_get_request), gives each its QP on one SRQ and one CQ, keeps only
 * SRQ_WRS receive buffers posted (fewer than the messages, so buffers are
 * reposted and the sender waits on receiver-not-ready retries), and checks
 * every message: its pattern, that it came on the QP it was sent on (the
 * work completion's qp_num) and in order per connection.  Then it answers
 * on each connection with the number it got there, which the client checks.
 *
 * Exit status 0 only when every message and every answer was verified.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_verbs.h>
#include "ex_util.h"

#define MAX_QPS		16
#define ANSWER_TAG	0xa000	/* + the connection index */

struct srq_ex {
	bool server;
	const char *node, *port, *ready;
	unsigned int qps, count, srq_wrs, len, retry_s;
	struct rdma_cm_id *conn[MAX_QPS];
	unsigned int got[MAX_QPS];
	/* Server: the shared objects; client: per connection buffers. */
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	uint8_t *bufs;
	struct ibv_mr *mr, *cmr[MAX_QPS];
};

static void usage(void)
{
	fprintf(stderr,
		"usage: %s -s [-b LOCAL_ADDR] [-p PORT] [-q QPS] [-c COUNT] [-w SRQ_WRS]\n"
		"          [-l LENGTH] [-R READY_FILE] [-t SECONDS]          (server)\n"
		"       %s [-p PORT] [-q QPS] [-c COUNT] [-l LENGTH] [-r RETRY_SECONDS]\n"
		"          [-t SECONDS] SERVER                               (client)\n"
		"  -q QPS     connections, 1 to %d (default 4)\n"
		"  -c COUNT   messages over all connections (default 64)\n"
		"  -w WRS     server: receive buffers on the SRQ (default 4)\n"
		"  -l LENGTH  bytes per message, 16 to 65536 (default 128)\n"
		"  -p, -r, -R, -t  as for ep_example\n", ex_prog, ex_prog, MAX_QPS);
	exit(EX_USAGE);
}

static uint8_t *slot_buf(struct srq_ex *x, unsigned int slot)
{
	return x->bufs + (size_t)slot * x->len;
}

static int srq_post(struct srq_ex *x, unsigned int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)slot_buf(x, slot), .length = x->len, .lkey = x->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 }, *bad;

	if (ibv_post_srq_recv(x->srq, &wr, &bad)) {
		ex_perr("ibv_post_srq_recv");
		return -1;
	}
	return 0;
}

/* The SRQ and its CQ, on the device and PD of the first connect request. */
static int server_shared(struct srq_ex *x, struct rdma_cm_id *id)
{
	struct ibv_srq_init_attr sa;
	unsigned int i;

	ex_step = "creating the SRQ and CQ";
	x->ch = ibv_create_comp_channel(id->verbs);
	x->cq = x->ch ? ibv_create_cq(id->verbs, x->srq_wrs + 2 * x->qps, NULL, x->ch, 0) : NULL;
	if (!x->cq) {
		ex_perr("ibv_create_comp_channel/ibv_create_cq");
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = x->srq_wrs;
	sa.attr.max_sge = 1;
	x->srq = ibv_create_srq(id->pd, &sa);
	if (!x->srq) {
		ex_perr("ibv_create_srq");
		return -1;
	}
	/* One buffer per SRQ receive, plus one per connection for its answer. */
	x->bufs = calloc(x->srq_wrs + x->qps, x->len);
	x->mr = x->bufs ? rdma_reg_msgs(id, x->bufs, (size_t)(x->srq_wrs + x->qps) * x->len) : NULL;
	if (!x->mr) {
		ex_perr("rdma_reg_msgs");
		return -1;
	}
	for (i = 0; i < x->srq_wrs; i++)
		if (srq_post(x, i))
			return -1;
	return 0;
}

static int server_accept_all(struct srq_ex *x, struct rdma_cm_id *listen_id)
{
	struct ibv_qp_init_attr attr;
	unsigned int i;

	for (i = 0; i < x->qps; i++) {
		ex_step = "waiting for connect requests (rdma_get_request)";
		if (rdma_get_request(listen_id, &x->conn[i])) {
			ex_perr("rdma_get_request");
			return -1;
		}
		if (!i && server_shared(x, x->conn[0]))
			return -1;
		ex_step = "creating a QP on the SRQ and accepting";
		memset(&attr, 0, sizeof(attr));
		attr.qp_type = IBV_QPT_RC;
		attr.send_cq = attr.recv_cq = x->cq;
		attr.srq = x->srq;
		attr.cap.max_send_wr = 1;
		attr.cap.max_send_sge = 1;
		if (rdma_create_qp(x->conn[i], x->conn[0]->pd, &attr)) {
			ex_perr("rdma_create_qp with the SRQ");
			return -1;
		}
		if (rdma_accept(x->conn[i], NULL)) {
			ex_perr("rdma_accept");
			return -1;
		}
	}
	return 0;
}

/* The message of @wc: on the right QP, in order, intact. */
static int server_check(struct srq_ex *x, const struct ibv_wc *wc)
{
	struct ex_hdr h;

	if (wc->status != IBV_WC_SUCCESS || wc->opcode != IBV_WC_RECV ||
	    wc->byte_len != x->len) {
		ex_err("SRQ completion: %s, opcode %d, %u bytes (want %u)",
		       ibv_wc_status_str(wc->status), wc->opcode, wc->byte_len, x->len);
		return -1;
	}
	if (!ex_verify(slot_buf(x, (unsigned int)wc->wr_id), x->len, &h))
		return -1;
	if (h.tag >= x->qps || x->conn[h.tag]->qp->qp_num != wc->qp_num) {
		ex_err("message for connection %u arrived on QP %#x", h.tag, wc->qp_num);
		return -1;
	}
	if (h.value != x->got[h.tag]) {
		ex_err("connection %u: message %u arrived as number %u", h.tag, h.value,
		       x->got[h.tag]);
		return -1;
	}
	x->got[h.tag]++;
	return srq_post(x, (unsigned int)wc->wr_id);
}

static int server_answer(struct srq_ex *x)
{
	unsigned int i;
	struct ibv_wc wc;

	ex_step = "answering on every connection";
	for (i = 0; i < x->qps; i++) {
		uint8_t *p = slot_buf(x, x->srq_wrs + i);

		ex_fill(p, x->len, i, ANSWER_TAG + i, x->got[i]);
		if (rdma_post_send(x->conn[i], NULL, p, x->len, x->mr, IBV_SEND_SIGNALED)) {
			ex_perr("rdma_post_send");
			return -1;
		}
		if (ex_wait_wc(x->cq, x->ch, &wc))
			return -1;
		if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_SEND) {
			ex_err("answer %u: %s", i, ibv_wc_status_str(wc.status));
			return -1;
		}
	}
	return 0;
}

static void server_cleanup(struct srq_ex *x, struct rdma_cm_id *listen_id)
{
	unsigned int i;

	for (i = 0; i < x->qps; i++) {
		if (!x->conn[i])
			continue;
		rdma_disconnect(x->conn[i]);
		if (x->conn[i]->qp)
			rdma_destroy_qp(x->conn[i]);
	}
	if (x->mr)
		rdma_dereg_mr(x->mr);
	if (x->srq)
		ibv_destroy_srq(x->srq);
	if (x->cq)
		ibv_destroy_cq(x->cq);
	if (x->ch)
		ibv_destroy_comp_channel(x->ch);
	for (i = 0; i < x->qps; i++)
		if (x->conn[i])
			rdma_destroy_ep(x->conn[i]);
	rdma_destroy_ep(listen_id);
	free(x->bufs);
}

static int run_server(struct srq_ex *x, struct rdma_addrinfo *rai)
{
	struct rdma_cm_id *listen_id;
	unsigned int n = 0, i;
	struct ibv_wc wc;
	int ret = EX_FAIL;

	ex_step = "creating the listening endpoint";
	if (rdma_create_ep(&listen_id, rai, NULL, NULL)) {
		ex_perr("rdma_create_ep");
		return EX_FAIL;
	}
	if (rdma_listen(listen_id, x->qps)) {
		ex_perr("rdma_listen");
		goto out;
	}
	printf("%s: listening on port %s for %u connections\n", ex_prog, x->port, x->qps);
	fflush(stdout);
	if (ex_signal_ready(x->ready) || server_accept_all(x, listen_id))
		goto out;
	ex_step = "receiving through the SRQ";
	for (n = 0; n < x->count; n++)
		if (ex_wait_wc(x->cq, x->ch, &wc) || server_check(x, &wc))
			goto out;
	if (server_answer(x))
		goto out;
	printf("%s: server verified %u messages over %u connections through one SRQ "
	       "of %u receives (per connection:", ex_prog, n, x->qps, x->srq_wrs);
	for (i = 0; i < x->qps; i++)
		printf(" %u", x->got[i]);
	printf(")\n");
	ret = 0;
out:
	server_cleanup(x, listen_id);
	return ret;
}

/* Client: per connection, a send buffer and a posted buffer for the answer. */
static int client_connect_all(struct srq_ex *x, struct rdma_addrinfo *rai)
{
	struct ibv_qp_init_attr attr;
	unsigned int i;
	int ret;

	x->bufs = calloc(2 * x->qps, x->len);
	if (!x->bufs) {
		ex_err("out of memory");
		return EX_FAIL;
	}
	for (i = 0; i < x->qps; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.qp_type = IBV_QPT_RC;
		attr.cap.max_send_wr = attr.cap.max_recv_wr = 1;
		attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
		/* Only the first connect may find the server not listening yet. */
		ret = ex_connect(rai, &attr, NULL, i ? 0 : x->retry_s, &x->conn[i],
				 NULL, NULL, x);
		if (ret)
			return ret;
		x->cmr[i] = rdma_reg_msgs(x->conn[i], slot_buf(x, 2 * i), 2 * (size_t)x->len);
		if (!x->cmr[i]) {
			ex_perr("rdma_reg_msgs");
			return EX_FAIL;
		}
		if (rdma_post_recv(x->conn[i], NULL, slot_buf(x, 2 * i + 1), x->len, x->cmr[i])) {
			ex_perr("rdma_post_recv");
			return EX_FAIL;
		}
	}
	return 0;
}

static int client_send_all(struct srq_ex *x)
{
	unsigned int n, i, sent[MAX_QPS] = { 0 };
	struct ibv_wc wc;
	struct ex_hdr h;

	ex_step = "sending round-robin over the connections";
	for (n = 0; n < x->count; n++) {
		i = n % x->qps;
		ex_fill(slot_buf(x, 2 * i), x->len, n, i, sent[i]);
		if (rdma_post_send(x->conn[i], NULL, slot_buf(x, 2 * i), x->len, x->cmr[i],
				   IBV_SEND_SIGNALED) ||
		    rdma_get_send_comp(x->conn[i], &wc) <= 0) {
			ex_perr("rdma_post_send/rdma_get_send_comp");
			return -1;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			ex_err("send %u on connection %u: %s", n, i, ibv_wc_status_str(wc.status));
			return -1;
		}
		sent[i]++;
	}
	ex_step = "waiting for the server's answers";
	for (i = 0; i < x->qps; i++) {
		if (rdma_get_recv_comp(x->conn[i], &wc) <= 0) {
			ex_perr("rdma_get_recv_comp");
			return -1;
		}
		if (wc.status != IBV_WC_SUCCESS ||
		    !ex_verify(slot_buf(x, 2 * i + 1), x->len, &h))
			return -1;
		if (h.tag != ANSWER_TAG + i || h.value != sent[i]) {
			ex_err("connection %u: the server got %u messages, we sent %u",
			       i, h.value, sent[i]);
			return -1;
		}
	}
	return 0;
}

static int run_client(struct srq_ex *x, struct rdma_addrinfo *rai)
{
	unsigned int i;
	int ret = client_connect_all(x, rai);

	if (!ret) {
		ret = client_send_all(x) ? EX_FAIL : 0;
		if (!ret)
			printf("%s: client sent %u messages over %u connections; every "
			       "answer matched\n", ex_prog, x->count, x->qps);
	}
	for (i = 0; i < x->qps; i++) {
		if (!x->conn[i])
			continue;
		rdma_disconnect(x->conn[i]);
		if (x->cmr[i])
			rdma_dereg_mr(x->cmr[i]);
		rdma_destroy_ep(x->conn[i]);
	}
	free(x->bufs);
	return ret;
}

int main(int argc, char **argv)
{
	struct srq_ex x = { .port = "7472", .qps = 4, .count = 64, .srq_wrs = 4, .len = 128 };
	struct rdma_addrinfo *rai;
	unsigned int limit = 60;
	int opt, ret;

	ex_prog = "srq_example";
	while ((opt = getopt(argc, argv, "sb:p:q:c:w:l:r:R:t:h")) != -1) {
		switch (opt) {
		case 's': x.server = true; break;
		case 'b': x.node = optarg; break;
		case 'p': x.port = optarg; break;
		case 'q': x.qps = ex_uint(optarg, "-q QPS", MAX_QPS); break;
		case 'c': x.count = ex_uint(optarg, "-c COUNT", 1000000); break;
		case 'w': x.srq_wrs = ex_uint(optarg, "-w SRQ_WRS", 4096); break;
		case 'l': x.len = ex_uint(optarg, "-l LENGTH", 65536); break;
		case 'r': x.retry_s = ex_uint(optarg, "-r RETRY_SECONDS", 3600); break;
		case 'R': x.ready = optarg; break;
		case 't': limit = ex_uint(optarg, "-t SECONDS", 86400); break;
		default: usage();
		}
	}
	if (x.server ? optind != argc : (optind != argc - 1 || x.node))
		usage();
	if (!x.server)
		x.node = argv[optind];
	if (x.len < sizeof(struct ex_hdr))
		usage();
	ex_set_time_limit(limit);
	ex_step = "looking up the address (rdma_getaddrinfo)";
	rai = ex_addrinfo(x.node, x.port, x.server);
	if (!rai)
		return EX_FAIL;
	ret = x.server ? run_server(&x, rai) : run_client(&x, rai);
	rdma_freeaddrinfo(rai);
	if (ret == EX_FAIL)
		fprintf(stderr, "%s: FAIL\n", ex_prog);
	return ret;
}
