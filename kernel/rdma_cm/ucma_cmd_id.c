// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ucma_cmd_id.c - the id commands of <rdma/rdma_user_cm.h>: create,
 * destroy, bind, resolve, query, listen, options and the connection
 * commands (carried out by cma_conn.c and the IB CM).
 * Errnos and response sizes follow upstream ucma.c.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_user_sa.h>
#include <linux/nsproxy.h>
#include <net/net_namespace.h>
#include "ucma.h"

/* Upstream's sysctl net/rdma_ucm/max_backlog (main.c registers it). */
int ucma_max_backlog = 1024;
#define AF_IB_FAMILY		27
#define SOCKADDR_IB_SIZE	48

/* rdma_addr_size(): 0 for a family the ABI does not know. */
size_t ucma_addr_size(const struct sockaddr *a, size_t max)
{
	size_t size = 0;

	switch (a->sa_family) {
	case AF_INET: size = sizeof(struct sockaddr_in); break;
	case AF_INET6: size = sizeof(struct sockaddr_in6); break;
	case AF_IB_FAMILY: size = SOCKADDR_IB_SIZE; break;
	}
	return size <= max ? size : 0;
}

static int ucma_copy_resp(u64 response, const void *resp, size_t len)
{
	return copy_to_user(u64_to_user_ptr(response), resp, len) ? -EFAULT : 0;
}

/* ucma_get_qp_type: the port space decides, except PS_IB. */
static int ucma_qp_type(const struct rdma_ucm_create_id *c)
{
	switch (c->ps) {
	case RDMA_PS_TCP:
		return IB_UVERBS_QPT_RC;
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
		return IB_UVERBS_QPT_UD;
	case RDMA_PS_IB:
		return c->qp_type;
	}
	return -EINVAL;
}

UCMA_HANDLER(ucma_create_id)
{
	struct rdma_ucm_create_id *c = cmd;
	struct rdma_ucm_create_id_resp resp;
	struct ucma_context *ctx;
	int qp_type, ret;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	qp_type = ucma_qp_type(c);
	if (qp_type < 0)
		return qp_type;
	ctx = ucma_alloc_ctx(file, c->uid);
	if (!ctx)
		return -ENOMEM;
	/* The creator's network namespace, as upstream's ucma. */
	ctx->cid = cma_create_id(current->nsproxy->net_ns, c->ps, qp_type,
				 ucma_event_handler, ctx);
	if (IS_ERR(ctx->cid)) {
		ret = PTR_ERR(ctx->cid);
		goto err_ctx;
	}
	resp.id = ctx->id;
	ret = ucma_copy_resp(c->response, &resp, sizeof(resp));
	if (ret)
		goto err_id;
	xa_store(&ucma_ctx_table, ctx->id, ctx, GFP_KERNEL);
	return 0;

err_id:
	cma_destroy_id(ctx->cid);
err_ctx:
	mutex_lock(&file->mut);
	list_del(&ctx->list);
	mutex_unlock(&file->mut);
	xa_erase(&ucma_ctx_table, ctx->id);
	kfree(ctx);
	return ret;
}

UCMA_HANDLER(ucma_destroy_id)
{
	struct rdma_ucm_destroy_id *c = cmd;
	struct rdma_ucm_destroy_id_resp resp;
	struct ucma_context *ctx;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	xa_lock(&ucma_ctx_table);
	ctx = xa_load(&ucma_ctx_table, c->id);
	if (!ctx)
		ctx = ERR_PTR(-ENOENT);
	else if (READ_ONCE(ctx->file) != file)
		ctx = ERR_PTR(-EINVAL);
	else
		__xa_erase(&ucma_ctx_table, ctx->id);
	xa_unlock(&ucma_ctx_table);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	resp.events_reported = ucma_destroy_ctx(ctx);
	return ucma_copy_resp(c->response, &resp, sizeof(resp));
}

/* Runs @fn on the context's id under its lock. */
#define UCMA_ID_OP(file, idnum, dev, expr) ({				\
	struct ucma_context *__ctx = (dev) ? ucma_get_ctx_dev(file, idnum) : \
					     ucma_get_ctx(file, idnum);	\
	struct cma_id *id;						\
	int __ret;							\
	if (IS_ERR(__ctx)) {						\
		__ret = PTR_ERR(__ctx);					\
	} else {							\
		id = __ctx->cid;					\
		mutex_lock(&id->lock);					\
		__ret = (expr);						\
		mutex_unlock(&id->lock);				\
		ucma_put_ctx(__ctx);					\
	}								\
	__ret; })

/*
 * AF_IB is refused here.  librdmacm probes it once (BIND of a
 * sockaddr_ib on a PS_IB id); the failure makes it use the IP command
 * set (BIND_IP, RESOLVE_IP, QUERY_ROUTE, JOIN_IP_MCAST), as on kernels
 * before AF_IB.
 */
