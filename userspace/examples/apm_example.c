// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * apm_example - automatic path migration on an RC connection made with
 * RDMA_CM: both sides load an alternate path and arm it, the client
 * migrates to it, and traffic goes on.
 *
 *   server: apm_example -s [-b LOCAL_ADDR] [-p PORT] [-c COUNT] [-l LENGTH]
 *                       [-R READY_FILE] [-t SECONDS]
 *   client: apm_example [-p PORT] [-c COUNT] [-l LENGTH] [-r RETRY_SECONDS]
 *                       [-t SECONDS] SERVER
 *
 * After the connection (rdma_create_ep, rdma_connect / rdma_get_request,
 * rdma_accept) each side loads the alternate path with ibv_modify_qp
 * (IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE = IBV_MIG_REARM).  There is one
 * port, so the alternate path is the primary's address vector again: what
 * is shown is the protocol, not a second wire.  With -a INDEX on both sides
 * the alternate path runs between other GIDs of the two ports (e.g. the
 * IPv6 link-local ones): each side sends its GID at INDEX in the private
 * data of the connect request or reply, and the peer's becomes the
 * alternate destination.  Then the client sends and
 * the server answers, each message carrying the sender's migration state
 * (ibv_query_qp), until both report IBV_MIG_ARMED.  The client migrates
 * (IBV_MIG_MIGRATED) and they exchange COUNT more messages.  The server
 * must see the IBV_EVENT_PATH_MIG async event (its QP followed the
 * client's), both QPs must end in IBV_MIG_MIGRATED with the alternate path
 * as their primary one (ibv_query_qp), every message intact.
 *
 * Exit status 0 only then; EX_UNSUPPORTED when the device does not claim
 * IBV_DEVICE_AUTO_PATH_MIG or refuses to load the alternate path.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_verbs.h>
#include "ex_util.h"

#define ARM_ROUNDS	200	/* messages to wait for both sides ARMED */
#define FLAG_LAST	1u	/* tag bit: the client's last message */
#define FLAG_ANSWER	2u	/* tag bit: the server's answer */

/*
 * The private data of the connect request and reply: the sender's
 * alternate GID, if it has one (-a), for the peer's alternate path.
 */
struct alt_info {
	uint32_t magic;		/* ALT_MAGIC, big-endian */
	uint8_t has_gid;
	uint8_t pad[3];
	uint8_t gid[16];
};
#define ALT_MAGIC 0x41504d31u	/* "APM1" */

struct apm {
	bool server;
	int alt_index;			/* -a: our alternate source GID, or -1 */
	struct alt_info mine, peer;	/* alternate GIDs exchanged */
	const char *node, *port, *ready;
	unsigned int count, len, retry_s;
	uint8_t *send_buf, *recv_buf;
	struct ibv_mr *send_mr, *recv_mr;
	unsigned int path_mig_events, path_mig_errs;
	struct ibv_ah_attr alt_av;	/* the alternate path as loaded */
};

static const char *mig_str(enum ibv_mig_state s)
{
	switch (s) {
	case IBV_MIG_MIGRATED: return "MIGRATED";
	case IBV_MIG_REARM: return "REARM";
	case IBV_MIG_ARMED: return "ARMED";
	}
	return "?";
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s -s [-b LOCAL_ADDR] [-p PORT] [-c COUNT] [-l LENGTH] [-R READY_FILE]\n"
		"          [-t SECONDS]                                  (server)\n"
		"       %s [-p PORT] [-c COUNT] [-l LENGTH] [-r RETRY_SECONDS] [-t SECONDS]\n"
		"          SERVER                                        (client, migrates)\n"
		"  -c COUNT   messages after the migration (default 10)\n"
		"  -a INDEX   alternate path from this source GID index to the GID the\n"
		"             peer sends (both sides give -a); default: the primary path\n"
		"  -p, -l, -r, -R, -t  as for ep_example (default port 7473)\n",
		ex_prog, ex_prog);
	exit(EX_USAGE);
}

static int apm_prepare(struct rdma_cm_id *id, void *arg)
{
	struct apm *a = arg;

	a->recv_mr = rdma_reg_msgs(id, a->recv_buf, a->len);
	a->send_mr = a->recv_mr ? rdma_reg_msgs(id, a->send_buf, a->len) : NULL;
	if (!a->send_mr) {
		ex_perr("rdma_reg_msgs");
		return -1;
	}
	if (rdma_post_recv(id, NULL, a->recv_buf, a->len, a->recv_mr)) {
		ex_perr("rdma_post_recv");
		return -1;
	}
	return 0;
}

