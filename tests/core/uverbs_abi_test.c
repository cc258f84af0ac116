// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * uverbs_abi_test - drives the uverbs write() ABI of ibx_uverbs directly
 * (kernel UAPI headers only, no libibverbs) with good and bad input and
 * checks the exact errno of every failure.
 *
 *   uverbs_abi_test [-d IBDEV] [-s SECTION]...   (default IBDEV mlx_hw0)
 *
 * Exit 0 when every check passed, 1 otherwise, 77 when the device is
 * missing.  Sections: sysfs hdr objects qp xrc handles mr events counts
 * memlock vmpin threads, and only when named: gidevent (adds an address to
 * the netdev) and disassoc (removes and re-adds the device through
 * /sys/module/mlx_hw/parameters).
 *
 * This file: main and the sections sysfs and objects.  abi_hdr.c: hdr;
 * abi_qp.c: qp; abi_xrc.c: xrc; abi_handles.c: handles; abi_mr.c: mr,
 * memlock, vmpin; abi_events.c: events, counts, threads, disassoc,
 * gidevent; abi_util.c: the helpers declared in uverbs_abi.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include "uverbs_abi.h"

const char *ibdev = "mlx_hw0";

/* ---------------- sections ---------------- */

static void test_sysfs(void)
{
	char buf[256], path[256];
	struct stat st;
	unsigned int maj, min;

	EXPECT(read_file("/sys/class/infiniband_verbs/abi_version", buf,
			 sizeof(buf)) > 0 ? 0 : -1, 0);
	VERIFY(!strcmp(buf, "6\n"), "class abi_version is '%s'", buf);
	read_attr(buf, sizeof(buf), "/sys/class/infiniband_verbs/%s/dev",
		  uverbs_name);
	VERIFY(sscanf(buf, "%u:%u", &maj, &min) == 2, "dev is '%s'", buf);
	VERIFY(stat(uverbs_path, &st) == 0, "stat %s: %m", uverbs_path);
	VERIFY(S_ISCHR(st.st_mode) && major(st.st_rdev) == maj &&
	      minor(st.st_rdev) == min, "%s does not match dev %u:%u",
	      uverbs_path, maj, min);
	VERIFY((st.st_mode & 0777) == 0666, "%s mode %o", uverbs_path,
	      st.st_mode & 0777);
	VERIFY(read_attr(buf, sizeof(buf),
			"/sys/class/infiniband_verbs/%s/abi_version",
			uverbs_name) > 0, "no uverbs abi_version");

	read_attr(buf, sizeof(buf), "/sys/class/infiniband/%s/node_type",
		  ibdev);
	VERIFY(!strcmp(buf, "1: CA\n"), "node_type '%s'", buf);
	read_attr(buf, sizeof(buf), "/sys/class/infiniband/%s/node_guid",
		  ibdev);
	VERIFY(strlen(buf) == 20 && buf[4] == ':' && buf[9] == ':' &&
	      buf[14] == ':', "node_guid '%s'", buf);
	read_attr(buf, sizeof(buf), "/sys/class/infiniband/%s/ports/1/state",
		  ibdev);
	VERIFY(!strcmp(buf, "4: ACTIVE\n"), "state '%s'", buf);
	read_attr(buf, sizeof(buf),
		  "/sys/class/infiniband/%s/ports/1/phys_state", ibdev);
	VERIFY(!strcmp(buf, "5: LinkUp\n"), "phys_state '%s'", buf);
	read_attr(buf, sizeof(buf),
		  "/sys/class/infiniband/%s/ports/1/link_layer", ibdev);
	VERIFY(!strcmp(buf, "Ethernet\n"), "link_layer '%s'", buf);
	read_attr(buf, sizeof(buf), "/sys/class/infiniband/%s/ports/1/rate",
		  ibdev);
	VERIFY(strstr(buf, " Gb/sec (") != NULL, "rate '%s'", buf);
	read_attr(buf, sizeof(buf),
		  "/sys/class/infiniband/%s/ports/1/pkeys/0", ibdev);
	VERIFY(!strcmp(buf, "0xffff\n"), "pkeys/0 '%s'", buf);
	read_attr(buf, sizeof(buf),
		  "/sys/class/infiniband/%s/ports/1/gids/0", ibdev);
	VERIFY(strlen(buf) == 40 && buf[4] == ':', "gids/0 '%s'", buf);
	VERIFY(read_attr(buf, sizeof(buf),
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

		VERIFY(d != NULL, "no %s", path);
		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.')
				n++;
		if (d)
			closedir(d);
		VERIFY(n == 1, "%s has %d entries", path, n);
	}
}

static void test_objects(void)
{
	struct ctx c, c2;
	uint32_t pd, pd2, cq, cq2, qp, mr;
	int chan;
	void *buf = aligned_alloc(4096, 8192);

	if (open_ctx(&c)) {
		VERIFY(0, "no context");
		return;
	}
	EXPECT(alloc_pd(&c, &pd), 0);
	EXPECT(alloc_pd(&c, &pd2), 0);
	VERIFY(pd != pd2, "two PDs share handle %u", pd);
	EXPECT(dealloc_pd(&c, 12345), -ENOENT);

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

		VERIFY(poll(&p, 1, 0) == 0, "idle channel polls ready");
		fcntl(chan, F_SETFL, O_NONBLOCK);
		VERIFY(read(chan, &ev, sizeof(ev)) == -1 && errno == EAGAIN,
		      "empty channel read: %m");
	}
	/* A channel of another context is refused. */
	EXPECT(open_ctx(&c2), 0);
	{
		uint32_t h;

		EXPECT(create_cq(&c2, 16, 0, chan, &h), -EINVAL);
	}

	/*
	 * Wrong types and foreign handles: destroying a handle that names
	 * nothing is -ENOENT, one of another type -EINVAL (as upstream).
	 */
	EXPECT(dealloc_pd(&c, cq), -EINVAL);
	EXPECT(destroy_cq(&c, pd, NULL), -EINVAL);
	EXPECT(dealloc_pd(&c2, pd2 + 100), -ENOENT);
	{
		uint32_t h;

		/* Handles are per file: c's CQ does not exist in c2. */
		EXPECT(alloc_pd(&c2, &h), 0);
		if (cq2 != h)
			EXPECT(destroy_cq(&c2, cq2, NULL), -ENOENT);
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
		VERIFY(ev == 0, "QP events reported %u", ev);
	}
	EXPECT(destroy_qp(&c, qp, NULL), -ENOENT);	/* stale */
	{
		struct ib_uverbs_destroy_cq_resp r = { 9, 9 };

		EXPECT(destroy_cq(&c, cq, &r), 0);
		VERIFY(r.comp_events_reported == 0 &&
		      r.async_events_reported == 0, "CQ events %u/%u",
		      r.comp_events_reported, r.async_events_reported);
	}
	EXPECT(dealloc_pd(&c, pd), 0);
	EXPECT(dealloc_pd(&c, pd), -ENOENT);

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
		VERIFY(resp.r.max_wr >= 16, "srq max_wr %u", resp.r.max_wr);
		q.srq_handle = srq;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_QUERY_SRQ, &q, sizeof(q),
			   &qr, sizeof(qr)), 0);
		VERIFY(qr.max_wr >= 16, "query srq max_wr %u", qr.max_wr);
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

	/* CREATE_XSRQ of a basic SRQ; an XRC SRQ needs a domain (section xrc). */
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
		VERIFY(resp.response_length == sizeof(resp) &&
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
	/*
	 * Multicast (IBA 10.5.2.4): UD QPs only, multicast GIDs only (IB
	 * ff00::/8 and RoCE IPv4-mapped 224/4); attaching twice is a no-op,
	 * detaching what is not attached EINVAL, and an attached QP cannot
	 * be destroyed (EBUSY), as ib_uverbs.
	 */
	{
		struct ib_uverbs_attach_mcast a = {};
		struct ib_uverbs_detach_mcast d = {};
		uint32_t rc, ud;

		EXPECT(create_qp(&c, IB_UVERBS_QPT_RC, pd2, cq2, -1, &rc, NULL),
		       0);
		EXPECT(create_qp(&c, IB_UVERBS_QPT_UD, pd2, cq2, -1, &ud, NULL),
		       0);
		a.gid[0] = 0xff;
		a.gid[1] = 0x0e;
		a.gid[15] = 1;
		a.qp_handle = rc;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_ATTACH_MCAST, &a, sizeof(a),
			   NULL, 0), -EINVAL);
		a.qp_handle = ud;
		a.gid[0] = 0xfe;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_ATTACH_MCAST, &a, sizeof(a),
			   NULL, 0), -EINVAL);
		a.gid[0] = 0xff;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_ATTACH_MCAST, &a, sizeof(a),
			   NULL, 0), 0);
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_ATTACH_MCAST, &a, sizeof(a),
			   NULL, 0), 0);
		/* ::ffff:239.1.2.3, an IPv4 group as RoCE maps it. */
		memset(a.gid, 0, sizeof(a.gid));
		a.gid[10] = a.gid[11] = 0xff;
		a.gid[12] = 239;
		a.gid[13] = 1;
		a.gid[14] = 2;
		a.gid[15] = 3;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_ATTACH_MCAST, &a, sizeof(a),
			   NULL, 0), 0);
		EXPECT(destroy_qp(&c, ud, NULL), -EBUSY);
		d.qp_handle = ud;
		memcpy(d.gid, a.gid, sizeof(d.gid));
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_DETACH_MCAST, &d, sizeof(d),
			   NULL, 0), 0);
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_DETACH_MCAST, &d, sizeof(d),
			   NULL, 0), -EINVAL);
		memset(d.gid, 0, sizeof(d.gid));
		d.gid[0] = 0xff;
		d.gid[1] = 0x0e;
		d.gid[15] = 1;
		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_DETACH_MCAST, &d, sizeof(d),
			   NULL, 0), 0);
		EXPECT(destroy_qp(&c, rc, NULL), 0);
		EXPECT(destroy_qp(&c, ud, NULL), 0);
	}
	/* Closing with objects left destroys them (checked by the log). */
	close(chan);
	close_ctx(&c2);
	close_ctx(&c);
	free(buf);
}