static int ucma_bind_common(struct ucma_file *file, u32 idnum,
			    const struct sockaddr *addr)
{
	if (addr->sa_family == AF_IB_FAMILY)
		return -EAFNOSUPPORT;
	return UCMA_ID_OP(file, idnum, false, cma_bind_addr(id, addr));
}

UCMA_HANDLER(ucma_bind_ip)
{
	struct rdma_ucm_bind_ip *c = cmd;

	if (!ucma_addr_size((struct sockaddr *)&c->addr, sizeof(c->addr)))
		return -EINVAL;
	return ucma_bind_common(file, c->id, (struct sockaddr *)&c->addr);
}

UCMA_HANDLER(ucma_bind)
{
	struct rdma_ucm_bind *c = cmd;
	struct sockaddr *addr = (struct sockaddr *)&c->addr;

	if (c->reserved || !c->addr_size ||
	    c->addr_size != ucma_addr_size(addr, sizeof(c->addr)))
		return -EINVAL;
	return ucma_bind_common(file, c->id, addr);
}

UCMA_HANDLER(ucma_resolve_ip)
{
	struct rdma_ucm_resolve_ip *c = cmd;
	struct sockaddr *src = (struct sockaddr *)&c->src_addr;
	struct sockaddr *dst = (struct sockaddr *)&c->dst_addr;

	if ((src->sa_family && !ucma_addr_size(src, sizeof(c->src_addr))) ||
	    !ucma_addr_size(dst, sizeof(c->dst_addr)))
		return -EINVAL;
	return UCMA_ID_OP(file, c->id, false,
			  cma_resolve_addr(id, src, dst, c->timeout_ms));
}

UCMA_HANDLER(ucma_resolve_addr)
{
	struct rdma_ucm_resolve_addr *c = cmd;
	struct sockaddr *src = (struct sockaddr *)&c->src_addr;
	struct sockaddr *dst = (struct sockaddr *)&c->dst_addr;

	if (c->reserved ||
	    (c->src_size && c->src_size != ucma_addr_size(src, sizeof(c->src_addr))) ||
	    !c->dst_size || c->dst_size != ucma_addr_size(dst, sizeof(c->dst_addr)))
		return -EINVAL;
	return UCMA_ID_OP(file, c->id, false,
			  cma_resolve_addr(id, c->src_size ? src : NULL, dst,
					   c->timeout_ms));
}

UCMA_HANDLER(ucma_resolve_route)
{
	struct rdma_ucm_resolve_route *c = cmd;

	return UCMA_ID_OP(file, c->id, true,
			  cma_resolve_route(id, c->timeout_ms));
}

static void ucma_copy_path(const struct cm_path *p, struct ib_user_path_rec *u)
{
	memcpy(u->dgid, p->dgid.raw, 16);
	memcpy(u->sgid, p->sgid.raw, 16);
	u->flow_label = cpu_to_be32(p->flow_label);
	u->reversible = 1;
	u->mtu = p->mtu;
	u->pkey = cpu_to_be16(0xffff);
	u->hop_limit = p->hop_limit;
	u->traffic_class = p->traffic_class;
	u->numb_path = 1;
	u->sl = p->sl;
	u->mtu_selector = 2;		/* IB_SA_EQ */
	u->rate_selector = 2;
	u->rate = 0;			/* IB_RATE_PORT_CURRENT */
	u->packet_life_time_selector = 2;
	u->packet_life_time = p->packet_life_time;
}

static void ucma_query_route_fill(struct cma_id *id,
				  struct rdma_ucm_query_route_resp *r)
{
	memcpy(&r->src_addr, &id->src, cma_addr_size((struct sockaddr *)&id->src));
	memcpy(&r->dst_addr, &id->dst, cma_addr_size((struct sockaddr *)&id->dst));
	if (!id->cdev)
		return;
	r->node_guid = cma_node_guid(id);
	r->ibdev_index = cma_device_index(id);
	r->port_num = id->port;
	if (id->path_valid) {
		r->num_paths = 1;
		ucma_copy_path(&id->path, &r->ib_route[0]);
	} else {
		/* Before route resolution: the GIDs of the addresses only. */
		cma_ip_to_gid((struct sockaddr *)&id->src,
			      (union ibx_gid *)r->ib_route[0].sgid);
		cma_ip_to_gid((struct sockaddr *)&id->dst,
			      (union ibx_gid *)r->ib_route[0].dgid);
		r->ib_route[0].pkey = cpu_to_be16(0xffff);
	}
}

