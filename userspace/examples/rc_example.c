// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rc_example - one RC queue pair between a server and a client, exercising
 * the three basic transfers of the verbs API:
 *
 *   1. SEND/RECV:   the server sends a message into a receive the client
 *                   posted before the connection was completed;
 *   2. RDMA READ:   the client reads the server's buffer, into which the
 *                   server put a new message;
 *   3. RDMA WRITE:  the client writes a third message into the server's
 *                   buffer, and the server prints it.
 *
 * The QP attributes (QPN, PSN, GID, LID) and the server buffer's address
 * and rkey travel over a TCP connection, which also separates the steps
 * (a one-byte barrier).  Run "rc_example -g 1" on the server, then
 * "rc_example -g 1 SERVER" on the client (RoCE needs -g: the GID index).
 *
 * Exit status 0 iff every step completed and every message arrived intact.
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define BUF_SIZE	64
#define POLL_TIMEOUT_MS	10000	/* TCG guests are slow; generous */
#define MSG_SEND	"SEND operation"
#define MSG_READ	"RDMA read operation"
#define MSG_WRITE	"RDMA write operation"

struct options {
	const char *server;	/* NULL: we are the server */
	const char *devname;	/* NULL: first device */
	int tcp_port;
	int ib_port;
	int gid_index;		/* < 0: no GRH (InfiniBand with LIDs) */
};

/* What each side tells the other, in network byte order. */
struct peer_info {
	uint64_t addr;		/* of the buffer */
	uint32_t rkey;
	uint32_t qpn;
	uint32_t psn;
	uint16_t lid;
	uint8_t gid[16];
} __attribute__((packed));

struct rc_conn {
	int sock;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	struct ibv_port_attr port_attr;
	struct peer_info remote;	/* host byte order */
};

static int full_io(int fd, void *buf, size_t len, int writing)
{
	char *p = buf;

	while (len) {
		ssize_t n = writing ? write(fd, p, len) : read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* Both sides send first, then read: neither blocks the other. */
static int exchange(int sock, const void *out, void *in, size_t len)
{
	if (full_io(sock, (void *)out, len, 1) || full_io(sock, in, len, 0)) {
		fprintf(stderr, "TCP exchange with the peer failed\n");
		return -1;
	}
	return 0;
}

static int barrier(int sock, char tag)
{
	char peer;

	if (exchange(sock, &tag, &peer, 1))
		return -1;
	if (peer != tag) {
		fprintf(stderr, "out of step with the peer ('%c' vs '%c')\n",
			tag, peer);
		return -1;
	}
	return 0;
}

static int tcp_connect(const struct options *o)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = o->server ? 0 : AI_PASSIVE,
	};
	struct addrinfo *res, *ai;
	char service[8];
	int fd = -1, lfd, one = 1, ret;

	snprintf(service, sizeof(service), "%d", o->tcp_port);
	ret = getaddrinfo(o->server, service, &hints, &res);
	if (ret) {
		fprintf(stderr, "%s for %s:%d\n", gai_strerror(ret),
			o->server ? o->server : "*", o->tcp_port);
		return -1;
	}
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (fd < 0)
			continue;
		if (o->server) {
			if (connect(fd, ai->ai_addr, ai->ai_addrlen)) {
				close(fd);
				fd = -1;
			}
			continue;
		}
		lfd = fd;
		fd = -1;
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!bind(lfd, ai->ai_addr, ai->ai_addrlen) && !listen(lfd, 1)) {
			printf("waiting for a client on TCP port %d\n",
			       o->tcp_port);
			fd = accept(lfd, NULL, NULL);
		}
		close(lfd);
	}
	freeaddrinfo(res);
	if (fd < 0)
		fprintf(stderr, "could not %s TCP port %d\n",
			o->server ? "connect to" : "listen on", o->tcp_port);
	return fd;
}

static struct ibv_context *open_device(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list) {
		perror("ibv_get_device_list");
		return NULL;
	}
	for (i = 0; list[i]; i++)
		if (!name || !strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (list[i])
		ctx = ibv_open_device(list[i]);
	else
		fprintf(stderr, "RDMA device %s not found\n", name ? name : "");
	if (list[i] && !ctx)
		perror("ibv_open_device");
	ibv_free_device_list(list);
	return ctx;
}

