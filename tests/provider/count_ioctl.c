// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * count_ioctl.so - LD_PRELOAD shim counting a process's ioctl() calls
 * (strace itself slows the poster so much that the engine falls asleep
 * between posts, which is exactly what it should measure without).
 * Prints "ioctl calls: N" to stderr at exit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/ioctl.h>

static unsigned long calls;

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
	__atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
	return real(fd, request, arg);
}

static __attribute__((destructor)) void report(void)
{
	fprintf(stderr, "ioctl calls: %lu\n", calls);
}
