// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memcpy_bw - the guest's memcpy bandwidth, the ceiling of any stack that
 * moves a message with one CPU copy (ours and rxe both copy every byte of
 * a loopback WRITE once).  A benchmark reference, not a test.
 *
 *   memcpy_bw [-s BLOCK] [-w WORKING_SET] [-t SECONDS]
 *
 * Copies BLOCK bytes at a time (default 64 KiB) from one buffer to
 * another, walking a WORKING_SET (default: BLOCK, i.e. cache-resident, as
 * perftest reuses one buffer) for about SECONDS (default 1); prints MB/s
 * (10^6 bytes per second, as perftest).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t block = 65536, set = 0, off = 0;
	double secs = 1, t0, t;
	unsigned long long bytes = 0;
	char *src, *dst;
	int opt, i;

	while ((opt = getopt(argc, argv, "s:w:t:")) != -1) {
		if (opt == 's')
			block = strtoull(optarg, NULL, 0);
		else if (opt == 'w')
			set = strtoull(optarg, NULL, 0);
		else if (opt == 't')
			secs = atof(optarg);
		else
			return 2;
	}
	if (set < block)
		set = block;
	set -= set % block;
	src = aligned_alloc(4096, set);
	dst = aligned_alloc(4096, set);
	if (!block || !src || !dst)
		return 2;
	/* Fault every page in first: the copy, not the page faults, is timed. */
	memset(src, 1, set);
	memset(dst, 2, set);
	t0 = now();
	do {
		/* Check the clock every 64 blocks, not every one. */
		for (i = 0; i < 64; i++) {
			memcpy(dst + off, src + off, block);
			off = (off + block) % set;
			/* Keeps the compiler from merging or eliding copies. */
			__asm__ volatile("" : : "r"(dst) : "memory");
		}
		bytes += 64 * block;
	} while ((t = now() - t0) < secs);
	printf("memcpy %zu B blocks over %zu B: %.1f MB/s\n", block, set,
	       bytes / t / 1e6);
	return 0;
}
