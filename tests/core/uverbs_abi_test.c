// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * uverbs_abi_test - drives the uverbs write() ABI of ibx_uverbs directly
 * (kernel UAPI headers only, no libibverbs) with good and bad input and
 * checks the exact errno of every failure.
 *
 *   uverbs_abi_test [-d IBDEV] [-s SECTION]...   (default IBDEV mlx_hw0)
 *
 * Exit 0 when every check passed, 1 otherwise, 77 when the device is
 * missing.  Sections: sysfs hdr objects qp mr events counts memlock
 * vmpin threads, and only when named: gidevent (adds an address to the netdev)
 * and disassoc (removes and re-adds the device through
 * /sys/module/mlx_hw/parameters).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>
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

static const char *ibdev = "mlx_hw0";
static char uverbs_path[300];
static char uverbs_name[256];
static int failures, checks;

#define CHECK(cond, ...)						\
	do {								\
		checks++;						\
		if (!(cond)) {						\
			failures++;					\
			printf("FAIL %s:%d: ", __func__, __LINE__);	\
			printf(__VA_ARGS__);				\
			printf("\n");					\
		}							\
	} while (0)

/* Expects a command result (0 or -errno) to be @want. */
#define EXPECT(expr, want)						\
	do {								\
		int _r = (expr);					\
		checks++;						\
		if (_r != (want)) {					\
			failures++;					\
			printf("FAIL %s:%d: %s = %d (%s), want %d (%s)\n", \
			       __func__, __LINE__, #expr, _r,		\
			       strerror(-_r), (want), strerror(-(want))); \
		}							\
	} while (0)

/* ---------------- command helpers ---------------- */

static int raw_write(int fd, const void *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	if (n < 0)
		return -errno;
	return n == (ssize_t)len ? 0 : -EIO;
}

/*
 * A legacy command: header, @req (whose first u64 is the response pointer
 * when @resp is given), @udata_in more zero words.  out_words covers
 * @resp_len.
 */
static int cmd_udata(int fd, uint32_t command, void *req, size_t req_len,
		     void *resp, size_t resp_len, size_t udata_in)
{
	char buf[4096];
	struct ib_uverbs_cmd_hdr hdr = {
		.command = command,
		.in_words = (sizeof(hdr) + req_len + udata_in) / 4,
		.out_words = resp_len / 4,
	};

	if (resp)
		*(uint64_t *)req = (uintptr_t)resp;
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), req, req_len);
	memset(buf + sizeof(hdr) + req_len, 0, udata_in);
	return raw_write(fd, buf, sizeof(hdr) + req_len + udata_in);
}

static int cmd(int fd, uint32_t command, void *req, size_t req_len,
	       void *resp, size_t resp_len)
{
	return cmd_udata(fd, command, req, req_len, resp, resp_len, 0);
}

/* Room for driver response data after every core response. */
#define UDATA_OUT	256

static int ex_cmd(int fd, uint32_t command, void *req, size_t req_len,
		  void *resp, size_t resp_len)
{
	char buf[4096];
	struct ib_uverbs_cmd_hdr hdr = {
		.command = IB_USER_VERBS_CMD_FLAG_EXTENDED | command,
		.in_words = req_len / 8,
		.out_words = resp_len / 8,
	};
	struct ib_uverbs_ex_cmd_hdr ex = {
		.response = (uintptr_t)resp,
	};

	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), &ex, sizeof(ex));
	memcpy(buf + sizeof(hdr) + sizeof(ex), req, req_len);
	return raw_write(fd, buf, sizeof(hdr) + sizeof(ex) + req_len);
}

/* ---------------- sysfs helpers ---------------- */

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return n;
}

static int read_attr(char *buf, size_t len, const char *fmt, ...)
{
	char path[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return read_file(path, buf, len);
}

static int find_device(void)
{
	DIR *d = opendir("/sys/class/infiniband_verbs");
	struct dirent *e;
	char buf[128];

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "uverbs", 6))
			continue;
		if (read_attr(buf, sizeof(buf),
			      "/sys/class/infiniband_verbs/%s/ibdev",
			      e->d_name) <= 0)
			continue;
		buf[strcspn(buf, "\n")] = 0;
		if (!strcmp(buf, ibdev)) {
			snprintf(uverbs_name, sizeof(uverbs_name), "%s",
				 e->d_name);
			snprintf(uverbs_path, sizeof(uverbs_path),
				 "/dev/infiniband/%s", e->d_name);
			closedir(d);
			return 0;
		}
	}
	closedir(d);
	return -1;
}

/* ---------------- a context and its objects ---------------- */

struct ctx {
	int fd;
	int async_fd;
	uint8_t gid[16];	/* GID gid_ok: our own address as destination */
	int gid_ok;		/* a valid GID index of port 1 */
	int gid_bad;		/* an empty one */
	int active_mtu;
	struct mlx_hw_alloc_ucontext_resp drv;	/* GET_CONTEXT udata */
};

static void find_gids(struct ctx *c)
{
	char buf[128];
	int i;

	c->gid_ok = c->gid_bad = -1;
	for (i = 0; i < 16; i++) {
		int r = read_attr(buf, sizeof(buf),
			"/sys/class/infiniband/%s/ports/1/gid_attrs/types/%d",
			ibdev, i);

		if (r > 0 && c->gid_ok < 0)
			c->gid_ok = i;
		/* Prefer the IPv4-based RoCE v2 GID, as rc_pingpong -g 1. */
		if (r > 0 && i == 1)
			c->gid_ok = i;
		if (r < 0 && c->gid_bad < 0)
			c->gid_bad = i;
	}
	if (c->gid_ok >= 0 &&
	    read_attr(buf, sizeof(buf),
		      "/sys/class/infiniband/%s/ports/1/gids/%d", ibdev,
		      c->gid_ok) > 0) {
		char *p = buf;

		for (i = 0; i < 8; i++, p += 5) {
			unsigned int w = strtoul(p, NULL, 16);

			c->gid[2 * i] = w >> 8;
			c->gid[2 * i + 1] = w & 0xff;
		}
	}
}

static int open_ctx(struct ctx *c)
{
	struct ib_uverbs_get_context req = {};
	struct {
		struct ib_uverbs_get_context_resp r;
		char udata[UDATA_OUT];
	} resp = {};
	struct ib_uverbs_query_port qp = { .port_num = 1 };
	struct ib_uverbs_query_port_resp pr = {};
	int ret;

	memset(c, 0, sizeof(*c));
	c->fd = open(uverbs_path, O_RDWR | O_CLOEXEC);
	if (c->fd < 0)
		return -errno;
	ret = cmd(c->fd, IB_USER_VERBS_CMD_GET_CONTEXT, &req, sizeof(req),
		  &resp, sizeof(resp));
	if (ret)
		return ret;
	c->async_fd = resp.r.async_fd;
	memcpy(&c->drv, resp.udata, sizeof(c->drv));
	ret = cmd(c->fd, IB_USER_VERBS_CMD_QUERY_PORT, &qp, sizeof(qp), &pr,
		  sizeof(pr));
	c->active_mtu = pr.active_mtu;
	find_gids(c);
	return ret;
}

static void close_ctx(struct ctx *c)
{
	close(c->async_fd);
	close(c->fd);
}

static int alloc_pd(struct ctx *c, uint32_t *pd)
{
	struct ib_uverbs_alloc_pd req = {};
	struct {
		struct ib_uverbs_alloc_pd_resp r;
		char udata[UDATA_OUT];
	} resp = {};
	int ret = cmd(c->fd, IB_USER_VERBS_CMD_ALLOC_PD, &req, sizeof(req),
		      &resp, sizeof(resp));

	*pd = resp.r.pd_handle;
	return ret;
}

static int dealloc_pd(struct ctx *c, uint32_t pd)
{
	struct ib_uverbs_dealloc_pd req = { .pd_handle = pd };

	return cmd(c->fd, IB_USER_VERBS_CMD_DEALLOC_PD, &req, sizeof(req),
		   NULL, 0);
}

static int create_cq(struct ctx *c, uint32_t cqe, uint32_t vector, int chan,
		     uint32_t *cq)
{
	struct ib_uverbs_create_cq req = {
		.user_handle = 0xc0ffee, .cqe = cqe, .comp_vector = vector,
		.comp_channel = chan,
	};
	struct {
		struct ib_uverbs_create_cq_resp r;
		char udata[UDATA_OUT];
	} resp = {};
	int ret = cmd(c->fd, IB_USER_VERBS_CMD_CREATE_CQ, &req, sizeof(req),
		      &resp, sizeof(resp));

	*cq = resp.r.cq_handle;
	return ret;
}

static int destroy_cq(struct ctx *c, uint32_t cq,
		      struct ib_uverbs_destroy_cq_resp *out)
{
	struct ib_uverbs_destroy_cq req = { .cq_handle = cq };
	struct ib_uverbs_destroy_cq_resp resp;

	return cmd(c->fd, IB_USER_VERBS_CMD_DESTROY_CQ, &req, sizeof(req),
		   out ? out : &resp, sizeof(resp));
}

static int reg_mr(struct ctx *c, uint32_t pd, void *addr, size_t len,
		  uint32_t access, uint32_t *mr)
{
	struct ib_uverbs_reg_mr req = {
		.start = (uintptr_t)addr, .length = len,
		.hca_va = (uintptr_t)addr, .pd_handle = pd,
		.access_flags = access,
	};
	struct {
		struct ib_uverbs_reg_mr_resp r;
		char udata[UDATA_OUT];
	} resp = {};
	int ret = cmd(c->fd, IB_USER_VERBS_CMD_REG_MR, &req, sizeof(req),
		      &resp, sizeof(resp));

	if (mr)
		*mr = resp.r.mr_handle;
	return ret;
}

static int dereg_mr(struct ctx *c, uint32_t mr)
{
	struct ib_uverbs_dereg_mr req = { .mr_handle = mr };

	return cmd(c->fd, IB_USER_VERBS_CMD_DEREG_MR, &req, sizeof(req),
		   NULL, 0);
}

static int create_qp(struct ctx *c, uint8_t type, uint32_t pd, uint32_t cq,
		     int srq, uint32_t *qp, uint32_t *qpn)
{
	struct ib_uverbs_create_qp req = {
		.user_handle = 0xbeef, .pd_handle = pd, .send_cq_handle = cq,
		.recv_cq_handle = cq, .max_send_wr = 16,
		.max_recv_wr = srq >= 0 ? 0 : 16, .max_send_sge = 1,
		.max_recv_sge = 1, .qp_type = type,
		.is_srq = srq >= 0, .srq_handle = srq >= 0 ? srq : 0,
	};
	struct {
		struct ib_uverbs_create_qp_resp r;
		char udata[UDATA_OUT];
	} resp = {};
	int ret = cmd(c->fd, IB_USER_VERBS_CMD_CREATE_QP, &req, sizeof(req),
		      &resp, sizeof(resp));

	*qp = resp.r.qp_handle;
	if (qpn)
		*qpn = resp.r.qpn;
	return ret;
}

static int destroy_qp(struct ctx *c, uint32_t qp, uint32_t *events)
{
	struct ib_uverbs_destroy_qp req = { .qp_handle = qp };
	struct ib_uverbs_destroy_qp_resp resp = {};
	int ret = cmd(c->fd, IB_USER_VERBS_CMD_DESTROY_QP, &req, sizeof(req),
		      &resp, sizeof(resp));

	if (events)
		*events = resp.events_reported;
	return ret;
}

static int modify_qp(struct ctx *c, struct ib_uverbs_modify_qp *m)
{
	return cmd(c->fd, IB_USER_VERBS_CMD_MODIFY_QP, m, sizeof(*m), NULL, 0);
}

static int query_qp(struct ctx *c, uint32_t qp,
		    struct ib_uverbs_query_qp_resp *resp)
{
	struct ib_uverbs_query_qp req = { .qp_handle = qp };

