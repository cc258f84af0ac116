// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cm_send.c - what the CM puts on the wire: each message of IBA 12.6
 * formatted in its MAD (fields from cm_msgs.h), the state change sending
 * it makes, and the answer it waits for.  REQ, REP, DREQ and SIDR_REQ are
 * sent again until answered (their retries and timeouts are the peer's
 * announced response time plus two packet lifetimes, as Linux's ib_cm
 * computes them); the others go once and are sent again only when a
 * duplicate of the message they answer arrives (cm_recv.c).
 */
#include <linux/slab.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include "cm_priv.h"

static u8 *cm_payload(struct ibx_mad_send *msg)
{
	return msg->mad.data;
}

static void cm_set_bytes(u8 *msg, struct cm_bytes f, const void *src,
			 size_t len)
{
	memcpy(msg + f.off, src, min_t(size_t, len, f.len));
}

/* A MAD of @id's agent, addressed along id->msg_av; id->mutex held. */
struct ibx_mad_send *cm_alloc_msg(struct cm_id *id, u16 attr_id)
{
	struct ibx_mad_send *msg;

	lockdep_assert_held(&id->mutex);
	if (!id->port || !id->port->agent)
		return NULL;
	msg = ibx_mad_alloc_send(id->port->agent, GFP_KERNEL);
	if (!msg)
		return NULL;
	msg->mad.hdr.base_version = IBX_MAD_BASE_VERSION;
	msg->mad.hdr.mgmt_class = IBX_MGMT_CLASS_CM;
	msg->mad.hdr.class_version = IBX_CM_CLASS_VERSION;
	msg->mad.hdr.method = IBX_MGMT_METHOD_SEND;
	msg->mad.hdr.attr_id = cpu_to_be16(attr_id);
	msg->mad.hdr.tid = ibx_mad_next_tid(id->port->agent);
	msg->ah_attr = id->msg_av;
	return msg;
}

/*
 * Posts @msg.  One that @awaits an answer becomes id->msg and holds a
 * reference on @id until its send handler runs; the others free
 * themselves there.
 */
int cm_post_msg(struct cm_id *id, struct ibx_mad_send *msg, bool awaits)
{
	int ret;

	if (awaits) {
		msg->timeout_ms = id->timeout_ms;
		msg->retries = id->max_cm_retries;
		msg->context = id;
		refcount_inc(&id->ref);
	}
	ret = ibx_mad_post_send(msg);
	if (ret) {
		if (awaits)
			refcount_dec(&id->ref);	/* ours is not the last */
		ibx_mad_free_send(msg);
		return ret;
	}
	if (awaits)
		id->msg = msg;
	return 0;
}

/* Stops the retries of the message awaiting an answer, if any. */
void cm_cancel_msg(struct cm_id *id)
{
	if (id->msg)
		ibx_mad_cancel_send(id->msg);
	id->msg = NULL;
}

/*
 * The LocalACKTimeout of a path: two packet lifetimes plus the CA's ACK
 * delay, as a power of two (IBA 12.7.34, 9.7.6.1.3).
 */
static u8 cm_ack_timeout(u8 ca_ack_delay, u8 packet_life_time)
{
	u8 a = packet_life_time + 1, hi = max(a, ca_ack_delay);
	u8 lo = min(a, ca_ack_delay);

	/* 2^hi + 2^lo needs one more power of two when they are close. */
	return min_t(u8, hi + (hi - lo <= 1), 31);
}

static void cm_av_from_path(struct cm_id *id, const struct cm_path *path,
			    u8 sgid_index, u32 port_num)
{
	struct ibx_ah_attr *av = &id->av;

	memset(av, 0, sizeof(*av));
	av->dgid = path->dgid;
	av->flow_label = path->flow_label;
	av->sgid_index = sgid_index;
	av->hop_limit = path->hop_limit;
	av->traffic_class = path->traffic_class;
	av->sl = path->sl;
	av->is_global = 1;
	av->port_num = port_num;
	id->path_mtu = path->mtu;
	id->packet_life_time = path->packet_life_time;
	id->msg_av = *av;
}

/* The active side's common set-up of REQ and SIDR_REQ. */
static int cm_prepare_active(struct cm_id *id, const struct cm_req_param *p)
{
	struct cm_port *port = cm_find_port(p->dev, p->port);
	int ret;

	if (!port)
		return -ENODEV;
	if (id->state != CM_IDLE || id->port)
		return -EINVAL;
	ret = cm_bind_port(id, port);
	if (ret)
		return ret;
	cm_av_from_path(id, p->path, p->sgid_index, p->port);
	id->service_id = p->service_id;
	id->max_cm_retries = CM_MAX_RETRIES;
	return 0;
}

