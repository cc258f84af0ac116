// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fork.c - fork() safety: with ibv_fork_init() every registered range is
 * madvise(MADV_DONTFORK)ed, so that a child never gets (and the parent's
 * copy-on-write never moves) pages the device is using.  Ranges of
 * several MRs may overlap; page intervals carry a use count and only the
 * last user gives the pages back to fork().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>

#include "ibverbs.h"

/* A maximal run of pages registered by the same number of MRs. */
struct fork_range {
	uintptr_t start, end;	/* page aligned, end exclusive */
	unsigned int refcount;
	struct fork_range *next; /* sorted by start */
};

static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fork_range *ranges;
static bool fork_enabled;
static size_t page_size;

__ibx_export
int ibv_fork_init(void)
{
	void *probe;
	int ret = 0;

	pthread_mutex_lock(&fork_lock);
	if (fork_enabled)
		goto out;

	page_size = sysconf(_SC_PAGESIZE);
	/* Kernels without MADV_DONTFORK cannot give the guarantee. */
	if (posix_memalign(&probe, page_size, page_size)) {
		ret = ENOMEM;
		goto out;
	}
	if (madvise(probe, page_size, MADV_DONTFORK) ||
	    madvise(probe, page_size, MADV_DOFORK))
		ret = ENOSYS;
	free(probe);
	if (!ret)
		fork_enabled = true;
out:
	pthread_mutex_unlock(&fork_lock);
	return ret;
}

__ibx_export
enum ibv_fork_status ibv_is_fork_initialized(void)
{
	return fork_enabled ? IBV_FORK_ENABLED : IBV_FORK_DISABLED;
}

/* Splits the range containing @at so that a range starts at @at. */
static int split_at(uintptr_t at)
{
	struct fork_range *r, *tail;

	for (r = ranges; r; r = r->next) {
		if (at <= r->start || at >= r->end)
			continue;
		tail = malloc(sizeof(*tail));
		if (!tail)
			return ENOMEM;
		*tail = *r;
		tail->start = at;
		r->end = at;
		r->next = tail;
		return 0;
	}
	return 0;
}

static int advise(uintptr_t start, uintptr_t end, int advice)
{
	return madvise((void *)start, end - start, advice) ? errno : 0;
}

/* Inserts zero-count ranges for the holes of [start, end). */
static int fill_holes(uintptr_t start, uintptr_t end)
{
	struct fork_range **link = &ranges, *r;
	uintptr_t pos = start;

	while (pos < end) {
		while (*link && (*link)->end <= pos)
			link = &(*link)->next;
		if (*link && (*link)->start <= pos) {
			pos = (*link)->end;
			link = &(*link)->next;
			continue;
		}
		r = malloc(sizeof(*r));
		if (!r)
			return ENOMEM;
		r->start = pos;
		r->end = *link && (*link)->start < end ? (*link)->start : end;
		r->refcount = 0;
		r->next = *link;
		*link = r;
		pos = r->end;
		link = &r->next;
	}
	return 0;
}

static void page_bounds(void *base, size_t size, uintptr_t *start,
			uintptr_t *end)
{
	*start = (uintptr_t)base & ~(page_size - 1);
	*end = ((uintptr_t)base + size + page_size - 1) & ~(page_size - 1);
}

int ibx_dontfork_range(void *base, size_t size)
{
	struct fork_range *r;
	uintptr_t start, end;
	int ret;

	if (!fork_enabled || !size)
		return 0;
	pthread_mutex_lock(&fork_lock);
	page_bounds(base, size, &start, &end);
	ret = split_at(start);
	if (!ret)
		ret = split_at(end);
	if (!ret)
		ret = fill_holes(start, end);
	for (r = ranges; !ret && r && r->start < end; r = r->next) {
		if (r->end <= start)
			continue;
		if (!r->refcount)
			ret = advise(r->start, r->end, MADV_DONTFORK);
		if (!ret)
			r->refcount++;
	}
	pthread_mutex_unlock(&fork_lock);
	if (ret)
		errno = ret;
	return ret ? -1 : 0;
}

int ibx_dofork_range(void *base, size_t size)
{
	struct fork_range **link, *r;
	uintptr_t start, end;
	int ret = 0;

	if (!fork_enabled || !size)
		return 0;
	pthread_mutex_lock(&fork_lock);
	page_bounds(base, size, &start, &end);
	link = &ranges;
	while ((r = *link)) {
		if (r->end > start && r->start < end && r->refcount) {
			if (--r->refcount == 0) {
				int err = advise(r->start, r->end,
						 MADV_DOFORK);

				if (err)
					ret = err;
			}
		}
		if (!r->refcount) {
			*link = r->next;
			free(r);
			continue;
		}
		link = &r->next;
	}
	pthread_mutex_unlock(&fork_lock);
	if (ret)
		errno = ret;
	return ret ? -1 : 0;
}

/* Exported helpers of IBVERBS_1.1. */
__ibx_export
int ibv_dontfork_range(void *base, size_t size)
{
	return ibx_dontfork_range(base, size) ? errno : 0;
}

__ibx_export
int ibv_dofork_range(void *base, size_t size)
{
	return ibx_dofork_range(base, size) ? errno : 0;
}