/* ---------------- main ---------------- */

static const struct {
	const char *name;
	void (*fn)(void);
	bool by_default;
} sections[] = {
	{ "sysfs", test_sysfs, 1 },
	{ "hdr", test_hdr, 1 },
	{ "objects", test_objects, 1 },
	{ "qp", test_qp, 1 },
	{ "xrc", test_xrc, 1 },
	{ "handles", test_handles, 1 },
	{ "mr", test_mr, 1 },
	{ "events", test_events, 1 },
	{ "counts", test_counts, 1 },
	{ "memlock", test_memlock, 1 },
	{ "vmpin", test_vmpin, 1 },
	{ "threads", test_threads, 1 },
	{ "gidevent", test_gidevent, 0 },
	{ "disassoc", test_disassoc, 0 },
};

#define NSECTIONS ((int)(sizeof(sections) / sizeof(sections[0])))

int main(int argc, char **argv)
{
	unsigned int passed = 0, failed = 0;
	char *only[16];
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
		printf("FAIL: no uverbs device for %s\n", ibdev);
		return 1;
	}
	for (j = 0; j < nonly; j++) {
		for (i = 0; i < NSECTIONS && strcmp(sections[i].name, only[j]); i++)
			;
		if (i == NSECTIONS) {
			printf("FAIL unknown section '%s'\n", only[j]);
			return 1;
		}
	}
	for (i = 0; i < NSECTIONS; i++) {
		struct check_mark m = check_begin();

		if (!check_wanted(sections[i].name, only, nonly,
				  sections[i].by_default))
			continue;
		printf("== %s\n", sections[i].name);
		sections[i].fn();
		if (check_end(sections[i].name, m, 0))
			passed++;
		else
			failed++;
	}
	return check_summary(passed, failed);
}