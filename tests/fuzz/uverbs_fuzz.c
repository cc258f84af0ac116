// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * uverbs_fuzz - a structure-aware fuzzer of the uverbs write() ABI and the
 * data path around it, for an unprivileged user:
 *
 *   uverbs_fuzz [-d DEV] [-n COMMANDS] [-p PROCS] [-t THREADS] [-s SEED]
 *               [-k] [-r ROUNDS] [-i LOCAL_IPV4]
 *
 * PROCS worker processes send COMMANDS random commands in all (fuzz_cmds.c)
 * from THREADS threads each, on one context, with handles that are live,
 * stale, of another type, of another context or made up.  Now and then a
 * worker forks (the child goes on with the inherited context), or swaps
 * its context for a new one while its threads are in the middle of
 * commands (close with commands in flight).  With -k the parent kills
 * workers with SIGKILL at random moments and starts new ones.  -r runs
 * ROUNDS of the data-path races of fuzz_race.c first.  With -i a quarter of
 * the commands go to /dev/infiniband/rdma_cm instead (fuzz_ucma.c), with
 * LOCAL_IPV4 as the address ids bind and resolve to; each worker then
 * has two rdma_cm files (fuzzed, foreign ids), swaps the fuzzed one under
 * its threads like the context, and runs a thread blocked in GET_EVENT.
 *
 * The kernel must refuse what is wrong, never oops or leak: the caller
 * checks the kernel log and the modules' object counts afterwards.  Exit 0
 * if every worker ended normally (or by our SIGKILL) and the races held.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "fuzz.h"

#define MAX_PROCS	64
#define MAX_THREADS	8
#define MAX_KINDS	96

const char *ibdev = "mlx_hw0";

/* Shared with the workers: commands sent, and the order to stop. */
struct fz_shared {
	volatile uint64_t done[MAX_PROCS];
	volatile uint64_t sent[MAX_KINDS], ok[MAX_KINDS];
	volatile int stop;
};

static struct fz_shared *shared;
static unsigned int nthreads = 2;
static bool cm_enabled;

uint32_t fz_u32(uint64_t *s)
{
	static const uint32_t edges[] = {
		0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256,
		1023, 1024, 4095, 4096, 4097, 16384, 65535, 65536, 0xffffff,
		0x1000000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
	};
	uint64_t r = fz_rand(s);

	switch (r % 10) {
	case 0: case 1: case 2:
		return edges[(r >> 8) % (sizeof(edges) / sizeof(edges[0]))];
	case 3: case 4: case 5: case 6:
		return (r >> 8) % 64;
	default:
		return r >> 32;
	}
}

void fz_pool_add(struct fz_pools *p, enum fz_kind k, uint32_t h, uint64_t *s)
{
	pthread_mutex_lock(&p->lock);
	if (p->nlive[k] < FZ_POOL)
		p->live[k][p->nlive[k]++] = h;
	else
		p->live[k][fz_rand(s) % FZ_POOL] = h;	/* forget one */
	pthread_mutex_unlock(&p->lock);
}

void fz_pool_gone(struct fz_pools *p, enum fz_kind k, uint32_t h)
{
	unsigned int i;

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < p->nlive[k]; i++) {
		if (p->live[k][i] != h)
			continue;
		p->live[k][i] = p->live[k][--p->nlive[k]];
		if (p->nstale[k] < FZ_POOL)
			p->stale[k][p->nstale[k]++] = h;
		break;
	}
	pthread_mutex_unlock(&p->lock);
}

uint32_t fz_handle(struct fz_worker *w, uint64_t *s, enum fz_kind k)
{
	struct fz_pools *p = &w->pools;
	unsigned int r = fz_rand(s) % 100;
	enum fz_kind other = 1 + fz_rand(s) % (FZ_NKINDS - 1);
	uint32_t h = fz_u32(s);

	pthread_mutex_lock(&p->lock);
	if (r < 65 && p->nlive[k])
		h = p->live[k][fz_rand(s) % p->nlive[k]];
	else if (r < 75 && p->nstale[k])
		h = p->stale[k][fz_rand(s) % p->nstale[k]];
	else if (r < 85 && p->nlive[other])
		h = p->live[other][fz_rand(s) % p->nlive[other]];
	else if (r < 92)
		h = w->b_handles[k];		/* names b's object, or nothing */
	pthread_mutex_unlock(&p->lock);
	return h;
}

