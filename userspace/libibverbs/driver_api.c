// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * driver_api.c - the provider side of ibx_driver.h: registration, loading
 * the providers from <dir of libibverbs.so.1>/ibx-verbs, and the context
 * a provider allocates with its operations installed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ibverbs.h"

#define IBX_MAX_PROVIDERS 16

static const struct ibx_provider *providers[IBX_MAX_PROVIDERS];
static int num_providers;

__ibx_export
void ibx_register_provider(const struct ibx_provider *provider)
{
	if (!provider || !provider->name || !provider->ibdev_prefix ||
	    !provider->alloc_context || !provider->free_context) {
		ibx_warn("Warning: ignoring an incomplete provider registration\n");
		return;
	}
	if (num_providers == IBX_MAX_PROVIDERS) {
		ibx_warn("Warning: too many providers, ignoring %s\n",
			 provider->name);
		return;
	}
	providers[num_providers++] = provider;
}

const struct ibx_provider *ibx_match_provider(const char *ibdev_name)
{
	size_t best_len = 0;
	const struct ibx_provider *best = NULL;
	int i;

	/* The longest matching prefix wins ("mlx_hw" over "mlx"). */
	for (i = 0; i < num_providers; i++) {
		size_t len = strlen(providers[i]->ibdev_prefix);

		if (len >= best_len &&
		    !strncmp(ibdev_name, providers[i]->ibdev_prefix, len)) {
			best = providers[i];
			best_len = len;
		}
	}
	return best;
}

/* <directory of the loaded libibverbs.so.1>/ibx-verbs */
static int provider_dir(char *buf, size_t len)
{
	/* secure_getenv: a setuid program must not load code named by its caller. */
	const char *env = secure_getenv("IBX_PROVIDER_DIR");
	Dl_info info;
	char *slash;

	if (env && *env) {
		if ((size_t)snprintf(buf, len, "%s", env) >= len)
			return -1;
		return 0;
	}

	if (!dladdr((void *)&ibx_register_provider, &info) ||
	    !info.dli_fname)
		return -1;
	if (!realpath(info.dli_fname, buf))
		return -1;
	slash = strrchr(buf, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if (strlen(buf) + sizeof("/ibx-verbs") > len)
		return -1;
	strcat(buf, "/ibx-verbs");
	return 0;
}

/* dlopen()s every lib*-ibx.so; their constructors register them. */
void ibx_load_providers(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 256];
	struct dirent *ent;
	DIR *d;

	if (provider_dir(dir, sizeof(dir))) {
		ibx_warn("Warning: cannot locate the provider directory\n");
		return;
	}
	d = opendir(dir);
	if (!d)
		return;

	while ((ent = readdir(d))) {
		if (fnmatch("lib*-ibx.so", ent->d_name, 0))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, ent->d_name);
		if (!dlopen(path, RTLD_NOW))
			ibx_warn("Warning: couldn't load driver '%s': %s\n",
				 path, dlerror());
	}
	closedir(d);
}

/*
 * Defaults of the ibv_context_ops slots that the inline verbs call without
 * a NULL check: they fail as the verb does when unsupported.
 */
static int default_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
			   struct ibv_mw_bind *mw_bind)
{
	return EOPNOTSUPP;
}

static int default_dealloc_mw(struct ibv_mw *mw)
{
	return EOPNOTSUPP;
}

/* poll_cq returns a count, so failure must be negative. */
static int default_poll_cq(struct ibv_cq *cq, int num_entries,
			   struct ibv_wc *wc)
{
	errno = EOPNOTSUPP;
	return -EOPNOTSUPP;
}

static int default_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return EOPNOTSUPP;
}

static int default_post_srq_recv(struct ibv_srq *srq,
				 struct ibv_recv_wr *recv_wr,
				 struct ibv_recv_wr **bad_recv_wr)
{
	*bad_recv_wr = recv_wr;
	return EOPNOTSUPP;
}

static int default_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			     struct ibv_send_wr **bad_wr)
{
	*bad_wr = wr;
	return EOPNOTSUPP;
}

static int default_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return EOPNOTSUPP;
}

/* verbs_context.query_port: sized, so old and new callers both work. */
static int vctx_query_port(struct ibv_context *context, uint8_t port_num,
			   struct ibv_port_attr *port_attr,
			   size_t port_attr_len)
{
	const struct ibx_context_ops *ops = ctx_ops(context);
	struct ibv_port_attr full;
	int ret;

	if (!ops->query_port)
		return EOPNOTSUPP;
	memset(&full, 0, sizeof(full));
	ret = ops->query_port(context, port_num, &full);
	if (ret)
		return ret;
	if (port_attr_len > sizeof(full)) {
		memset(port_attr, 0, port_attr_len);
		port_attr_len = sizeof(full);
	}
	memcpy(port_attr, &full, port_attr_len);
	return 0;
}