UCMA_HANDLER(ucma_query_route)
{
	struct rdma_ucm_query *c = cmd;
	struct rdma_ucm_query_route_resp r = {};
	int ret;

	if (out_len < offsetof(struct rdma_ucm_query_route_resp, ibdev_index))
		return -ENOSPC;
	ret = UCMA_ID_OP(file, c->id, false,
			 (ucma_query_route_fill(id, &r), 0));
	if (ret)
		return ret;
	return ucma_copy_resp(c->response, &r, min_t(size_t, out_len, sizeof(r)));
}

static int ucma_query_addr(struct cma_id *id, u64 response, int out_len)
{
	struct rdma_ucm_query_addr_resp r = {};

	/* A response without the ibdev_index tail is fine, as upstream. */
	if (out_len < offsetof(struct rdma_ucm_query_addr_resp, ibdev_index))
		return -ENOSPC;
	r.src_size = cma_addr_size((struct sockaddr *)&id->src);
	r.dst_size = cma_addr_size((struct sockaddr *)&id->dst);
	memcpy(&r.src_addr, &id->src, r.src_size);
	memcpy(&r.dst_addr, &id->dst, r.dst_size);
	if (id->cdev) {
		r.node_guid = cma_node_guid(id);
		r.ibdev_index = cma_device_index(id);
		r.port_num = id->port;
		r.pkey = 0xffff;
	}
	return ucma_copy_resp(response, &r, min_t(size_t, out_len, sizeof(r)));
}

