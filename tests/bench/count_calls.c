// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * count_calls.so - LD_PRELOAD shim for scripts/bench counting the calls a
 * verbs data path may make into the kernel: ioctl() (our provider's WAKE)
 * and write() (rdma-core's rxe provider rings its doorbell with a uverbs
 * write command).  strace stops the process at every call and so slows a
 * poster enough to let our engine fall asleep between posts; this shim
 * counts without changing the timing.  At exit it writes "calls: ioctl N
 * write N" to the file named by COUNT_CALLS_FILE (stderr may be closed by
 * then: perftest and coreutils close it in an atexit handler).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

static unsigned long ioctls, writes;

int ioctl(int fd, unsigned long request, ...)
{
	static int (*real)(int, unsigned long, ...);
	va_list ap;
	void *arg;

	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	__atomic_fetch_add(&ioctls, 1, __ATOMIC_RELAXED);
	return real(fd, request, arg);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT,
								      "write");
	__atomic_fetch_add(&writes, 1, __ATOMIC_RELAXED);
	return real(fd, buf, n);
}

static __attribute__((destructor)) void report(void)
{
	const char *path = getenv("COUNT_CALLS_FILE");
	int fd;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	/* dprintf writes through libc's internal call, not counted. */
	dprintf(fd, "calls: ioctl %lu write %lu\n", ioctls, writes);
	close(fd);
}
