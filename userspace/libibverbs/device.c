// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * device.c - contexts and the device-level verbs: open/close, queries of
 * device, port, GID and P_Key tables, asynchronous events.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#include "ibverbs.h"

__ibx_export
struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct ibx_device *dev = to_ibx_dev(device);
	struct ibv_context *ctx;
	char *devpath;
	int cmd_fd, err;

	if (asprintf(&devpath, "/dev/infiniband/%s", device->dev_name) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	/* O_CLOEXEC: a child must not keep the device's resources alive. */
	cmd_fd = open(devpath, O_RDWR | O_CLOEXEC);
	free(devpath);
	if (cmd_fd < 0)
		return NULL;

	ctx = dev->provider->alloc_context(device, cmd_fd);
	if (!ctx) {
		err = errno ? errno : ENOMEM;
		close(cmd_fd);
		errno = err;
		return NULL;
	}
	if (!verbs_get_ctx(ctx)) {
		/* Not from ibx_alloc_context(): a broken provider. */
		dev->provider->free_context(ctx);
		close(cmd_fd);
		errno = EINVAL;
		return NULL;
	}
	ctx->device = device;
	ctx->cmd_fd = cmd_fd;
	ibx_device_get(dev);
	return ctx;
}

__ibx_export
int ibv_close_device(struct ibv_context *context)
{
	struct ibx_device *dev = to_ibx_dev(context->device);
	int async_fd = context->async_fd;
	int cmd_fd = context->cmd_fd;

	dev->provider->free_context(context);
	if (async_fd >= 0 && async_fd != cmd_fd)
		close(async_fd);
	close(cmd_fd);
	ibx_device_put(dev);
	return 0;
}

__ibx_export
int ibv_get_async_event(struct ibv_context *context,
			struct ibv_async_event *event)
{
	const struct ibx_context_ops *ops = ctx_ops(context);
	struct ib_uverbs_async_event_desc ev;
	void *element;

	if (read(context->async_fd, &ev, sizeof(ev)) != sizeof(ev))
		return -1;

	event->event_type = ev.event_type;
	element = (void *)(uintptr_t)ev.element;
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR:
		event->element.cq = element;
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		event->element.qp = element;
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		event->element.srq = element;
		break;
	case IBV_EVENT_WQ_FATAL:
		event->element.wq = element;
		break;
	default:
		event->element.port_num = ev.element;
		break;
	}

	if (ops->async_event)
		ops->async_event(context, event);
	return 0;
}

/* Counts the event so that destroying its object may proceed. */
__ibx_export
void ibv_ack_async_event(struct ibv_async_event *event)
{
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR: {
		struct ibv_cq *cq = event->element.cq;

		pthread_mutex_lock(&cq->mutex);
		cq->async_events_completed++;
		pthread_cond_signal(&cq->cond);
		pthread_mutex_unlock(&cq->mutex);
		return;
	}
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED: {
		struct ibv_qp *qp = event->element.qp;

		pthread_mutex_lock(&qp->mutex);
		qp->events_completed++;
		pthread_cond_signal(&qp->cond);
		pthread_mutex_unlock(&qp->mutex);
		return;
	}
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED: {
		struct ibv_srq *srq = event->element.srq;

		pthread_mutex_lock(&srq->mutex);
		srq->events_completed++;
		pthread_cond_signal(&srq->cond);
		pthread_mutex_unlock(&srq->mutex);
		return;
	}
	case IBV_EVENT_WQ_FATAL: {
		struct ibv_wq *wq = event->element.wq;

		pthread_mutex_lock(&wq->mutex);
		wq->events_completed++;
		pthread_cond_signal(&wq->cond);
		pthread_mutex_unlock(&wq->mutex);
		return;
	}
	default:
		return;
	}
}

__ibx_export
int ibv_query_device(struct ibv_context *context,
		     struct ibv_device_attr *device_attr)
{
	const struct ibx_context_ops *ops = ctx_ops(context);
	struct ibv_device_attr_ex ex;
	int ret;

	if (!ops->query_device_ex)
		return EOPNOTSUPP;
	ret = ops->query_device_ex(context, NULL, &ex, sizeof(ex));
	if (ret)
		return ret;
	*device_attr = ex.orig_attr;
	return 0;
}

/*
 * The exported symbol: old binaries pass the structure as it was before
 * port_cap_flags2, so only that much is written.
 */
__ibx_export
int ibv_query_port(struct ibv_context *context, uint8_t port_num,
		   struct _compat_ibv_port_attr *port_attr)
{
	struct verbs_context *vctx = verbs_get_ctx(context);

	return vctx->query_port(context, port_num,
				(struct ibv_port_attr *)port_attr,
				offsetof(struct ibv_port_attr,
					 port_cap_flags2));
}

/* "fe80:0000:...:0001" (8 groups) -> raw GID */
static int parse_gid(const char *s, union ibv_gid *gid)
{
	unsigned int g[8];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x:%x:%x", &g[0], &g[1], &g[2], &g[3],
		   &g[4], &g[5], &g[6], &g[7]) != 8)
		return -1;
	for (i = 0; i < 8; i++) {
		gid->raw[2 * i] = g[i] >> 8;
		gid->raw[2 * i + 1] = g[i] & 0xff;
	}
	return 0;
}

__ibx_export
int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index,
		  union ibv_gid *gid)
{
	char buf[64];

