// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * headers_compat DEVICE GID_INDEX - built twice from this one source: once
 * against our <infiniband/verbs.h> (headers_compat_ours) and once against
 * Debian's libibverbs-dev headers (headers_compat_debian, an oracle only),
 * both run on our libibverbs.so.1.  It drives the verbs whose behaviour
 * depends on the header (inline wrappers, struct sizes the caller passes,
 * the extended CQ/QP accessors) and prints only what is deterministic in
 * one boot; headers-compat.vmtest requires the two outputs to be equal.
 *
 * Exit 0 iff every verb succeeded and every message arrived intact.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include "check.h"

/* Prove at build time which header set this variant was compiled with. */
#if defined(HEADERS_DEBIAN) && __has_include(<infiniband/ibx_driver.h>)
#error "the Debian variant sees our headers"
#endif
#if !defined(HEADERS_DEBIAN) && !__has_include(<infiniband/ibx_driver.h>)
#error "the ours variant does not see our headers"
#endif

#define BUF	4096
#define MSG	"header-compat message"


static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static uint8_t *buf;
static union ibv_gid gid;
static int gid_index;

static void print_device(struct ibv_device *dev)
{
	struct ibv_device_attr_ex ex;
	struct ibv_device_attr *a = &ex.orig_attr;

	printf("device %s index %d node_type %d transport %d\n",
	       ibv_get_device_name(dev), ibv_get_device_index(dev),
	       dev->node_type, dev->transport_type);
	memset(&ex, 0xa5, sizeof(ex));
	REQUIRE(!ibv_query_device_ex(ctx, NULL, &ex), "query_device_ex");
	printf("fw %s guid %016" PRIx64 " sysguid %016" PRIx64 "\n", a->fw_ver,
	       be64toh(a->node_guid), be64toh(a->sys_image_guid));
	printf("max_mr_size %" PRIu64 " page_size_cap %" PRIx64
	       " vendor %x/%x hw %x\n", a->max_mr_size, a->page_size_cap,
	       a->vendor_id, a->vendor_part_id, a->hw_ver);
	printf("qp %d wr %d cap %x sge %d/%d cq %d cqe %d mr %d pd %d\n",
	       a->max_qp, a->max_qp_wr, a->device_cap_flags, a->max_sge,
	       a->max_sge_rd, a->max_cq, a->max_cqe, a->max_mr, a->max_pd);
	printf("rd_atom %d/%d/%d atomic %d mw %d ah %d srq %d/%d/%d\n",
	       a->max_qp_rd_atom, a->max_ee_rd_atom, a->max_qp_init_rd_atom,
	       a->atomic_cap, a->max_mw, a->max_ah, a->max_srq, a->max_srq_wr,
	       a->max_srq_sge);
	printf("pkeys %u ack_delay %u ports %u\n", a->max_pkeys,
	       a->local_ca_ack_delay, a->phys_port_cnt);
	printf("ex: ts_mask %" PRIx64 " core_clock %" PRIu64 " cap_ex %" PRIx64
	       " odp %" PRIx64 " rss %x/%u tm %u pci_atomic %x/%x/%x ports_ex %u\n",
	       ex.completion_timestamp_mask, ex.hca_core_clock,
	       ex.device_cap_flags_ex, ex.odp_caps.general_caps,
	       ex.rss_caps.supported_qpts, ex.rss_caps.max_rwq_indirection_tables,
	       ex.tm_caps.max_num_tags, ex.pci_atomic_caps.fetch_add,
	       ex.pci_atomic_caps.swap, ex.pci_atomic_caps.compare_swap,
	       ex.phys_port_cnt_ex);
}