int cm_send_req(struct cm_id *id, const struct cm_req_param *p)
{
	struct ibx_mad_send *msg;
	u8 *m, ack;
	int ret;

	if (p->private_data_len > CM_REQ_PDATA)
		return -EINVAL;
	mutex_lock(&id->mutex);
	ret = cm_prepare_active(id, p);
	if (ret)
		goto out;
	ack = cm_ack_timeout(id->port->cmdev->ack_delay,
			     p->path->packet_life_time);
	id->av_timeout = ack;
	id->local_qpn = p->qpn;
	id->rq_psn = p->starting_psn;
	id->responder_resources = p->responder_resources;
	id->initiator_depth = p->initiator_depth;
	id->retry_count = p->retry_count;
	id->rnr_retry_count = p->rnr_retry_count;
	id->remote_cm_timeout = CM_RESPONSE_TIMEOUT;
	id->timeout_ms = 2 * cm_time_ms(p->path->packet_life_time) +
			 cm_time_ms(CM_RESPONSE_TIMEOUT);
	ret = -ENOMEM;
	msg = cm_alloc_msg(id, CM_REQ_ATTR);
	if (!msg)
		goto out;
	m = cm_payload(msg);
	cm_set(m, REQ_LOCAL_COMM_ID, id->local_id);
	cm_set_bytes(m, REQ_SERVICE_ID, &p->service_id, 8);
	cm_set_bytes(m, REQ_LOCAL_CA_GUID, &id->port->cmdev->guid, 8);
	cm_set(m, REQ_LOCAL_QPN, p->qpn);
	cm_set(m, REQ_RESPONDER_RESOURCES, p->responder_resources);
	cm_set(m, REQ_INITIATOR_DEPTH, p->initiator_depth);
	cm_set(m, REQ_REMOTE_CM_RESPONSE_TIMEOUT, CM_RESPONSE_TIMEOUT);
	cm_set(m, REQ_TRANSPORT_SERVICE_TYPE, 0);	/* RC */
	cm_set(m, REQ_END_TO_END_FLOW_CONTROL, p->flow_control);
	cm_set(m, REQ_STARTING_PSN, p->starting_psn);
	cm_set(m, REQ_LOCAL_CM_RESPONSE_TIMEOUT, CM_RESPONSE_TIMEOUT);
	cm_set(m, REQ_RETRY_COUNT, p->retry_count);
	cm_set(m, REQ_PARTITION_KEY, 0xffff);
	cm_set(m, REQ_PATH_PACKET_PAYLOAD_MTU, p->path->mtu);
	cm_set(m, REQ_RNR_RETRY_COUNT, p->rnr_retry_count);
	cm_set(m, REQ_MAX_CM_RETRIES, CM_MAX_RETRIES);
	cm_set(m, REQ_SRQ, p->srq);
	/* Routed RoCE: permissive LIDs, not subnet-local (as Linux). */
	cm_set(m, REQ_PATH_LOCAL_PORT_LID(REQ_PRIMARY_PATH), 0xffff);
	cm_set(m, REQ_PATH_REMOTE_PORT_LID(REQ_PRIMARY_PATH), 0xffff);
	cm_set_bytes(m, REQ_PATH_LOCAL_PORT_GID(REQ_PRIMARY_PATH),
		     p->path->sgid.raw, 16);
	cm_set_bytes(m, REQ_PATH_REMOTE_PORT_GID(REQ_PRIMARY_PATH),
		     p->path->dgid.raw, 16);
	cm_set(m, REQ_PATH_FLOW_LABEL(REQ_PRIMARY_PATH), p->path->flow_label);
	cm_set(m, REQ_PATH_TRAFFIC_CLASS(REQ_PRIMARY_PATH),
	       p->path->traffic_class);
	cm_set(m, REQ_PATH_HOP_LIMIT(REQ_PRIMARY_PATH), p->path->hop_limit);
	cm_set(m, REQ_PATH_SL(REQ_PRIMARY_PATH), p->path->sl);
	cm_set(m, REQ_PATH_SUBNET_LOCAL(REQ_PRIMARY_PATH),
	       p->path->hop_limit <= 1);
	cm_set(m, REQ_PATH_LOCAL_ACK_TIMEOUT(REQ_PRIMARY_PATH), ack);
	cm_set_bytes(m, REQ_PRIVATE_DATA, p->private_data,
		     p->private_data_len);
	ret = cm_post_msg(id, msg, true);
	if (!ret)
		cm_set_state(id, CM_REQ_SENT);
out:
	mutex_unlock(&id->mutex);
	return ret;
}

