// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * udata.c - the driver-private tail of a command (bytes after the core's
 * request and response structs).
 */
#include <linux/module.h>
#include <linux/uaccess.h>
#include <linux/string.h>
#include "ibx_core.h"

/**
 * ibx_udata_copy_from() - copy a command's driver input
 * @dst: where to copy
 * @udata: the command's driver data (may be NULL)
 * @len: bytes wanted
 *
 * Copies min(@len, input length) bytes and zeroes the rest of @dst, so a
 * shorter input from an older provider reads as zeroes.
 *
 * Return: 0, or -EFAULT.
 */
int ibx_udata_copy_from(void *dst, const struct ibx_udata *udata, size_t len)
{
	size_t n = min(len, udata ? udata->inlen : 0);

	if (n && copy_from_user(dst, udata->inbuf, n))
		return -EFAULT;
	memset((u8 *)dst + n, 0, len - n);
	return 0;
}
EXPORT_SYMBOL_GPL(ibx_udata_copy_from);

/**
 * ibx_udata_copy_to() - copy a command's driver output
 * @udata: the command's driver data (may be NULL)
 * @src: the response
 * @len: its size
 *
 * Copies min(@len, output room) bytes: a provider that gave less room
 * gets a truncated response, as upstream.
 *
 * Return: 0, or -EFAULT.
 */
int ibx_udata_copy_to(struct ibx_udata *udata, const void *src, size_t len)
{
	size_t n = min(len, udata ? udata->outlen : 0);

	if (n && copy_to_user(udata->outbuf, src, n))
		return -EFAULT;
	return 0;
}
EXPORT_SYMBOL_GPL(ibx_udata_copy_to);