static void print_port(void)
{
	struct ibv_port_attr p;
	struct ibv_gid_entry ge;

	/* ibv_query_port is inline: it passes this header's struct size. */
	memset(&p, 0xa5, sizeof(p));
	REQUIRE(!ibv_query_port(ctx, 1, &p), "query_port");
	printf("port state %d mtu %d/%d gids %d cap %08x cap2 %04x msg %u\n",
	       p.state, p.max_mtu, p.active_mtu, p.gid_tbl_len,
	       p.port_cap_flags, p.port_cap_flags2, p.max_msg_sz);
	printf("port pkeys %u lid %u lmc %u vl %u width %u speed %u phys %u "
	       "link %u flags %u\n", p.pkey_tbl_len, p.lid, p.lmc, p.max_vl_num,
	       p.active_width, p.active_speed, p.phys_state, p.link_layer,
	       p.flags);

	REQUIRE(!ibv_query_gid(ctx, 1, gid_index, &gid), "query_gid");
	memset(&ge, 0xa5, sizeof(ge));
	REQUIRE(!ibv_query_gid_ex(ctx, 1, gid_index, &ge, 0), "query_gid_ex");
	REQUIRE(!memcmp(&ge.gid, &gid, sizeof(gid)), "gid_ex differs");
	printf("gid[%u] %08x%08x%08x%08x type %u port %u\n", ge.gid_index,
	       ntohl(*(uint32_t *)&gid.raw[0]), ntohl(*(uint32_t *)&gid.raw[4]),
	       ntohl(*(uint32_t *)&gid.raw[8]), ntohl(*(uint32_t *)&gid.raw[12]),
	       ge.gid_type, ge.port_num);
}

static struct ibv_qp *create_qp(struct ibv_cq *cq)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
			 .max_recv_sge = 1, .max_inline_data = 32 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_READ,
	};
	struct ibv_qp_attr m = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(ctx, &a);

	REQUIRE(qp, "create_qp_ex: %s", strerror(errno));
	REQUIRE(!ibv_modify_qp(qp, &m, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), "INIT");
	return qp;
}

static void connect_qp(struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn, .rq_psn = 7, .max_dest_rd_atomic = 1,
		.min_rnr_timer = 1,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = gid, .sgid_index = gid_index,
				      .hop_limit = 1 } },
	};

	REQUIRE(!ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER),
	      "RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 7;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	REQUIRE(!ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC), "RTS");
}

static void print_qp(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr i;

	memset(&a, 0xa5, sizeof(a));
	REQUIRE(!ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_CAP | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_TIMEOUT, &i), "query_qp");
	printf("qp state %d mtu %d psn %u/%u timeout %u retry %u/%u rd %u/%u "
	       "cap %u/%u/%u/%u/%u sgid %u hop %u type %d sig %d\n",
	       a.qp_state, a.path_mtu, a.sq_psn, a.rq_psn, a.timeout,
	       a.retry_cnt, a.rnr_retry, a.max_rd_atomic, a.max_dest_rd_atomic,
	       a.cap.max_send_wr, a.cap.max_recv_wr, a.cap.max_send_sge,
	       a.cap.max_recv_sge, a.cap.max_inline_data,
	       a.ah_attr.grh.sgid_index, a.ah_attr.grh.hop_limit, i.qp_type,
	       i.sq_sig_all);
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(a, b);
}

/*
 * Waits for completion events on @ch and drains @n CQEs of @cq; prints them
 * sorted, since the sender's and the receiver's completions may land in
 * either order.
 */
static void poll_n(struct ibv_comp_channel *ch, struct ibv_cq_ex *cq, int n,
		   struct ibv_qp *rqp)
{
	struct ibv_poll_cq_attr attr = {};
	time_t end = time(NULL) + 20;
	char lines[8][160];
	int got = 0, ret, i;

	REQUIRE(n <= 8, "too many");

	while (got < n) {
		struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
		struct ibv_cq *ev_cq;
		void *ev_ctx;

		REQUIRE(time(NULL) <= end, "%d of %d completions", got, n);
		ret = ibv_start_poll(cq, &attr);
		if (ret == ENOENT) {
			REQUIRE(poll(&pfd, 1, 20000) == 1, "no completion event");
			REQUIRE(!ibv_get_cq_event(ch, &ev_cq, &ev_ctx) &&
			      ev_cq == ibv_cq_ex_to_cq(cq) && ev_ctx == buf,
			      "get_cq_event");
			ibv_ack_cq_events(ev_cq, 1);
			REQUIRE(!ibv_req_notify_cq(ev_cq, 0), "rearm");
			continue;
		}
		REQUIRE(!ret, "start_poll %d", ret);
		do {
			uint32_t flags = ibv_wc_read_wc_flags(cq);

			snprintf(lines[got], sizeof(lines[got]),
				 "wc id %" PRIu64 " status %d opcode %d len %u "
				 "flags %x imm %08x own_rq %d", cq->wr_id,
				 cq->status, ibv_wc_read_opcode(cq),
				 ibv_wc_read_byte_len(cq), flags,
				 flags & IBV_WC_WITH_IMM ?
				 ntohl(ibv_wc_read_imm_data(cq)) : 0,
				 ibv_wc_read_qp_num(cq) == rqp->qp_num);
			got++;
		} while (got < n && !ibv_next_poll(cq));
		ibv_end_poll(cq);
	}
	qsort(lines, n, sizeof(lines[0]), cmp_line);
	for (i = 0; i < n; i++)
		printf("%s\n", lines[i]);
}

