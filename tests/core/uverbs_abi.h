/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared by the files of uverbs_abi_test (see uverbs_abi_test.c): the check
 * macros and counters, the raw write() command helpers, sysfs helpers and
 * the context/object helpers, and the sections defined outside the main
 * file.
 */
#ifndef UVERBS_ABI_H
#define UVERBS_ABI_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include "check.h"
#include "mlx_hw-abi.h"	/* the driver udata, for mapping the engine page */

/* enum ibv_qp_state and enum ibv_qp_attr_mask values (not in the UAPI). */
enum {
	IB_UVERBS_QPS_RESET, IB_UVERBS_QPS_INIT, IB_UVERBS_QPS_RTR,
	IB_UVERBS_QPS_RTS, IB_UVERBS_QPS_SQD, IB_UVERBS_QPS_SQE,
	IB_UVERBS_QPS_ERR,
};

enum {
	IB_UVERBS_QP_STATE = 1 << 0,
	IB_UVERBS_QP_CUR_STATE = 1 << 1,
	IB_UVERBS_QP_ACCESS_FLAGS = 1 << 3,
	IB_UVERBS_QP_PKEY_INDEX = 1 << 4,
	IB_UVERBS_QP_PORT = 1 << 5,
	IB_UVERBS_QP_QKEY = 1 << 6,
	IB_UVERBS_QP_AV = 1 << 7,
	IB_UVERBS_QP_PATH_MTU = 1 << 8,
	IB_UVERBS_QP_TIMEOUT = 1 << 9,
	IB_UVERBS_QP_RETRY_CNT = 1 << 10,
	IB_UVERBS_QP_RNR_RETRY = 1 << 11,
	IB_UVERBS_QP_RQ_PSN = 1 << 12,
	IB_UVERBS_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	IB_UVERBS_QP_MIN_RNR_TIMER = 1 << 15,
	IB_UVERBS_QP_SQ_PSN = 1 << 16,
	IB_UVERBS_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	IB_UVERBS_QP_DEST_QPN = 1 << 20,
};

extern const char *ibdev;
extern char uverbs_path[300];	/* /dev/infiniband/uverbsN of ibdev */
extern char uverbs_name[256];	/* uverbsN */

/* Expects a command result (0 or -errno) to be @want. */
#define EXPECT(expr, want)						\
	do {								\
		int _r = (expr);					\
		VERIFY(_r == (want), "%s = %d (%s), want %d (%s)", #expr, \
		       _r, strerror(-_r), (want), strerror(-(want)));	\
	} while (0)

/* Room for driver response data after every core response. */
#define UDATA_OUT	256

struct ctx {
	int fd;
	int async_fd;
	uint8_t gid[16];	/* GID gid_ok: our own address as destination */
	int gid_ok;		/* a valid GID index of port 1 */
	int gid_bad;		/* an empty one */
	int active_mtu;
	struct mlx_hw_alloc_ucontext_resp drv;	/* GET_CONTEXT udata */
};

/* ---------------- command helpers (abi_util.c) ---------------- */

/* write() of @len bytes: 0, -errno, or -EIO on a short write. */
int raw_write(int fd, const void *buf, size_t len);
/*
 * A legacy command: header, @req (whose first u64 is the response pointer
 * when @resp is given); out_words covers @resp_len.
 */
int cmd(int fd, uint32_t command, void *req, size_t req_len,
	void *resp, size_t resp_len);
/* An extended command: header, extended header (response pointer), @req. */
int ex_cmd(int fd, uint32_t command, void *req, size_t req_len,
	   void *resp, size_t resp_len);

/* ---------------- sysfs and /proc helpers (abi_util.c) ---------------- */

/* Reads a file into @buf, NUL-terminated: its length or -errno. */
int read_file(const char *path, char *buf, size_t len);
/* read_file() of the path formatted from @fmt. */
int read_attr(char *buf, size_t len, const char *fmt, ...);
/* Sets uverbs_name and uverbs_path for ibdev: 0, or -1 when not found. */
int find_device(void);
/* VmPin of this process in kB, -1 when unknown. */
long vm_pin_kb(void);

/* ---------------- a context and its objects (abi_util.c) ---------------- */

/*
 * Opens uverbs_path and GET_CONTEXT on it; fills the port 1 MTU and GIDs.
 * 0 or -errno.
 */
int open_ctx(struct ctx *c);
void close_ctx(struct ctx *c);
/* The object helpers return 0 or -errno and the new handle in the out arg. */
int alloc_pd(struct ctx *c, uint32_t *pd);
int dealloc_pd(struct ctx *c, uint32_t pd);
/* create_cq_drv: also the driver's response (struct mlx_hw_create_cq_resp). */
int create_cq_drv(struct ctx *c, uint32_t cqe, uint32_t vector, int chan,
		  uint32_t *cq, struct mlx_hw_create_cq_resp *drv);
int create_cq(struct ctx *c, uint32_t cqe, uint32_t vector, int chan,
	      uint32_t *cq);
/* @out, when given, receives the response (the event counts). */
int destroy_cq(struct ctx *c, uint32_t cq,
	       struct ib_uverbs_destroy_cq_resp *out);
/* Registers [@addr, @addr + @len) at hca_va @addr; @mr may be NULL. */
int reg_mr(struct ctx *c, uint32_t pd, void *addr, size_t len,
	   uint32_t access, uint32_t *mr);
int dereg_mr(struct ctx *c, uint32_t mr);
/* 16 send and 16 receive WRs on @cq, or on SRQ handle @srq when >= 0. */
int create_qp(struct ctx *c, uint8_t type, uint32_t pd, uint32_t cq,
	      int srq, uint32_t *qp, uint32_t *qpn);
/* @events, when given, receives events_reported. */
int destroy_qp(struct ctx *c, uint32_t qp, uint32_t *events);
int modify_qp(struct ctx *c, struct ib_uverbs_modify_qp *m);
int query_qp(struct ctx *c, uint32_t qp,
	     struct ib_uverbs_query_qp_resp *resp);

/* ---------------- QP transitions (abi_qp.c) ---------------- */

/* Fill @m for RESET -> INIT, RTR (connected to @dqpn) and RTS of @qp. */
void to_init(struct ctx *c, uint8_t type, struct ib_uverbs_modify_qp *m,
	     uint32_t qp);
void to_rtr(struct ctx *c, uint8_t type, struct ib_uverbs_modify_qp *m,
	    uint32_t qp, uint32_t dqpn);
void to_rts(uint8_t type, struct ib_uverbs_modify_qp *m, uint32_t qp);

/*
 * Walks the IBA state table of @qp (type @type, fresh in RESET) with good
 * and bad transitions and attributes; leaves it in INIT.
 */
void test_qp_states(struct ctx *c, uint8_t type, uint32_t qp, uint32_t qpn);

/* ---------------- sections outside uverbs_abi_test.c ---------------- */

void test_hdr(void);		/* abi_hdr.c */
void test_qp(void);		/* abi_qp.c */
void test_mr(void);		/* abi_mr.c */
void test_memlock(void);
void test_vmpin(void);
void test_events(void);		/* abi_events.c */
void test_counts(void);
void test_threads(void);
void test_disassoc(void);
void test_gidevent(void);
void test_xrc(void);		/* abi_xrc.c */
void test_handles(void);	/* abi_handles.c */

#endif /* UVERBS_ABI_H */
