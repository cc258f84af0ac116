/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared by the files of uverbs_fuzz (see uverbs_fuzz.c): the handle pools
 * a worker draws from, the random field generator, and the two kinds of
 * work: random command sequences (fuzz_cmds.c) and data-path races
 * (fuzz_race.c).
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>
#include "../core/uverbs_abi.h"

/* Object kinds the pools keep handles of (not the kernel's numbering). */
enum fz_kind {
	FZ_NONE,	/* a table's "no handle here" */
	FZ_PD, FZ_CQ, FZ_MR, FZ_MW, FZ_QP, FZ_SRQ, FZ_AH, FZ_XRCD,
	FZ_CMID, FZ_CMMC,	/* rdma_cm ids and multicast memberships */
	FZ_NKINDS
};

#define FZ_POOL 32

/* Handles of one context: live ones, and ones destroyed since (stale). */
struct fz_pools {
	pthread_mutex_t lock;
	uint32_t live[FZ_NKINDS][FZ_POOL];
	unsigned int nlive[FZ_NKINDS];
	uint32_t stale[FZ_NKINDS][FZ_POOL];
	unsigned int nstale[FZ_NKINDS];
};

/* One worker process: two contexts, so that handles can be foreign. */
struct fz_worker {
	struct ctx a, b;		/* a is fuzzed; b lends foreign handles */
	struct fz_pools pools;		/* of a */
	uint32_t b_handles[FZ_NKINDS];	/* one object of each kind in b */
	uint64_t b_mmap_key;		/* a region key of b's context */
	uint8_t *buf;			/* memory to register */
	size_t buf_len;
	/* The last ODP MR of a that a reg_mr returned (a hint: it may be
	 * gone; threads share it), for advise_mr to name: lkey 0 if none. */
	volatile uint32_t odp_lkey;
	volatile uint64_t odp_start, odp_len;
	volatile uint64_t *done;	/* commands sent, shared with the parent */
	volatile uint64_t *sent, *ok;	/* per command kind, shared too */
	volatile int *stop;		/* the parent's order to stop */
	bool cm;			/* also fuzz /dev/infiniband/rdma_cm */
	int cm_a, cm_b;			/* rdma_cm files: fuzzed, foreign ids */
	int cm_wait;			/* the waiter thread's blocking file */
};

/* xorshift64*, one per thread. */
static inline uint64_t fz_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* A field value: field boundaries, small numbers or anything. */
uint32_t fz_u32(uint64_t *s);
/* A handle for kind @k: mostly live, else stale, foreign, wrong or random. */
uint32_t fz_handle(struct fz_worker *w, uint64_t *s, enum fz_kind k);
void fz_pool_add(struct fz_pools *p, enum fz_kind k, uint32_t h,
		 uint64_t *s);
/* A live handle @h of kind @k was destroyed: it becomes stale. */
void fz_pool_gone(struct fz_pools *p, enum fz_kind k, uint32_t h);

/*
 * fuzz_cmds.c: one random command on w->a; returns what write() said and
 * which kind of command it was (an index below fz_nkinds()).
 */
int fz_one_command(struct fz_worker *w, uint64_t *s, unsigned int *which);
unsigned int fz_nkinds(void);
const char *fz_kind_name(unsigned int which);
/* Creates one object of each kind in w->b (foreign handles). */
int fz_setup_foreign(struct fz_worker *w);

/*
 * fuzz_ucma.c: the rdma_cm commands.  fz_ucma_one sends one on w->cm_a
 * (which: below fz_ucma_nkinds()); fz_ucma_setup opens the two files and
 * puts an id and a membership in cm_b; fz_ucma_waiter is a thread that
 * sleeps in GET_EVENT on cm_wait until SIGUSR1 (fz_ucma_signals).
 */
extern struct in_addr fz_cm_ip;
int fz_ucma_one(struct fz_worker *w, uint64_t *s, unsigned int *which);
unsigned int fz_ucma_nkinds(void);
const char *fz_ucma_kind_name(unsigned int which);
int fz_ucma_open(bool blocking);
int fz_ucma_setup(struct fz_worker *w);
void *fz_ucma_waiter(void *arg);
void fz_ucma_signals(void);

/* fuzz_race.c: @rounds of the data-path races; 0 or -1 (a check failed). */
int fz_races(const char *dev, int gid_index, unsigned int rounds,
	     uint64_t seed);

#endif /* FUZZ_H */