	return cmd(c->fd, IB_USER_VERBS_CMD_QUERY_QP, &req, sizeof(req), resp,
		   sizeof(*resp));
}

static long vm_pin_kb(void);

/* ---------------- sections ---------------- */

static void test_sysfs(void)
{
	char buf[256], path[256];
	struct stat st;
	unsigned int maj, min;

	EXPECT(read_file("/sys/class/infiniband_verbs/abi_version", buf,
			 sizeof(buf)) > 0 ? 0 : -1, 0);
	CHECK(!strcmp(buf, "6\n"), "class abi_version is '%s'", buf);
	read_attr(buf, sizeof(buf), "/sys/class/infiniband_verbs/%s/dev",
		  uverbs_name);
	CHECK(sscanf(buf, "%u:%u", &maj, &min) == 2, "dev is '%s'", buf);
	CHECK(stat(uverbs_path, &st) == 0, "stat %s: %m", uverbs_path);
	CHECK(S_ISCHR(st.st_mode) && major(st.st_rdev) == maj &&
	      minor(st.st_rdev) == min, "%s does not match dev %u:%u",
	      uverbs_path, maj, min);
	CHECK((st.st_mode & 0777) == 0666, "%s mode %o", uverbs_path,
	      st.st_mode & 0777);
	CHECK(read_attr(buf, sizeof(buf),
			"/sys/class/infiniband_verbs/%s/abi_version",
			uverbs_name) > 0, "no uverbs abi_version");

	read_attr(buf, sizeof(buf), "/sys/class/infiniband/%s/node_type",
		  ibdev);
	CHECK(!strcmp(buf, "1: CA\n"), "node_type '%s'", buf);
	read_attr(buf, sizeof(buf), "/sys/class/infiniband/%s/node_guid",
		  ibdev);
	CHECK(strlen(buf) == 20 && buf[4] == ':' && buf[9] == ':' &&
	      buf[14] == ':', "node_guid '%s'", buf);
	read_attr(buf, sizeof(buf), "/sys/class/infiniband/%s/ports/1/state",
		  ibdev);
	CHECK(!strcmp(buf, "4: ACTIVE\n"), "state '%s'", buf);
	read_attr(buf, sizeof(buf),
		  "/sys/class/infiniband/%s/ports/1/phys_state", ibdev);
	CHECK(!strcmp(buf, "5: LinkUp\n"), "phys_state '%s'", buf);
	read_attr(buf, sizeof(buf),
		  "/sys/class/infiniband/%s/ports/1/link_layer", ibdev);
	CHECK(!strcmp(buf, "Ethernet\n"), "link_layer '%s'", buf);
	read_attr(buf, sizeof(buf), "/sys/class/infiniband/%s/ports/1/rate",
		  ibdev);
	CHECK(strstr(buf, " Gb/sec (") != NULL, "rate '%s'", buf);
	read_attr(buf, sizeof(buf),
		  "/sys/class/infiniband/%s/ports/1/pkeys/0", ibdev);
	CHECK(!strcmp(buf, "0xffff\n"), "pkeys/0 '%s'", buf);
	read_attr(buf, sizeof(buf),
		  "/sys/class/infiniband/%s/ports/1/gids/0", ibdev);
	CHECK(strlen(buf) == 40 && buf[4] == ':', "gids/0 '%s'", buf);
	CHECK(read_attr(buf, sizeof(buf),
		"/sys/class/infiniband/%s/ports/1/gid_attrs/types/15",
		ibdev) == -ENODATA ||
	      !strcmp(buf, "RoCE v2\n") || !strcmp(buf, "IB/RoCE v1\n"),
	      "types/15 '%s'", buf);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/net",
		 ibdev);
	{
		DIR *d = opendir(path);
		int n = 0;
		struct dirent *e;

		CHECK(d != NULL, "no %s", path);
		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.')
				n++;
		if (d)
			closedir(d);
		CHECK(n == 1, "%s has %d entries", path, n);
	}
}

/* A header alone, in_words as given: only the header rules apply. */
static int hdr_only(int fd, uint32_t command, uint16_t in_words)
{
	struct ib_uverbs_cmd_hdr h = { command, in_words, 0 };
	char b[64] = {};

	memcpy(b, &h, sizeof(h));
	return raw_write(fd, b, 16);
}

/*
 * Commands nobody implements, as uapi_get_method()/ib_uverbs_write():
 * past the last command offered -EOPNOTSUPP before any header check;
 * below it, the "not supported" method is legacy-shaped even with the
 * extended flag, so a header the legacy rules reject is -EINVAL first.
 * Never -ENOSYS.  (mlx_hw offers no multicast and nothing past
 * EX_MODIFY_QP; legacy commands end at CREATE_XSRQ or OPEN_QP.)
 */
static void test_unknown_cmds(int fd)
{
	const uint32_t ex = IB_USER_VERBS_CMD_FLAG_EXTENDED;

	/* Out of range: no header check at all. */
	EXPECT(hdr_only(fd, 41, 9), -EOPNOTSUPP);
	EXPECT(hdr_only(fd, IB_USER_VERBS_CMD_COMMAND_MASK, 9), -EOPNOTSUPP);
	EXPECT(hdr_only(fd, ex | IB_USER_VERBS_EX_CMD_MODIFY_CQ, 9),
	       -EOPNOTSUPP);
	EXPECT(hdr_only(fd, ex | (IB_USER_VERBS_EX_CMD_MODIFY_QP + 1), 9),
	       -EOPNOTSUPP);
	/* In range, not implemented: legacy header rules, then EOPNOTSUPP. */
	EXPECT(hdr_only(fd, IB_USER_VERBS_CMD_POLL_CQ, 9), -EINVAL);
	EXPECT(hdr_only(fd, IB_USER_VERBS_CMD_POLL_CQ, 4), -EOPNOTSUPP);
	EXPECT(hdr_only(fd, IB_USER_VERBS_CMD_QUERY_MR, 4), -EOPNOTSUPP);
	/* The extended flag on a legacy command: still legacy rules. */
	EXPECT(hdr_only(fd, ex | IB_USER_VERBS_CMD_ALLOC_PD, 9), -EINVAL);
	EXPECT(hdr_only(fd, ex | IB_USER_VERBS_CMD_ALLOC_PD, 4), -EOPNOTSUPP);
	EXPECT(hdr_only(fd, ex | IB_USER_VERBS_CMD_DESTROY_CQ, 4),
	       -EOPNOTSUPP);
	/* Known command the device lacks the op for: no size check either. */
	EXPECT(hdr_only(fd, IB_USER_VERBS_CMD_ATTACH_MCAST, 4), -EOPNOTSUPP);
	EXPECT(hdr_only(fd, IB_USER_VERBS_CMD_DETACH_MCAST, 4), -EOPNOTSUPP);
	/* An offered command with the same short header: too short. */
	EXPECT(hdr_only(fd, IB_USER_VERBS_CMD_CREATE_CQ, 4), -ENOSPC);
}

static void test_hdr(void)
{
	struct ib_uverbs_alloc_pd pdreq = {};
	struct ib_uverbs_alloc_pd_resp pdresp;
	struct ib_uverbs_query_device qd = {};
	struct ib_uverbs_query_device_resp qdr;
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_get_context gc = {};
	struct {
		struct ib_uverbs_get_context_resp r;
		char udata[UDATA_OUT];
	} gcr;
	struct {
		struct ib_uverbs_ex_query_device_resp r;
	} exr;
	struct ib_uverbs_ex_query_device exq = {};
	int fd = open(uverbs_path, O_RDWR);
	char buf[64] = {};

	CHECK(fd >= 0, "open %s: %m", uverbs_path);
	if (fd < 0)
		return;
	/* Shorter than a header. */
	EXPECT(raw_write(fd, buf, 4), -EINVAL);
	/* in_words disagreeing with the write size. */
	hdr = (struct ib_uverbs_cmd_hdr){ IB_USER_VERBS_CMD_ALLOC_PD, 6, 2 };
	memcpy(buf, &hdr, sizeof(hdr));
	EXPECT(raw_write(fd, buf, 16), -EINVAL);
	/* Unknown command numbers and flag bits. */
	EXPECT(cmd(fd, 200, &pdreq, sizeof(pdreq), &pdresp, sizeof(pdresp)),
	       -EOPNOTSUPP);
	EXPECT(cmd(fd, 0x40000000 | IB_USER_VERBS_CMD_ALLOC_PD, &pdreq,
		   sizeof(pdreq), &pdresp, sizeof(pdresp)), -EINVAL);
	/* In the ABI but not offered: kernel-posted work requests. */
	EXPECT(cmd(fd, IB_USER_VERBS_CMD_POST_SEND, buf, 24, buf, 8),
	       -EOPNOTSUPP);
	test_unknown_cmds(fd);
	/* Everything but GET_CONTEXT needs a context. */
	EXPECT(cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &pdreq, sizeof(pdreq),
		   &pdresp, sizeof(pdresp)), -EINVAL);
	EXPECT(cmd(fd, IB_USER_VERBS_CMD_QUERY_DEVICE, &qd, sizeof(qd), &qdr,
		   sizeof(qdr)), -EINVAL);
	/* Responses too short for the core struct. */
	EXPECT(cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &gc, sizeof(gc), &gcr,
		   4), -ENOSPC);
	/* A request too short for the core struct. */
	hdr = (struct ib_uverbs_cmd_hdr){ IB_USER_VERBS_CMD_QUERY_PORT, 4, 8 };
	memcpy(buf, &hdr, sizeof(hdr));
	EXPECT(raw_write(fd, buf, 16), -ENOSPC);
	/* A response pointer that cannot be written. */
	EXPECT(cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &gc, sizeof(gc),
		   (void *)8, sizeof(gcr)), -EFAULT);
	/* The failed attempt left no context behind. */
	memset(&gcr, 0, sizeof(gcr));
	EXPECT(cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &gc, sizeof(gc), &gcr,
		   sizeof(gcr)), 0);
	CHECK(gcr.r.async_fd > 2 && gcr.r.num_comp_vectors >= 1,
	      "async_fd %u vectors %u", gcr.r.async_fd,
	      gcr.r.num_comp_vectors);
	CHECK(fcntl(gcr.r.async_fd, F_GETFD) == FD_CLOEXEC,
	      "async fd not close-on-exec");
	EXPECT(cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &gc, sizeof(gc), &gcr,
		   sizeof(gcr)), -EINVAL);

	EXPECT(cmd(fd, IB_USER_VERBS_CMD_QUERY_DEVICE, &qd, sizeof(qd), &qdr,
		   sizeof(qdr)), 0);
	CHECK(qdr.phys_port_cnt == 1, "phys_port_cnt %u", qdr.phys_port_cnt);

	/* QUERY_PORT: ports are 1..phys_port_cnt; the core adds the GIDs. */
	{
		struct ib_uverbs_query_port q = { .port_num = 1 };
		struct ib_uverbs_query_port_resp r = {};

		EXPECT(cmd(fd, IB_USER_VERBS_CMD_QUERY_PORT, &q, sizeof(q), &r,
			   sizeof(r)), 0);
		CHECK(r.gid_tbl_len == 16 && r.link_layer == 2 /* Ethernet */ &&
		      r.state == 4 && r.active_mtu >= 1 && r.active_mtu <= 5,
		      "port: gids %u link %u state %u mtu %u", r.gid_tbl_len,
		      r.link_layer, r.state, r.active_mtu);
		q.port_num = 0;
		EXPECT(cmd(fd, IB_USER_VERBS_CMD_QUERY_PORT, &q, sizeof(q), &r,
			   sizeof(r)), -EINVAL);
		q.port_num = 2;
		EXPECT(cmd(fd, IB_USER_VERBS_CMD_QUERY_PORT, &q, sizeof(q), &r,
			   sizeof(r)), -EINVAL);
	}
	/* Extended header. */
	memset(&exr, 0xff, sizeof(exr));
	EXPECT(ex_cmd(fd, IB_USER_VERBS_EX_CMD_QUERY_DEVICE, &exq, sizeof(exq),
		      &exr, sizeof(exr)), 0);
	CHECK(exr.r.response_length == sizeof(exr.r) &&
	      exr.r.base.phys_port_cnt == 1 && exr.r.reserved == 0,
	      "ex query: length %u ports %u", exr.r.response_length,
	      exr.r.base.phys_port_cnt);
	/* A shorter response buffer is allowed down to response_length. */
	EXPECT(ex_cmd(fd, IB_USER_VERBS_EX_CMD_QUERY_DEVICE, &exq, sizeof(exq),
		      &exr, 8), -ENOSPC);
	exq.comp_mask = 1;
	EXPECT(ex_cmd(fd, IB_USER_VERBS_EX_CMD_QUERY_DEVICE, &exq, sizeof(exq),
		      &exr, sizeof(exr)), -EINVAL);
	exq.comp_mask = 0;
	/* Output words without a response pointer. */
	{
		struct ib_uverbs_cmd_hdr h = {
			IB_USER_VERBS_CMD_FLAG_EXTENDED |
			IB_USER_VERBS_EX_CMD_QUERY_DEVICE, 1, 4 };
		struct ib_uverbs_ex_cmd_hdr x = {};
		char b[64] = {};

		memcpy(b, &h, sizeof(h));
		memcpy(b + sizeof(h), &x, sizeof(x));
		EXPECT(raw_write(fd, b, sizeof(h) + sizeof(x) + 8), -EINVAL);
		x.response = (uintptr_t)&exr;
		x.cmd_hdr_reserved = 1;
		memcpy(b + sizeof(h), &x, sizeof(x));
		EXPECT(raw_write(fd, b, sizeof(h) + sizeof(x) + 8), -EINVAL);
		/* provider_in_words not matching the write size */
		x.cmd_hdr_reserved = 0;
		x.provider_in_words = 1;
		memcpy(b + sizeof(h), &x, sizeof(x));
		EXPECT(raw_write(fd, b, sizeof(h) + sizeof(x) + 8), -EINVAL);
	}
	/* Unknown extended command. */
	EXPECT(ex_cmd(fd, 0x7f, &exq, sizeof(exq), &exr, sizeof(exr)),
	       -EOPNOTSUPP);
	/* The ioctl ABI is not offered: rdma-core falls back to write(). */
	CHECK(ioctl(fd, RDMA_VERBS_IOCTL, buf) == -1 && errno == ENOTTY,
	      "RDMA_VERBS_IOCTL: %m");
	close(gcr.r.async_fd);
	close(fd);
}

