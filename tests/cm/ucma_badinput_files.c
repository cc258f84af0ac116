// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ucma_badinput_files.c - the sections of ucma_badinput_test about files:
 * MIGRATE_ID between files (valid, to itself, with wrong fds and ids, with
 * a bad response pointer, with memberships and queued events, then closing
 * the old file), a forked child (the file was opened under other
 * credentials: EACCES), and files closed or killed with unread events,
 * resolutions in flight and memberships.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/wait.h>
#include "ucma_badinput.h"

static int migrate(int to, int from_fd, uint32_t id, uint32_t *reported,
		   uint64_t response)
{
	struct rdma_ucm_migrate_resp r = { .events_reported = ~0u };
	struct rdma_ucm_migrate_id c = { .id = id, .fd = from_fd };
	int ret;

	c.response = response ? response : (uintptr_t)&r;
	ret = ucmd(to, RDMA_USER_CM_CMD_MIGRATE_ID, &c, sizeof(c), sizeof(r));
	if (reported)
		*reported = r.events_reported;
	return ret;
}

static int resolve_local(int fd, uint32_t id)
{
	struct rdma_ucm_resolve_ip c = { .id = id, .timeout_ms = 2000 };

	set_in(&c.dst_addr, NULL, 0);
	return ucmd(fd, RDMA_USER_CM_CMD_RESOLVE_IP, &c, sizeof(c), 0);
}

static int join(int fd, uint32_t id, const char *group, uint32_t *mc)
{
	struct rdma_ucm_create_id_resp r = { .id = ~0u };
	struct rdma_ucm_join_mcast c = { .id = id, .response = (uintptr_t)&r,
		.addr_size = sizeof(struct sockaddr_in) };
	int ret;

	set_in(&c.addr, group, 0);
	ret = ucmd(fd, RDMA_USER_CM_CMD_JOIN_MCAST, &c, sizeof(c), sizeof(r));
	*mc = r.id;
	return ret;
}

static int leave(int fd, uint32_t mc, uint32_t *reported)
{
	struct rdma_ucm_destroy_id_resp r = { .events_reported = ~0u };
	struct rdma_ucm_destroy_id c = { .id = mc, .response = (uintptr_t)&r };
	int ret = ucmd(fd, RDMA_USER_CM_CMD_LEAVE_MCAST, &c, sizeof(c), sizeof(r));

	*reported = r.events_reported;
	return ret;
}

static int next_event(int fd, struct rdma_ucm_event_resp *ev)
{
	struct rdma_ucm_get_event c = { .response = (uintptr_t)ev };

	return ucmd(fd, RDMA_USER_CM_CMD_GET_EVENT, &c, sizeof(c), sizeof(*ev));
}

static bool readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

/* Wrong fds and ids: nothing moves. */
static int migrate_refused(int a, int b, int c, uint32_t id, uint32_t gone)
{
	int pfd[2];

	EXPECT(migrate(b, a, 0x7ffffff0, NULL, 0), ENOENT);
	EXPECT(migrate(b, a, gone, NULL, 0), ENOENT);
	EXPECT(migrate(b, c, id, NULL, 0), EINVAL);	/* id is not c's */
	EXPECT(migrate(b, -1, id, NULL, 0), ENOENT);
	EXPECT(migrate(b, 100000, id, NULL, 0), ENOENT);
	CHECK(pipe(pfd) == 0, "pipe");
	EXPECT(migrate(b, pfd[0], id, NULL, 0), EINVAL);	/* not rdma_cm */
	close(pfd[0]);
	close(pfd[1]);
	CHECK(readable(a, 0) && !readable(b, 0), "a refused MIGRATE_ID moved the event");
	return 0;
}