struct fz_thread {
	struct fz_worker *w;
	uint64_t seed;
	unsigned int idx;
};

static void *fz_thread_main(void *arg)
{
	struct fz_thread *t = arg;
	uint64_t s = t->seed;

	unsigned int which;

	while (!shared->stop) {
		int ret = fz_one_command(t->w, &s, &which);

		__atomic_add_fetch(t->w->done, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&shared->sent[which], 1, __ATOMIC_RELAXED);
		if (!ret)
			__atomic_add_fetch(&shared->ok[which], 1,
					   __ATOMIC_RELAXED);
	}
	return NULL;
}

/*
 * A new context in place of the fuzzed one: dup2() closes the old file
 * while the threads may be inside commands on it.
 */
static void fz_swap_context(struct fz_worker *w)
{
	struct ctx n = {};

	if (open_ctx(&n))
		return;
	dup2(n.fd, w->a.fd);
	close(n.fd);
	close(n.async_fd);
	w->a.drv = n.drv;
	if (w->cm) {
		int cm = fz_ucma_open(false);

		if (cm >= 0) {
			dup2(cm, w->cm_a);
			close(cm);
		}
	}
}

/* A child that goes on with the inherited context for a while. */
static void fz_fork(struct fz_worker *w, uint64_t *s)
{
	pid_t pid = fork();
	uint64_t cs = fz_rand(s);
	int i;

	if (pid)
		return;
	/* Only this thread came along: a lock another one held is free. */
	pthread_mutex_init(&w->pools.lock, NULL);
	for (i = 0; i < 200 && !shared->stop; i++) {
		unsigned int which;

		fz_one_command(w, &cs, &which);
	}
	_exit(0);
}

static int fz_worker_main(unsigned int slot, uint64_t seed)
{
	struct fz_thread t[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	struct fz_worker w = {};
	pthread_t waiter;
	uint64_t s = seed;
	unsigned int i;

	w.done = &shared->done[slot];
	w.stop = &shared->stop;
	w.cm = cm_enabled;
	w.buf_len = 1 << 20;
	w.buf = aligned_alloc(4096, w.buf_len);
	pthread_mutex_init(&w.pools.lock, NULL);
	if (!w.buf || open_ctx(&w.a) || open_ctx(&w.b) ||
	    fz_setup_foreign(&w)) {
		fprintf(stderr, "worker %u: cannot set up its contexts\n",
			slot);
		return 1;
	}
	if (w.cm) {
		w.cm_wait = fz_ucma_open(true);
		if (fz_ucma_setup(&w) || w.cm_wait < 0 ||
		    pthread_create(&waiter, NULL, fz_ucma_waiter, &w)) {
			fprintf(stderr, "worker %u: cannot set up its rdma_cm "
				"files\n", slot);
			return 1;
		}
	}
	for (i = 0; i < nthreads; i++) {
		t[i] = (struct fz_thread){ &w, fz_rand(&s), i };
		pthread_create(&tid[i], NULL, fz_thread_main, &t[i]);
	}
	while (!shared->stop) {
		usleep(20000 + fz_rand(&s) % 80000);
		switch (fz_rand(&s) % 20) {
		case 0:
			fz_swap_context(&w);
			break;
		case 1:
			fz_fork(&w, &s);
			break;
		}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(tid[i], NULL);
	/* The waiter may sleep in GET_EVENT on an event gone elsewhere. */
	while (w.cm && pthread_tryjoin_np(waiter, NULL)) {
		pthread_kill(waiter, SIGUSR1);
		usleep(10000);
	}
	while (wait(NULL) > 0)
		;
	return 0;
}

static pid_t fz_spawn(unsigned int slot, uint64_t seed)
{
	pid_t pid = fork();

	if (!pid)
		_exit(fz_worker_main(slot, seed));
	return pid;
}

static uint64_t fz_total(unsigned int procs)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < procs; i++)
		n += shared->done[i];
	return n;
}

