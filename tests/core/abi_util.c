// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* uverbs_abi_test: command, sysfs and context/object helpers. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>
#include "uverbs_abi.h"

char uverbs_path[300];
char uverbs_name[256];

/* ---------------- command helpers ---------------- */

int raw_write(int fd, const void *buf, size_t len)
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

int cmd(int fd, uint32_t command, void *req, size_t req_len,
	void *resp, size_t resp_len)
{
	return cmd_udata(fd, command, req, req_len, resp, resp_len, 0);
}

int ex_cmd(int fd, uint32_t command, void *req, size_t req_len,
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

int read_file(const char *path, char *buf, size_t len)
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

int read_attr(char *buf, size_t len, const char *fmt, ...)
{
	char path[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return read_file(path, buf, len);
}

int find_device(void)
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

int open_ctx(struct ctx *c)
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

void close_ctx(struct ctx *c)
{
	close(c->async_fd);
	close(c->fd);
}

int alloc_pd(struct ctx *c, uint32_t *pd)
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

int dealloc_pd(struct ctx *c, uint32_t pd)
{
	struct ib_uverbs_dealloc_pd req = { .pd_handle = pd };

	return cmd(c->fd, IB_USER_VERBS_CMD_DEALLOC_PD, &req, sizeof(req),
		   NULL, 0);
}

int create_cq_drv(struct ctx *c, uint32_t cqe, uint32_t vector, int chan,
		  uint32_t *cq, struct mlx_hw_create_cq_resp *drv)
{
	struct ib_uverbs_create_cq req = {
		.user_handle = 0xc0ffee, .cqe = cqe, .comp_vector = vector,
		.comp_channel = chan,
	};
	struct {
		struct ib_uverbs_create_cq_resp r;
		union {
			struct mlx_hw_create_cq_resp d;
			char udata[UDATA_OUT];
		};
	} resp = {};
	int ret = cmd(c->fd, IB_USER_VERBS_CMD_CREATE_CQ, &req, sizeof(req),
		      &resp, sizeof(resp));

	*cq = resp.r.cq_handle;
	if (drv)
		*drv = resp.d;
	return ret;
}

int create_cq(struct ctx *c, uint32_t cqe, uint32_t vector, int chan,
	      uint32_t *cq)
{
	return create_cq_drv(c, cqe, vector, chan, cq, NULL);
}

int destroy_cq(struct ctx *c, uint32_t cq,
	       struct ib_uverbs_destroy_cq_resp *out)
{
	struct ib_uverbs_destroy_cq req = { .cq_handle = cq };
	struct ib_uverbs_destroy_cq_resp resp;

	return cmd(c->fd, IB_USER_VERBS_CMD_DESTROY_CQ, &req, sizeof(req),
		   out ? out : &resp, sizeof(resp));
}

int reg_mr(struct ctx *c, uint32_t pd, void *addr, size_t len,
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

int dereg_mr(struct ctx *c, uint32_t mr)
{
	struct ib_uverbs_dereg_mr req = { .mr_handle = mr };

	return cmd(c->fd, IB_USER_VERBS_CMD_DEREG_MR, &req, sizeof(req),
		   NULL, 0);
}

int create_qp(struct ctx *c, uint8_t type, uint32_t pd, uint32_t cq,
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

int destroy_qp(struct ctx *c, uint32_t qp, uint32_t *events)
{
	struct ib_uverbs_destroy_qp req = { .qp_handle = qp };
	struct ib_uverbs_destroy_qp_resp resp = {};
	int ret = cmd(c->fd, IB_USER_VERBS_CMD_DESTROY_QP, &req, sizeof(req),
		      &resp, sizeof(resp));

	if (events)
		*events = resp.events_reported;
	return ret;
}

int modify_qp(struct ctx *c, struct ib_uverbs_modify_qp *m)
{
	return cmd(c->fd, IB_USER_VERBS_CMD_MODIFY_QP, m, sizeof(*m), NULL, 0);
}

int query_qp(struct ctx *c, uint32_t qp,
	     struct ib_uverbs_query_qp_resp *resp)
{
	struct ib_uverbs_query_qp req = { .qp_handle = qp };

	return cmd(c->fd, IB_USER_VERBS_CMD_QUERY_QP, &req, sizeof(req), resp,
		   sizeof(*resp));
}

/* ---------------- /proc helpers ---------------- */

long vm_pin_kb(void)
{
	char buf[4096], *p;

	if (read_file("/proc/self/status", buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "VmPin:");
	return p ? strtol(p + 6, NULL, 10) : -1;
}