static void apm_unprepare(struct rdma_cm_id *id, void *arg)
{
	struct apm *a = arg;

	(void)id;
	if (a->send_mr)
		rdma_dereg_mr(a->send_mr);
	if (a->recv_mr)
		rdma_dereg_mr(a->recv_mr);
	a->send_mr = a->recv_mr = NULL;
}

static int mig_state(struct rdma_cm_id *id, enum ibv_mig_state *s)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	if (ibv_query_qp(id->qp, &attr, IBV_QP_PATH_MIG_STATE, &init)) {
		ex_perr("ibv_query_qp(IBV_QP_PATH_MIG_STATE)");
		return -1;
	}
	*s = attr.path_mig_state;
	return 0;
}

/* Reads the async events queued so far (the fd is non-blocking). */
static void drain_async(struct apm *a, struct ibv_context *ctx, int wait_ms)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	while (poll(&p, 1, wait_ms) == 1 && !ibv_get_async_event(ctx, &ev)) {
		if (ev.event_type == IBV_EVENT_PATH_MIG)
			a->path_mig_events++;
		else if (ev.event_type == IBV_EVENT_PATH_MIG_ERR)
			a->path_mig_errs++;
		printf("%s: async event %s\n", ex_prog, ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
		wait_ms = 0;
	}
}

/*
 * The alternate path: the primary's address vector, port and P_Key index
 * (one port), between the -a GIDs if both sides gave one, armed by
 * IBV_MIG_REARM.  EX_UNSUPPORTED if the device or kernel has no APM.
 */
static int load_alt_path(struct apm *a, struct rdma_cm_id *id)
{
	struct ibv_device_attr dev;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	ex_step = "loading the alternate path";
	if (ibv_query_device(id->verbs, &dev)) {
		ex_perr("ibv_query_device");
		return EX_FAIL;
	}
	if (!(dev.device_cap_flags & IBV_DEVICE_AUTO_PATH_MIG)) {
		ex_err("%s does not support automatic path migration "
		       "(no IBV_DEVICE_AUTO_PATH_MIG)", ibv_get_device_name(id->verbs->device));
		return EX_UNSUPPORTED;
	}
	if (ibv_query_qp(id->qp, &attr, IBV_QP_AV | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			 IBV_QP_TIMEOUT, &init)) {
		ex_perr("ibv_query_qp");
		return EX_FAIL;
	}
	attr.alt_ah_attr = attr.ah_attr;
	if (a->mine.has_gid && a->peer.has_gid) {
		attr.alt_ah_attr.is_global = 1;
		attr.alt_ah_attr.grh.sgid_index = a->alt_index;
		memcpy(attr.alt_ah_attr.grh.dgid.raw, a->peer.gid, 16);
		printf("%s: alternate path: GID index %d to the peer's %s GID\n", ex_prog,
		       a->alt_index, a->peer.gid[0] == 0xfe ? "link-local" : "alternate");
	} else if (a->mine.has_gid || a->peer.has_gid) {
		ex_err("only one side gave an alternate GID (-a): give it on both");
		return EX_FAIL;
	}
	a->alt_av = attr.alt_ah_attr;
	attr.alt_pkey_index = attr.pkey_index;
	attr.alt_port_num = attr.port_num ? attr.port_num : id->port_num;
	attr.alt_timeout = attr.timeout;
	attr.path_mig_state = IBV_MIG_REARM;
	if (ibv_modify_qp(id->qp, &attr, IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE)) {
		int err = errno;

		/* Linux's own core refuses alternate paths on RoCE ports: EINVAL. */
		if (err == EOPNOTSUPP || err == EINVAL) {
			ex_err("ibv_modify_qp(IBV_QP_ALT_PATH, IBV_MIG_REARM): %s: no "
			       "alternate path on this port (Linux's core allows "
			       "one only on InfiniBand links)", strerror(err));
			return EX_UNSUPPORTED;
		}
		ex_err("ibv_modify_qp(IBV_QP_ALT_PATH, IBV_MIG_REARM): %s", strerror(err));
		return EX_FAIL;
	}
	return 0;
}

static int xfer_send(struct apm *a, struct rdma_cm_id *id, uint32_t seq,
		     uint32_t tag, enum ibv_mig_state s)
{
	struct ibv_wc wc;

	ex_fill(a->send_buf, a->len, seq, tag, s);
	if (rdma_post_send(id, NULL, a->send_buf, a->len, a->send_mr, IBV_SEND_SIGNALED) ||
	    rdma_get_send_comp(id, &wc) <= 0) {
		ex_perr("rdma_post_send/rdma_get_send_comp");
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		ex_err("send %u: %s", seq, ibv_wc_status_str(wc.status));
		return -1;
	}
	return 0;
}