static int vctx_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num)
{
	struct verbs_srq *vsrq = (struct verbs_srq *)srq;

	if (!(vsrq->comp_mask & IBX_SRQ_NUM))
		return EOPNOTSUPP;
	*srq_num = vsrq->srq_num;
	return 0;
}

__ibx_export
void *ibx_alloc_context(struct ibv_device *device, int cmd_fd, size_t size,
			size_t vctx_offset)
{
	struct verbs_ex_private *priv;
	struct verbs_context *vctx;
	struct ibv_context *ctx;
	void *base;

	if (vctx_offset + sizeof(*vctx) > size) {
		errno = EINVAL;
		return NULL;
	}
	base = calloc(1, size);
	priv = calloc(1, sizeof(*priv));
	if (!base || !priv) {
		free(base);
		free(priv);
		errno = ENOMEM;
		return NULL;
	}

	vctx = (struct verbs_context *)((uint8_t *)base + vctx_offset);
	ctx = &vctx->context;
	priv->alloc_base = base;
	priv->device = to_ibx_dev(device);
	vctx->priv = priv;
	vctx->sz = sizeof(*vctx);

	ctx->device = device;
	ctx->cmd_fd = cmd_fd;
	ctx->async_fd = -1;
	ctx->num_comp_vectors = 1;
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	pthread_mutex_init(&ctx->mutex, NULL);

	/* Binaries from before the verbs_context ABI call these two. */
	ctx->ops._compat_query_device = ibv_query_device;
	ctx->ops._compat_query_port = ibv_query_port;
	ctx->ops.bind_mw = default_bind_mw;
	ctx->ops.dealloc_mw = default_dealloc_mw;
	ctx->ops.poll_cq = default_poll_cq;
	ctx->ops.req_notify_cq = default_req_notify_cq;
	ctx->ops.post_srq_recv = default_post_srq_recv;
	ctx->ops.post_send = default_post_send;
	ctx->ops.post_recv = default_post_recv;
	vctx->query_port = vctx_query_port;
	return base;
}

__ibx_export
void ibx_free_context(struct ibv_context *context)
{
	struct verbs_context *vctx = verbs_get_ctx(context);
	struct verbs_ex_private *priv;

	if (!vctx)
		return;
	priv = vctx->priv;
	pthread_mutex_destroy(&context->mutex);
	vctx->priv = NULL;
	free(priv->alloc_base);
	free(priv);
}

/*
 * verbs_context.create_cq_ex: pins the completion channel as ibv_create_cq
 * does, since ibv_destroy_cq unpins it whichever verb created the CQ.
 */
static struct ibv_cq_ex *vctx_create_cq_ex(struct ibv_context *context,
					   struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_ex *cq = ctx_ops(context)->create_cq_ex(context, attr);

	if (cq && attr->channel) {
		pthread_mutex_lock(&context->mutex);
		attr->channel->refcnt++;
		pthread_mutex_unlock(&context->mutex);
	}
	return cq;
}

#define SET_IF(dst, src) do { if (src) (dst) = (src); } while (0)

__ibx_export
void ibx_set_context_ops(struct verbs_context *vctx,
			 const struct ibx_context_ops *ops)
{
	struct ibv_context *ctx = &vctx->context;

	vctx->priv->ops = *ops;

	SET_IF(ctx->ops.alloc_mw, ops->alloc_mw);
	SET_IF(ctx->ops.dealloc_mw, ops->dealloc_mw);
	SET_IF(ctx->ops.bind_mw, ops->bind_mw);
	SET_IF(ctx->ops.poll_cq, ops->poll_cq);
	SET_IF(ctx->ops.req_notify_cq, ops->req_notify_cq);
	SET_IF(ctx->ops.post_srq_recv, ops->post_srq_recv);
	SET_IF(ctx->ops.post_send, ops->post_send);
	SET_IF(ctx->ops.post_recv, ops->post_recv);

	SET_IF(vctx->query_device_ex, ops->query_device_ex);
	if (ops->create_cq_ex)
		vctx->create_cq_ex = vctx_create_cq_ex;
	SET_IF(vctx->create_srq_ex, ops->create_srq_ex);
	SET_IF(vctx->create_qp_ex, ops->create_qp_ex);
	SET_IF(vctx->open_qp, ops->open_qp);
	SET_IF(vctx->open_xrcd, ops->open_xrcd);
	SET_IF(vctx->close_xrcd, ops->close_xrcd);
	SET_IF(vctx->advise_mr, ops->advise_mr);
	if (ops->create_srq_ex)
		vctx->get_srq_num = vctx_get_srq_num;
}

__ibx_export
const char *ibx_device_sysfs_path(struct ibv_device *device)
{
	return device->ibdev_path;
}