int cm_send_sidr_req(struct cm_id *id, const struct cm_req_param *p)
{
	struct ibx_mad_send *msg;
	u8 *m;
	int ret;

	if (p->private_data_len > CM_SIDR_REQ_PDATA)
		return -EINVAL;
	mutex_lock(&id->mutex);
	ret = cm_prepare_active(id, p);
	if (ret)
		goto out;
	id->sidr = true;
	id->timeout_ms = cm_time_ms(CM_RESPONSE_TIMEOUT);
	ret = -ENOMEM;
	msg = cm_alloc_msg(id, CM_SIDR_REQ_ATTR);
	if (!msg)
		goto out;
	m = cm_payload(msg);
	cm_set(m, SIDR_REQ_REQUEST_ID, id->local_id);
	cm_set(m, SIDR_REQ_PARTITION_KEY, 0xffff);
	cm_set_bytes(m, SIDR_REQ_SERVICE_ID, &p->service_id, 8);
	cm_set_bytes(m, SIDR_REQ_PRIVATE_DATA, p->private_data,
		     p->private_data_len);
	ret = cm_post_msg(id, msg, true);
	if (!ret)
		cm_set_state(id, CM_SIDR_REQ_SENT);
out:
	mutex_unlock(&id->mutex);
	return ret;
}

/* The REP of id (also sent again for a duplicate REQ). */
static struct ibx_mad_send *cm_format_rep(struct cm_id *id,
					  const struct cm_rep_param *p)
{
	struct ibx_mad_send *msg = cm_alloc_msg(id, CM_REP_ATTR);
	u8 *m;

	if (!msg)
		return NULL;
	m = cm_payload(msg);
	cm_set(m, REP_LOCAL_COMM_ID, id->local_id);
	cm_set(m, REP_REMOTE_COMM_ID, id->remote_id);
	cm_set(m, REP_LOCAL_QPN, p->qpn);
	cm_set(m, REP_STARTING_PSN, p->starting_psn);
	cm_set(m, REP_RESPONDER_RESOURCES, p->responder_resources);
	cm_set(m, REP_INITIATOR_DEPTH, p->initiator_depth);
	cm_set(m, REP_TARGET_ACK_DELAY, id->port->cmdev->ack_delay);
	cm_set(m, REP_FAILOVER_ACCEPTED, 0);
	cm_set(m, REP_END_TO_END_FLOW_CONTROL, p->flow_control);
	cm_set(m, REP_RNR_RETRY_COUNT, p->rnr_retry_count);
	cm_set(m, REP_SRQ, p->srq);
	cm_set_bytes(m, REP_LOCAL_CA_GUID, &id->port->cmdev->guid, 8);
	cm_set_bytes(m, REP_PRIVATE_DATA, p->private_data,
		     p->private_data_len);
	return msg;
}

int cm_send_rep(struct cm_id *id, const struct cm_rep_param *p)
{
	struct ibx_mad_send *msg;
	int ret = -EINVAL;

	if (p->private_data_len > CM_REP_PDATA)
		return -EINVAL;
	mutex_lock(&id->mutex);
	if (id->state != CM_REQ_RCVD && id->state != CM_MRA_REQ_SENT)
		goto out;
	ret = -ENOMEM;
	msg = cm_format_rep(id, p);
	if (!msg)
		goto out;
	id->local_qpn = p->qpn;
	id->rq_psn = p->starting_psn;
	id->responder_resources = p->responder_resources;
	id->initiator_depth = p->initiator_depth;
	id->timeout_ms = 2 * cm_time_ms(id->packet_life_time) +
			 cm_time_ms(id->remote_cm_timeout);
	ret = cm_post_msg(id, msg, true);
	if (!ret)
		cm_set_state(id, CM_REP_SENT);
out:
	mutex_unlock(&id->mutex);
	return ret;
}

/* A duplicate REQ met our REP: the REP was lost, send it once more. */
int cm_resend_rep_locked(struct cm_id *id)
{
	struct ibx_mad_send *msg;

	if (!id->msg)
		return -EINVAL;
	msg = cm_alloc_msg(id, CM_REP_ATTR);
	if (!msg)
		return -ENOMEM;
	memcpy(cm_payload(msg), cm_payload(id->msg), CM_PAYLOAD_LEN);
	return cm_post_msg(id, msg, false);
}