static void post_recv(struct ibv_qp *qp, uint32_t off, uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)buf + off, 256, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	REQUIRE(!ibv_post_recv(qp, &wr, &bad), "post_recv");
}

static void traffic(void)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 16, .cq_context = buf, .channel = ch,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_cq_ex *cq;
	struct ibv_qp *a, *b;
	struct ibv_qp_ex *x;
	struct ibv_sge sge;
	struct ibv_send_wr wr = {}, *bad;

	REQUIRE(ch, "comp_channel");
	cq = ibv_create_cq_ex(ctx, &ca);
	REQUIRE(cq, "create_cq_ex: %s", strerror(errno));
	REQUIRE(!ibv_req_notify_cq(ibv_cq_ex_to_cq(cq), 0), "arm");
	a = create_qp(ibv_cq_ex_to_cq(cq));
	b = create_qp(ibv_cq_ex_to_cq(cq));
	connect_qp(a, b->qp_num);
	connect_qp(b, a->qp_num);
	print_qp(a);

	/* SEND through the classic inline ibv_post_send. */
	memcpy(buf, MSG, sizeof(MSG));
	post_recv(b, 1024, 10);
	sge = (struct ibv_sge){ (uintptr_t)buf, sizeof(MSG), mr->lkey };
	wr = (struct ibv_send_wr){ .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED };
	REQUIRE(!ibv_post_send(a, &wr, &bad), "post_send");
	poll_n(ch, cq, 2, b);
	REQUIRE(!memcmp(buf + 1024, MSG, sizeof(MSG)), "SEND data");

	/* RDMA WRITE with immediate and RDMA READ through ibv_wr_*. */
	post_recv(b, 3072, 11);
	x = ibv_qp_to_qp_ex(a);
	REQUIRE(x, "qp_to_qp_ex");
	ibv_wr_start(x);
	x->wr_id = 2;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(x, mr->rkey, (uintptr_t)buf + 2048,
			      htonl(0x1234abcd));
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf, sizeof(MSG));
	x->wr_id = 3;
	ibv_wr_rdma_read(x, mr->rkey, (uintptr_t)buf + 2048);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf + 2560, sizeof(MSG));
	REQUIRE(!ibv_wr_complete(x), "wr_complete");
	poll_n(ch, cq, 3, b);
	REQUIRE(!memcmp(buf + 2048, MSG, sizeof(MSG)) &&
	      !memcmp(buf + 2560, MSG, sizeof(MSG)), "WRITE/READ data");

	REQUIRE(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy_qp");
	REQUIRE(!ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), "destroy_cq");
	REQUIRE(!ibv_destroy_comp_channel(ch), "destroy_comp_channel");
}

int main(int argc, char **argv)
{
	struct ibv_device **list, *dev = NULL;
	int i, n;

	REQUIRE(argc == 3, "usage: %s DEVICE GID_INDEX", argv[0]);
	gid_index = atoi(argv[2]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	list = ibv_get_device_list(&n);
	REQUIRE(list, "get_device_list");
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			dev = list[i];
	REQUIRE(dev, "no device %s", argv[1]);
	ctx = ibv_open_device(dev);
	REQUIRE(ctx, "open_device");
	print_device(dev);
	print_port();

	pd = ibv_alloc_pd(ctx);
	buf = calloc(1, BUF);
	REQUIRE(pd && buf, "alloc_pd");
	mr = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	REQUIRE(mr && mr->length == BUF && mr->addr == buf, "reg_mr");
	traffic();

	REQUIRE(!ibv_dereg_mr(mr) && !ibv_dealloc_pd(pd), "dereg/dealloc");
	REQUIRE(!ibv_close_device(ctx), "close_device");
	ibv_free_device_list(list);
	free(buf);
	printf("done\n");
	return 0;
}
