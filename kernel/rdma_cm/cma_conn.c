// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cma_conn.c - connections of cma ids over the IB CM, as Linux's rdma_cm
 * makes them on RoCE: the active side's CONNECT becomes a REQ (SIDR_REQ
 * for UD) whose private data starts with the rdma_cm header (both IP
 * addresses and the source port); the passive side finds the listener
 * from the service ID (port space << 16 | port) and the header's
 * destination, and reports CONNECT_REQUEST with a new id.  CM events
 * become rdma_cm events here (upstream cma_ib_handler).
 */
#include <linux/slab.h>
#include <net/ipv6.h>
#include "cma_priv.h"

/* The rdma_cm header in front of REQ and SIDR_REQ private data. */
struct cma_hdr {
	u8 cma_version;			/* CMA_VERSION */
	u8 ip_version;			/* 4 or 6 in the high nibble */
	__be16 port;			/* the active side's source port */
	struct in6_addr src, dst;	/* IPv4: the address in the last 4 bytes */
} __packed;

#define CMA_VERSION	0x00
#define CMA_HDR_LEN	sizeof(struct cma_hdr)	/* 36 */

static_assert(sizeof(struct cma_hdr) == 36);

static void cma_hdr_put_addr(struct in6_addr *a, const struct sockaddr *sa)
{
	memset(a, 0, sizeof(*a));
	if (sa->sa_family == AF_INET)
		a->s6_addr32[3] = ((const struct sockaddr_in *)sa)->sin_addr.s_addr;
	else
		*a = ((const struct sockaddr_in6 *)sa)->sin6_addr;
}

static void cma_hdr_get_addr(struct sockaddr_storage *ss, int ipv,
			     const struct in6_addr *a, __be16 port)
{
	memset(ss, 0, sizeof(*ss));
	if (ipv == 4) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = a->s6_addr32[3];
		sin->sin_port = port;
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = *a;
		sin6->sin6_port = port;
	}
}

/* Service ID of a destination port (rdma_get_service_id). */
static __be64 cma_service_id(struct cma_id *id)
{
	return cpu_to_be64(((u64)id->ps << 16) +
			   ntohs(cma_port((struct sockaddr *)&id->dst)));
}

/* Takes the CM id from @id (lock held) for a cm_destroy_id() after unlock. */
struct cm_id *cma_take_cm(struct cma_id *id)
{
	struct cm_id *cm = id->cm;

	lockdep_assert_held(&id->lock);
	id->cm = NULL;
	return cm;
}

static int cma_cm_handler(struct cm_id *cm, const struct cm_event *ev);

int cma_connect(struct cma_id *id, const struct rdma_ucm_conn_param *p)
{
	bool ud = id->qp_type == IB_UVERBS_QPT_UD;
	u8 max = (ud ? CM_SIDR_REQ_PDATA : CM_REQ_PDATA) - CMA_HDR_LEN;
	u8 pdata[CM_SIDR_REQ_PDATA] = {};
	struct cma_hdr *h = (struct cma_hdr *)pdata;
	struct cm_req_param req = {};
	struct cm_id *cm;
	int ret;

	if (id->state != CMA_ROUTE_RESOLVED)
		return -EINVAL;
	if (p->private_data_len > max)
		return -EINVAL;
	h->cma_version = CMA_VERSION;
	h->ip_version = (id->src.ss_family == AF_INET ? 4 : 6) << 4;
	h->port = cma_port((struct sockaddr *)&id->src);
	cma_hdr_put_addr(&h->src, (struct sockaddr *)&id->src);
	cma_hdr_put_addr(&h->dst, (struct sockaddr *)&id->dst);
	memcpy(pdata + CMA_HDR_LEN, p->private_data, p->private_data_len);

	req.dev = id->cdev->dev;
	req.port = id->port;
	req.sgid_index = id->sgid_index;
	req.path = &id->path;
	req.service_id = cma_service_id(id);
	req.qpn = p->qp_num & 0xffffff;
	req.starting_psn = id->seq_num;
	req.responder_resources = p->responder_resources;
	req.initiator_depth = p->initiator_depth;
	req.flow_control = p->flow_control;
	req.retry_count = min_t(u8, p->retry_count, 7);
	req.rnr_retry_count = min_t(u8, p->rnr_retry_count, 7);
	req.srq = p->srq;
	req.private_data = pdata;
	req.private_data_len = CMA_HDR_LEN + p->private_data_len;

	cm = cm_create_id(cma_cm_handler, id);
	if (IS_ERR(cm))
		return PTR_ERR(cm);
	/* An answer's handler waits for id->lock: set up before sending. */
	id->cm = cm;
	id->state = CMA_CONNECT;
	ret = ud ? cm_send_sidr_req(cm, &req) : cm_send_req(cm, &req);
	if (ret) {
		id->cm = NULL;
		id->state = CMA_ROUTE_RESOLVED;
		cm_destroy_id(cm);	/* never sent: no handler can run */
	}
	return ret;
}