/* Receives message @seq into @h, then posts the next receive. */
static int xfer_recv(struct apm *a, struct rdma_cm_id *id, uint32_t seq,
		     struct ex_hdr *h)
{
	struct ibv_wc wc;

	if (rdma_get_recv_comp(id, &wc) <= 0) {
		ex_perr("rdma_get_recv_comp");
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.byte_len != a->len) {
		ex_err("receive %u: %s, %u bytes", seq, ibv_wc_status_str(wc.status), wc.byte_len);
		return -1;
	}
	if (!ex_verify(a->recv_buf, a->len, h))
		return -1;
	if (h->seq != seq) {
		ex_err("got message %u, want %u", h->seq, seq);
		return -1;
	}
	if (rdma_post_recv(id, NULL, a->recv_buf, a->len, a->recv_mr)) {
		ex_perr("rdma_post_recv");
		return -1;
	}
	return 0;
}

/* The server answers every message with its own state until the last. */
static int server_loop(struct apm *a, struct rdma_cm_id *id)
{
	enum ibv_mig_state s;
	struct ex_hdr h;
	uint32_t seq, tries;

	ex_step = "answering the client's messages";
	for (seq = 0;; seq++) {
		if (xfer_recv(a, id, seq, &h) || mig_state(id, &s) ||
		    xfer_send(a, id, seq, FLAG_ANSWER | (h.tag & FLAG_LAST), s))
			return -1;
		drain_async(a, id->verbs, 0);
		if (h.tag & FLAG_LAST)
			break;
	}
	ex_step = "waiting for IBV_EVENT_PATH_MIG";
	for (tries = 0; !a->path_mig_events && tries < 100; tries++)
		drain_async(a, id->verbs, 100);
	if (mig_state(id, &s))
		return -1;
	if (!a->path_mig_events || s != IBV_MIG_MIGRATED) {
		ex_err("the client migrated, but this QP %s and is %s",
		       a->path_mig_events ? "saw IBV_EVENT_PATH_MIG" :
		       "never saw IBV_EVENT_PATH_MIG", mig_str(s));
		return -1;
	}
	printf("%s: server: IBV_EVENT_PATH_MIG seen, QP migrated, %u messages answered\n",
	       ex_prog, seq + 1);
	return 0;
}

/* One round trip; @peer gets the server's migration state. */
static int round_trip(struct apm *a, struct rdma_cm_id *id, uint32_t seq,
		      bool last, enum ibv_mig_state *mine, enum ibv_mig_state *peer)
{
	struct ex_hdr h;

	if (mig_state(id, mine) || xfer_send(a, id, seq, last ? FLAG_LAST : 0, *mine) ||
	    xfer_recv(a, id, seq, &h))
		return -1;
	if (h.tag != (FLAG_ANSWER | (last ? FLAG_LAST : 0))) {
		ex_err("answer %u has tag %#x", seq, h.tag);
		return -1;
	}
	*peer = (enum ibv_mig_state)h.value;
	drain_async(a, id->verbs, 0);
	return 0;
}

static int client_loop(struct apm *a, struct rdma_cm_id *id)
{
	enum ibv_mig_state mine = IBV_MIG_REARM, peer = IBV_MIG_REARM;
	struct ibv_qp_attr attr;
	uint32_t seq = 0, i;

	ex_step = "exchanging messages until both paths are ARMED";
	while (mine != IBV_MIG_ARMED || peer != IBV_MIG_ARMED) {
		if (seq == ARM_ROUNDS) {
			ex_err("after %u messages the path is %s here and %s on the server, "
			       "not ARMED", seq, mig_str(mine), mig_str(peer));
			return -1;
		}
		if (round_trip(a, id, seq++, false, &mine, &peer))
			return -1;
	}
	printf("%s: both QPs ARMED after %u messages; migrating\n", ex_prog, seq);
	ex_step = "migrating (IBV_MIG_MIGRATED)";
	memset(&attr, 0, sizeof(attr));
	attr.path_mig_state = IBV_MIG_MIGRATED;
	if (ibv_modify_qp(id->qp, &attr, IBV_QP_PATH_MIG_STATE)) {
		ex_perr("ibv_modify_qp(IBV_MIG_MIGRATED)");
		return -1;
	}
	ex_step = "exchanging messages on the migrated path";
	for (i = 0; i < a->count; i++)
		if (round_trip(a, id, seq++, i + 1 == a->count, &mine, &peer))
			return -1;
	if (mine != IBV_MIG_MIGRATED || peer != IBV_MIG_MIGRATED) {
		ex_err("after the migration the path is %s here and %s on the server",
		       mig_str(mine), mig_str(peer));
		return -1;
	}
	printf("%s: client: migrated; %u messages verified after it (async PATH_MIG "
	       "events here: %u)\n", ex_prog, a->count, a->path_mig_events);
	return 0;
}