static int create_resources(struct rc_conn *c, const struct options *o)
{
	struct ibv_qp_init_attr qp_attr = {
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	c->ctx = open_device(o->devname);
	if (!c->ctx)
		return -1;
	if (ibv_query_port(c->ctx, o->ib_port, &c->port_attr)) {
		fprintf(stderr, "ibv_query_port %d failed\n", o->ib_port);
		return -1;
	}
	c->pd = ibv_alloc_pd(c->ctx);
	c->cq = c->pd ? ibv_create_cq(c->ctx, 2, NULL, NULL, 0) : NULL;
	c->buf = calloc(1, BUF_SIZE);
	if (!c->pd || !c->cq || !c->buf) {
		perror("PD/CQ/buffer");
		return -1;
	}
	c->mr = ibv_reg_mr(c->pd, c->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	if (!c->mr) {
		perror("ibv_reg_mr");
		return -1;
	}
	qp_attr.send_cq = qp_attr.recv_cq = c->cq;
	c->qp = ibv_create_qp(c->pd, &qp_attr);
	if (!c->qp) {
		perror("ibv_create_qp");
		return -1;
	}
	printf("QP 0x%06x created, buffer %p rkey 0x%08x\n", c->qp->qp_num,
	       (void *)c->buf, c->mr->rkey);
	return 0;
}

static void destroy_resources(struct rc_conn *c)
{
	if (c->qp && ibv_destroy_qp(c->qp))
		fprintf(stderr, "ibv_destroy_qp failed\n");
	if (c->mr && ibv_dereg_mr(c->mr))
		fprintf(stderr, "ibv_dereg_mr failed\n");
	if (c->cq && ibv_destroy_cq(c->cq))
		fprintf(stderr, "ibv_destroy_cq failed\n");
	if (c->pd && ibv_dealloc_pd(c->pd))
		fprintf(stderr, "ibv_dealloc_pd failed\n");
	if (c->ctx && ibv_close_device(c->ctx))
		fprintf(stderr, "ibv_close_device failed\n");
	free(c->buf);
	if (c->sock >= 0)
		close(c->sock);
}

static int post_recv(struct rc_conn *c)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->buf, .length = BUF_SIZE,
		.lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int ret = ibv_post_recv(c->qp, &wr, &bad);

	if (ret)
		fprintf(stderr, "ibv_post_recv: %s\n", strerror(ret));
	return ret;
}

/* One signaled request on the whole buffer; RDMA ops target the peer's. */
static int post_send(struct rc_conn *c, enum ibv_wr_opcode opcode)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->buf, .length = BUF_SIZE,
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 2, .sg_list = &sge, .num_sge = 1, .opcode = opcode,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;
	int ret;

	if (opcode != IBV_WR_SEND) {
		wr.wr.rdma.remote_addr = c->remote.addr;
		wr.wr.rdma.rkey = c->remote.rkey;
	}
	ret = ibv_post_send(c->qp, &wr, &bad);
	if (ret)
		fprintf(stderr, "ibv_post_send: %s\n", strerror(ret));
	return ret;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

static int wait_completion(struct rc_conn *c, const char *what)
{
	uint64_t deadline = now_ms() + POLL_TIMEOUT_MS;
	struct ibv_wc wc;
	int n;

	do {
		n = ibv_poll_cq(c->cq, 1, &wc);
	} while (n == 0 && now_ms() < deadline);
	if (n < 0) {
		fprintf(stderr, "ibv_poll_cq failed\n");
		return -1;
	}
	if (n == 0) {
		fprintf(stderr, "%s: no completion within %d ms\n", what,
			POLL_TIMEOUT_MS);
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "%s: completion with status %s (%d), vendor error 0x%x\n",
			what, ibv_wc_status_str(wc.status), wc.status,
			wc.vendor_err);
		return -1;
	}
	printf("%s: completed\n", what);
	return 0;
}

static int modify(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		  const char *state)
{
	int ret = ibv_modify_qp(qp, attr, mask);

	if (ret)
		fprintf(stderr, "modify QP to %s: %s\n", state, strerror(ret));
	return ret;
}

static int connect_qp(struct rc_conn *c, const struct options *o)
{
	struct peer_info local = {}, remote;
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = o->ib_port,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_WRITE,
	};
	union ibv_gid gid = {};

	if (modify(c->qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
		   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, "INIT"))
		return -1;
	/* The client's receive must exist before the server may send. */
	if (o->server && post_recv(c))
		return -1;

	if (o->gid_index >= 0 &&
	    ibv_query_gid(c->ctx, o->ib_port, o->gid_index, &gid)) {
		fprintf(stderr, "ibv_query_gid index %d failed\n", o->gid_index);
		return -1;
	}
	local.addr = htobe64((uintptr_t)c->buf);
	local.rkey = htobe32(c->mr->rkey);
	local.qpn = htobe32(c->qp->qp_num);
	local.psn = htobe32(lrand48() & 0xffffff);
	local.lid = htobe16(c->port_attr.lid);
	memcpy(local.gid, gid.raw, sizeof(local.gid));
	if (exchange(c->sock, &local, &remote, sizeof(remote)))
		return -1;
	c->remote.addr = be64toh(remote.addr);
	c->remote.rkey = be32toh(remote.rkey);
	c->remote.qpn = be32toh(remote.qpn);
	c->remote.psn = be32toh(remote.psn);
	c->remote.lid = be16toh(remote.lid);
	memcpy(c->remote.gid, remote.gid, sizeof(remote.gid));
	printf("peer: QP 0x%06x, buffer 0x%" PRIx64 " rkey 0x%08x\n",
	       c->remote.qpn, c->remote.addr, c->remote.rkey);

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTR;
	attr.path_mtu = IBV_MTU_256;
	attr.dest_qp_num = c->remote.qpn;
	attr.rq_psn = c->remote.psn;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;	/* 0.64 ms, IBA table 45 */
	attr.ah_attr.dlid = c->remote.lid;
	attr.ah_attr.port_num = o->ib_port;
	if (o->gid_index >= 0) {
		attr.ah_attr.is_global = 1;
		attr.ah_attr.grh.hop_limit = 1;
		attr.ah_attr.grh.sgid_index = o->gid_index;
		memcpy(attr.ah_attr.grh.dgid.raw, c->remote.gid, 16);
	}
	if (modify(c->qp, &attr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER, "RTR"))
		return -1;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = be32toh(local.psn);
	attr.timeout = 14;		/* 4.096 us * 2^14 = 67 ms */
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;		/* infinite */
	attr.max_rd_atomic = 1;
	if (modify(c->qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN |
		   IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		   IBV_QP_MAX_QP_RD_ATOMIC, "RTS"))
		return -1;
	printf("QP is in RTS\n");
	return barrier(c->sock, 'C');
}

