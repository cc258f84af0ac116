// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * uverbs_abi_test: MR registration and pinning (mr), RLIMIT_MEMLOCK
 * (memlock), VmPin after kill -9 (vmpin).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include "uverbs_abi.h"

/* ---------------- MRs ---------------- */

void test_mr(void)
{
	struct ctx c;
	uint32_t pd, mr;
	char *buf = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *ro = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);

	if (open_ctx(&c) || alloc_pd(&c, &pd)) {
		VERIFY(0, "setup");
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
	/* ... is no error with on-demand paging: nothing is pinned now. */
	EXPECT(reg_mr(&c, pd, (void *)0x10000, 4096,
		      IB_UVERBS_ACCESS_LOCAL_WRITE | IB_UVERBS_ACCESS_ON_DEMAND,
		      &mr), 0);
	EXPECT(dereg_mr(&c, mr), 0);
	/* The implicit ODP MR: the whole address space, at iova 0 only. */
	EXPECT(reg_mr(&c, pd, NULL, UINT64_MAX,
		      IB_UVERBS_ACCESS_LOCAL_WRITE | IB_UVERBS_ACCESS_ON_DEMAND,
		      &mr), 0);
	EXPECT(dereg_mr(&c, mr), 0);
	{
		struct ib_uverbs_reg_mr req = {
			.start = 0, .length = UINT64_MAX, .hca_va = 0x1000,
			.pd_handle = pd,
			.access_flags = IB_UVERBS_ACCESS_ON_DEMAND,
		};
		struct {
			struct ib_uverbs_reg_mr_resp r;
			char udata[UDATA_OUT];
		} resp;

		EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REG_MR, &req, sizeof(req),
			   &resp, sizeof(resp)), -EINVAL);
	}
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
		VERIFY(resp.r.lkey != 0 || resp.r.rkey != 0, "keys 0/0");
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
		VERIFY(vm_pin_kb() == pin0 + 8, "VmPin %ld after rereg, want %ld",
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
		VERIFY(vm_pin_kb() == pin0, "VmPin %ld after dereg, want %ld",
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
			VERIFY(resp.r.lkey == rresp.r.lkey &&
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
		VERIFY(resp.r.lkey == rresp.r.lkey, "PD rereg changed the lkey");
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
		/*
		 * On-demand paging (docs/prm.md 10.4): the same range again,
		 * pinned no more; and back.  Keys stay.
		 */
		{
			long pinned = vm_pin_kb();

			req.access_flags = IB_UVERBS_ACCESS_ON_DEMAND;
			EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REREG_MR, &req,
				   sizeof(req), &resp, sizeof(resp)), 0);
			VERIFY(resp.r.lkey == rresp.r.lkey,
			       "ODP rereg changed the lkey");
			VERIFY(vm_pin_kb() < pinned, "VmPin %ld, was %ld",
			       vm_pin_kb(), pinned);
			req.access_flags = IB_UVERBS_ACCESS_LOCAL_WRITE;
			EXPECT(cmd(c.fd, IB_USER_VERBS_CMD_REREG_MR, &req,
				   sizeof(req), &resp, sizeof(resp)), 0);
			VERIFY(vm_pin_kb() == pinned, "VmPin %ld, want %ld",
			       vm_pin_kb(), pinned);
		}
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
			   &resp, sizeof(resp)), -ENOENT);
	}
	/* Unaligned, page-crossing, all access rights. */
	EXPECT(reg_mr(&c, pd, buf + 100, 3 * 4096,
		      IB_UVERBS_ACCESS_LOCAL_WRITE |
		      IB_UVERBS_ACCESS_REMOTE_WRITE |
		      IB_UVERBS_ACCESS_REMOTE_READ |
		      IB_UVERBS_ACCESS_REMOTE_ATOMIC, &mr), 0);
	EXPECT(dereg_mr(&c, mr), 0);
	EXPECT(dereg_mr(&c, mr), -ENOENT);
	close_ctx(&c);
	munmap(buf, 1 << 20);
	munmap(ro, 8192);
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


void test_memlock(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct rlimit rl = { 64 << 10, 64 << 10 };
		char *buf = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct ctx c;
		uint32_t pd, mr, mr2;

		check_failures = 0;	/* count only the child's own checks */
		if (drop_ipc_lock() || setrlimit(RLIMIT_MEMLOCK, &rl)) {
			printf("FAIL memlock: cannot drop CAP_IPC_LOCK: %m\n");
			_exit(1);
		}
		EXPECT(open_ctx(&c), 0);
		EXPECT(alloc_pd(&c, &pd), 0);
		EXPECT(reg_mr(&c, pd, buf, 1 << 20,
			      IB_UVERBS_ACCESS_LOCAL_WRITE, &mr), -ENOMEM);
		VERIFY(vm_pin_kb() == 0, "VmPin %ld kB after refusal",
		      vm_pin_kb());
		EXPECT(reg_mr(&c, pd, buf, 48 << 10,
			      IB_UVERBS_ACCESS_LOCAL_WRITE, &mr), 0);
		VERIFY(vm_pin_kb() == 48, "VmPin %ld kB, want 48", vm_pin_kb());
		/* 48 + 32 kB > 64 kB */
		EXPECT(reg_mr(&c, pd, buf + (512 << 10), 32 << 10,
			      IB_UVERBS_ACCESS_LOCAL_WRITE, &mr2), -ENOMEM);
		EXPECT(dereg_mr(&c, mr), 0);
		VERIFY(vm_pin_kb() == 0, "VmPin %ld kB after dereg",
		      vm_pin_kb());
		EXPECT(reg_mr(&c, pd, buf + (512 << 10), 32 << 10,
			      IB_UVERBS_ACCESS_LOCAL_WRITE, &mr2), 0);
		close_ctx(&c);
		VERIFY(vm_pin_kb() == 0, "VmPin %ld kB after close",
		      vm_pin_kb());
		_exit(check_failures ? 1 : 0);
	}
	waitpid(pid, &status, 0);
	VERIFY(WIFEXITED(status) && !WEXITSTATUS(status),
	       "memlock child (status 0x%x)", status);
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

void test_vmpin(void)
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
	VERIFY(pid > 0, "clone: %m");
	if (pid <= 0)
		return;
	VERIFY(read(vmpin_pipe[0], &ok, 1) == 1 && ok, "child setup failed");
	during = vm_pin_kb();
	VERIFY(during == before + 320, "VmPin %ld kB with child MRs, want %ld",
	      during, before + 320);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	for (i = 0; i < 50; i++) {
		after = vm_pin_kb();
		if (after == before)
			break;
		usleep(100000);
	}
	VERIFY(after == before, "VmPin %ld kB after kill -9, want %ld", after,
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
			VERIFY(0, "setup");
		} else {
			pid = fork();
			if (pid == 0) {
				for (;;)
					pause();
			}
			close_ctx(&c);
			VERIFY(vm_pin_kb() == before + 128,
			      "VmPin %ld kB while the fork holds the fd, want %ld",
			      vm_pin_kb(), before + 128);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			for (i = 0; i < 50 && vm_pin_kb() != before; i++)
				usleep(100000);
			VERIFY(vm_pin_kb() == before,
			      "VmPin %ld kB after the fork died, want %ld",
			      vm_pin_kb(), before);
		}
	}
	close(vmpin_pipe[0]);
	close(vmpin_pipe[1]);
	munmap(vmpin_buf, 256 << 10);
	munmap(stack, stack_size);
}