/*
 * ACCEPT: the passive side's REP (SIDR_REP for UD); without parameters
 * the active side's RTU after CONNECT_RESPONSE (librdmacm's
 * ucma_process_conn_resp), as upstream cma_rep_recv.
 */
int cma_accept(struct cma_id *id, const struct rdma_ucm_conn_param *p)
{
	struct cm_rep_param rep = {};

	if (id->state != CMA_CONNECT || !id->cm)
		return -EINVAL;
	if (!p)
		return cm_send_rtu(id->cm);
	rep.qpn = p->qp_num & 0xffffff;
	rep.private_data = p->private_data;
	rep.private_data_len = p->private_data_len;
	if (id->qp_type == IB_UVERBS_QPT_UD) {
		rep.sidr_status = CM_SIDR_SUCCESS;
		rep.qkey = id->qkey;
		return cm_send_sidr_rep(id->cm, &rep);
	}
	rep.starting_psn = id->seq_num;
	rep.responder_resources = p->responder_resources;
	rep.initiator_depth = p->initiator_depth;
	rep.flow_control = p->flow_control;
	rep.rnr_retry_count = min_t(u8, p->rnr_retry_count, 7);
	rep.srq = p->srq;
	return cm_send_rep(id->cm, &rep);
}

int cma_reject(struct cma_id *id, const void *pdata, u8 len, u8 reason)
{
	struct cm_rep_param rej = { .sidr_status = CM_SIDR_REJECT,
				    .private_data = pdata,
				    .private_data_len = len };

	if (!id->cm)
		return -EINVAL;
	if (id->qp_type == IB_UVERBS_QPT_UD)
		return cm_send_sidr_rep(id->cm, &rej);
	return cm_send_rej(id->cm, reason, pdata, len);
}

/* Starts a disconnect, or answers the peer's (upstream rdma_disconnect). */
int cma_disconnect(struct cma_id *id)
{
	if (!id->cm)
		return -EINVAL;
	if (cm_send_dreq(id->cm))
		cm_send_drep(id->cm);
	return 0;
}

/* rdma_notify: IBV_EVENT_COMM_EST seen on the QP before the RTU. */
int cma_notify(struct cma_id *id, u32 event)
{
	if (!id->cm)
		return -EINVAL;
	return cm_notify(id->cm, event);
}

/* The conn param of an event, as upstream cma_set_rep/req_event_data. */
static void cma_conn_param(struct cma_event *cev, const struct cm_event *ev,
			   const u8 *pdata, u8 len)
{
	struct rdma_ucm_conn_param *c = &cev->param.conn;

	memcpy(c->private_data, pdata, len);
	c->private_data_len = len;
	c->responder_resources = ev->responder_resources;
	c->initiator_depth = ev->initiator_depth;
	c->flow_control = ev->flow_control;
	c->retry_count = ev->retry_count;
	c->rnr_retry_count = ev->rnr_retry_count;
	c->srq = ev->srq;
	c->qp_num = ev->remote_qpn;
}

