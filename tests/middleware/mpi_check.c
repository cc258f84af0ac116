// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mpi_check - an MPI program that checks every byte it moves: a ping-pong
 * between rank r and rank r + size/2 (so that with the ranks split evenly
 * over two hosts every pair crosses the wire), sizes from 1 B to MAX_MSG
 * (default 8 MiB: far above UCX's rendezvous threshold, so the large ones
 * move by RDMA), then MPI_Allreduce of 512 KiB and COLL_MSG (default
 * MAX_MSG) and MPI_Alltoall of 64 KiB blocks and blocks of COLL_MSG /
 * ranks, with known results.  Built against Open MPI and MPICH alike
 * (tests/middleware/CMakeLists.txt).
 *
 *   mpi_check [ITERATIONS [MAX_MSG [COLL_MSG]]]
 *
 * Prints one line per part and, from rank 0, the 8-byte round trip in µs;
 * exits nonzero on the first wrong byte or MPI error.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nranks;

static void fail(const char *what, size_t at, unsigned int got,
		 unsigned int want)
{
	fprintf(stderr, "mpi_check: rank %d: %s: byte %zu is %#x, not %#x\n",
		rank, what, at, got, want);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The byte at @i of the message that @from sends in round @round. */
static uint8_t pattern(int from, int round, size_t len, size_t i)
{
	return (uint8_t)(i * 7 + (size_t)from * 31 + (size_t)round * 13 + len);
}

static void fill(uint8_t *buf, int from, int round, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = pattern(from, round, len, i);
}

static void verify(const char *what, const uint8_t *buf, int from, int round,
		   size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] != pattern(from, round, len, i))
			fail(what, i, buf[i], pattern(from, round, len, i));
}

/* Round trips of @len bytes with the partner; returns µs per round trip. */
static double pingpong(uint8_t *out, uint8_t *in, size_t len, int iters)
{
	int half = nranks / 2, first = rank < half;
	int peer = first ? rank + half : rank - half;
	double t0 = MPI_Wtime();

	for (int it = 0; it < iters; it++) {
		if (first) {
			fill(out, rank, it, len);
			MPI_Send(out, (int)len, MPI_BYTE, peer, it, MPI_COMM_WORLD);
			MPI_Recv(in, (int)len, MPI_BYTE, peer, it, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			verify("ping-pong reply", in, peer, it, len);
		} else {
			MPI_Recv(in, (int)len, MPI_BYTE, peer, it, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			verify("ping-pong request", in, peer, it, len);
			fill(out, rank, it, len);
			MPI_Send(out, (int)len, MPI_BYTE, peer, it, MPI_COMM_WORLD);
		}
	}
	return (MPI_Wtime() - t0) * 1e6 / iters;
}

/* Every rank contributes rank + i + 1 at i: the sum is known. */
static void check_allreduce(size_t n)
{
	int64_t *v = malloc(n * sizeof(*v)), *sum = malloc(n * sizeof(*sum));

	if (!v || !sum)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (size_t i = 0; i < n; i++)
		v[i] = rank + (int64_t)i + 1;
	MPI_Allreduce(v, sum, (int)n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
	for (size_t i = 0; i < n; i++) {
		int64_t want = (int64_t)nranks * ((int64_t)i + 1) +
			       (int64_t)nranks * (nranks - 1) / 2;

		if (sum[i] != want) {
			fprintf(stderr, "mpi_check: rank %d: allreduce[%zu] = %lld, not %lld\n",
				rank, i, (long long)sum[i], (long long)want);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
	free(v);
	free(sum);
}

/* Block j of rank r's send buffer is pattern(r, j); rank j checks it. */
static void check_alltoall(size_t block)
{
	uint8_t *out = malloc(block * nranks), *in = malloc(block * nranks);

	if (!out || !in)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (int j = 0; j < nranks; j++)
		fill(out + block * j, rank, j, block);
	MPI_Alltoall(out, (int)block, MPI_BYTE, in, (int)block, MPI_BYTE,
		     MPI_COMM_WORLD);
	for (int j = 0; j < nranks; j++)
		verify("alltoall block", in + block * j, j, rank, block);
	free(out);
	free(in);
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 200;
	size_t max_msg = argc > 2 ? strtoul(argv[2], NULL, 0) : 8u << 20;
	size_t coll_msg = argc > 3 ? strtoul(argv[3], NULL, 0) : max_msg;
	uint8_t *out, *in;
	double lat8 = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (nranks < 2 || nranks % 2) {
		if (!rank)
			fprintf(stderr, "mpi_check: needs an even number of ranks\n");
		MPI_Finalize();
		return 2;
	}
	if (iters < 1 || max_msg < 8 || max_msg > INT32_MAX ||
	    coll_msg < 8 * (size_t)nranks || coll_msg > max_msg) {
		if (!rank)
			fprintf(stderr, "mpi_check: ITERATIONS >= 1, 8 <= MAX_MSG < 2 GiB, 8 x ranks <= COLL_MSG <= MAX_MSG\n");
		MPI_Finalize();
		return 2;
	}
	out = malloc(max_msg);
	in = malloc(max_msg);
	if (!out || !in)
		MPI_Abort(MPI_COMM_WORLD, 2);

	for (size_t len = 1; len < max_msg; len *= 8) {
		int n = len >= (1u << 20) ? 2 : iters;
		double us = pingpong(out, in, len, n);

		if (len == 8)
			lat8 = us;
	}
	pingpong(out, in, max_msg, 2);
	MPI_Barrier(MPI_COMM_WORLD);
	if (!rank)
		printf("mpi_check: ping-pong 1 B .. %zu KiB checked, %d ranks, 8 B round trip %.1f us\n",
		       max_msg >> 10, nranks, lat8);

	check_allreduce(1 << 16);
	check_allreduce(coll_msg / sizeof(int64_t));
	if (!rank)
		printf("mpi_check: MPI_Allreduce checked (512 KiB and %zu KiB)\n",
		       coll_msg >> 10);
	check_alltoall(64 << 10);
	check_alltoall(coll_msg / nranks);
	if (!rank)
		printf("mpi_check: MPI_Alltoall checked (64 KiB and %zu KiB blocks)\n",
		       (coll_msg / nranks) >> 10);

	free(out);
	free(in);
	MPI_Finalize();
	if (!rank)
		printf("mpi_check: ok\n");
	return 0;
}