/* RTU and DREP: both communication IDs and nothing else (IBA 12.6.9/11). */
static int cm_send_ids_locked(struct cm_id *id, u16 attr_id)
{
	struct ibx_mad_send *msg = cm_alloc_msg(id, attr_id);

	BUILD_BUG_ON(RTU_LOCAL_COMM_ID.word != DREP_LOCAL_COMM_ID.word ||
		     RTU_REMOTE_COMM_ID.word != DREP_REMOTE_COMM_ID.word);
	if (!msg)
		return -ENOMEM;
	cm_set(cm_payload(msg), RTU_LOCAL_COMM_ID, id->local_id);
	cm_set(cm_payload(msg), RTU_REMOTE_COMM_ID, id->remote_id);
	return cm_post_msg(id, msg, false);
}

int cm_send_rtu_locked(struct cm_id *id)
{
	return cm_send_ids_locked(id, CM_RTU_ATTR);
}

/* The active consumer knows it is established: no event follows. */
int cm_send_rtu(struct cm_id *id)
{
	int ret = -EINVAL;

	mutex_lock(&id->mutex);
	if (id->state == CM_REP_RCVD || id->state == CM_MRA_REP_SENT) {
		ret = cm_send_rtu_locked(id);
		if (!ret)
			cm_set_state(id, CM_ESTABLISHED);
	}
	mutex_unlock(&id->mutex);
	return ret;
}

/* Which message a REJ or MRA answers, by state (IBA 12.6.6, 12.6.7). */
static u32 cm_msg_answered(enum cm_state state)
{
	switch (state) {
	case CM_REQ_RCVD:
	case CM_MRA_REQ_SENT:
		return 0;	/* REQ */
	case CM_REP_RCVD:
	case CM_MRA_REP_SENT:
		return 1;	/* REP */
	default:
		return 2;	/* other */
	}
}

int cm_send_rej_locked(struct cm_id *id, u16 reason, const void *ari,
		       u8 ari_len, const void *pdata, u8 len)
{
	struct ibx_mad_send *msg = cm_alloc_msg(id, CM_REJ_ATTR);
	u8 *m;

	if (!msg)
		return -ENOMEM;
	m = cm_payload(msg);
	cm_set(m, REJ_LOCAL_COMM_ID, id->local_id);
	cm_set(m, REJ_REMOTE_COMM_ID, id->remote_id);
	cm_set(m, REJ_MESSAGE_REJECTED, cm_msg_answered(id->state));
	cm_set(m, REJ_REASON, reason);
	if (ari) {
		cm_set(m, REJ_REJECTED_INFO_LENGTH, ari_len);
		cm_set_bytes(m, REJ_ARI, ari, ari_len);
	}
	cm_set_bytes(m, REJ_PRIVATE_DATA, pdata, len);
	return cm_post_msg(id, msg, false);
}

/* Ends an exchange before establishment: no more retries, a REJ, IDLE. */
int cm_reject_locked(struct cm_id *id, u16 reason, const void *ari,
		     u8 ari_len, const void *pdata, u8 len)
{
	int ret;

	cm_cancel_msg(id);
	ret = cm_send_rej_locked(id, reason, ari, ari_len, pdata, len);
	cm_set_state(id, CM_IDLE);
	return ret;
}

/* The consumer rejects a REQ, or the REP it received (IBA 12.9.7.2). */
int cm_send_rej(struct cm_id *id, u16 reason, const void *pdata, u8 len)
{
	int ret = -EINVAL;

	if (len > CM_REJ_PDATA)
		return -EINVAL;
	mutex_lock(&id->mutex);
	switch (id->state) {
	case CM_REQ_SENT:
	case CM_MRA_REQ_RCVD:
	case CM_REQ_RCVD:
	case CM_MRA_REQ_SENT:
	case CM_REP_RCVD:
	case CM_MRA_REP_SENT:
	case CM_REP_SENT:
	case CM_MRA_REP_RCVD:
		ret = cm_reject_locked(id, reason, NULL, 0, pdata, len);
		break;
	default:
		break;
	}
	mutex_unlock(&id->mutex);
	return ret;
}