/* Either side once connected: alternate path, traffic, disconnect. */
/* After a migration the alternate path is the primary one. */
static int check_new_primary(struct apm *a, struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	if (ibv_query_qp(id->qp, &attr, IBV_QP_AV, &init)) {
		ex_perr("ibv_query_qp(IBV_QP_AV)");
		return -1;
	}
	if (attr.ah_attr.grh.sgid_index != a->alt_av.grh.sgid_index ||
	    memcmp(attr.ah_attr.grh.dgid.raw, a->alt_av.grh.dgid.raw, 16)) {
		ex_err("after the migration the path is GID index %u to %s..., "
		       "not the alternate one (index %u)", attr.ah_attr.grh.sgid_index,
		       attr.ah_attr.grh.dgid.raw[0] == 0xfe ? "fe80:" : "another GID",
		       a->alt_av.grh.sgid_index);
		return -1;
	}
	return 0;
}

static int connected(struct apm *a, struct rdma_cm_id *id)
{
	int flags = fcntl(id->verbs->async_fd, F_GETFL);
	int ret;

	if (flags < 0 || fcntl(id->verbs->async_fd, F_SETFL, flags | O_NONBLOCK)) {
		ex_perr("fcntl(async_fd, O_NONBLOCK)");
		return EX_FAIL;
	}
	ret = load_alt_path(a, id);
	if (ret)
		return ret;
	ret = (a->server ? server_loop(a, id) : client_loop(a, id)) ||
	      check_new_primary(a, id) ? EX_FAIL : 0;
	if (a->path_mig_errs) {
		ex_err("%u IBV_EVENT_PATH_MIG_ERR events", a->path_mig_errs);
		ret = EX_FAIL;
	}
	ex_step = "disconnecting";
	if (rdma_disconnect(id)) {
		ex_perr("rdma_disconnect");
		ret = EX_FAIL;
	}
	return ret;
}

/* Our alternate GID (-a) for the private data. */
static int alt_prepare(struct apm *a, struct ibv_context *ctx, uint8_t port)
{
	union ibv_gid gid;

	a->mine.magic = htonl(ALT_MAGIC);
	if (a->alt_index < 0)
		return 0;
	if (ibv_query_gid(ctx, port, a->alt_index, &gid)) {
		ex_err("ibv_query_gid(port %u, index %d): %s", port, a->alt_index,
		       strerror(errno));
		return -1;
	}
	memcpy(a->mine.gid, gid.raw, 16);
	a->mine.has_gid = 1;
	return 0;
}

/* The peer's alternate GID, from the event's private data. */
static int alt_from_event(struct apm *a, struct rdma_cm_event *ev)
{
	if (!ev || ev->param.conn.private_data_len < sizeof(a->peer) ||
	    !ev->param.conn.private_data) {
		ex_err("no alternate-path data from the peer (private data of %u bytes)",
		       ev ? ev->param.conn.private_data_len : 0);
		return -1;
	}
	memcpy(&a->peer, ev->param.conn.private_data, sizeof(a->peer));
	if (ntohl(a->peer.magic) != ALT_MAGIC) {
		ex_err("the peer's private data is not apm_example's");
		return -1;
	}
	return 0;
}

static void conn_param(struct apm *a, struct rdma_conn_param *p)
{
	memset(p, 0, sizeof(*p));
	p->private_data = &a->mine;
	p->private_data_len = sizeof(a->mine);
	p->responder_resources = p->initiator_depth = 1;
	p->retry_count = p->rnr_retry_count = 7;
}

static void qp_caps(struct ibv_qp_init_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->qp_type = IBV_QPT_RC;
	attr->cap.max_send_wr = attr->cap.max_recv_wr = 1;
	attr->cap.max_send_sge = attr->cap.max_recv_sge = 1;
}

