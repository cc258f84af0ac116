// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mem_per_qp - what an RC QP and its CQ cost the system, for scripts/bench.
 *
 *   mem_per_qp DEVICE [COUNT]
 *
 * Creates COUNT (default 2000) CQs of 256 CQEs, then one RC QP (128 send
 * + 128 receive WRs, 2 SGEs each, no inline data) on each, and reads the
 * system's memory before, between and after, caches dropped before each
 * reading.  Prints "metric value" lines in KiB per object:
 *   mem_per_rc_qp_KiB       free memory's drop per QP and its CQ, all
 *                           included
 *   mem_{cq,qp}_total_KiB   free memory's drop per CQ, per QP
 *   mem_{cq,qp}_rings_KiB   the object's mappings of the uverbs device
 *                           (rings and doorbell pages the library mmaps)
 *   mem_{cq,qp}_vmalloc_KiB VmallocUsed (the rings' kernel side, other
 *                           vmalloc'd state)
 *   mem_{cq,qp}_slab_KiB    Slab (the kernel's objects: driver and core)
 *   mem_{cq,qp}_user_KiB    the process's anonymous memory (RssAnon: the
 *                           library's and provider's own structures)
 *   mem_{cq,qp}_pt_KiB      page tables
 *
 * It replaces a pyverbs script, for two reasons:
 * - pyverbs' own objects (about 3.3 KiB per CQ and 3.6 KiB per QP, the
 *   same on both stacks) were counted as the stack's memory; an
 *   application in C pays only the library's and provider's structures.
 * - MemFree alone is noisy by +-5 KiB per object, because freed pages sit
 *   on the per-CPU page lists, which MemFree does not count: four
 *   identical runs of the script in one guest gave 14.1, 18.9, 21.4 and
 *   17.9 KiB per CQ (pyverbs' 3.3 included).  Free memory here is
 *   MemFree plus the pages on those lists (the "count:" of every pageset
 *   in /proc/zoneinfo), which gave 20.01, 19.97, 20.09 and 20.05 for the
 *   same runs.
 * Thousands of objects still, so that what is allocated once per process
 * or per slab page, and the page tables of a few mappings, average out.
 *
 * Links libibverbs.so.1 by its soname: ours through the RUNPATH, Debian's
 * (for rxe0) with LD_LIBRARY_PATH, as scripts/bench-guest runs it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

struct reading {
	long long free;		/* MemFree + per-CPU list pages, KiB */
	long long vmalloc, slab, pt, user, rings;
};

static void die(const char *what)
{
	fprintf(stderr, "mem_per_qp: %s: %s\n", what, strerror(errno));
	exit(1);
}

static FILE *open_proc(const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f)
		die(path);
	return f;
}

static void write_proc(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(val, f) < 0 || fclose(f))
		die(path);
}

/*
 * One line buffer for every reading: a reading must not grow the heap
 * that RssAnon measures.
 */
static char *line;
static size_t line_size;

/* The value of "NAME: value kB" lines of /proc/meminfo and status. */
static void field(const char *name, long long *val)
{
	size_t n = strlen(name);

	if (!strncmp(line, name, n) && line[n] == ':')
		*val = strtoll(line + n + 1, NULL, 10);
}

static void take(struct reading *r)
{
	long long pcp = 0, size;
	int uverbs = 0;
	char key[64];
	FILE *f;

	/*
	 * Page cache and reclaimable slab move with whatever else runs.
	 * stat_refresh folds each CPU's pending vmstat deltas (up to the
	 * zone's "vm stats threshold" pages a counter) into the totals that
	 * /proc/meminfo shows: without it our PageTables per CQ read 0.00 to
	 * 0.04 KiB in four boots that otherwise agreed, with it 0.03 in all.
	 */
	write_proc("/proc/sys/vm/drop_caches", "3\n");
	write_proc("/proc/sys/vm/stat_refresh", "1\n");
	memset(r, 0, sizeof(*r));

	/*
	 * The per-CPU lists right before MemFree: a page that moves between
	 * them in between is counted twice or not at all.
	 */
	f = open_proc("/proc/zoneinfo");
	while (getline(&line, &line_size, f) > 0)
		if (sscanf(line, " %63s %lld", key, &size) == 2 &&
		    !strcmp(key, "count:"))
			pcp += size;
	fclose(f);
	f = open_proc("/proc/meminfo");
	while (getline(&line, &line_size, f) > 0) {
		field("MemFree", &r->free);
		field("VmallocUsed", &r->vmalloc);
		field("Slab", &r->slab);
		field("PageTables", &r->pt);
	}
	fclose(f);
	r->free += pcp * (getpagesize() / 1024);

	f = open_proc("/proc/self/status");
	while (getline(&line, &line_size, f) > 0)
		field("RssAnon", &r->user);
	fclose(f);

	/*
	 * A mapping's header line ("start-end perms offset dev inode path")
	 * has no colon in its first word, its fields ("Size: 4 kB") do; the
	 * rings and doorbell pages are mappings of /dev/infiniband/uverbsN.
	 */
	f = open_proc("/proc/self/smaps");
	while (getline(&line, &line_size, f) > 0) {
		if (!memchr(line, ':', strcspn(line, " ")))
			uverbs = strstr(line, "uverbs") != NULL;
		else if (uverbs && sscanf(line, "Size: %lld", &size) == 1)
			r->rings += size;
	}
	fclose(f);
}

