// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * idle_qps - holds many idle RC QPs (in RTS, each connected to itself, no
 * work posted) so that a test can show that the engine does not look at
 * them while another process runs traffic (docs/prm.md 2.1).
 *
 *   idle_qps [-d DEV] [-g GID_INDEX] -n COUNT
 *
 * Prints "ready COUNT" once every QP is in RTS, then waits until stdin
 * closes (or a signal); the QPs go with the process.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

static int to_rts(struct ibv_qp *qp, const union ibv_gid *gid, int gid_index)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.hop_limit = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	const char *dev_name = "mlx_hw0";
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int gid_index = 1, count = 0, i, n, opt;
	union ibv_gid gid;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	char c;

	while ((opt = getopt(argc, argv, "d:g:n:")) != -1) {
		if (opt == 'd')
			dev_name = optarg;
		else if (opt == 'g')
			gid_index = atoi(optarg);
		else if (opt == 'n')
			count = atoi(optarg);
		else
			return 2;
	}
	if (count <= 0) {
		fprintf(stderr, "usage: idle_qps [-d DEV] [-g GID] -n COUNT\n");
		return 2;
	}
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name))
			ctx = ibv_open_device(list[i]);
	if (!ctx || ibv_query_gid(ctx, 1, gid_index, &gid)) {
		fprintf(stderr, "FAIL: cannot open %s\n", dev_name);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!pd || !cq) {
		fprintf(stderr, "FAIL: PD/CQ: %s\n", strerror(errno));
		return 1;
	}
	ia.send_cq = cq;
	ia.recv_cq = cq;
	for (i = 0; i < count; i++) {
		struct ibv_qp *qp = ibv_create_qp(pd, &ia);

		if (!qp || to_rts(qp, &gid, gid_index)) {
			fprintf(stderr, "FAIL: QP %d of %d: %s\n", i, count,
				strerror(errno));
			return 1;
		}
	}
	printf("ready %d\n", count);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