static int run_server(struct apm *a, struct rdma_addrinfo *rai)
{
	struct rdma_cm_id *listen_id, *id = NULL;
	struct rdma_conn_param param;
	struct ibv_qp_init_attr attr;
	int ret = EX_FAIL;

	qp_caps(&attr);
	ex_step = "listening";
	if (rdma_create_ep(&listen_id, rai, NULL, &attr)) {
		ex_perr("rdma_create_ep");
		return EX_FAIL;
	}
	if (rdma_listen(listen_id, 1)) {
		ex_perr("rdma_listen");
		goto out;
	}
	printf("%s: listening on port %s\n", ex_prog, a->port);
	fflush(stdout);
	if (ex_signal_ready(a->ready))
		goto out;
	ex_step = "waiting for a connect request (rdma_get_request)";
	if (rdma_get_request(listen_id, &id)) {
		ex_perr("rdma_get_request");
		goto out;
	}
	if (apm_prepare(id, a) || alt_from_event(a, id->event) ||
	    alt_prepare(a, id->verbs, id->port_num))
		goto out;
	ex_step = "accepting (rdma_accept)";
	conn_param(a, &param);
	if (rdma_accept(id, &param)) {
		ex_perr("rdma_accept");
		goto out;
	}
	ret = connected(a, id);
out:
	apm_unprepare(id, a);
	if (id)
		rdma_destroy_ep(id);
	rdma_destroy_ep(listen_id);
	return ret;
}

/* Buffers and the first receive, and our alternate GID for the request. */
static int client_prepare(struct rdma_cm_id *id, void *arg)
{
	struct apm *a = arg;

	return apm_prepare(id, a) || alt_prepare(a, id->verbs, id->port_num) ? -1 : 0;
}

static int run_client(struct apm *a, struct rdma_addrinfo *rai)
{
	struct rdma_conn_param param;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id;
	int ret;

	qp_caps(&attr);
	conn_param(a, &param);
	ret = ex_connect(rai, &attr, &param, a->retry_s, &id, client_prepare,
			 apm_unprepare, a);
	if (ret)
		return ret;
	/* The reply's private data came with ESTABLISHED (a synchronous id). */
	ret = alt_from_event(a, id->event) ? EX_FAIL : connected(a, id);
	apm_unprepare(id, a);
	rdma_destroy_ep(id);
	return ret;
}

/* A GID table index, 0 to 255 (ex_uint starts at 1). */
static int gid_index(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < 0 || v > 255) {
		ex_err("-a GID_INDEX must be 0 to 255, not '%s'", s);
		exit(EX_USAGE);
	}
	return (int)v;
}

int main(int argc, char **argv)
{
	struct apm a = { .port = "7473", .count = 10, .len = 64, .alt_index = -1 };
	struct rdma_addrinfo *rai;
	unsigned int limit = 60;
	int opt, ret;

	ex_prog = "apm_example";
	while ((opt = getopt(argc, argv, "sb:p:c:l:r:R:t:a:h")) != -1) {
		switch (opt) {
		case 's': a.server = true; break;
		case 'b': a.node = optarg; break;
		case 'a': a.alt_index = gid_index(optarg); break;
		case 'p': a.port = optarg; break;
		case 'c': a.count = ex_uint(optarg, "-c COUNT", 1000000); break;
		case 'l': a.len = ex_uint(optarg, "-l LENGTH", 65536); break;
		case 'r': a.retry_s = ex_uint(optarg, "-r RETRY_SECONDS", 3600); break;
		case 'R': a.ready = optarg; break;
		case 't': limit = ex_uint(optarg, "-t SECONDS", 86400); break;
		default: usage();
		}
	}
	if (a.server ? optind != argc : (optind != argc - 1 || a.node))
		usage();
	if (!a.server)
		a.node = argv[optind];
	if (a.len < sizeof(struct ex_hdr))
		usage();
	ex_set_time_limit(limit);
	a.send_buf = calloc(1, a.len);
	a.recv_buf = calloc(1, a.len);
	if (!a.send_buf || !a.recv_buf) {
		ex_err("out of memory");
		return EX_FAIL;
	}
	ex_step = "looking up the address (rdma_getaddrinfo)";
	rai = ex_addrinfo(a.node, a.port, a.server);
	if (!rai)
		return EX_FAIL;
	ret = a.server ? run_server(&a, rai) : run_client(&a, rai);
	rdma_freeaddrinfo(rai);
	free(a.send_buf);
	free(a.recv_buf);
	if (ret == EX_FAIL)
		fprintf(stderr, "%s: FAIL\n", ex_prog);
	return ret;
}