	if (ibx_read_ibdev_file(context->device, buf, sizeof(buf),
				"ports/%u/gids/%d", port_num, index) <= 0)
		return -1;
	if (parse_gid(buf, gid)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

__ibx_export
int ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index,
		   __be16 *pkey)
{
	char buf[16];

	if (ibx_read_ibdev_file(context->device, buf, sizeof(buf),
				"ports/%u/pkeys/%d", port_num, index) <= 0)
		return -1;
	*pkey = htons(strtoul(buf, NULL, 0));
	return 0;
}

__ibx_export
int ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num,
		       __be16 pkey)
{
	__be16 entry;
	int i;

	for (i = 0;; i++) {
		if (ibv_query_pkey(context, port_num, i, &entry))
			return -1;
		if (entry == pkey)
			return i;
	}
}

/* rdma-core's private enum ibv_gid_type_sysfs */
enum {
	IBX_GID_TYPE_SYSFS_IB_ROCE_V1,
	IBX_GID_TYPE_SYSFS_ROCE_V2,
};

/*
 * ibv_query_gid_type - the type of a GID from sysfs (IBVERBS_PRIVATE_34,
 * used by ibv_devinfo).  The kernel has no types file on IB ports (it
 * fails the read with EINVAL); an old kernel has no gid_attrs at all.
 */
__ibx_export
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, int *type)
{
	char buf[32];

	if (ibx_read_ibdev_file(context->device, buf, sizeof(buf),
				"ports/%u/gid_attrs/types/%u", port_num,
				index) <= 0) {
		if (errno == EINVAL || errno == ENOENT) {
			*type = IBX_GID_TYPE_SYSFS_IB_ROCE_V1;
			return 0;
		}
		return -1;
	}
	if (!strcmp(buf, "IB/RoCE v1")) {
		*type = IBX_GID_TYPE_SYSFS_IB_ROCE_V1;
	} else if (!strcmp(buf, "RoCE v2")) {
		*type = IBX_GID_TYPE_SYSFS_ROCE_V2;
	} else {
		errno = ENOTSUP;
		return -1;
	}
	return 0;
}

static bool gid_is_zero(const union ibv_gid *gid)
{
	static const union ibv_gid zero;

	return !memcmp(gid, &zero, sizeof(zero));
}

/* One entry, 0 or an errno value (ENODATA for an empty slot). */
static int query_gid_entry(struct ibv_context *context, uint32_t port_num,
			   uint32_t index, struct ibv_gid_entry *entry,
			   const bool *link_layer_eth)
{
	char buf[IF_NAMESIZE + 2];
	int type;

	memset(entry, 0, sizeof(*entry));
	if (ibv_query_gid(context, port_num, index, &entry->gid))
		return errno ? errno : EINVAL;
	if (gid_is_zero(&entry->gid))
		return ENODATA;
	entry->gid_index = index;
	entry->port_num = port_num;

	if (ibv_query_gid_type(context, port_num, index, &type))
		return errno ? errno : EINVAL;
	if (*link_layer_eth)
		entry->gid_type = type == IBX_GID_TYPE_SYSFS_ROCE_V2 ?
				  IBV_GID_TYPE_ROCE_V2 : IBV_GID_TYPE_ROCE_V1;
	else
		entry->gid_type = IBV_GID_TYPE_IB;

	if (ibx_read_ibdev_file(context->device, buf, sizeof(buf),
				"ports/%u/gid_attrs/ndevs/%u", port_num,
				index) > 0)
		entry->ndev_ifindex = if_nametoindex(buf);
	return 0;
}

static int port_is_eth(struct ibv_context *context, uint32_t port_num,
		       bool *eth, int *gid_tbl_len)
{
	struct ibv_port_attr attr;
	int ret;

	ret = ibv_query_port(context, port_num,
			     (struct _compat_ibv_port_attr *)&attr);
	if (ret)
		return ret;
	*eth = attr.link_layer == IBV_LINK_LAYER_ETHERNET;
	*gid_tbl_len = attr.gid_tbl_len;
	return 0;
}

__ibx_export
int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
		      uint32_t gid_index, struct ibv_gid_entry *entry,
		      uint32_t flags, size_t entry_size)
{
	bool eth;
	int len, ret;

	if (flags || entry_size < sizeof(*entry))
		return EINVAL;
	ret = port_is_eth(context, port_num, &eth, &len);
	if (ret)
		return ret;
	if (gid_index >= (uint32_t)len)
		return EINVAL;
	return query_gid_entry(context, port_num, gid_index, entry, &eth);
}

__ibx_export
ssize_t _ibv_query_gid_table(struct ibv_context *context,
			     struct ibv_gid_entry *entries,
			     size_t max_entries, uint32_t flags,
			     size_t entry_size)
{
	struct ibv_device_attr dattr;
	bool eth;
	size_t n = 0;
	int port, i, len, ret;

	if (flags || entry_size < sizeof(*entries))
		return -EINVAL;
	ret = ibv_query_device(context, &dattr);
	if (ret)
		return -ret;

	for (port = 1; port <= dattr.phys_port_cnt; port++) {
		ret = port_is_eth(context, port, &eth, &len);
		if (ret)
			return -ret;
		for (i = 0; i < len; i++) {
			struct ibv_gid_entry *e;

			if (n == max_entries)
				return -EINVAL;
			e = (void *)((uint8_t *)entries + n * entry_size);
			ret = query_gid_entry(context, port, i, e, &eth);
			if (ret == ENODATA || ret == EINVAL || ret == ENOENT)
				continue;
			if (ret)
				return -ret;
			n++;
		}
	}
	return n;
}