static void report(const char *kind, const struct reading *a,
		   const struct reading *b, int n)
{
	/* Free memory falls as memory is used; the others grow. */
	printf("mem_%s_total_KiB %.2f\n", kind, (double)(a->free - b->free) / n);
	printf("mem_%s_rings_KiB %.2f\n", kind, (double)(b->rings - a->rings) / n);
	printf("mem_%s_vmalloc_KiB %.2f\n", kind,
	       (double)(b->vmalloc - a->vmalloc) / n);
	printf("mem_%s_slab_KiB %.2f\n", kind, (double)(b->slab - a->slab) / n);
	printf("mem_%s_user_KiB %.2f\n", kind, (double)(b->user - a->user) / n);
	printf("mem_%s_pt_KiB %.2f\n", kind, (double)(b->pt - a->pt) / n);
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 128, .max_recv_wr = 128,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 0 },
	};
	struct ibv_context *ctx = NULL;
	struct reading r0, r1, r2;
	struct ibv_device **list;
	struct ibv_qp **qps;
	struct ibv_cq **cqs;
	int count = 2000, i, n;
	struct ibv_pd *pd;
	char what[64];

	if (argc < 2 || argc > 3 || (argc == 3 && (count = atoi(argv[2])) <= 0)) {
		fprintf(stderr, "usage: mem_per_qp DEVICE [COUNT]\n");
		return 2;
	}
	list = ibv_get_device_list(&n);
	if (!list)
		die("ibv_get_device_list");
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1])) {
			ctx = ibv_open_device(list[i]);
			if (!ctx)
				die(argv[1]);
		}
	ibv_free_device_list(list);
	if (!ctx) {
		fprintf(stderr, "mem_per_qp: no device %s\n", argv[1]);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd");
	/* Before the first reading, so that they are not counted. */
	cqs = calloc(count, sizeof(*cqs));
	qps = calloc(count, sizeof(*qps));
	if (!cqs || !qps)
		die("calloc");

	take(&r0);
	for (i = 0; i < count; i++) {
		cqs[i] = ibv_create_cq(ctx, 256, NULL, NULL, 0);
		if (!cqs[i]) {
			snprintf(what, sizeof(what), "CQ %d of %d", i + 1, count);
			die(what);
		}
	}
	take(&r1);
	for (i = 0; i < count; i++) {
		ia.send_cq = cqs[i];
		ia.recv_cq = cqs[i];
		qps[i] = ibv_create_qp(pd, &ia);
		if (!qps[i]) {
			snprintf(what, sizeof(what), "QP %d of %d", i + 1, count);
			die(what);
		}
	}
	take(&r2);

	printf("mem_per_rc_qp_KiB %.2f\n", (double)(r0.free - r2.free) / count);
	report("cq", &r0, &r1, count);
	report("qp", &r1, &r2, count);
	fflush(stdout);

	/* A teardown that fails is the stack's bug: the run fails with it. */
	for (i = 0; i < count; i++) {
		errno = ibv_destroy_qp(qps[i]);
		if (errno)
			die("ibv_destroy_qp");
	}
	for (i = 0; i < count; i++) {
		errno = ibv_destroy_cq(cqs[i]);
		if (errno)
			die("ibv_destroy_cq");
	}
	errno = ibv_dealloc_pd(pd);
	if (errno)
		die("ibv_dealloc_pd");
	errno = ibv_close_device(ctx);
	if (errno)
		die("ibv_close_device");
	free(qps);
	free(cqs);
	free(line);
	return 0;
}