/* SIDR_REP: the UD peer's QP, or why there is none (cma_sidr_rep_handler). */
static void cma_sidr_rep(struct cma_id *id, const struct cm_event *ev,
			 struct cma_event *cev)
{
	struct rdma_ucm_ud_param *ud = &cev->param.ud;

	if (ev->sidr_status != CM_SIDR_SUCCESS) {
		cev->event = RDMA_CM_EVENT_UNREACHABLE;
		cev->status = ev->sidr_status;
		return;
	}
	if (ev->qkey != id->qkey) {
		cev->event = RDMA_CM_EVENT_ADDR_ERROR;
		cev->status = -EINVAL;
		return;
	}
	cev->event = RDMA_CM_EVENT_ESTABLISHED;
	cma_fill_ah_attr(id, &id->path.dgid, &ud->ah_attr);
	ud->qp_num = ev->remote_qpn;
	ud->qkey = ev->qkey;
	memcpy(ud->private_data, ev->private_data, CM_SIDR_REP_PDATA);
	ud->private_data_len = CM_SIDR_REP_PDATA;
}

static int cma_cm_handler(struct cm_id *cm, const struct cm_event *ev)
{
	struct cma_id *id = cm_context(cm);
	struct cma_event cev = {};

	mutex_lock(&id->lock);
	if (id->cm != cm ||
	    (id->state != CMA_CONNECT && id->state != CMA_DISCONNECT))
		goto out;
	switch (ev->type) {
	case CM_EV_REP_RCVD:
		cev.event = RDMA_CM_EVENT_CONNECT_RESPONSE;
		cma_conn_param(&cev, ev, ev->private_data, CM_REP_PDATA);
		break;
	case CM_EV_ESTABLISHED:
		cev.event = RDMA_CM_EVENT_ESTABLISHED;
		break;
	case CM_EV_REJ_RCVD:
		cev.event = RDMA_CM_EVENT_REJECTED;
		cev.status = ev->reason;
		cma_conn_param(&cev, ev, ev->private_data, CM_REJ_PDATA);
		break;
	case CM_EV_REQ_ERROR:
	case CM_EV_REP_ERROR:
	case CM_EV_SIDR_REQ_ERROR:
		cev.event = RDMA_CM_EVENT_UNREACHABLE;
		cev.status = -ETIMEDOUT;
		break;
	case CM_EV_DREQ_ERROR:
		cev.status = -ETIMEDOUT;
		fallthrough;
	case CM_EV_DREQ_RCVD:
	case CM_EV_DREP_RCVD:
		if (id->state != CMA_CONNECT)
			goto out;
		id->state = CMA_DISCONNECT;
		cev.event = RDMA_CM_EVENT_DISCONNECTED;
		break;
	case CM_EV_TIMEWAIT_EXIT:
		cev.event = RDMA_CM_EVENT_TIMEWAIT_EXIT;
		break;
	case CM_EV_SIDR_REP_RCVD:
		cma_sidr_rep(id, ev, &cev);
		break;
	default:
		goto out;
	}
	id->handler(id, &cev);
out:
	mutex_unlock(&id->lock);
	return 0;
}

/* The addresses of a REQ's rdma_cm header, or -EINVAL if malformed. */
static int cma_parse_hdr(const u8 *pdata, __be64 service_id,
			 struct sockaddr_storage *local,
			 struct sockaddr_storage *peer)
{
	const struct cma_hdr *h = (const struct cma_hdr *)pdata;
	int ipv = h->ip_version >> 4;

	if (h->cma_version != CMA_VERSION || (ipv != 4 && ipv != 6))
		return -EINVAL;
	cma_hdr_get_addr(local, ipv, &h->dst,
			 htons(be64_to_cpu(service_id) & 0xffff));
	cma_hdr_get_addr(peer, ipv, &h->src, h->port);
	return 0;
}

