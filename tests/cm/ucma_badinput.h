/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ucma_badinput.h - the raw rdma_ucm helpers shared by the two files of
 * ucma_badinput_test (framing and ids in ucma_badinput_test.c; migration,
 * fork and teardown in ucma_badinput_files.c).
 */
#ifndef UCMA_BADINPUT_H
#define UCMA_BADINPUT_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <netinet/in.h>
#include <rdma/rdma_user_cm.h>
#include "check.h"

#define DEVPATH "/dev/infiniband/rdma_cm"
#define SYSFS "/sys/class/misc/rdma_cm/"
#define GROUP "239.3.3.3"

/* A call returning 0 or an errno must return @err. */
#define EXPECT(call, err)						\
	do {								\
		int __r = (call);					\
		CHECK(__r == (err), "%s: got %d (%s), want %d (%s)",	\
		      #call, __r, strerror(__r), err, strerror(err));	\
	} while (0)

extern struct in_addr local_ip;
extern long base_ids, base_mcasts;	/* ibx_ids, ibx_mcasts at the start */

long sysfs_long(const char *name);
/* write() of @len bytes: 0 if it returned @len, else the errno. */
int raw(int fd, const void *buf, size_t len);
/* One framed command with @in bytes of @cmd: 0 or the errno. */
int ucmd(int fd, uint32_t op, const void *cmd, size_t in, size_t out);
int open_cm(void);
int create_id(int fd, uint16_t ps, uint32_t *id);
int destroy_id(int fd, uint32_t id);
/* An AF_INET sockaddr: @ip, or the local address if NULL. */
void set_in(void *sa, const char *ip, uint16_t port);
int bind_ip(int fd, uint32_t id, uint16_t port);
int query_route(int fd, uint32_t id, size_t out);
/* CHECKs that the live ids and memberships are back at the baseline. */
int at_baseline(const char *after);

int t_migrate(void *arg);
int t_fork(void *arg);
int t_close_unread(void *arg);

#endif /* UCMA_BADINPUT_H */