static void test_objects(void)
{
	struct ctx c, c2;
	uint32_t pd, pd2, cq, cq2, qp, mr;
	int chan;
	void *buf = aligned_alloc(4096, 8192);

	if (open_ctx(&c)) {
		CHECK(0, "no context");
		return;
	}
	EXPECT(alloc_pd(&c, &pd), 0);
	EXPECT(alloc_pd(&c, &pd2), 0);
	CHECK(pd != pd2, "two PDs share handle %u", pd);
	EXPECT(dealloc_pd(&c, 12345), -EINVAL);

	/* CQs: limits and completion channels. */
	EXPECT(create_cq(&c, 0, 0, -1, &cq), -EINVAL);
	EXPECT(create_cq(&c, 16, 1000, -1, &cq), -EINVAL);
	EXPECT(create_cq(&c, 16, 0, 0 /* stdin */, &cq), -EINVAL);
	EXPECT(create_cq(&c, 16, 0, -1, &cq), 0);
	{
		struct ib_uverbs_create_comp_channel req = {};
		struct ib_uverbs_create_comp_channel_resp resp = {};

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &req,
			   sizeof(req), &resp, sizeof(resp)), 0);
		chan = resp.fd;
	}
	EXPECT(create_cq(&c, 16, 0, chan, &cq2), 0);
	{
		struct pollfd p = { .fd = chan, .events = POLLIN };
		struct ib_uverbs_comp_event_desc ev;

		CHECK(poll(&p, 1, 0) == 0, "idle channel polls ready");
		fcntl(chan, F_SETFL, O_NONBLOCK);
		CHECK(read(chan, &ev, sizeof(ev)) == -1 && errno == EAGAIN,
		      "empty channel read: %m");
	}
	/* A channel of another context is refused. */
	EXPECT(open_ctx(&c2), 0);
	{
		uint32_t h;

		EXPECT(create_cq(&c2, 16, 0, chan, &h), -EINVAL);
	}

	/* Wrong types and foreign handles. */
	EXPECT(dealloc_pd(&c, cq), -EINVAL);
	EXPECT(destroy_cq(&c, pd, NULL), -EINVAL);
	EXPECT(dealloc_pd(&c2, pd2 + 100), -EINVAL);
	{
		uint32_t h;

		/* Handles are per file: c's CQ does not exist in c2. */
		EXPECT(alloc_pd(&c2, &h), 0);
		if (cq2 != h)
			EXPECT(destroy_cq(&c2, cq2, NULL), -EINVAL);
		EXPECT(destroy_cq(&c2, h, NULL), -EINVAL);
	}

	/* Dependencies: busy PD and CQ. */
	EXPECT(reg_mr(&c, pd, buf, 8192, IB_UVERBS_ACCESS_LOCAL_WRITE, &mr), 0);
	EXPECT(dealloc_pd(&c, pd), -EBUSY);
	EXPECT(create_qp(&c, IB_UVERBS_QPT_RC, pd, cq, -1, &qp, NULL), 0);
	EXPECT(destroy_cq(&c, cq, NULL), -EBUSY);
	EXPECT(dereg_mr(&c, mr), 0);
	EXPECT(dealloc_pd(&c, pd), -EBUSY);
	{
		uint32_t ev = 99;

		EXPECT(destroy_qp(&c, qp, &ev), 0);
		CHECK(ev == 0, "QP events reported %u", ev);
	}
	EXPECT(destroy_qp(&c, qp, NULL), -EINVAL);	/* stale */
	{
		struct ib_uverbs_destroy_cq_resp r = { 9, 9 };

		EXPECT(destroy_cq(&c, cq, &r), 0);
		CHECK(r.comp_events_reported == 0 &&
		      r.async_events_reported == 0, "CQ events %u/%u",
		      r.comp_events_reported, r.async_events_reported);
	}
	EXPECT(dealloc_pd(&c, pd), 0);
	EXPECT(dealloc_pd(&c, pd), -EINVAL);

	/* Create QP with bad references. */
	EXPECT(create_qp(&c, IB_UVERBS_QPT_RC, 999, cq2, -1, &qp, NULL),
	       -EINVAL);
	EXPECT(create_qp(&c, IB_UVERBS_QPT_RC, pd2, 999, -1, &qp, NULL),
	       -EINVAL);
	EXPECT(create_qp(&c, 99, pd2, cq2, -1, &qp, NULL), -EINVAL);
	EXPECT(create_qp(&c, IB_UVERBS_QPT_RC, pd2, cq2, 999, &qp, NULL),
	       -EINVAL);

	/* SRQ: create, query, modify, busy while a QP uses it. */
	{
		struct ib_uverbs_create_srq req = {
			.user_handle = 7, .pd_handle = pd2, .max_wr = 16,
			.max_sge = 1,
		};
		struct {
			struct ib_uverbs_create_srq_resp r;
			char udata[UDATA_OUT];
		} resp = {};
		struct ib_uverbs_query_srq q = {};
		struct ib_uverbs_query_srq_resp qr = {};
		struct ib_uverbs_modify_srq m = {};
		struct ib_uverbs_destroy_srq d = {};
		struct ib_uverbs_destroy_srq_resp dr;
		uint32_t srq;

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_CREATE_SRQ, &req,
			   sizeof(req), &resp, sizeof(resp)), 0);
		srq = resp.r.srq_handle;
		CHECK(resp.r.max_wr >= 16, "srq max_wr %u", resp.r.max_wr);
		q.srq_handle = srq;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_QUERY_SRQ, &q, sizeof(q),
			   &qr, sizeof(qr)), 0);
		CHECK(qr.max_wr >= 16, "query srq max_wr %u", qr.max_wr);
		m.srq_handle = srq;
		m.attr_mask = 1 << 2;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_MODIFY_SRQ, &m, sizeof(m),
			   NULL, 0), -EINVAL);
		m.attr_mask = 1 << 1;	/* IB_SRQ_LIMIT */
		m.srq_limit = 4;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_MODIFY_SRQ, &m, sizeof(m),
			   NULL, 0), 0);
		EXPECT(create_qp(&c, IB_UVERBS_QPT_RC, pd2, cq2, srq, &qp,
				 NULL), 0);
		d.srq_handle = srq;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_DESTROY_SRQ, &d, sizeof(d),
			   &dr, sizeof(dr)), -EBUSY);
		EXPECT(destroy_qp(&c, qp, NULL), 0);
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_DESTROY_SRQ, &d, sizeof(d),
			   &dr, sizeof(dr)), 0);
	}

	/* CREATE_XSRQ: basic SRQs; XRC SRQs would need an XRC domain. */
	{
		struct ib_uverbs_create_xsrq req = {
			.user_handle = 8, .srq_type = IB_UVERBS_SRQT_BASIC,
			.pd_handle = pd2, .max_wr = 8, .max_sge = 1,
		};
		struct {
			struct ib_uverbs_create_srq_resp r;
			char udata[UDATA_OUT];
		} resp = {};
		struct ib_uverbs_destroy_srq d = {};
		struct ib_uverbs_destroy_srq_resp dr;

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_CREATE_XSRQ, &req,
			   sizeof(req), &resp, sizeof(resp)), 0);
		d.srq_handle = resp.r.srq_handle;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_DESTROY_SRQ, &d, sizeof(d),
			   &dr, sizeof(dr)), 0);
		req.srq_type = IB_UVERBS_SRQT_XRC;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_CREATE_XSRQ, &req,
			   sizeof(req), &resp, sizeof(resp)), -EINVAL);
	}
	/* Address handles: RoCE needs a GRH and a valid source GID. */
	{
		struct ib_uverbs_create_ah req = {
			.user_handle = 1, .pd_handle = pd2,
			.attr = { .is_global = 1, .port_num = 1,
				  .grh = { .hop_limit = 64 } },
		};
		struct {
			struct ib_uverbs_create_ah_resp r;
			char udata[UDATA_OUT];
		} resp = {};
		struct ib_uverbs_destroy_ah d = {};

		req.attr.grh.sgid_index = c.gid_ok;
		memcpy(req.attr.grh.dgid, c.gid, 16);
		req.attr.is_global = 0;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_CREATE_AH, &req, sizeof(req),
			   &resp, sizeof(resp)), -EINVAL);
		req.attr.is_global = 1;
		req.attr.port_num = 2;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_CREATE_AH, &req, sizeof(req),
			   &resp, sizeof(resp)), -EINVAL);
		req.attr.port_num = 1;
		if (c.gid_bad >= 0) {
			req.attr.grh.sgid_index = c.gid_bad;
			EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_CREATE_AH, &req,
				   sizeof(req), &resp, sizeof(resp)), -EINVAL);
			req.attr.grh.sgid_index = c.gid_ok;
		}
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_CREATE_AH, &req, sizeof(req),
			   &resp, sizeof(resp)), 0);
		d.ah_handle = resp.r.ah_handle;
		EXPECT(dealloc_pd(&c, pd2), -EBUSY);
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_DESTROY_AH, &d, sizeof(d),
			   NULL, 0), 0);
	}
	/* Memory windows: only types 1 and 2 exist. */
	{
		struct ib_uverbs_alloc_mw req = { .pd_handle = pd2,
						  .mw_type = 3 };
		struct {
			struct ib_uverbs_alloc_mw_resp r;
			char udata[UDATA_OUT];
		} resp;

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_ALLOC_MW, &req, sizeof(req),
			   &resp, sizeof(resp)), -EINVAL);
	}
	/* Extended CQ create with unknown comp_mask. */
	{
		struct ib_uverbs_ex_create_cq req = { .cqe = 8,
			.comp_channel = -1, .comp_mask = 1 };
		struct ib_uverbs_ex_create_cq_resp resp;

		EXPECT(ex_cmd(c.fd, IB_USER_VERBS_EX_CMD_CREATE_CQ, &req,
			      sizeof(req), &resp, sizeof(resp)), -EINVAL);
		req.comp_mask = 0;
		EXPECT(ex_cmd(c.fd, IB_USER_VERBS_EX_CMD_CREATE_CQ, &req,
			      sizeof(req), &resp, sizeof(resp)), 0);
		CHECK(resp.response_length == sizeof(resp) &&
		      resp.base.cqe >= 8, "ex cq: length %u cqe %u",
		      resp.response_length, resp.base.cqe);
		EXPECT(destroy_cq(&c, resp.base.cq_handle, NULL), 0);
	}
	/* CQ commands on bad handles and sizes. */
	{
		struct ib_uverbs_req_notify_cq n = { .cq_handle = 999 };
		struct ib_uverbs_resize_cq r = { .cq_handle = 999, .cqe = 32 };
		struct {
			struct ib_uverbs_resize_cq_resp r;
			char udata[UDATA_OUT];
		} rr;

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &n, sizeof(n),
			   NULL, 0), -EINVAL);
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_RESIZE_CQ, &r, sizeof(r), &rr,
			   sizeof(rr)), -EINVAL);
		r.cq_handle = cq2;
		r.cqe = 0;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_RESIZE_CQ, &r, sizeof(r), &rr,
			   sizeof(rr)), -EINVAL);
	}
	/* Multicast: needs a driver op (mlx_hw has none). */
	{
		struct ib_uverbs_attach_mcast a = {};
		uint32_t rc, ud;

		EXPECT(create_qp(&c, IB_UVERBS_QPT_RC, pd2, cq2, -1, &rc, NULL),
		       0);
		EXPECT(create_qp(&c, IB_UVERBS_QPT_UD, pd2, cq2, -1, &ud, NULL),
		       0);
		a.gid[0] = 0xff;
		a.gid[1] = 0x0e;
		a.gid[15] = 1;
		/* mlx_hw has no multicast op: unsupported before any check. */
		a.qp_handle = rc;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_ATTACH_MCAST, &a, sizeof(a),
			   NULL, 0), -EOPNOTSUPP);
		a.qp_handle = ud;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_DETACH_MCAST, &a, sizeof(a),
			   NULL, 0), -EOPNOTSUPP);
		a.gid[0] = 0xfe;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_ATTACH_MCAST, &a, sizeof(a),
			   NULL, 0), -EOPNOTSUPP);
		EXPECT(destroy_qp(&c, rc, NULL), 0);
		EXPECT(destroy_qp(&c, ud, NULL), 0);
	}
	/* A private XRC domain (no file) opens and closes (tests/verbs/xrc). */
	{
		struct ib_uverbs_open_xrcd x = { .fd = -1, .oflags = 0 };
		struct ib_uverbs_open_xrcd_resp xr = {};
		struct ib_uverbs_close_xrcd cx = {};

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_OPEN_XRCD, &x, sizeof(x), &xr,
			   sizeof(xr)), 0);
		cx.xrcd_handle = xr.xrcd_handle;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_CLOSE_XRCD, &cx, sizeof(cx),
			   NULL, 0), 0);
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_CLOSE_XRCD, &cx, sizeof(cx),
			   NULL, 0), -EINVAL);
	}
	/* Closing with objects left destroys them (checked by the log). */
	close(chan);
	close_ctx(&c2);
	close_ctx(&c);
	free(buf);
}