int cm_send_mra_locked(struct cm_id *id, u8 msg_mraed)
{
	struct ibx_mad_send *msg = cm_alloc_msg(id, CM_MRA_ATTR);
	u8 *m;

	if (!msg)
		return -ENOMEM;
	m = cm_payload(msg);
	cm_set(m, MRA_LOCAL_COMM_ID, id->local_id);
	cm_set(m, MRA_REMOTE_COMM_ID, id->remote_id);
	cm_set(m, MRA_MESSAGE_MRAED, msg_mraed);
	cm_set(m, MRA_SERVICE_TIMEOUT, CM_MRA_SERVICE_TIMEOUT);
	return cm_post_msg(id, msg, false);
}

int cm_send_dreq_locked(struct cm_id *id)
{
	struct ibx_mad_send *msg;
	int ret;

	if (id->state != CM_ESTABLISHED)
		return -EINVAL;
	msg = cm_alloc_msg(id, CM_DREQ_ATTR);
	if (!msg)
		return -ENOMEM;
	cm_set(cm_payload(msg), DREQ_LOCAL_COMM_ID, id->local_id);
	cm_set(cm_payload(msg), DREQ_REMOTE_COMM_ID, id->remote_id);
	cm_set(cm_payload(msg), DREQ_REMOTE_QPN_EECN, id->remote_qpn);
	ret = cm_post_msg(id, msg, true);
	if (!ret)
		cm_set_state(id, CM_DREQ_SENT);
	return ret;
}

int cm_send_dreq(struct cm_id *id)
{
	int ret;

	mutex_lock(&id->mutex);
	ret = cm_send_dreq_locked(id);
	if (ret == -ENOMEM || ret == -ENODEV)
		cm_enter_timewait(id);	/* the peer's DREQ timer ends it */
	mutex_unlock(&id->mutex);
	return ret;
}

int cm_send_drep_locked(struct cm_id *id)
{
	return cm_send_ids_locked(id, CM_DREP_ATTR);
}

int cm_send_drep(struct cm_id *id)
{
	int ret = -EINVAL;

	mutex_lock(&id->mutex);
	if (id->state == CM_DREQ_RCVD) {
		ret = cm_send_drep_locked(id);
		cm_enter_timewait(id);
	}
	mutex_unlock(&id->mutex);
	return ret;
}

int cm_send_sidr_rep_locked(struct cm_id *id, const struct cm_rep_param *p)
{
	struct ibx_mad_send *msg = cm_alloc_msg(id, CM_SIDR_REP_ATTR);
	u8 *m;

	if (!msg)
		return -ENOMEM;
	m = cm_payload(msg);
	cm_set(m, SIDR_REP_REQUEST_ID, id->remote_id);
	cm_set(m, SIDR_REP_STATUS, p->sidr_status);
	if (p->sidr_status == CM_SIDR_SUCCESS) {
		cm_set(m, SIDR_REP_QPN, p->qpn);
		cm_set(m, SIDR_REP_Q_KEY, p->qkey);
	}
	cm_set_bytes(m, SIDR_REP_SERVICE_ID, &id->service_id, 8);
	cm_set_bytes(m, SIDR_REP_PRIVATE_DATA, p->private_data,
		     p->private_data_len);
	return cm_post_msg(id, msg, false);
}

int cm_send_sidr_rep(struct cm_id *id, const struct cm_rep_param *p)
{
	int ret = -EINVAL;

	if (p->private_data_len > CM_SIDR_REP_PDATA)
		return -EINVAL;
	mutex_lock(&id->mutex);
	if (id->state == CM_SIDR_REQ_RCVD) {
		ret = cm_send_sidr_rep_locked(id, p);
		cm_set_state(id, CM_IDLE);
	}
	mutex_unlock(&id->mutex);
	return ret;
}

/*
 * A REJ or DREP for a message no id takes (no listener, a stale QP, a
 * DREQ of a connection long gone), echoing the sender's TID and comm ID.
 */