int t_migrate(void *arg)
{
	int a = open_cm(), b = open_cm(), c = open_cm();
	uint32_t id, gone, ud, mc, n, x;
	struct rdma_ucm_event_resp ev;

	(void)arg;
	EXPECT(create_id(a, RDMA_PS_TCP, &id), 0);
	EXPECT(create_id(a, RDMA_PS_TCP, &gone), 0);
	EXPECT(destroy_id(a, gone), 0);
	EXPECT(resolve_local(a, id), 0);
	CHECK(readable(a, 10000), "no ADDR_RESOLVED");
	CHECK(migrate_refused(a, b, c, id, gone) == 0, "refused migrations");
	/* To the file it is in: a no-op that reports the count. */
	EXPECT(migrate(a, a, id, &n, 0), 0);
	CHECK(n == 0 && readable(a, 0), "migrate to itself: %u reported", n);
	/* a -> b: the unread event goes along, a loses the id. */
	EXPECT(migrate(b, a, id, &n, 0), 0);
	CHECK(n == 0, "events_reported %u", n);
	CHECK(!readable(a, 0) && readable(b, 0), "the event did not move with the id");
	EXPECT(destroy_id(a, id), EINVAL);
	EXPECT(query_route(a, id, 208), EINVAL);
	EXPECT(next_event(b, &ev), 0);
	CHECK(ev.id == id && ev.event == 0 /* ADDR_RESOLVED */, "event %u of %u",
	      ev.event, ev.id);
	/* b -> a again, after one event was read there. */
	EXPECT(migrate(a, b, id, &n, 0), 0);
	CHECK(n == 1, "back to a: events_reported %u", n);
	/* A bad response pointer: EFAULT, but the id moved and is not lost. */
	EXPECT(migrate(c, a, id, NULL, 8), EFAULT);
	EXPECT(query_route(c, id, 208), 0);
	EXPECT(query_route(a, id, 208), EINVAL);
	/* A UD id with a membership and its unread JOIN event, c -> b. */
	EXPECT(create_id(c, RDMA_PS_UDP, &ud), 0);
	EXPECT(bind_ip(c, ud, 0), 0);
	EXPECT(join(c, ud, GROUP, &mc), 0);
	CHECK(readable(c, 10000), "no MULTICAST_JOIN");
	EXPECT(migrate(b, c, ud, &n, 0), 0);
	EXPECT(leave(c, mc, &x), EINVAL);
	EXPECT(next_event(b, &ev), 0);
	CHECK(ev.id == mc && ev.event == 12 /* MULTICAST_JOIN */,
	      "event %u of %u after migration", ev.event, ev.id);
	EXPECT(leave(b, mc, &x), 0);
	CHECK(x == 1, "leave reported %u", x);
	/*
	 * The old file closes: the UD id lives on in b; c's own id (moved
	 * there by the EFAULT case) goes with c.
	 */
	close(c);
	EXPECT(query_route(b, ud, 208), 0);
	CHECK(sysfs_long("ibx_ids") == base_ids + 1, "ids %ld after closing the old file",
	      sysfs_long("ibx_ids"));
	close(a);
	close(b);
	return at_baseline("migrations");
}

/* The child of a fork uses its parent's file: EACCES, nothing changes. */
int t_fork(void *arg)
{
	int fd = open_cm(), st;
	uint32_t id, cid;
	pid_t pid;

	(void)arg;
	EXPECT(create_id(fd, RDMA_PS_TCP, &id), 0);
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (!pid) {
		int own, ok = create_id(fd, RDMA_PS_TCP, &cid) == EACCES &&
			      destroy_id(fd, id) == EACCES && bind_ip(fd, id, 0) == EACCES;

		/* Its own file works, and it exits without destroying. */
		own = open(DEVPATH, O_RDWR);
		ok = ok && own >= 0 && create_id(own, RDMA_PS_UDP, &cid) == 0;
		_exit(ok ? 0 : 1);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child did not get EACCES on the inherited file (status %#x)", st);
	EXPECT(query_route(fd, id, 208), 0);
	EXPECT(destroy_id(fd, id), 0);
	close(fd);
	return at_baseline("fork");
}

/* Counts back to the baseline within 5 s (teardown of an exiting task). */
static int settled(const char *after)
{
	int i;

	for (i = 0; i < 50; i++) {
		if (sysfs_long("ibx_ids") == base_ids && sysfs_long("ibx_mcasts") == base_mcasts)
			break;
		usleep(100000);
	}
	return at_baseline(after);
}

/*
 * A file full of what a close must undo: resolutions queued or done with
 * their events unread, a membership; returns how many ids it has.
 */
static int fill_file(int fd, const char *group)
{
	uint32_t id, ud, mc;
	int i;

	for (i = 0; i < 40; i++) {
		EXPECT(create_id(fd, RDMA_PS_TCP, &id), 0);
		EXPECT(resolve_local(fd, id), 0);
	}
	EXPECT(create_id(fd, RDMA_PS_UDP, &ud), 0);
	EXPECT(bind_ip(fd, ud, 0), 0);
	EXPECT(join(fd, ud, group, &mc), 0);
	CHECK(readable(fd, 10000), "no event queued");
	return 41;
}

int t_close_unread(void *arg)
{
	int fd = open_cm(), dupfd, st;
	pid_t pid;

	(void)arg;
	CHECK(fill_file(fd, GROUP) == 41, "filling the file");
	CHECK(sysfs_long("ibx_ids") == base_ids + 41, "ids %ld", sysfs_long("ibx_ids"));
	dupfd = dup(fd);
	close(fd);
	CHECK(sysfs_long("ibx_ids") == base_ids + 41, "closing one of two fds destroyed ids");
	close(dupfd);
	CHECK(settled("closing a file with unread events") == 0, "counts");
	/* SIGKILL while blocked in GET_EVENT, with unread events queued. */
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (!pid) {
		struct rdma_ucm_event_resp ev;
		int f = open_cm(), i;

		if (fill_file(f, "239.3.3.9") != 41)
			_exit(1);
		for (i = 0; i < 1000; i++)	/* drain, then block */
			next_event(f, &ev);
		_exit(2);
	}
	while (sysfs_long("ibx_mcasts") == base_mcasts && waitpid(pid, &st, WNOHANG) == 0)
		usleep(20000);
	usleep(200000);
	kill(pid, SIGKILL);
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	      "the child ended with status %#x before it was killed", st);
	return settled("SIGKILL in GET_EVENT");
}