/* ---------------- QP state machine ---------------- */

static void av_fill(struct ctx *c, struct ib_uverbs_qp_dest *d)
{
	memset(d, 0, sizeof(*d));
	d->is_global = 1;
	d->port_num = 1;
	d->sgid_index = c->gid_ok;
	d->hop_limit = 64;
	memcpy(d->dgid, c->gid, 16);
}

static uint8_t query_state(struct ctx *c, uint32_t qp)
{
	struct ib_uverbs_query_qp_resp r = {};

	if (query_qp(c, qp, &r))
		return 0xff;
	return r.qp_state;
}

static void to_init(struct ctx *c, uint8_t type, struct ib_uverbs_modify_qp *m,
		    uint32_t qp)
{
	memset(m, 0, sizeof(*m));
	m->qp_handle = qp;
	m->qp_state = IB_UVERBS_QPS_INIT;
	m->port_num = 1;
	m->attr_mask = IB_UVERBS_QP_STATE | IB_UVERBS_QP_PKEY_INDEX |
		       IB_UVERBS_QP_PORT;
	if (type == IB_UVERBS_QPT_UD) {
		m->qkey = 0x11111111;
		m->attr_mask |= IB_UVERBS_QP_QKEY;
	} else {
		m->attr_mask |= IB_UVERBS_QP_ACCESS_FLAGS;
	}
}

static void to_rtr(struct ctx *c, uint8_t type, struct ib_uverbs_modify_qp *m,
		   uint32_t qp, uint32_t dqpn)
{
	memset(m, 0, sizeof(*m));
	m->qp_handle = qp;
	m->qp_state = IB_UVERBS_QPS_RTR;
	m->attr_mask = IB_UVERBS_QP_STATE;
	if (type == IB_UVERBS_QPT_UD)
		return;
	av_fill(c, &m->dest);
	m->path_mtu = 1;
	m->dest_qp_num = dqpn;
	m->rq_psn = 0x123456;
	m->attr_mask |= IB_UVERBS_QP_AV | IB_UVERBS_QP_PATH_MTU |
			IB_UVERBS_QP_DEST_QPN | IB_UVERBS_QP_RQ_PSN;
	if (type == IB_UVERBS_QPT_RC) {
		m->max_dest_rd_atomic = 1;
		m->min_rnr_timer = 12;
		m->attr_mask |= IB_UVERBS_QP_MAX_DEST_RD_ATOMIC |
				IB_UVERBS_QP_MIN_RNR_TIMER;
	}
}

static void to_rts(uint8_t type, struct ib_uverbs_modify_qp *m, uint32_t qp)
{
	memset(m, 0, sizeof(*m));
	m->qp_handle = qp;
	m->qp_state = IB_UVERBS_QPS_RTS;
	m->sq_psn = 0x1abcdef;	/* more than 24 bits: masked */
	m->attr_mask = IB_UVERBS_QP_STATE | IB_UVERBS_QP_SQ_PSN;
	if (type == IB_UVERBS_QPT_RC) {
		m->timeout = 14;
		m->retry_cnt = 7;
		m->rnr_retry = 7;
		m->max_rd_atomic = 1;
		m->attr_mask |= IB_UVERBS_QP_TIMEOUT | IB_UVERBS_QP_RETRY_CNT |
				IB_UVERBS_QP_RNR_RETRY |
				IB_UVERBS_QP_MAX_QP_RD_ATOMIC;
	}
}