static int expect(const char *who, const char *buf, const char *want)
{
	printf("%s: '%s'\n", who, buf);
	if (strcmp(buf, want)) {
		fprintf(stderr, "expected '%s'\n", want);
		return -1;
	}
	return 0;
}

static int run(struct rc_conn *c, const struct options *o)
{
	int client = o->server != NULL;

	/* 1. SEND from the server into the client's posted receive. */
	if (!client) {
		strcpy(c->buf, MSG_SEND);
		if (post_send(c, IBV_WR_SEND))
			return -1;
	}
	if (wait_completion(c, client ? "RECV" : "SEND"))
		return -1;
	if (client && expect("received message", c->buf, MSG_SEND))
		return -1;

	/* 2. The client reads what the server put in its buffer. */
	if (!client)
		strcpy(c->buf, MSG_READ);
	if (barrier(c->sock, 'R'))
		return -1;
	if (client) {
		memset(c->buf, 0, BUF_SIZE);
		if (post_send(c, IBV_WR_RDMA_READ) ||
		    wait_completion(c, "RDMA READ") ||
		    expect("server's buffer, read", c->buf, MSG_READ))
			return -1;

		/* 3. ...and writes a new message over it. */
		strcpy(c->buf, MSG_WRITE);
		if (post_send(c, IBV_WR_RDMA_WRITE) ||
		    wait_completion(c, "RDMA WRITE"))
			return -1;
	}
	if (barrier(c->sock, 'W'))
		return -1;
	if (!client && expect("own buffer, written by the client", c->buf,
			      MSG_WRITE))
		return -1;
	return 0;
}

static void usage(const char *argv0)
{
	printf("Usage: %s [options]          run the server\n"
	       "       %s [options] SERVER   run the client, connect to SERVER\n\n"
	       "Options:\n"
	       "  -p, --port=PORT       TCP port (default 19875)\n"
	       "  -d, --ib-dev=DEV      RDMA device (default: the first)\n"
	       "  -i, --ib-port=PORT    port of the device (default 1)\n"
	       "  -g, --gid-idx=INDEX   GID index for the GRH (required on RoCE;\n"
	       "                        default: no GRH)\n", argv0, argv0);
}

int main(int argc, char *argv[])
{
	static const struct option long_opts[] = {
		{ "port", 1, NULL, 'p' }, { "ib-dev", 1, NULL, 'd' },
		{ "ib-port", 1, NULL, 'i' }, { "gid-idx", 1, NULL, 'g' },
		{ "help", 0, NULL, 'h' }, {}
	};
	struct options o = { .tcp_port = 19875, .ib_port = 1, .gid_index = -1 };
	struct rc_conn c = { .sock = -1 };
	int opt, ret = 1;

	while ((opt = getopt_long(argc, argv, "p:d:i:g:h", long_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'p':
			o.tcp_port = atoi(optarg);
			break;
		case 'd':
			o.devname = optarg;
			break;
		case 'i':
			o.ib_port = atoi(optarg);
			break;
		case 'g':
			o.gid_index = atoi(optarg);
			break;
		default:
			usage(argv[0]);
			return opt == 'h' ? 0 : 1;
		}
	}
	if (optind < argc - 1 || o.ib_port < 1) {
		usage(argv[0]);
		return 1;
	}
	if (optind == argc - 1)
		o.server = argv[optind];
	srand48(getpid() * time(NULL));
	printf("%s: device %s, port %d, GID index %d, TCP port %d\n",
	       o.server ? "client" : "server", o.devname ? o.devname : "(first)",
	       o.ib_port, o.gid_index, o.tcp_port);

	c.sock = tcp_connect(&o);
	if (c.sock >= 0 && !create_resources(&c, &o) && !connect_qp(&c, &o) &&
	    !run(&c, &o))
		ret = 0;
	destroy_resources(&c);
	printf("%s\n", ret ? "FAILED" : "done");
	return ret;
}