/* A new passive id for @cm, bound to the device the REQ came in on. */
static struct cma_id *cma_new_conn_id(struct cma_id *listener,
				      struct cm_id *cm,
				      const struct cm_event *ev,
				      const struct sockaddr_storage *local,
				      const struct sockaddr_storage *peer)
{
	struct cma_id *conn;
	int ret;

	conn = cma_create_id(listener->net, listener->ps, listener->qp_type,
			     listener->handler, NULL);
	if (IS_ERR(conn))
		return conn;
	conn->src = *local;
	conn->dst = *peer;
	ret = cma_acquire_dev(conn, (struct sockaddr *)local,
			      cma_translate_ip(conn->net,
					       (struct sockaddr *)local));
	/* The header's address must be ours on the port the REQ used. */
	if (!ret && (conn->cdev->dev != ev->dev || conn->port != ev->port))
		ret = -EINVAL;
	if (ret) {
		cma_destroy_id(conn);
		return ERR_PTR(ret);
	}
	conn->path = ev->path;
	conn->path_valid = true;
	conn->hop_limit = ev->path.hop_limit ?: 64;
	conn->tos = ev->path.traffic_class;
	conn->cm = cm;
	conn->state = CMA_CONNECT;
	return conn;
}

/*
 * The CM's REQ and SIDR_REQ consumer (cm_init()): CONNECT_REQUEST to the
 * listener with a new id.  An errno has the CM refuse the request.
 */
int cma_req_handler(struct cm_id *cm, const struct cm_event *ev)
{
	bool sidr = ev->type == CM_EV_SIDR_REQ_RCVD;
	u8 len = (sidr ? CM_SIDR_REQ_PDATA : CM_REQ_PDATA) - CMA_HDR_LEN;
	struct sockaddr_storage local, peer;
	struct cma_event cev = { .event = RDMA_CM_EVENT_CONNECT_REQUEST };
	struct cma_id *listener, *conn;
	u64 sid = be64_to_cpu(ev->service_id);
	struct net *net;
	int ret;

	ret = cma_parse_hdr(ev->private_data, ev->service_id, &local, &peer);
	if (ret)
		return ret;
	/*
	 * Only the listeners of the namespace the REQ came in to: the one of
	 * the netdev of its destination GID on the port it arrived at.
	 */
	net = cma_req_net(ev->dev, ev->port, (struct sockaddr *)&local);
	if (!net)
		return -ECONNREFUSED;
	listener = cma_find_listener(net, (sid >> 16) & 0xffff, sid & 0xffff,
				     (struct sockaddr *)&local);
	put_net(net);
	if (IS_ERR(listener))
		return PTR_ERR(listener);
	mutex_lock(&listener->lock);
	ret = -ECONNREFUSED;
	if (listener->state != CMA_LISTEN ||
	    sidr != (listener->qp_type == IB_UVERBS_QPT_UD))
		goto out;
	conn = cma_new_conn_id(listener, cm, ev, &local, &peer);
	ret = PTR_ERR_OR_ZERO(conn);
	if (ret)
		goto out;
	cm_set_handler(cm, cma_cm_handler, conn);
	cev.new_id = conn;
	if (sidr) {
		memcpy(cev.param.ud.private_data,
		       ev->private_data + CMA_HDR_LEN, len);
		cev.param.ud.private_data_len = len;
	} else {
		cma_conn_param(&cev, ev, ev->private_data + CMA_HDR_LEN, len);
	}
	ret = listener->handler(listener, &cev);
	if (ret) {
		/* The CM rejects and destroys cm itself. */
		cm_set_handler(cm, NULL, NULL);
		conn->cm = NULL;
		mutex_unlock(&listener->lock);
		cma_destroy_id(conn);
		cma_id_put(listener);
		return ret;
	}
out:
	mutex_unlock(&listener->lock);
	cma_id_put(listener);
	return ret;
}