static void test_qp_type(struct ctx *c, uint32_t pd, uint32_t cq, uint8_t type)
{
	struct ib_uverbs_modify_qp m;
	struct ib_uverbs_query_qp_resp qr;
	uint32_t qp, qpn;

	printf("  qp type %u\n", type);
	if (create_qp(c, type, pd, cq, -1, &qp, &qpn)) {
		CHECK(0, "create qp type %u", type);
		return;
	}
	CHECK(query_state(c, qp) == IB_UVERBS_QPS_RESET, "new QP not RESET");
	CHECK(qpn > 1 && qpn <= 0xffffff, "qpn 0x%x", qpn);

	/* RESET -> RTR and RTS skip INIT (IBA 10.3.1). */
	to_rtr(c, type, &m, qp, qpn);
	EXPECT(modify_qp(c, &m), -EINVAL);
	to_rts(type, &m, qp);
	EXPECT(modify_qp(c, &m), -EINVAL);
	/* RESET -> INIT missing a required attribute, or with a foreign one. */
	to_init(c, type, &m, qp);
	m.attr_mask &= ~IB_UVERBS_QP_PORT;
	EXPECT(modify_qp(c, &m), -EINVAL);
	to_init(c, type, &m, qp);
	m.attr_mask |= IB_UVERBS_QP_RQ_PSN;
	EXPECT(modify_qp(c, &m), -EINVAL);
	to_init(c, type, &m, qp);
	m.port_num = 2;
	EXPECT(modify_qp(c, &m), -EINVAL);
	to_init(c, type, &m, qp);
	m.pkey_index = 1000;
	EXPECT(modify_qp(c, &m), -EINVAL);
	to_init(c, type, &m, qp);
	m.qp_state = 9;
	EXPECT(modify_qp(c, &m), -EINVAL);
	to_init(c, type, &m, qp);
	m.attr_mask |= 1u << 30;
	EXPECT(modify_qp(c, &m), -EOPNOTSUPP);
	/* Claiming a current state is only allowed from RTR/RTS/SQD/SQE. */
	to_init(c, type, &m, qp);
	m.attr_mask |= IB_UVERBS_QP_CUR_STATE;
	m.cur_qp_state = IB_UVERBS_QPS_RESET;
	EXPECT(modify_qp(c, &m), -EINVAL);
	/* RESET -> SQE/SQD do not exist. */
	to_init(c, type, &m, qp);
	m.qp_state = IB_UVERBS_QPS_SQE;
	EXPECT(modify_qp(c, &m), -EINVAL);
	m.qp_state = IB_UVERBS_QPS_SQD;
	EXPECT(modify_qp(c, &m), -EINVAL);
	to_init(c, type, &m, qp);
	EXPECT(modify_qp(c, &m), 0);
	CHECK(query_state(c, qp) == IB_UVERBS_QPS_INIT, "not INIT");
	/* INIT -> SQD does not exist either. */
	memset(&m, 0, sizeof(m));
	m.qp_handle = qp;
	m.qp_state = IB_UVERBS_QPS_SQD;
	m.attr_mask = IB_UVERBS_QP_STATE;
	EXPECT(modify_qp(c, &m), -EINVAL);
	/* INIT -> INIT with the optional attributes. */
	to_init(c, type, &m, qp);
	EXPECT(modify_qp(c, &m), 0);
	/* INIT -> RTS skips RTR. */
	to_rts(type, &m, qp);
	EXPECT(modify_qp(c, &m), -EINVAL);

	if (type != IB_UVERBS_QPT_UD) {
		to_rtr(c, type, &m, qp, qpn);
		m.attr_mask &= ~IB_UVERBS_QP_AV;
		EXPECT(modify_qp(c, &m), -EINVAL);
		to_rtr(c, type, &m, qp, qpn);
		m.path_mtu = 6;
		EXPECT(modify_qp(c, &m), -EINVAL);
		to_rtr(c, type, &m, qp, qpn);
		m.path_mtu = c->active_mtu + 1;
		if (m.path_mtu <= 5)
			EXPECT(modify_qp(c, &m), -EINVAL);
		to_rtr(c, type, &m, qp, qpn);
		m.dest.is_global = 0;
		EXPECT(modify_qp(c, &m), -EINVAL);
		if (c->gid_bad >= 0) {
			to_rtr(c, type, &m, qp, qpn);
			m.dest.sgid_index = c->gid_bad;
			EXPECT(modify_qp(c, &m), -EINVAL);
		}
		to_rtr(c, type, &m, qp, qpn);
		m.dest.port_num = 3;
		EXPECT(modify_qp(c, &m), -EINVAL);
	} else {
		/* UD has no address vector in the QP. */
		to_rtr(c, type, &m, qp, qpn);
		av_fill(c, &m.dest);
		m.attr_mask |= IB_UVERBS_QP_AV;
		EXPECT(modify_qp(c, &m), -EINVAL);
	}
	to_rtr(c, type, &m, qp, qpn);
	EXPECT(modify_qp(c, &m), 0);
	CHECK(query_state(c, qp) == IB_UVERBS_QPS_RTR, "not RTR");

	if (type == IB_UVERBS_QPT_RC) {
		to_rts(type, &m, qp);
		m.attr_mask &= ~IB_UVERBS_QP_TIMEOUT;
		EXPECT(modify_qp(c, &m), -EINVAL);
		to_rts(type, &m, qp);
		m.retry_cnt = 8;
		EXPECT(modify_qp(c, &m), -EINVAL);
	}
	to_rts(type, &m, qp);
	m.attr_mask |= IB_UVERBS_QP_PORT;	/* not allowed RTR->RTS */
	EXPECT(modify_qp(c, &m), -EINVAL);
	to_rts(type, &m, qp);
	EXPECT(modify_qp(c, &m), 0);
	memset(&qr, 0, sizeof(qr));
	EXPECT(query_qp(c, qp, &qr), 0);
	CHECK(qr.qp_state == IB_UVERBS_QPS_RTS, "not RTS (%u)", qr.qp_state);
	CHECK(qr.sq_psn == 0xabcdef, "sq_psn 0x%x not masked to 24 bits",
	      qr.sq_psn);
	CHECK(qr.port_num == 1, "port %u", qr.port_num);
	if (type != IB_UVERBS_QPT_UD)
		CHECK(qr.rq_psn == 0x123456 && qr.dest_qp_num == qpn &&
		      qr.path_mtu == 1 && qr.dest.is_global,
		      "rq_psn 0x%x dqpn 0x%x mtu %u", qr.rq_psn,
		      qr.dest_qp_num, qr.path_mtu);

	/* RTS -> INIT / RTR do not exist. */
	to_init(c, type, &m, qp);
	EXPECT(modify_qp(c, &m), -EINVAL);
	to_rtr(c, type, &m, qp, qpn);
	EXPECT(modify_qp(c, &m), -EINVAL);
	/* Only UD and UC QPs know SQE (IBA 10.3.1): claiming it for RC fails. */
	if (type == IB_UVERBS_QPT_RC) {
		memset(&m, 0, sizeof(m));
		m.qp_handle = qp;
		m.qp_state = IB_UVERBS_QPS_RTS;
		m.cur_qp_state = IB_UVERBS_QPS_SQE;
		m.attr_mask = IB_UVERBS_QP_STATE | IB_UVERBS_QP_CUR_STATE;
		EXPECT(modify_qp(c, &m), -EINVAL);
	}
	/* RTS -> RTS with the current state claimed. */
	memset(&m, 0, sizeof(m));
	m.qp_handle = qp;
	m.qp_state = IB_UVERBS_QPS_RTS;
	m.cur_qp_state = IB_UVERBS_QPS_RTS;
	m.attr_mask = IB_UVERBS_QP_STATE | IB_UVERBS_QP_CUR_STATE;
	EXPECT(modify_qp(c, &m), 0);
	/* -> ERR from anywhere, then only RESET or ERR. */
	m.qp_state = IB_UVERBS_QPS_ERR;
	m.attr_mask = IB_UVERBS_QP_STATE;
	EXPECT(modify_qp(c, &m), 0);
	CHECK(query_state(c, qp) == IB_UVERBS_QPS_ERR, "not ERR");
	to_rts(type, &m, qp);
	EXPECT(modify_qp(c, &m), -EINVAL);
	to_init(c, type, &m, qp);
	EXPECT(modify_qp(c, &m), -EINVAL);
	memset(&m, 0, sizeof(m));
	m.qp_handle = qp;
	m.qp_state = IB_UVERBS_QPS_RESET;
	m.attr_mask = IB_UVERBS_QP_STATE;
	EXPECT(modify_qp(c, &m), 0);
	CHECK(query_state(c, qp) == IB_UVERBS_QPS_RESET, "not RESET");
	/* And around again, now via the extended command. */
	{
		struct ib_uverbs_ex_modify_qp x = {};
		struct ib_uverbs_ex_modify_qp_resp xr = {};

		to_init(c, type, &x.base, qp);
		EXPECT(ex_cmd(c->fd, IB_USER_VERBS_EX_CMD_MODIFY_QP, &x,
			      sizeof(x), &xr, sizeof(xr)), 0);
		CHECK(xr.response_length == sizeof(xr), "ex modify length %u",
		      xr.response_length);
		to_rts(type, &x.base, qp);
		EXPECT(ex_cmd(c->fd, IB_USER_VERBS_EX_CMD_MODIFY_QP, &x,
			      sizeof(x), &xr, sizeof(xr)), -EINVAL);
	}
	EXPECT(destroy_qp(c, qp, NULL), 0);
}

static void test_qp(void)
{
	struct ctx c;
	uint32_t pd, cq;

	if (open_ctx(&c) || alloc_pd(&c, &pd) ||
	    create_cq(&c, 64, 0, -1, &cq)) {
		CHECK(0, "setup");
		return;
	}
	CHECK(c.gid_ok >= 0, "no valid GID on port 1");
	test_qp_type(&c, pd, cq, IB_UVERBS_QPT_RC);
	test_qp_type(&c, pd, cq, IB_UVERBS_QPT_UC);
	test_qp_type(&c, pd, cq, IB_UVERBS_QPT_UD);
	/* XRC target QPs need an XRC domain, which this core lacks. */
	{
		uint32_t qp;

		EXPECT(create_qp(&c, IB_UVERBS_QPT_XRC_TGT, pd, cq, -1, &qp,
				 NULL), -EINVAL);
	}
	close_ctx(&c);
}

/* ---------------- MRs ---------------- */

static void test_mr(void)
{
	struct ctx c;
	uint32_t pd, mr;
	char *buf = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *ro = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);

	if (open_ctx(&c) || alloc_pd(&c, &pd)) {
		CHECK(0, "setup");
		return;
	}
	/* IBA: remote write or atomic requires local write. */
	EXPECT(reg_mr(&c, pd, buf, 4096, IB_UVERBS_ACCESS_REMOTE_WRITE, &mr),
	       -EINVAL);
	EXPECT(reg_mr(&c, pd, buf, 4096, IB_UVERBS_ACCESS_REMOTE_ATOMIC, &mr),
	       -EINVAL);
	EXPECT(reg_mr(&c, pd, buf, 4096, 1u << 15, &mr), -EINVAL);
	EXPECT(reg_mr(&c, pd, buf, 0, IB_UVERBS_ACCESS_LOCAL_WRITE, &mr),
	       -EINVAL);
	EXPECT(reg_mr(&c, pd + 77, buf, 4096, IB_UVERBS_ACCESS_LOCAL_WRITE,
		      &mr), -EINVAL);
	/* Unmapped memory. */
	EXPECT(reg_mr(&c, pd, (void *)0x10000, 4096,
		      IB_UVERBS_ACCESS_LOCAL_WRITE, &mr), -EFAULT);
	/* Read-only memory: readable MR yes, writable no. */
	EXPECT(reg_mr(&c, pd, ro, 8192, IB_UVERBS_ACCESS_REMOTE_READ, &mr), 0);
	EXPECT(dereg_mr(&c, mr), 0);
	EXPECT(reg_mr(&c, pd, ro, 8192, IB_UVERBS_ACCESS_LOCAL_WRITE, &mr),
	       -EFAULT);
	/* start and hca_va must share the page offset. */
	{
		struct ib_uverbs_reg_mr req = {
			.start = (uintptr_t)buf + 16, .length = 100,
			.hca_va = 0x1000, .pd_handle = pd,
			.access_flags = IB_UVERBS_ACCESS_LOCAL_WRITE,
		};
		struct {
			struct ib_uverbs_reg_mr_resp r;
			char udata[UDATA_OUT];
		} resp;

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REG_MR, &req, sizeof(req),
			   &resp, sizeof(resp)), -EINVAL);
		req.hca_va = 0x10010;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REG_MR, &req, sizeof(req),
			   &resp, sizeof(resp)), 0);
		CHECK(resp.r.lkey != 0 || resp.r.rkey != 0, "keys 0/0");
		EXPECT(dereg_mr(&c, resp.r.mr_handle), 0);
	}
	/* REREG_MR: new translation and access behind the same handle. */
	{
		struct ib_uverbs_rereg_mr req = {
			.flags = 1 << 0 | 1 << 2,	/* TRANS | ACCESS */
			.start = (uintptr_t)buf + 8192, .length = 8192,
			.hca_va = 0x7000000, .pd_handle = pd,
			.access_flags = IB_UVERBS_ACCESS_REMOTE_READ,
		};
		struct {
			struct ib_uverbs_rereg_mr_resp r;
			char udata[UDATA_OUT];
		} resp;
		long pin0 = vm_pin_kb();

		EXPECT(reg_mr(&c, pd, buf, 4096, IB_UVERBS_ACCESS_LOCAL_WRITE,
			      &mr), 0);
		req.mr_handle = mr;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REREG_MR, &req, sizeof(req),
			   &resp, sizeof(resp)), 0);
		CHECK(vm_pin_kb() == pin0 + 8, "VmPin %ld after rereg, want %ld",
		      vm_pin_kb(), pin0 + 8);
		req.flags = 1 << 3;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REREG_MR, &req, sizeof(req),
			   &resp, sizeof(resp)), -EINVAL);
		req.flags = 1 << 2;
		req.access_flags = IB_UVERBS_ACCESS_REMOTE_WRITE;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REREG_MR, &req, sizeof(req),
			   &resp, sizeof(resp)), -EINVAL);
		req.flags = 1 << 1;	/* PD */
		req.pd_handle = pd + 1000;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REREG_MR, &req, sizeof(req),
			   &resp, sizeof(resp)), -EINVAL);
		req.mr_handle = pd;
		req.flags = 1 << 2;
		req.access_flags = 0;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REREG_MR, &req, sizeof(req),
			   &resp, sizeof(resp)), -EINVAL);
		EXPECT(dereg_mr(&c, mr), 0);
		CHECK(vm_pin_kb() == pin0, "VmPin %ld after dereg, want %ld",
		      vm_pin_kb(), pin0);
	}
	/* REREG_MR keeps lkey and rkey whatever changes (as mlx5). */
	{
		struct ib_uverbs_reg_mr rreq = {
			.start = (uintptr_t)buf, .length = 4096,
			.hca_va = (uintptr_t)buf, .pd_handle = pd,
			.access_flags = IB_UVERBS_ACCESS_LOCAL_WRITE,
		};
		struct {
			struct ib_uverbs_reg_mr_resp r;
			char udata[UDATA_OUT];
		} rresp = {};
		struct ib_uverbs_rereg_mr req = {};
		struct {
			struct ib_uverbs_rereg_mr_resp r;
			char udata[UDATA_OUT];
		} resp;
		uint32_t pd2;
		int i;
		static const struct {
			uint32_t flags, access;
			uint64_t off, len, va;
		} ok[] = {
			{ 1 << 2, IB_UVERBS_ACCESS_LOCAL_WRITE |
				  IB_UVERBS_ACCESS_REMOTE_WRITE |
				  IB_UVERBS_ACCESS_REMOTE_ATOMIC },
			{ 1 << 0, 0, 8192, 3 * 4096, 0x5000000 },
			{ 1 << 0 | 1 << 2, IB_UVERBS_ACCESS_REMOTE_READ, 100,
			  5000, 0x6000064 },
			/* read-only pages so far: writable needs a re-pin */
			{ 1 << 2, IB_UVERBS_ACCESS_LOCAL_WRITE },
		};

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REG_MR, &rreq, sizeof(rreq),
			   &rresp, sizeof(rresp)), 0);
		req.mr_handle = rresp.r.mr_handle;
		for (i = 0; i < (int)(sizeof(ok) / sizeof(ok[0])); i++) {
			req.flags = ok[i].flags;
			req.access_flags = ok[i].access;
			req.start = (uintptr_t)buf + ok[i].off;
			req.length = ok[i].len;
			req.hca_va = ok[i].va;
			memset(&resp, 0xff, sizeof(resp));
			EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REREG_MR, &req,
				   sizeof(req), &resp, sizeof(resp)), 0);
			CHECK(resp.r.lkey == rresp.r.lkey &&
			      resp.r.rkey == rresp.r.rkey,
			      "rereg %d: keys %#x/%#x, were %#x/%#x", i,
			      resp.r.lkey, resp.r.rkey, rresp.r.lkey,
			      rresp.r.rkey);
		}
		/* PD change: the dependency moves with it. */
		EXPECT(alloc_pd(&c, &pd2), 0);
		req.flags = 1 << 1;
		req.pd_handle = pd2;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REREG_MR, &req, sizeof(req),
			   &resp, sizeof(resp)), 0);
		CHECK(resp.r.lkey == rresp.r.lkey, "PD rereg changed the lkey");
		EXPECT(dealloc_pd(&c, pd2), -EBUSY);
		req.pd_handle = pd;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REREG_MR, &req, sizeof(req),
			   &resp, sizeof(resp)), 0);
		EXPECT(dealloc_pd(&c, pd2), 0);
		/* Errors, each leaving the MR as it was. */
		req.flags = 0;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REREG_MR, &req, sizeof(req),
			   &resp, sizeof(resp)), -EINVAL);
		req.flags = 1 << 3;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REREG_MR, &req, sizeof(req),
			   &resp, sizeof(resp)), -EINVAL);
		req.flags = 1 << 0;	/* start/hca_va page offsets differ */
		req.start = (uintptr_t)buf + 8;
		req.hca_va = 0x7000000;
		req.length = 64;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REREG_MR, &req, sizeof(req),
			   &resp, sizeof(resp)), -EINVAL);
		req.start = (uintptr_t)buf;
		req.length = 0;
		req.hca_va = (uintptr_t)buf;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REREG_MR, &req, sizeof(req),
			   &resp, sizeof(resp)), -EINVAL);
		req.start = 0x10000;	/* unmapped */
		req.hca_va = 0x10000;
		req.length = 4096;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REREG_MR, &req, sizeof(req),
			   &resp, sizeof(resp)), -EFAULT);
		req.flags = 1 << 2;
		req.access_flags = IB_UVERBS_ACCESS_REMOTE_ATOMIC;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REREG_MR, &req, sizeof(req),
			   &resp, sizeof(resp)), -EINVAL);
		req.access_flags = IB_UVERBS_ACCESS_ON_DEMAND;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REREG_MR, &req, sizeof(req),
			   &resp, sizeof(resp)), -EOPNOTSUPP);
		req.flags = 1 << 1;
		req.pd_handle = rresp.r.mr_handle;	/* not a PD */
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REREG_MR, &req, sizeof(req),
			   &resp, sizeof(resp)), -EINVAL);
		req.mr_handle = pd;			/* not an MR */
		req.pd_handle = pd;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REREG_MR, &req, sizeof(req),
			   &resp, sizeof(resp)), -EINVAL);
		req.mr_handle = rresp.r.mr_handle;
		EXPECT(dereg_mr(&c, rresp.r.mr_handle), 0);
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REREG_MR, &req, sizeof(req),
			   &resp, sizeof(resp)), -EINVAL);
	}
	/* Unaligned, page-crossing, all access rights. */
	EXPECT(reg_mr(&c, pd, buf + 100, 3 * 4096,
		      IB_UVERBS_ACCESS_LOCAL_WRITE |
		      IB_UVERBS_ACCESS_REMOTE_WRITE |
		      IB_UVERBS_ACCESS_REMOTE_READ |
		      IB_UVERBS_ACCESS_REMOTE_ATOMIC, &mr), 0);
	EXPECT(dereg_mr(&c, mr), 0);
	EXPECT(dereg_mr(&c, mr), -EINVAL);
	close_ctx(&c);
	munmap(buf, 1 << 20);
	munmap(ro, 8192);
}