static int ucma_query_path(struct cma_id *id, u64 response, int out_len)
{
	size_t size = sizeof(struct rdma_ucm_query_path_resp) +
		      sizeof(struct ib_path_rec_data);
	struct rdma_ucm_query_path_resp *r;
	int ret;

	if (out_len < sizeof(*r))
		return -ENOSPC;
	r = kzalloc(size, GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	if (id->path_valid && out_len >= size) {
		r->num_paths = 1;
		r->path_data[0].flags = IB_PATH_GMP | IB_PATH_PRIMARY |
					IB_PATH_BIDIRECTIONAL;
		cma_pack_path(&id->path, (__be32 *)r->path_data[0].path_rec);
	}
	ret = ucma_copy_resp(response, r, min_t(size_t, out_len, size));
	kfree(r);
	return ret;
}

/* The GIDs as sockaddr_ib (family, pkey, flowinfo, gid, sid, mask, scope). */
static int ucma_query_gid(struct cma_id *id, u64 response, int out_len)
{
	struct rdma_ucm_query_addr_resp r = {};
	u8 *sib;

	if (out_len < offsetof(struct rdma_ucm_query_addr_resp, ibdev_index))
		return -ENOSPC;
	if (id->cdev) {
		r.node_guid = cma_node_guid(id);
		r.ibdev_index = cma_device_index(id);
		r.port_num = id->port;
		r.pkey = 0xffff;
	}
	r.src_size = r.dst_size = SOCKADDR_IB_SIZE;
	sib = (u8 *)&r.src_addr;
	*(u16 *)sib = AF_IB_FAMILY;
	*(__be16 *)(sib + 2) = cpu_to_be16(0xffff);
	cma_ip_to_gid((struct sockaddr *)&id->src, (union ibx_gid *)(sib + 8));
	sib = (u8 *)&r.dst_addr;
	*(u16 *)sib = AF_IB_FAMILY;
	*(__be16 *)(sib + 2) = cpu_to_be16(0xffff);
	if (id->dst.ss_family)
		cma_ip_to_gid((struct sockaddr *)&id->dst,
			      (union ibx_gid *)(sib + 8));
	return ucma_copy_resp(response, &r, min_t(size_t, out_len, sizeof(r)));
}

UCMA_HANDLER(ucma_query)
{
	struct rdma_ucm_query *c = cmd;

	switch (c->option) {
	case RDMA_USER_CM_QUERY_ADDR:
		return UCMA_ID_OP(file, c->id, false,
				  ucma_query_addr(id, c->response, out_len));
	case RDMA_USER_CM_QUERY_PATH:
		return UCMA_ID_OP(file, c->id, false,
				  ucma_query_path(id, c->response, out_len));
	case RDMA_USER_CM_QUERY_GID:
		return UCMA_ID_OP(file, c->id, false,
				  ucma_query_gid(id, c->response, out_len));
	}
	return -ENOSYS;
}

UCMA_HANDLER(ucma_listen)
{
	struct rdma_ucm_listen *c = cmd;
	int backlog = c->backlog;

	struct ucma_context *ctx;
	int ret;

	int max = READ_ONCE(ucma_max_backlog);

	if (backlog <= 0 || backlog > max)
		backlog = max;
	ctx = ucma_get_ctx(file, c->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	mutex_lock(&ctx->cid->lock);
	atomic_set(&ctx->backlog, backlog);
	ret = cma_listen(ctx->cid, backlog);
	mutex_unlock(&ctx->cid->lock);
	ucma_put_ctx(ctx);
	return ret;
}

UCMA_HANDLER(ucma_connect)
{
	struct rdma_ucm_connect *c = cmd;

	if (!c->conn_param.valid)
		return -EINVAL;
	return UCMA_ID_OP(file, c->id, true, cma_connect(id, &c->conn_param));
}

/*
 * The uid is set with the id's lock held, as the handler reads it there:
 * the new connection's events start with the first after ACCEPT.
 */
static int ucma_accept_id(struct ucma_context *ctx,
			  const struct rdma_ucm_accept *c)
{
	int ret;

	lockdep_assert_held(&ctx->cid->lock);
	if (!c->conn_param.valid)
		return cma_accept(ctx->cid, NULL);
	ret = cma_accept(ctx->cid, &c->conn_param);
	if (!ret)
		ctx->uid = c->uid;
	return ret;
}

UCMA_HANDLER(ucma_accept)
{
	struct rdma_ucm_accept *c = cmd;
	struct ucma_context *ctx;
	int ret;

	ctx = ucma_get_ctx_dev(file, c->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	mutex_lock(&ctx->cid->lock);
	ret = ucma_accept_id(ctx, c);
	mutex_unlock(&ctx->cid->lock);
	ucma_put_ctx(ctx);
	return ret;
}

/* IB_CM_REJ_CONSUMER_DEFINED and IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED. */
#define UCMA_REJ_CONSUMER	28
#define UCMA_REJ_VENDOR		35

UCMA_HANDLER(ucma_reject)
{
	struct rdma_ucm_reject *c = cmd;

	if (!c->reason)
		c->reason = UCMA_REJ_CONSUMER;
	if (c->reason != UCMA_REJ_CONSUMER && c->reason != UCMA_REJ_VENDOR)
		return -EINVAL;
	return UCMA_ID_OP(file, c->id, true,
			  cma_reject(id, c->private_data, c->private_data_len,
				     c->reason));
}

UCMA_HANDLER(ucma_disconnect)
{
	struct rdma_ucm_disconnect *c = cmd;

	return UCMA_ID_OP(file, c->id, true, cma_disconnect(id));
}

UCMA_HANDLER(ucma_init_qp_attr)
{
	struct rdma_ucm_init_qp_attr *c = cmd;
	struct ib_uverbs_qp_attr resp = {};
	int ret;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	if (c->qp_state > IBX_QPS_ERR)
		return -EINVAL;
	ret = UCMA_ID_OP(file, c->id, true,
			 cma_init_qp_attr(id, c->qp_state, &resp));
	if (ret)
		return ret;
	return ucma_copy_resp(c->response, &resp, sizeof(resp));
}

UCMA_HANDLER(ucma_notify)
{
	struct rdma_ucm_notify *c = cmd;

	return UCMA_ID_OP(file, c->id, true, cma_notify(id, c->event));
}

/* RDMA_OPTION_IB_PATH: the primary bidirectional GMP path of the array. */
static int ucma_set_ib_path(struct cma_id *id, const void *val, size_t len)
{
	const struct ib_path_rec_data *d = val;
	struct cm_path path;
	size_t i, n = len / sizeof(*d);

	if (!len || len % sizeof(*d))
		return -EINVAL;
	if (!id->cdev)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (d[i].flags == (IB_PATH_GMP | IB_PATH_PRIMARY |
				   IB_PATH_BIDIRECTIONAL))
			break;
	}
	if (i == n)
		return -EINVAL;
	cma_unpack_path((const __be32 *)d[i].path_rec, &path);
	return cma_set_ib_path(id, &path);
}

static int ucma_set_option_id(struct cma_id *id, u32 level, u32 name,
			      const void *val, size_t len)
{
	if (level == RDMA_OPTION_IB) {
		if (name != RDMA_OPTION_IB_PATH)
			return -ENOSYS;
		return ucma_set_ib_path(id, val, len);
	}
	return cma_set_option(id, level, name, val, len);
}

UCMA_HANDLER(ucma_set_option)
{
	struct rdma_ucm_set_option *c = cmd;
	struct ucma_context *ctx;
	void *val;
	int ret;

	ctx = ucma_get_ctx(file, c->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (c->optlen > KMALLOC_MAX_SIZE) {
		ret = -EINVAL;
		goto out;
	}
	val = memdup_user(u64_to_user_ptr(c->optval), c->optlen);
	if (IS_ERR(val)) {
		ret = PTR_ERR(val);
		goto out;
	}
	mutex_lock(&ctx->cid->lock);
	ret = ucma_set_option_id(ctx->cid, c->level, c->optname, val,
				 c->optlen);
	mutex_unlock(&ctx->cid->lock);
	kfree(val);
out:
	ucma_put_ctx(ctx);
	return ret;
}
