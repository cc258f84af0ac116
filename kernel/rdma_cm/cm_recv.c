// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cm_recv.c - what the CM does with a received message or a message that
 * went unanswered: find the id (by our communication ID, or for a new REQ
 * by the peer's), check the message against the id's state (IBA 12.9.7),
 * change state and queue the event.  Duplicates are answered by sending
 * again what was lost; a message no state takes is dropped and counted.
 *
 * Everything here runs on the port's ordered MAD workqueue with no lock
 * held, so events are delivered inline once the id's mutex is dropped.
 */
#include <linux/slab.h>
#include "cm_priv.h"

struct cm_counters cm_counters;

static void cm_count(atomic64_t *c)
{
	atomic64_inc(c);
}

static __be64 cm_get_be64(const u8 *m, struct cm_bytes f)
{
	__be64 v;

	memcpy(&v, m + f.off, sizeof(v));
	return v;
}

/* Ends the exchange @id is in and reports @w: the common tail. */
static void cm_finish(struct cm_id *id, struct cm_work *w)
{
	if (w)
		cm_queue_event(id, w);
	mutex_unlock(&id->mutex);
	cm_flush_events(id);
	cm_put_id(id);
}

/*
 * A new passive id: its first event goes to the consumer, which takes the
 * reference it was created with (or has it destroyed).
 */
static void cm_finish_new(struct cm_id *id, struct cm_work *w)
{
	cm_queue_event(id, w);
	mutex_unlock(&id->mutex);
	cm_flush_events(id);
}

/*
 * The passive id of a new REQ or SIDR_REQ, locked, with the event for
 * the consumer in *@w; NULL (counted) when memory is short: the peer's
 * retry may find some.
 */
static struct cm_id *cm_new_passive(struct cm_port *port,
				    enum cm_event_type type, const u8 *pdata,
				    u8 len, struct cm_work **w)
{
	struct cm_id *id;

	*w = cm_new_work(type, pdata, len);
	id = *w ? cm_alloc_id(NULL, NULL) : ERR_PTR(-ENOMEM);
	if (IS_ERR(id) || cm_bind_port(id, port)) {
		cm_count(&cm_counters.dropped);
		if (!IS_ERR(id))
			cm_put_id(id);
		kfree(*w);
		return NULL;
	}
	mutex_lock(&id->mutex);
	id->passive = true;
	return id;
}

/* A duplicate REQ: the REP or MRA it should have met was lost. */
static void cm_dup_req(struct cm_id *id)
{
	cm_count(&cm_counters.duplicates);
	mutex_lock(&id->mutex);
	switch (id->state) {
	case CM_REQ_RCVD:
		/* The consumer is slow to answer: ask the peer to wait. */
		if (!cm_send_mra_locked(id, 0))
			cm_set_state(id, CM_MRA_REQ_SENT);
		break;
	case CM_MRA_REQ_SENT:
		cm_send_mra_locked(id, 0);
		break;
	case CM_REP_SENT:
	case CM_MRA_REP_RCVD:
		cm_resend_rep_locked(id);
		break;
	default:
		break;
	}
	mutex_unlock(&id->mutex);
	cm_put_id(id);
}

/*
 * A REQ whose QP is still known to us from an earlier connection (IBA
 * 12.9.8.3.1): refused as stale; a connection still up on that QP is
 * disconnected, since its peer evidently restarted.
 */
static void cm_stale_req(struct cm_port *port, const struct ibx_mad_recv *r,
			 struct cm_id *old, u32 remote_id)
{
	cm_count(&cm_counters.stale);
	cm_reply_unowned(port, r, CM_REJ_ATTR, 0, remote_id,
			 CM_REJ_STALE_CONN);
	mutex_lock(&old->mutex);
	if (old->state == CM_ESTABLISHED)
		cm_send_dreq_locked(old);
	mutex_unlock(&old->mutex);
	cm_put_id(old);
}

/* The primary path of a REQ, as the passive side sees it. */
static void cm_req_path(const u8 *m, struct cm_path *path)
{
	u8 ack = cm_get(m, REQ_PATH_LOCAL_ACK_TIMEOUT(REQ_PRIMARY_PATH));

	memset(path, 0, sizeof(*path));
	memcpy(path->dgid.raw, m + REQ_PATH_LOCAL_PORT_GID(REQ_PRIMARY_PATH).off,
	       16);
	memcpy(path->sgid.raw, m + REQ_PATH_REMOTE_PORT_GID(REQ_PRIMARY_PATH).off,
	       16);
	path->flow_label = cm_get(m, REQ_PATH_FLOW_LABEL(REQ_PRIMARY_PATH));
	path->traffic_class = cm_get(m, REQ_PATH_TRAFFIC_CLASS(REQ_PRIMARY_PATH));
	path->hop_limit = cm_get(m, REQ_PATH_HOP_LIMIT(REQ_PRIMARY_PATH));
	path->sl = cm_get(m, REQ_PATH_SL(REQ_PRIMARY_PATH));
	path->mtu = cm_get(m, REQ_PATH_PACKET_PAYLOAD_MTU);
	/* The LocalACKTimeout is two lifetimes plus the peer's ACK delay. */
	path->packet_life_time = ack ? ack - 1 : 0;
}

static void cm_req_rcvd(struct cm_port *port, const struct ibx_mad_recv *r)
{
	const u8 *m = r->mad->data;
	u32 remote_id = cm_get(m, REQ_LOCAL_COMM_ID);
	u32 remote_qpn = cm_get(m, REQ_LOCAL_QPN);
	__be64 guid = cm_get_be64(m, REQ_LOCAL_CA_GUID);
	struct cm_event *ev;
	struct cm_work *w;
	struct cm_id *id;

	id = cm_lookup_remote_id(remote_id, guid);
	if (id) {
		cm_dup_req(id);
		return;
	}
	id = cm_lookup_remote_qpn(remote_qpn, guid);
	if (id) {
		cm_stale_req(port, r, id, remote_id);
		return;
	}

	id = cm_new_passive(port, CM_EV_REQ_RCVD, m + REQ_PRIVATE_DATA.off,
			    CM_REQ_PDATA, &w);
	if (!id)
		return;
	id->remote_id = remote_id;
	id->remote_guid = guid;
	id->remote_qpn = remote_qpn;
	id->service_id = cm_get_be64(m, REQ_SERVICE_ID);
	id->sq_psn = cm_get(m, REQ_STARTING_PSN);
	/* Our resources answer the peer's depth and the reverse. */
	id->responder_resources = cm_get(m, REQ_INITIATOR_DEPTH);
	id->initiator_depth = cm_get(m, REQ_RESPONDER_RESOURCES);
	id->retry_count = cm_get(m, REQ_RETRY_COUNT);
	id->rnr_retry_count = cm_get(m, REQ_RNR_RETRY_COUNT);
	id->max_cm_retries = cm_get(m, REQ_MAX_CM_RETRIES);
	id->remote_cm_timeout = cm_get(m, REQ_LOCAL_CM_RESPONSE_TIMEOUT);
	ev = &w->ev;
	cm_req_path(m, &ev->path);
	id->av = r->ah_attr;	/* our GID it came to, the sender's GID */
	id->av.dgid = ev->path.dgid;
	id->av.flow_label = ev->path.flow_label;
	id->av.hop_limit = ev->path.hop_limit;
	id->av.traffic_class = ev->path.traffic_class;
	id->av.sl = ev->path.sl;
	id->av_timeout = cm_get(m, REQ_PATH_LOCAL_ACK_TIMEOUT(REQ_PRIMARY_PATH));
	id->path_mtu = ev->path.mtu;
	id->packet_life_time = ev->path.packet_life_time;
	id->msg_av = r->ah_attr;
	cm_insert_remote(id, true, true);
	cm_set_state(id, CM_REQ_RCVD);

	ev->dev = port->cmdev->dev;
	ev->port = port->port_num;
	ev->service_id = id->service_id;
	ev->sgid_index = r->ah_attr.sgid_index;
	ev->remote_qpn = remote_qpn;
	ev->responder_resources = id->responder_resources;
	ev->initiator_depth = id->initiator_depth;
	ev->flow_control = cm_get(m, REQ_END_TO_END_FLOW_CONTROL);
	ev->retry_count = id->retry_count;
	ev->rnr_retry_count = id->rnr_retry_count;
	ev->srq = cm_get(m, REQ_SRQ);
	cm_finish_new(id, w);
}

/* A REP met our RTU or MRA: it was lost, send it again. */
static void cm_dup_rep(struct cm_id *id)
{
	cm_count(&cm_counters.duplicates);
	switch (id->state) {
	case CM_ESTABLISHED:
		cm_send_rtu_locked(id);
		break;
	case CM_REP_RCVD:
		if (!cm_send_mra_locked(id, 1))
			cm_set_state(id, CM_MRA_REP_SENT);
		break;
	case CM_MRA_REP_SENT:
		cm_send_mra_locked(id, 1);
		break;
	default:
		break;
	}
}

static void cm_rep_rcvd(const u8 *m)
{
	struct cm_id *id = cm_lookup_local(cm_get(m, REP_REMOTE_COMM_ID));
	u32 remote_qpn = cm_get(m, REP_LOCAL_QPN);
	__be64 guid = cm_get_be64(m, REP_LOCAL_CA_GUID);
	struct cm_id *old;
	struct cm_work *w;
	u8 delay;

	if (!id) {
		cm_count(&cm_counters.dropped);
		return;
	}
	mutex_lock(&id->mutex);
	if (id->state != CM_REQ_SENT && id->state != CM_MRA_REQ_RCVD) {
		if (id->remote_id == cm_get(m, REP_LOCAL_COMM_ID))
			cm_dup_rep(id);
		else
			cm_count(&cm_counters.dropped);
		cm_finish(id, NULL);
		return;
	}
	cm_cancel_msg(id);
	id->remote_id = cm_get(m, REP_LOCAL_COMM_ID);
	id->remote_guid = guid;
	id->remote_qpn = remote_qpn;
	old = cm_lookup_remote_qpn(remote_qpn, guid);
	if (old) {
		/* The peer's QP is in one of our connections still. */
		cm_put_id(old);
		cm_count(&cm_counters.stale);
		cm_send_rej_locked(id, CM_REJ_STALE_CONN, NULL, 0, NULL, 0);
		cm_set_state(id, CM_IDLE);
		w = cm_new_work(CM_EV_REJ_RCVD, NULL, 0);
		if (w)
			w->ev.reason = CM_REJ_STALE_CONN;
		cm_finish(id, w);
		return;
	}
	id->sq_psn = cm_get(m, REP_STARTING_PSN);
	id->initiator_depth = cm_get(m, REP_RESPONDER_RESOURCES);
	id->responder_resources = cm_get(m, REP_INITIATOR_DEPTH);
	id->rnr_retry_count = cm_get(m, REP_RNR_RETRY_COUNT);
	/* Our ACK timeout must also cover the peer's ACK delay. */
	delay = cm_get(m, REP_TARGET_ACK_DELAY);
	if (delay >= id->av_timeout)
		id->av_timeout = min_t(u8, delay + 1, 31);
	cm_insert_remote(id, true, true);
	cm_set_state(id, CM_REP_RCVD);
	w = cm_new_work(CM_EV_REP_RCVD, m + REP_PRIVATE_DATA.off,
			CM_REP_PDATA);
	if (w) {
		w->ev.remote_qpn = remote_qpn;
		w->ev.responder_resources = id->responder_resources;
		w->ev.initiator_depth = id->initiator_depth;
		w->ev.flow_control = cm_get(m, REP_END_TO_END_FLOW_CONTROL);
		w->ev.rnr_retry_count = id->rnr_retry_count;
		w->ev.srq = cm_get(m, REP_SRQ);
	}
	cm_finish(id, w);
}

/*
 * Finds the id a message names by our comm ID (@local) and checks that it
 * is the same connection (@remote), unless the peer could not know our id
 * yet (@any_remote).  NULL: dropped and counted.
 */
static struct cm_id *cm_acquire(u32 local, u32 remote, bool any_remote)
{
	struct cm_id *id = cm_lookup_local(local);

	if (id && !any_remote && id->remote_id != remote) {
		cm_put_id(id);
		id = NULL;
	}
	if (!id)
		cm_count(&cm_counters.dropped);
	return id;
}

static void cm_rtu_rcvd(const u8 *m)
{
	struct cm_id *id = cm_acquire(cm_get(m, RTU_REMOTE_COMM_ID),
				      cm_get(m, RTU_LOCAL_COMM_ID), false);
	struct cm_work *w = NULL;

	if (!id)
		return;
	mutex_lock(&id->mutex);
	if (id->state == CM_REP_SENT || id->state == CM_MRA_REP_RCVD) {
		cm_cancel_msg(id);
		cm_set_state(id, CM_ESTABLISHED);
		w = cm_new_work(CM_EV_ESTABLISHED, m + RTU_PRIVATE_DATA.off,
				CM_RTU_PDATA);
	}
	cm_finish(id, w);
}

/* IBA 12.9.7: what a REJ does in each state (upstream cm_rej_handler). */
static void cm_rej_rcvd(const u8 *m)
{
	u16 reason = cm_get(m, REJ_REASON);
	struct cm_work *w = NULL;
	struct cm_id *id;

	/*
	 * An active side giving up on its REQ rejects it as Timeout before it
	 * learnt our communication ID (RemoteCommID 0); its ARI is its CA
	 * GUID (IBA 12.6.7, table 219), so such a REJ names the id by the
	 * peer's (ID, GUID), as upstream cm_acquire_rejected_id() finds it.
	 */
	if (reason == CM_REJ_TIMEOUT)
		id = cm_lookup_remote_id(cm_get(m, REJ_LOCAL_COMM_ID),
					 cm_get_be64(m, REJ_ARI));
	else
		id = cm_lookup_local(cm_get(m, REJ_REMOTE_COMM_ID));
	if (!id) {
		cm_count(&cm_counters.dropped);
		return;
	}
	mutex_lock(&id->mutex);
	/* Before our REQ was answered the peer had no id to name. */
	if (id->state != CM_REQ_SENT && id->state != CM_MRA_REQ_RCVD &&
	    id->remote_id != cm_get(m, REJ_LOCAL_COMM_ID)) {
		cm_count(&cm_counters.dropped);
		cm_finish(id, NULL);
		return;
	}
	switch (id->state) {
	case CM_REQ_SENT:
	case CM_MRA_REQ_RCVD:
	case CM_REP_SENT:
	case CM_MRA_REP_RCVD:
	case CM_REQ_RCVD:
	case CM_MRA_REQ_SENT:
		cm_cancel_msg(id);
		if (reason == CM_REJ_STALE_CONN)
			cm_enter_timewait(id);
		else
			cm_set_state(id, CM_IDLE);
		break;
	case CM_DREQ_SENT:
	case CM_REP_RCVD:
	case CM_MRA_REP_SENT:
	case CM_ESTABLISHED:
		cm_enter_timewait(id);
		break;
	default:
		cm_count(&cm_counters.dropped);
		cm_finish(id, NULL);
		return;
	}
	w = cm_new_work(CM_EV_REJ_RCVD, m + REJ_PRIVATE_DATA.off,
			CM_REJ_PDATA);
	if (w)
		w->ev.reason = reason;
	cm_finish(id, w);
}

/* An MRA: the peer needs longer; wait as long as it says (IBA 12.6.6). */
static void cm_mra_rcvd(const u8 *m)
{
	struct cm_id *id = cm_lookup_local(cm_get(m, MRA_REMOTE_COMM_ID));
	u32 mraed = cm_get(m, MRA_MESSAGE_MRAED);
	unsigned int timeout;

	if (!id) {
		cm_count(&cm_counters.dropped);
		return;
	}
	mutex_lock(&id->mutex);
	timeout = cm_time_ms(cm_get(m, MRA_SERVICE_TIMEOUT)) +
		  cm_time_ms(id->av_timeout);
	if (id->state == CM_REQ_SENT && mraed == 0) {
		id->remote_id = cm_get(m, MRA_LOCAL_COMM_ID);
		cm_set_state(id, CM_MRA_REQ_RCVD);
	} else if (id->state == CM_REP_SENT && mraed == 1 &&
		   id->remote_id == cm_get(m, MRA_LOCAL_COMM_ID)) {
		cm_set_state(id, CM_MRA_REP_RCVD);
	} else if (id->state != CM_MRA_REQ_RCVD &&
		   id->state != CM_MRA_REP_RCVD) {
		cm_count(&cm_counters.dropped);
		cm_finish(id, NULL);
		return;
	}
	if (id->msg)
		ibx_mad_modify_send(id->msg, timeout);
	cm_finish(id, NULL);
}

static void cm_dreq_rcvd(struct cm_port *port, const struct ibx_mad_recv *r)
{
	const u8 *m = r->mad->data;
	u32 local = cm_get(m, DREQ_REMOTE_COMM_ID);
	u32 remote = cm_get(m, DREQ_LOCAL_COMM_ID);
	struct cm_id *id = cm_lookup_local(local);
	struct cm_work *w = NULL;

	if (!id || id->remote_id != remote) {
		/* Long gone: the peer still wants its DREP (IBA 12.9.7.8). */
		if (id)
			cm_put_id(id);
		cm_count(&cm_counters.unowned);
		cm_reply_unowned(port, r, CM_DREP_ATTR, local, remote, 0);
		return;
	}
	mutex_lock(&id->mutex);
	if (cm_get(m, DREQ_REMOTE_QPN_EECN) != id->local_qpn) {
		cm_count(&cm_counters.dropped);
		cm_finish(id, NULL);
		return;
	}
	switch (id->state) {
	case CM_REP_SENT:
	case CM_MRA_REP_RCVD:
	case CM_DREQ_SENT:
		cm_cancel_msg(id);
		fallthrough;
	case CM_ESTABLISHED:
		cm_set_state(id, CM_DREQ_RCVD);
		w = cm_new_work(CM_EV_DREQ_RCVD, m + DREQ_PRIVATE_DATA.off,
				CM_DREQ_PDATA);
		break;
	case CM_TIMEWAIT:
		cm_count(&cm_counters.duplicates);
		cm_send_drep_locked(id);
		break;
	default:
		cm_count(&cm_counters.duplicates);
		break;
	}
	cm_finish(id, w);
}

static void cm_drep_rcvd(const u8 *m)
{
	struct cm_id *id = cm_acquire(cm_get(m, DREP_REMOTE_COMM_ID),
				      cm_get(m, DREP_LOCAL_COMM_ID), false);
	struct cm_work *w = NULL;

	if (!id)
		return;
	mutex_lock(&id->mutex);
	if (id->state == CM_DREQ_SENT || id->state == CM_DREQ_RCVD) {
		cm_enter_timewait(id);
		w = cm_new_work(CM_EV_DREP_RCVD, m + DREP_PRIVATE_DATA.off,
				CM_DREP_PDATA);
	}
	cm_finish(id, w);
}

static void cm_sidr_req_rcvd(struct cm_port *port,
			     const struct ibx_mad_recv *r)
{
	const u8 *m = r->mad->data;
	u32 remote_id = cm_get(m, SIDR_REQ_REQUEST_ID);
	/* A SIDR_REQ has no CA GUID: its sender is its GID. */
	__be64 who = r->sgid.global.interface_id;
	struct cm_work *w;
	struct cm_id *id;

	id = cm_lookup_remote_id(remote_id, who);
	if (id) {
		cm_count(&cm_counters.duplicates);	/* still being answered */
		cm_put_id(id);
		return;
	}
	id = cm_new_passive(port, CM_EV_SIDR_REQ_RCVD,
			    m + SIDR_REQ_PRIVATE_DATA.off, CM_SIDR_REQ_PDATA,
			    &w);
	if (!id)
		return;
	id->sidr = true;
	id->remote_id = remote_id;
	id->remote_guid = who;
	id->service_id = cm_get_be64(m, SIDR_REQ_SERVICE_ID);
	id->av = r->ah_attr;
	id->msg_av = r->ah_attr;
	cm_insert_remote(id, true, false);
	cm_set_state(id, CM_SIDR_REQ_RCVD);
	w->ev.dev = port->cmdev->dev;
	w->ev.port = port->port_num;
	w->ev.service_id = id->service_id;
	w->ev.sgid_index = r->ah_attr.sgid_index;
	w->ev.path.sgid = r->dgid;
	w->ev.path.dgid = r->sgid;
	w->ev.path.hop_limit = r->ah_attr.hop_limit;
	cm_finish_new(id, w);
}

static void cm_sidr_rep_rcvd(const u8 *m)
{
	struct cm_id *id = cm_acquire(cm_get(m, SIDR_REP_REQUEST_ID), 0, true);
	struct cm_work *w = NULL;

	if (!id)
		return;
	mutex_lock(&id->mutex);
	if (id->state == CM_SIDR_REQ_SENT) {
		cm_cancel_msg(id);
		cm_set_state(id, CM_IDLE);
		w = cm_new_work(CM_EV_SIDR_REP_RCVD,
				m + SIDR_REP_PRIVATE_DATA.off,
				CM_SIDR_REP_PDATA);
		if (w) {
			w->ev.sidr_status = cm_get(m, SIDR_REP_STATUS);
			w->ev.remote_qpn = cm_get(m, SIDR_REP_QPN);
			w->ev.qkey = cm_get(m, SIDR_REP_Q_KEY);
		}
	} else {
		cm_count(&cm_counters.duplicates);
	}
	cm_finish(id, w);
}

void cm_recv_handler(struct ibx_mad_agent *agent, struct ibx_mad_recv *r)
{
	struct cm_port *port = agent->context;
	const u8 *m = r->mad->data;

	/* Every CM message fills the MAD (IBA 12.6): shorter is malformed. */
	if (r->mad_len < IBX_MAD_SIZE || port->cmdev->going_down) {
		cm_count(&cm_counters.dropped);
		return;
	}
	cm_count(&cm_counters.rcvd);
	switch (be16_to_cpu(r->mad->hdr.attr_id)) {
	case CM_REQ_ATTR:
		cm_req_rcvd(port, r);
		break;
	case CM_MRA_ATTR:
		cm_mra_rcvd(m);
		break;
	case CM_REJ_ATTR:
		cm_rej_rcvd(m);
		break;
	case CM_REP_ATTR:
		cm_rep_rcvd(m);
		break;
	case CM_RTU_ATTR:
		cm_rtu_rcvd(m);
		break;
	case CM_DREQ_ATTR:
		cm_dreq_rcvd(port, r);
		break;
	case CM_DREP_ATTR:
		cm_drep_rcvd(m);
		break;
	case CM_SIDR_REQ_ATTR:
		cm_sidr_req_rcvd(port, r);
		break;
	case CM_SIDR_REP_ATTR:
		cm_sidr_rep_rcvd(m);
		break;
	default:
		/* LAP/APR (alternate paths) and unknown attributes. */
		cm_count(&cm_counters.dropped);
	}
}

/* A message that waited for an answer is done: the outcome, by state. */
void cm_send_handler(struct ibx_mad_agent *agent, struct ibx_mad_send *send)
{
	struct cm_id *id = send->context;
	enum cm_event_type type;
	struct cm_work *w = NULL;

	if (!id) {
		ibx_mad_free_send(send);	/* sent once, answered or not */
		return;
	}
	mutex_lock(&id->mutex);
	if (id->msg != send || send->status == -ECANCELED || !send->status) {
		if (id->msg == send)
			id->msg = NULL;
		goto out;
	}
	id->msg = NULL;
	cm_count(&cm_counters.timeouts);
	switch (id->state) {
	case CM_REQ_SENT:
	case CM_MRA_REQ_RCVD:
		type = CM_EV_REQ_ERROR;
		cm_set_state(id, CM_IDLE);
		break;
	case CM_REP_SENT:
	case CM_MRA_REP_RCVD:
		type = CM_EV_REP_ERROR;
		cm_set_state(id, CM_IDLE);
		break;
	case CM_DREQ_SENT:
		type = CM_EV_DREQ_ERROR;
		cm_enter_timewait(id);
		break;
	case CM_SIDR_REQ_SENT:
		type = CM_EV_SIDR_REQ_ERROR;
		cm_set_state(id, CM_IDLE);
		break;
	default:
		goto out;
	}
	w = cm_new_work(type, NULL, 0);
out:
	ibx_mad_free_send(send);
	/* Drops the reference the send held. */
	cm_finish(id, w);
}

/* rdma_notify(IBV_EVENT_COMM_EST): data came before the RTU (12.9.7.3). */
int cm_notify(struct cm_id *id, u32 event)
{
	struct cm_work *w = NULL;
	int ret = 0;

	if (event != IBX_EVENT_COMM_EST)
		return -EINVAL;
	mutex_lock(&id->mutex);
	switch (id->state) {
	case CM_REP_SENT:
	case CM_MRA_REP_RCVD:
		cm_cancel_msg(id);
		cm_set_state(id, CM_ESTABLISHED);
		w = cm_new_work(CM_EV_ESTABLISHED, NULL, 0);
		break;
	case CM_ESTABLISHED:
		break;
	default:
		ret = -EINVAL;
	}
	if (w)
		cm_queue_event(id, w);
	mutex_unlock(&id->mutex);
	/* The caller holds its own locks: deliver from a work item. */
	if (w)
		cm_schedule_events(id);
	return ret;
}