/* ---------------- events ---------------- */

static void test_events(void)
{
	struct ctx c;
	struct ib_uverbs_async_event_desc ev;
	struct pollfd p;

	if (open_ctx(&c)) {
		CHECK(0, "setup");
		return;
	}
	p.fd = c.async_fd;
	p.events = POLLIN;
	CHECK(poll(&p, 1, 0) == 0, "idle async fd polls ready");
	fcntl(c.async_fd, F_SETFL, O_NONBLOCK);
	CHECK(read(c.async_fd, &ev, sizeof(ev)) == -1 && errno == EAGAIN,
	      "empty async read: %m");
	/* Once the context is gone its event files report EIO. */
	{
		struct ib_uverbs_create_comp_channel req = {};
		struct ib_uverbs_create_comp_channel_resp resp = {};
		struct ib_uverbs_comp_event_desc cev;

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &req,
			   sizeof(req), &resp, sizeof(resp)), 0);
		close(c.fd);
		CHECK(read(c.async_fd, &ev, sizeof(ev)) == -1 && errno == EIO,
		      "async read after close: %m");
		CHECK(read(resp.fd, &cev, sizeof(cev)) == -1 && errno == EIO,
		      "channel read after close: %m");
		p.fd = resp.fd;
		CHECK(poll(&p, 1, 0) == 1 && (p.revents & POLLERR),
		      "channel poll after close: 0x%x", p.revents);
		close(resp.fd);
		close(c.async_fd);
	}
}

/* ---------------- success paths and destroy-time event counts ---------------- */

/* A QP or SRQ created through the raw ABI with its rings mapped. */
struct raw_queue {
	uint32_t handle, num;
	uint8_t *region;
	size_t len;
	uint8_t *rq;		/* receive ring (QP RQ or SRQ) */
	uint32_t rq_cnt, rq_stride;
	uint8_t *sq;
	uint32_t sq_cnt, sq_stride;
	__le32 *rq_pi, *sq_pi;
	uint32_t rq_next, sq_next;
};

static int map_region(struct ctx *c, struct raw_queue *q, uint64_t key,
		      uint32_t len)
{
	q->region = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd,
			 key);
	q->len = len;
	return q->region == MAP_FAILED ? -errno : 0;
}

static int raw_create_qp(struct ctx *c, uint32_t pd, uint32_t cq, int srq,
			 uint64_t user_handle, struct raw_queue *q)
{
	struct ib_uverbs_create_qp req = {
		.user_handle = user_handle, .pd_handle = pd,
		.send_cq_handle = cq, .recv_cq_handle = cq, .max_send_wr = 8,
		.max_recv_wr = srq >= 0 ? 0 : 8, .max_send_sge = 1,
		.max_recv_sge = 1, .qp_type = IB_UVERBS_QPT_RC,
		.is_srq = srq >= 0, .srq_handle = srq >= 0 ? srq : 0,
	};
	struct {
		struct ib_uverbs_create_qp_resp r;
		struct mlx_hw_create_qp_resp d;
		char pad[UDATA_OUT - sizeof(struct mlx_hw_create_qp_resp)];
	} resp = {};
	struct mlx_hw_qp_db *db;
	int ret;

	memset(q, 0, sizeof(*q));
	ret = cmd(c->fd, IB_USER_VERBS_CMD_CREATE_QP, &req, sizeof(req),
		  &resp, sizeof(resp));
	if (ret)
		return ret;
	q->handle = resp.r.qp_handle;
	q->num = resp.r.qpn;
	ret = map_region(c, q, resp.d.mmap_key, resp.d.mmap_len);
	if (ret)
		return ret;
	db = (struct mlx_hw_qp_db *)q->region;
	q->sq = q->region + resp.d.sq_offset;
	q->sq_cnt = resp.d.sq_wqe_cnt;
	q->sq_stride = resp.d.sq_stride;
	q->sq_pi = &db->sq_pi;
	q->rq = q->region + resp.d.rq_offset;
	q->rq_cnt = resp.d.rq_wqe_cnt;
	q->rq_stride = resp.d.rq_stride;
	q->rq_pi = &db->rq_pi;
	return 0;
}

static int raw_create_srq(struct ctx *c, uint32_t pd, uint64_t user_handle,
			  struct raw_queue *q)
{
	struct ib_uverbs_create_srq req = {
		.user_handle = user_handle, .pd_handle = pd, .max_wr = 4,
		.max_sge = 1,
	};
	struct {
		struct ib_uverbs_create_srq_resp r;
		struct mlx_hw_create_srq_resp d;
		char pad[UDATA_OUT - sizeof(struct mlx_hw_create_srq_resp)];
	} resp = {};
	int ret;

	memset(q, 0, sizeof(*q));
	ret = cmd(c->fd, IB_USER_VERBS_CMD_CREATE_SRQ, &req, sizeof(req),
		  &resp, sizeof(resp));
	if (ret)
		return ret;
	q->handle = resp.r.srq_handle;
	ret = map_region(c, q, resp.d.mmap_key, resp.d.mmap_len);
	if (ret)
		return ret;
	q->rq = q->region + resp.d.ring_offset;
	q->rq_cnt = resp.d.wqe_cnt;
	q->rq_stride = resp.d.stride;
	q->rq_pi = &((struct mlx_hw_srq_db *)q->region)->pi;
	return 0;
}

/* Publishes a doorbell value and wakes the engine (PRM 2, 3). */
static void ring_doorbell(struct ctx *c, __le32 *db, uint32_t pi)
{
	__atomic_store_n(db, htole32(pi), __ATOMIC_RELEASE);
	ioctl(c->fd, MLX_HW_IOCTL_WAKE);
}

/* A receive WQE without buffers (takes zero-length messages). */
static void raw_post_recv(struct ctx *c, struct raw_queue *q, uint64_t wr_id)
{
	struct mlx_hw_rwqe *w = (struct mlx_hw_rwqe *)
		(q->rq + (q->rq_next & (q->rq_cnt - 1)) * q->rq_stride);

	memset(w, 0, q->rq_stride);
	w->wr_id = htole64(wr_id);
	ring_doorbell(c, q->rq_pi, ++q->rq_next);
}

/* A signaled zero-length SEND. */
static void raw_post_send(struct ctx *c, struct raw_queue *q, uint64_t wr_id)
{
	struct mlx_hw_wqe_ctrl *w = (struct mlx_hw_wqe_ctrl *)
		(q->sq + (q->sq_next & (q->sq_cnt - 1)) * q->sq_stride);

	memset(w, 0, q->sq_stride);
	w->wr_id = htole64(wr_id);
	w->opcode = MLX_HW_OP_SEND;
	w->flags = MLX_HW_WQE_SIGNALED;
	ring_doorbell(c, q->sq_pi, ++q->sq_next);
}

/* RESET -> RTS, connected to @dqpn. */
static int raw_connect(struct ctx *c, uint32_t qp, uint32_t dqpn)
{
	struct ib_uverbs_modify_qp m;
	int ret;

	to_init(c, IB_UVERBS_QPT_RC, &m, qp);
	ret = modify_qp(c, &m);
	to_rtr(c, IB_UVERBS_QPT_RC, &m, qp, dqpn);
	ret = ret ? ret : modify_qp(c, &m);
	to_rts(IB_UVERBS_QPT_RC, &m, qp);
	m.sq_psn = 0x123456;	/* the peer's rq_psn (to_rtr) */
	return ret ? ret : modify_qp(c, &m);
}