/* A worker's end: normal, or our own SIGKILL. */
static bool fz_ended_well(int st, bool killed_by_us)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st) == 0;
	return killed_by_us && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
}

int main(int argc, char **argv)
{
	unsigned int procs = 4, kills = 0, bad = 0, i, races = 0;
	uint64_t target = 100000, seed = time(NULL), s;
	pid_t pid[MAX_PROCS];
	bool kill_mode = false;
	int opt, st;

	while ((opt = getopt(argc, argv, "d:n:p:t:s:kr:i:")) != -1) {
		switch (opt) {
		case 'd': ibdev = optarg; break;
		case 'n': target = strtoull(optarg, NULL, 0); break;
		case 'p': procs = atoi(optarg); break;
		case 't': nthreads = atoi(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'k': kill_mode = true; break;
		case 'r': races = atoi(optarg); break;
		case 'i':
			if (inet_pton(AF_INET, optarg, &fz_cm_ip) != 1)
				return 2;
			cm_enabled = true;
			break;
		default: return 2;
		}
	}
	if (!procs || procs > MAX_PROCS || !nthreads ||
	    nthreads > MAX_THREADS || fz_nkinds() > MAX_KINDS)
		return 2;
	if (find_device()) {
		fprintf(stderr, "FAIL: no uverbs device for %s\n", ibdev);
		return 1;
	}
	if (cm_enabled && fz_ucma_open(false) < 0) {
		fprintf(stderr, "FAIL: -i given but /dev/infiniband/rdma_cm "
			"cannot be opened\n");
		return 1;
	}
	fz_ucma_signals();
	printf("uverbs_fuzz: seed %llu, %u processes x %u threads, %llu "
	       "commands%s%s\n", (unsigned long long)seed, procs, nthreads,
	       (unsigned long long)target, kill_mode ? ", random kills" : "",
	       cm_enabled ? ", rdma_cm too" : "");
	fflush(stdout);
	if (races && fz_races(ibdev, 1, races, seed))
		return 1;

	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return 1;
	s = seed ? seed : 1;
	for (i = 0; i < procs; i++)
		pid[i] = fz_spawn(i, fz_rand(&s));
	while (fz_total(procs) < target) {
		usleep(50000);
		if (!kill_mode || fz_rand(&s) % 4)
			continue;
		/* SIGKILL at a random moment; a fresh worker takes the slot. */
		i = fz_rand(&s) % procs;
		kill(pid[i], SIGKILL);
		waitpid(pid[i], &st, 0);
		bad += !fz_ended_well(st, true);
		kills++;
		pid[i] = fz_spawn(i, fz_rand(&s));
	}
	shared->stop = 1;
	for (i = 0; i < procs; i++) {
		waitpid(pid[i], &st, 0);
		if (!fz_ended_well(st, false)) {
			fprintf(stderr, "FAIL: worker %u ended with status "
				"%#x\n", i, st);
			bad++;
		}
	}
	/* How deep it got: the commands the kernel accepted, per kind. */
	printf("uverbs_fuzz: accepted/sent:");
	for (i = 0; i < fz_nkinds(); i++)
		printf(" %s %llu/%llu", fz_kind_name(i),
		       (unsigned long long)shared->ok[i],
		       (unsigned long long)shared->sent[i]);
	printf("\n");
	printf("uverbs_fuzz: %llu commands, %u workers killed, %u bad "
	       "endings: %s\n", (unsigned long long)fz_total(procs), kills,
	       bad, bad ? "FAIL" : "PASS");
	return bad ? 1 : 0;
}
