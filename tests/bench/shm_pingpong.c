// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * shm_pingpong - the floor of a round trip between two processes of one
 * guest: a message of SIZE bytes goes back and forth through shared
 * memory, the way an RDMA ping-pong's two processes exchange one.  A
 * benchmark reference, not a test.
 *
 *   shm_pingpong [-s SIZE] [-n ITERS] [-f]
 *
 * By default both sides spin on a shared sequence word (the floor with a
 * CPU each, as busy-polling verbs programs run); -f sleeps on a futex
 * instead (the floor for a round trip that needs a wake-up, as a
 * sleeping engine thread does).  Prints microseconds per round trip.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct shm {
	_Alignas(64) atomic_uint seq;	/* odd: the ping is there; even: the pong */
	_Alignas(64) char msg[65536];
};

static int use_futex;

static void wait_for(atomic_uint *w, unsigned int want)
{
	unsigned int v;

	while ((v = atomic_load_explicit(w, memory_order_acquire)) != want)
		if (use_futex)
			syscall(SYS_futex, w, FUTEX_WAIT, v, NULL, NULL, 0);
}

static void post(atomic_uint *w, unsigned int v)
{
	atomic_store_explicit(w, v, memory_order_release);
	if (use_futex)
		syscall(SYS_futex, w, FUTEX_WAKE, 1, NULL, NULL, 0);
}

int main(int argc, char **argv)
{
	unsigned int size = 64, iters = 100000, i;
	char local[65536];
	struct timespec a, b;
	struct shm *s;
	int opt, status;
	pid_t pid;

	while ((opt = getopt(argc, argv, "s:n:f")) != -1) {
		if (opt == 's')
			size = atoi(optarg);
		else if (opt == 'n')
			iters = atoi(optarg);
		else if (opt == 'f')
			use_futex = 1;
		else
			return 2;
	}
	if (size > sizeof(local) || !iters)
		return 2;
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		return 1;
	memset(local, 7, size);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		for (i = 0; i < iters; i++) {
			wait_for(&s->seq, 2 * i + 1);
			memcpy(local, s->msg, size);
			memcpy(s->msg, local, size);
			post(&s->seq, 2 * i + 2);
		}
		_exit(0);
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < iters; i++) {
		memcpy(s->msg, local, size);
		post(&s->seq, 2 * i + 1);
		wait_for(&s->seq, 2 * i + 2);
		memcpy(local, s->msg, size);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 1;
	printf("%u B shared-memory round trips (%s): %.3f usec/iter\n", size,
	       use_futex ? "futex" : "spin",
	       ((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3) /
		       iters);
	return 0;
}