/* Reads async events until none comes for 300 ms; counts per element. */
static void read_async(struct ctx *c, const uint64_t *elems, int n,
		       uint32_t *counts, uint32_t *types)
{
	struct ib_uverbs_async_event_desc ev;
	struct pollfd p = { .fd = c->async_fd, .events = POLLIN };
	int i;

	while (poll(&p, 1, 300) == 1) {
		if (read(c->async_fd, &ev, sizeof(ev)) != sizeof(ev))
			break;
		for (i = 0; i < n; i++) {
			if (ev.element == elems[i]) {
				counts[i]++;
				types[i] |= 1u << ev.event_type;
			}
		}
	}
}

/*
 * ALLOC_MW/DEALLOC_MW, REQ_NOTIFY_CQ, RESIZE_CQ and the events_reported
 * of DESTROY_CQ/QP/SRQ: a SEND between two QPs (one on an SRQ with a
 * limit) under an armed CQ gives a completion event and SRQ_LIMIT_REACHED;
 * SQD with notification gives SQ_DRAINED.  Each destroy must report what
 * was read from the event files.
 */
static void test_counts(void)
{
	enum { QP_A = 0x1a, QP_B = 0x1b, SRQ_H = 0x5e, CQ_H = 0xc0ffee };
	const uint64_t elems[] = { QP_A, QP_B, SRQ_H, CQ_H };
	uint32_t counts[4] = {}, types[4] = {};
	struct raw_queue a, b, srq;
	struct ib_uverbs_destroy_cq_resp dcq = {};
	struct ib_uverbs_comp_event_desc cev;
	struct ctx c;
	uint32_t pd, cq, events;
	int chan;

	if (open_ctx(&c) || alloc_pd(&c, &pd) || c.gid_ok < 0) {
		CHECK(0, "setup");
		return;
	}
	/* Memory windows: both types, the PD busy while they exist. */
	{
		struct ib_uverbs_alloc_mw req = { .pd_handle = pd };
		struct {
			struct ib_uverbs_alloc_mw_resp r;
			char udata[UDATA_OUT];
		} r1 = {}, r2 = {};
		struct ib_uverbs_dealloc_mw d = {};
		uint32_t pd2;

		EXPECT(alloc_pd(&c, &pd2), 0);
		req.pd_handle = pd2;
		req.mw_type = 1;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_ALLOC_MW, &req, sizeof(req),
			   &r1, sizeof(r1)), 0);
		req.mw_type = 2;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_ALLOC_MW, &req, sizeof(req),
			   &r2, sizeof(r2)), 0);
		CHECK(r1.r.mw_handle != r2.r.mw_handle && r1.r.rkey &&
		      r2.r.rkey && r1.r.rkey != r2.r.rkey,
		      "mw handles %u %u rkeys %#x %#x", r1.r.mw_handle,
		      r2.r.mw_handle, r1.r.rkey, r2.r.rkey);
		EXPECT(dealloc_pd(&c, pd2), -EBUSY);
		d.mw_handle = r1.r.mw_handle;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_DEALLOC_MW, &d, sizeof(d),
			   NULL, 0), 0);
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_DEALLOC_MW, &d, sizeof(d),
			   NULL, 0), -EINVAL);
		d.mw_handle = r2.r.mw_handle;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_DEALLOC_MW, &d, sizeof(d),
			   NULL, 0), 0);
		EXPECT(dealloc_pd(&c, pd2), 0);
	}

	{
		struct ib_uverbs_create_comp_channel req = {};
		struct ib_uverbs_create_comp_channel_resp resp = {};

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &req,
			   sizeof(req), &resp, sizeof(resp)), 0);
		chan = resp.fd;
	}
	EXPECT(create_cq(&c, 16, 0, chan, &cq), 0);
	EXPECT(raw_create_srq(&c, pd, SRQ_H, &srq), 0);
	EXPECT(raw_create_qp(&c, pd, cq, -1, QP_A, &a), 0);
	EXPECT(raw_create_qp(&c, pd, cq, srq.handle, QP_B, &b), 0);
	if (failures)
		return;
	EXPECT(raw_connect(&c, a.handle, b.num), 0);
	EXPECT(raw_connect(&c, b.handle, a.num), 0);

	/* Two receives on the SRQ, limit 2: taking one fires the event. */
	raw_post_recv(&c, &srq, 100);
	raw_post_recv(&c, &srq, 101);
	{
		struct ib_uverbs_modify_srq m = { .srq_handle = srq.handle,
			.attr_mask = 1 << 1, .srq_limit = 2 };

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_MODIFY_SRQ, &m, sizeof(m),
			   NULL, 0), 0);
	}
	/* Armed through the command (providers usually write the arm word). */
	{
		struct ib_uverbs_req_notify_cq n = { .cq_handle = cq };

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &n, sizeof(n),
			   NULL, 0), 0);
		n.solicited_only = 1;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &n, sizeof(n),
			   NULL, 0), 0);
		n.solicited_only = 0;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &n, sizeof(n),
			   NULL, 0), 0);
	}
	raw_post_send(&c, &a, 7);
	{
		struct pollfd p = { .fd = chan, .events = POLLIN };

		CHECK(poll(&p, 1, 5000) == 1, "no completion event");
		CHECK(read(chan, &cev, sizeof(cev)) == sizeof(cev) &&
		      cev.cq_handle == CQ_H, "comp event for %#llx",
		      (unsigned long long)cev.cq_handle);
		/* One arm, one event. */
		CHECK(poll(&p, 1, 200) == 0, "second completion event");
	}
	/* SQ_DRAINED (IBA 11.6.3) for QP a. */
	{
		struct ib_uverbs_modify_qp m = { .qp_handle = a.handle,
			.qp_state = IB_UVERBS_QPS_SQD, .en_sqd_async_notify = 1,
			.attr_mask = IB_UVERBS_QP_STATE | 1 << 2 };

		EXPECT(modify_qp(&c, &m), 0);
	}
	read_async(&c, elems, 4, counts, types);
	CHECK(types[0] == 1u << 5 /* SQ_DRAINED */ && counts[0] == 1,
	      "QP a: %u events, types %#x", counts[0], types[0]);
	CHECK(types[2] == 1u << 15 /* SRQ_LIMIT_REACHED */ && counts[2] == 1,
	      "SRQ: %u events, types %#x", counts[2], types[2]);

	/* RESIZE_CQ: the two CQEs (send 7, receive 100) move to a new ring. */
	{
		struct ib_uverbs_resize_cq r = { .cq_handle = cq, .cqe = 1 };
		struct {
			struct ib_uverbs_resize_cq_resp r;
			struct mlx_hw_resize_cq_resp d;
			char pad[UDATA_OUT - sizeof(struct mlx_hw_resize_cq_resp)];
		} rr = {};
		struct raw_queue ring;
		struct mlx_hw_cqe *cqe;

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_RESIZE_CQ, &r, sizeof(r),
			   &rr, sizeof(rr)), -EINVAL);
		r.cqe = 65537;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_RESIZE_CQ, &r, sizeof(r),
			   &rr, sizeof(rr)), -EINVAL);
		/* Without room for the new region's key: refused. */
		r.cqe = 100;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_RESIZE_CQ, &r, sizeof(r),
			   &rr, sizeof(rr.r)), -EINVAL);
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_RESIZE_CQ, &r, sizeof(r),
			   &rr, sizeof(rr)), 0);
		CHECK(rr.r.cqe == 128 && rr.d.entries == 128 &&
		      rr.d.mmap_key && rr.d.ring_offset >= 16,
		      "resize: cqe %u entries %u", rr.r.cqe, rr.d.entries);
		if (!map_region(&c, &ring, rr.d.mmap_key, rr.d.mmap_len)) {
			struct mlx_hw_cq_db *db = (void *)ring.region;

			cqe = (void *)(ring.region + rr.d.ring_offset);
			CHECK(le32toh(db->ci) == 0 && le32toh(db->pi) == 2 &&
			      cqe[0].owner == 1 && cqe[1].owner == 1 &&
			      cqe[2].owner == 0,
			      "new ring: ci %u pi %u owners %u %u %u",
			      le32toh(db->ci), le32toh(db->pi), cqe[0].owner,
			      cqe[1].owner, cqe[2].owner);
			CHECK(le64toh(cqe[0].wr_id) + le64toh(cqe[1].wr_id) ==
			      107 && !cqe[0].status && !cqe[1].status,
			      "wr_ids %llu %llu status %u %u",
			      (unsigned long long)le64toh(cqe[0].wr_id),
			      (unsigned long long)le64toh(cqe[1].wr_id),
			      cqe[0].status, cqe[1].status);
			munmap(ring.region, ring.len);
		} else {
			CHECK(0, "map resized ring: %m");
		}
	}

	EXPECT(destroy_qp(&c, a.handle, &events), 0);
	CHECK(events == counts[0], "QP a events_reported %u, read %u", events,
	      counts[0]);
	EXPECT(destroy_qp(&c, b.handle, &events), 0);
	CHECK(events == counts[1], "QP b events_reported %u, read %u", events,
	      counts[1]);
	{
		struct ib_uverbs_destroy_srq d = { .srq_handle = srq.handle };
		struct ib_uverbs_destroy_srq_resp r = {};

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_DESTROY_SRQ, &d, sizeof(d),
			   &r, sizeof(r)), 0);
		CHECK(r.events_reported == 1, "SRQ events_reported %u",
		      r.events_reported);
	}
	EXPECT(destroy_cq(&c, cq, &dcq), 0);
	CHECK(dcq.comp_events_reported == 1 &&
	      dcq.async_events_reported == counts[3],
	      "CQ events_reported %u/%u, read 1/%u", dcq.comp_events_reported,
	      dcq.async_events_reported, counts[3]);
	munmap(a.region, a.len);
	munmap(b.region, b.len);
	munmap(srq.region, srq.len);
	close(chan);
	close_ctx(&c);
}

/* ---------------- RLIMIT_MEMLOCK ---------------- */

static int drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[0].effective &= ~(1u << CAP_IPC_LOCK);
	d[0].permitted &= ~(1u << CAP_IPC_LOCK);
	return syscall(SYS_capset, &h, d);
}

static long vm_pin_kb(void)
{
	char buf[4096], *p;

	if (read_file("/proc/self/status", buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "VmPin:");
	return p ? strtol(p + 6, NULL, 10) : -1;
}

static void test_memlock(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct rlimit rl = { 64 << 10, 64 << 10 };
		char *buf = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct ctx c;
		uint32_t pd, mr, mr2;

		failures = 0;	/* count only the child's own checks */
		if (drop_ipc_lock() || setrlimit(RLIMIT_MEMLOCK, &rl)) {
			printf("FAIL memlock: cannot drop CAP_IPC_LOCK: %m\n");
			_exit(1);
		}
		EXPECT(open_ctx(&c), 0);
		EXPECT(alloc_pd(&c, &pd), 0);
		EXPECT(reg_mr(&c, pd, buf, 1 << 20,
			      IB_UVERBS_ACCESS_LOCAL_WRITE, &mr), -ENOMEM);
		CHECK(vm_pin_kb() == 0, "VmPin %ld kB after refusal",
		      vm_pin_kb());
		EXPECT(reg_mr(&c, pd, buf, 48 << 10,
			      IB_UVERBS_ACCESS_LOCAL_WRITE, &mr), 0);
		CHECK(vm_pin_kb() == 48, "VmPin %ld kB, want 48", vm_pin_kb());
		/* 48 + 32 kB > 64 kB */
		EXPECT(reg_mr(&c, pd, buf + (512 << 10), 32 << 10,
			      IB_UVERBS_ACCESS_LOCAL_WRITE, &mr2), -ENOMEM);
		EXPECT(dereg_mr(&c, mr), 0);
		CHECK(vm_pin_kb() == 0, "VmPin %ld kB after dereg",
		      vm_pin_kb());
		EXPECT(reg_mr(&c, pd, buf + (512 << 10), 32 << 10,
			      IB_UVERBS_ACCESS_LOCAL_WRITE, &mr2), 0);
		close_ctx(&c);
		CHECK(vm_pin_kb() == 0, "VmPin %ld kB after close",
		      vm_pin_kb());
		_exit(failures ? 1 : 0);
	}
	waitpid(pid, &status, 0);
	checks++;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		failures++;
		printf("FAIL memlock child (status 0x%x)\n", status);
	}
}

