// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* sysfs.c - reading sysfs attribute files. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibverbs.h"

/* Reads @path into @buf without the trailing newline; length or -1. */
static int read_path(const char *path, char *buf, size_t size)
{
	ssize_t len;
	int fd;

	if (!size) {
		errno = EINVAL;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, size);
	close(fd);
	if (len < 0)
		return -1;
	if ((size_t)len == size)
		len--;
	buf[len] = '\0';
	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	return len;
}

int ibx_read_file(const char *dir, const char *file, char *buf, size_t size)
{
	char *path;
	int ret;

	if (asprintf(&path, "%s/%s", dir, file) < 0)
		return -1;
	ret = read_path(path, buf, size);
	free(path);
	return ret;
}

int ibx_read_ibdev_file(struct ibv_device *dev, char *buf, size_t size,
			const char *fmt, ...)
{
	char *rel, *path;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&rel, fmt, ap);
	va_end(ap);
	if (ret < 0)
		return -1;
	ret = asprintf(&path, "%s/%s", dev->ibdev_path, rel);
	free(rel);
	if (ret < 0)
		return -1;
	ret = read_path(path, buf, size);
	free(path);
	return ret;
}

/*
 * The sysfs mount point, as rdma-core's: a string (SYSFS_PATH without
 * trailing slashes, else "/sys").  librdmacm builds its abi_version path
 * from it.
 */
__ibx_export
const char *ibv_get_sysfs_path(void)
{
	static char path[256];
	const char *env = getenv("SYSFS_PATH");
	size_t len;

	if (!env)
		return "/sys";
	len = strlen(env);
	while (len > 1 && env[len - 1] == '/')
		len--;
	if (len >= sizeof(path))
		return "/sys";
	memcpy(path, env, len);
	path[len] = '\0';
	return path;
}

__ibx_export
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size)
{
	return ibx_read_file(dir, file, buf, size);
}