void cm_reply_unowned(struct cm_port *port, const struct ibx_mad_recv *r,
		      u16 attr_id, u32 local_id, u32 remote_id, u16 reason)
{
	struct ibx_mad_send *msg = ibx_mad_alloc_send(port->agent, GFP_KERNEL);
	u8 *m;

	if (!msg)
		return;
	msg->mad.hdr = r->mad->hdr;
	msg->mad.hdr.attr_id = cpu_to_be16(attr_id);
	msg->mad.hdr.status = 0;
	msg->ah_attr = r->ah_attr;
	m = cm_payload(msg);
	switch (attr_id) {
	case CM_REJ_ATTR:
		cm_set(m, REJ_LOCAL_COMM_ID, local_id);
		cm_set(m, REJ_REMOTE_COMM_ID, remote_id);
		cm_set(m, REJ_MESSAGE_REJECTED, 0);	/* a REQ */
		cm_set(m, REJ_REASON, reason);
		break;
	case CM_DREP_ATTR:
		cm_set(m, DREP_LOCAL_COMM_ID, local_id);
		cm_set(m, DREP_REMOTE_COMM_ID, remote_id);
		break;
	case CM_SIDR_REP_ATTR:
		cm_set(m, SIDR_REP_REQUEST_ID, remote_id);
		cm_set(m, SIDR_REP_STATUS, reason);
		memcpy(m + SIDR_REP_SERVICE_ID.off,
		       r->mad->data + SIDR_REQ_SERVICE_ID.off, 8);
		break;
	}
	if (ibx_mad_post_send(msg))
		ibx_mad_free_send(msg);
}

/* ---- the QP attributes of a connection (INIT_QP_ATTR) ---- */

static void cm_qp_ah(const struct ibx_ah_attr *av,
		     struct ib_uverbs_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	memcpy(ah->grh.dgid, av->dgid.raw, 16);
	ah->grh.flow_label = av->flow_label;
	ah->grh.sgid_index = av->sgid_index;
	ah->grh.hop_limit = av->hop_limit;
	ah->grh.traffic_class = av->traffic_class;
	ah->sl = av->sl;
	ah->is_global = av->is_global;
	ah->port_num = av->port_num;
}

/* The attributes ib_cm_init_qp_attr gives for each state (IBA 12.9.7). */
int cm_init_qp_attr(struct cm_id *id, u32 qp_state,
		    struct ib_uverbs_qp_attr *attr)
{
	int ret = 0;

	mutex_lock(&id->mutex);
	switch (id->state) {
	case CM_REQ_SENT:
	case CM_MRA_REQ_RCVD:
		if (qp_state != IBX_QPS_INIT) {
			ret = -EINVAL;
			break;
		}
		fallthrough;
	case CM_REQ_RCVD:
	case CM_MRA_REQ_SENT:
	case CM_REP_RCVD:
	case CM_MRA_REP_SENT:
	case CM_REP_SENT:
	case CM_MRA_REP_RCVD:
	case CM_ESTABLISHED:
		break;
	default:
		ret = -EINVAL;
	}
	if (ret)
		goto out;
	attr->qp_state = qp_state;
	switch (qp_state) {
	case IBX_QPS_INIT:
		attr->qp_attr_mask = IBX_QP_STATE | IBX_QP_ACCESS_FLAGS |
				     IBX_QP_PKEY_INDEX | IBX_QP_PORT;
		attr->qp_access_flags = IB_UVERBS_ACCESS_REMOTE_WRITE;
		if (id->responder_resources)
			attr->qp_access_flags |= IB_UVERBS_ACCESS_REMOTE_READ |
						 IB_UVERBS_ACCESS_REMOTE_ATOMIC;
		attr->pkey_index = 0;
		attr->port_num = id->av.port_num;
		break;
	case IBX_QPS_RTR:
		attr->qp_attr_mask = IBX_QP_STATE | IBX_QP_AV |
				     IBX_QP_PATH_MTU | IBX_QP_DEST_QPN |
				     IBX_QP_RQ_PSN | IBX_QP_MAX_DEST_RD_ATOMIC |
				     IBX_QP_MIN_RNR_TIMER;
		cm_qp_ah(&id->av, &attr->ah_attr);
		attr->path_mtu = id->path_mtu;
		attr->dest_qp_num = id->remote_qpn;
		attr->rq_psn = id->rq_psn;
		attr->max_dest_rd_atomic = id->responder_resources;
		attr->min_rnr_timer = 0;
		break;
	case IBX_QPS_RTS:
		attr->qp_attr_mask = IBX_QP_STATE | IBX_QP_SQ_PSN |
				     IBX_QP_RETRY_CNT | IBX_QP_RNR_RETRY |
				     IBX_QP_MAX_QP_RD_ATOMIC | IBX_QP_TIMEOUT;
		attr->sq_psn = id->sq_psn;
		attr->retry_cnt = id->retry_count;
		attr->rnr_retry = id->rnr_retry_count;
		attr->max_rd_atomic = id->initiator_depth;
		attr->timeout = id->av_timeout;
		break;
	default:
		ret = -EINVAL;
	}
out:
	mutex_unlock(&id->mutex);
	return ret;
}