/* ---------------- VmPin after kill -9 ---------------- */

static int vmpin_pipe[2];
static char *vmpin_buf;

/* Runs in a CLONE_VM child: pins memory of the parent's mm, then waits. */
static int vmpin_child(void *arg)
{
	struct ctx c;
	uint32_t pd, cq, qp, mr;
	char ok = 1;

	if (open_ctx(&c) || alloc_pd(&c, &pd) ||
	    create_cq(&c, 16, 0, -1, &cq) ||
	    create_qp(&c, IB_UVERBS_QPT_RC, pd, cq, -1, &qp, NULL) ||
	    reg_mr(&c, pd, vmpin_buf, 256 << 10, IB_UVERBS_ACCESS_LOCAL_WRITE,
		   &mr) ||
	    reg_mr(&c, pd, vmpin_buf, 64 << 10, IB_UVERBS_ACCESS_REMOTE_READ,
		   &mr))
		ok = 0;
	if (write(vmpin_pipe[1], &ok, 1) != 1)
		return 1;
	for (;;)
		pause();
	return 0;
}

static void test_vmpin(void)
{
	size_t stack_size = 256 << 10;
	char *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	long before = vm_pin_kb(), during, after = -1;
	char ok = 0;
	pid_t pid;
	int i;

	vmpin_buf = mmap(NULL, 256 << 10, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(vmpin_buf, 1, 256 << 10);
	if (pipe(vmpin_pipe))
		return;
	/* Same mm, own files: its MRs are charged to our VmPin. */
	pid = clone(vmpin_child, stack + stack_size, CLONE_VM | SIGCHLD, NULL);
	CHECK(pid > 0, "clone: %m");
	if (pid <= 0)
		return;
	CHECK(read(vmpin_pipe[0], &ok, 1) == 1 && ok, "child setup failed");
	during = vm_pin_kb();
	CHECK(during == before + 320, "VmPin %ld kB with child MRs, want %ld",
	      during, before + 320);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	for (i = 0; i < 50; i++) {
		after = vm_pin_kb();
		if (after == before)
			break;
		usleep(100000);
	}
	CHECK(after == before, "VmPin %ld kB after kill -9, want %ld", after,
	      before);
	/*
	 * The last close happens in another process (a fork that inherited
	 * the fd): the charge must go back to the mm that registered.
	 */
	{
		struct ctx c;
		uint32_t pd, mr;

		before = vm_pin_kb();
		if (open_ctx(&c) || alloc_pd(&c, &pd) ||
		    reg_mr(&c, pd, vmpin_buf, 128 << 10,
			   IB_UVERBS_ACCESS_LOCAL_WRITE, &mr)) {
			CHECK(0, "setup");
		} else {
			pid = fork();
			if (pid == 0) {
				for (;;)
					pause();
			}
			close_ctx(&c);
			CHECK(vm_pin_kb() == before + 128,
			      "VmPin %ld kB while the fork holds the fd, want %ld",
			      vm_pin_kb(), before + 128);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			for (i = 0; i < 50 && vm_pin_kb() != before; i++)
				usleep(100000);
			CHECK(vm_pin_kb() == before,
			      "VmPin %ld kB after the fork died, want %ld",
			      vm_pin_kb(), before);
		}
	}
	close(vmpin_pipe[0]);
	close(vmpin_pipe[1]);
	munmap(vmpin_buf, 256 << 10);
	munmap(stack, stack_size);
}

/* ---------------- concurrency on one fd ---------------- */

static struct ctx thr_ctx;
static int thr_errors;

static void *thr_main(void *arg)
{
	int i;

	for (i = 0; i < 500; i++) {
		uint32_t pd, cq;

		if (alloc_pd(&thr_ctx, &pd) ||
		    create_cq(&thr_ctx, 8, 0, -1, &cq) ||
		    destroy_cq(&thr_ctx, cq, NULL) ||
		    dealloc_pd(&thr_ctx, pd))
			__atomic_add_fetch(&thr_errors, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void test_threads(void)
{
	pthread_t t[4];
	int i;

	if (open_ctx(&thr_ctx)) {
		CHECK(0, "setup");
		return;
	}
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, thr_main, NULL);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	CHECK(thr_errors == 0, "%d failed iterations", thr_errors);
	close_ctx(&thr_ctx);
}

/* ---------------- device removal with open contexts ---------------- */

static int write_param(const char *name, const char *val)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/sys/module/mlx_hw/parameters/%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static void test_disassoc(void)
{
	struct ib_uverbs_async_event_desc ev = {};
	char netdev[256] = "", path[512];
	struct ctx c;
	uint32_t pd, cq, qp, mr, pd2;
	char *buf = aligned_alloc(4096, 65536);
	long before = vm_pin_kb();
	void *page = MAP_FAILED;
	DIR *d;
	struct dirent *e;
	int i;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/net",
		 ibdev);
	d = opendir(path);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			snprintf(netdev, sizeof(netdev), "%s", e->d_name);
	if (d)
		closedir(d);
	if (!netdev[0] || open_ctx(&c) || alloc_pd(&c, &pd) ||
	    create_cq(&c, 16, 0, -1, &cq) ||
	    create_qp(&c, IB_UVERBS_QPT_RC, pd, cq, -1, &qp, NULL) ||
	    reg_mr(&c, pd, buf, 65536, IB_UVERBS_ACCESS_LOCAL_WRITE, &mr)) {
		CHECK(0, "setup (netdev '%s')", netdev);
		return;
	}
	CHECK(vm_pin_kb() == before + 64, "VmPin %ld", vm_pin_kb());
	/* Device memory mapped through the uverbs fd (the engine page). */
	page = mmap(NULL, c.drv.engine_page_size, PROT_READ, MAP_SHARED, c.fd,
		    c.drv.engine_page_key);
	CHECK(page != MAP_FAILED, "mmap engine page: %m");
	EXPECT(write_param("remove", netdev), 0);
	/* The context learns about it, its objects are gone. */
	{
		struct pollfd p = { .fd = c.async_fd, .events = POLLIN };

		CHECK(poll(&p, 1, 3000) == 1, "async fd not ready");
		fcntl(c.async_fd, F_SETFL, O_NONBLOCK);
	}
	/* Port events (GID changes) may come first; DEVICE_FATAL is last. */
	{
		int n, fatal = 0;

		while ((n = read(c.async_fd, &ev, sizeof(ev))) == sizeof(ev))
			fatal = ev.event_type == 8; /* IBV_EVENT_DEVICE_FATAL */
		CHECK(fatal, "last event %u, not DEVICE_FATAL", ev.event_type);
		CHECK(n == -1 && errno == EIO, "async read after fatal: %m");
	}
	EXPECT(alloc_pd(&c, &pd2), -EIO);
	EXPECT(dealloc_pd(&c, pd), -EIO);
	CHECK(vm_pin_kb() == before, "VmPin %ld kB after removal, want %ld",
	      vm_pin_kb(), before);
	CHECK(access(uverbs_path, F_OK) != 0, "%s still exists", uverbs_path);
	/* The mapping was zapped: touching it now faults. */
	if (page != MAP_FAILED) {
		int status = 0;
		pid_t pid = fork();

		if (pid == 0) {
			volatile uint32_t v = *(volatile uint32_t *)page;

			(void)v;
			_exit(0);
		}
		waitpid(pid, &status, 0);
		CHECK(WIFSIGNALED(status) && (WTERMSIG(status) == SIGBUS ||
					      WTERMSIG(status) == SIGSEGV),
		      "reading a zapped mapping: status 0x%x", status);
		CHECK(mmap(NULL, 4096, PROT_READ, MAP_SHARED, c.fd,
			   c.drv.engine_page_key) == MAP_FAILED && errno == EIO,
		      "mmap after removal: %m");
		munmap(page, c.drv.engine_page_size);
	}
	close_ctx(&c);
	EXPECT(write_param("add", netdev), 0);
	for (i = 0; i < 50 && find_device(); i++)
		usleep(100000);
	CHECK(i < 50, "%s did not come back", ibdev);
	free(buf);
}

/* ---------------- port events ---------------- */

/* An address added to the netdev becomes a GID: GID_CHANGE on port 1. */
static void test_gidevent(void)
{
	struct ib_uverbs_async_event_desc ev = {};
	char netdev[256] = "", path[512], sh[600];
	struct pollfd p;
	struct ctx c;
	DIR *d;
	struct dirent *e;
	int n, seen = 0;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/net",
		 ibdev);
	d = opendir(path);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			snprintf(netdev, sizeof(netdev), "%s", e->d_name);
	if (d)
		closedir(d);
	if (!netdev[0] || open_ctx(&c)) {
		CHECK(0, "setup");
		return;
	}
	snprintf(sh, sizeof(sh), "ip addr add 10.9.77.1/24 dev %s", netdev);
	CHECK(system(sh) == 0, "%s", sh);
	p.fd = c.async_fd;
	p.events = POLLIN;
	CHECK(poll(&p, 1, 3000) == 1, "no event within 3 s");
	fcntl(c.async_fd, F_SETFL, O_NONBLOCK);
	while ((n = read(c.async_fd, &ev, sizeof(ev))) == sizeof(ev))
		if (ev.event_type == 18 /* IBV_EVENT_GID_CHANGE */ &&
		    ev.element == 1)
			seen = 1;
	CHECK(seen, "no GID_CHANGE for port 1 (last type %u element %llu)",
	      ev.event_type, (unsigned long long)ev.element);
	CHECK(n == -1 && errno == EAGAIN, "after the events: %m");
	/* A short buffer cannot take an event. */
	snprintf(sh, sizeof(sh), "ip addr del 10.9.77.1/24 dev %s", netdev);
	CHECK(system(sh) == 0, "%s", sh);
	poll(&p, 1, 3000);
	CHECK(read(c.async_fd, &ev, 8) == -1 && errno == EINVAL,
	      "8-byte read: %m");
	close_ctx(&c);
}

/* ---------------- main ---------------- */

static const struct {
	const char *name;
	void (*fn)(void);
	int by_default;
} sections[] = {
	{ "sysfs", test_sysfs, 1 },
	{ "hdr", test_hdr, 1 },
	{ "objects", test_objects, 1 },
	{ "qp", test_qp, 1 },
	{ "mr", test_mr, 1 },
	{ "events", test_events, 1 },
	{ "counts", test_counts, 1 },
	{ "memlock", test_memlock, 1 },
	{ "vmpin", test_vmpin, 1 },
	{ "threads", test_threads, 1 },
	{ "gidevent", test_gidevent, 0 },
	{ "disassoc", test_disassoc, 0 },
};

int main(int argc, char **argv)
{
	const char *only[16];
	int nonly = 0, opt, i, j;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "d:s:")) != -1) {
		if (opt == 'd')
			ibdev = optarg;
		else if (opt == 's' && nonly < 16)
			only[nonly++] = optarg;
		else
			return 2;
	}
	if (find_device()) {
		printf("SKIP: no uverbs device for %s\n", ibdev);
		return 77;
	}
	for (i = 0; i < (int)(sizeof(sections) / sizeof(sections[0])); i++) {
		int run = !nonly && sections[i].by_default;
		int before = failures;

		for (j = 0; j < nonly; j++)
			run |= !strcmp(only[j], sections[i].name);
		if (!run)
			continue;
		printf("== %s\n", sections[i].name);
		sections[i].fn();
		printf("== %s: %s\n", sections[i].name,
		       failures == before ? "ok" : "FAILED");
	}
	printf("%d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
