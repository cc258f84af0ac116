// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cm.c - the IB CM's ids: their lifetime, the tables that find them from a
 * received message, ordered event delivery, destruction as IBA 12.9 says,
 * timewait, and the devices (an ibx client registering a CM agent on each
 * port's QP1).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/random.h>
#include <linux/xarray.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/sched.h>
#include "cm_priv.h"

static const char *const cm_state_names[] = {
	[CM_IDLE] = "IDLE",
	[CM_REQ_SENT] = "REQ_SENT",
	[CM_REQ_RCVD] = "REQ_RCVD",
	[CM_MRA_REQ_SENT] = "MRA_REQ_SENT",
	[CM_MRA_REQ_RCVD] = "MRA_REQ_RCVD",
	[CM_REP_SENT] = "REP_SENT",
	[CM_REP_RCVD] = "REP_RCVD",
	[CM_MRA_REP_SENT] = "MRA_REP_SENT",
	[CM_MRA_REP_RCVD] = "MRA_REP_RCVD",
	[CM_ESTABLISHED] = "ESTABLISHED",
	[CM_DREQ_SENT] = "DREQ_SENT",
	[CM_DREQ_RCVD] = "DREQ_RCVD",
	[CM_TIMEWAIT] = "TIMEWAIT",
	[CM_SIDR_REQ_SENT] = "SIDR_REQ_SENT",
	[CM_SIDR_REQ_RCVD] = "SIDR_REQ_RCVD",
};

const char *cm_state_name(enum cm_state state)
{
	if (state < ARRAY_SIZE(cm_state_names) && cm_state_names[state])
		return cm_state_names[state];
	return "?";
}

static const char *const cm_event_names[] = {
	[CM_EV_REQ_RCVD] = "REQ_RCVD",
	[CM_EV_REP_RCVD] = "REP_RCVD",
	[CM_EV_ESTABLISHED] = "ESTABLISHED",
	[CM_EV_REJ_RCVD] = "REJ_RCVD",
	[CM_EV_REQ_ERROR] = "REQ_ERROR",
	[CM_EV_REP_ERROR] = "REP_ERROR",
	[CM_EV_DREQ_RCVD] = "DREQ_RCVD",
	[CM_EV_DREP_RCVD] = "DREP_RCVD",
	[CM_EV_DREQ_ERROR] = "DREQ_ERROR",
	[CM_EV_TIMEWAIT_EXIT] = "TIMEWAIT_EXIT",
	[CM_EV_SIDR_REQ_RCVD] = "SIDR_REQ_RCVD",
	[CM_EV_SIDR_REP_RCVD] = "SIDR_REP_RCVD",
	[CM_EV_SIDR_REQ_ERROR] = "SIDR_REQ_ERROR",
};

const char *cm_event_name(enum cm_event_type type)
{
	if (type < ARRAY_SIZE(cm_event_names) && cm_event_names[type])
		return cm_event_names[type];
	return "?";
}

/* ---- tables ---- */

DEFINE_SPINLOCK(cm_table_lock);
static DEFINE_XARRAY_ALLOC1(cm_local_ids);
static u32 cm_next_local_id;
static DEFINE_HASHTABLE(cm_remote_ids, 10);
static DEFINE_HASHTABLE(cm_remote_qpns, 10);
static cm_handler cm_consumer;
static atomic_t cm_id_count = ATOMIC_INIT(0);

/* Live CM ids, those in timewait included (sysfs ibx_cm "ids"). */
int cm_live_ids(void)
{
	return atomic_read(&cm_id_count);
}

static u32 cm_remote_hash(u32 v, __be64 guid)
{
	return jhash_3words(v, (__force u64)guid >> 32, (__force u32)guid, 0);
}

static void cm_timewait_work(struct work_struct *work);
static void cm_deliver_work(struct work_struct *work);

struct cm_id *cm_alloc_id(cm_handler handler, void *context)
{
	struct cm_id *id = kzalloc(sizeof(*id), GFP_KERNEL);
	int ret;

	if (!id)
		return ERR_PTR(-ENOMEM);
	mutex_init(&id->mutex);
	id->state = CM_IDLE;
	refcount_set(&id->ref, 1);
	id->handler = handler;
	id->context = context;
	spin_lock_init(&id->ev_lock);
	INIT_LIST_HEAD(&id->events);
	init_waitqueue_head(&id->wait);
	INIT_LIST_HEAD(&id->dev_node);
	INIT_HLIST_NODE(&id->remote_id_node);
	INIT_HLIST_NODE(&id->remote_qpn_node);
	INIT_DELAYED_WORK(&id->timewait_work, cm_timewait_work);
	INIT_WORK(&id->deliver_work, cm_deliver_work);
	/* Cyclic from a random start: a peer never sees a recent id again. */
	ret = xa_alloc_cyclic(&cm_local_ids, &id->local_id, id, xa_limit_32b,
			      &cm_next_local_id, GFP_KERNEL);
	if (ret < 0) {
		kfree(id);
		return ERR_PTR(ret);
	}
	atomic_inc(&cm_id_count);
	return id;
}

struct cm_id *cm_create_id(cm_handler handler, void *context)
{
	return cm_alloc_id(handler, context);
}

void cm_set_handler(struct cm_id *id, cm_handler handler, void *context)
{
	id->handler = handler;
	id->context = context;
}

void *cm_context(struct cm_id *id)
{
	return id->context;
}

cm_handler cm_req_consumer(void)
{
	return cm_consumer;
}

static void cm_remove_remote(struct cm_id *id)
{
	spin_lock(&cm_table_lock);
	if (id->in_remote_id)
		hash_del(&id->remote_id_node);
	if (id->in_remote_qpn)
		hash_del(&id->remote_qpn_node);
	id->in_remote_id = id->in_remote_qpn = false;
	spin_unlock(&cm_table_lock);
}

void cm_put_id(struct cm_id *id)
{
	if (!refcount_dec_and_test(&id->ref))
		return;
	cm_remove_remote(id);
	spin_lock(&cm_table_lock);
	list_del_init(&id->dev_node);	/* device removal may have done it */
	spin_unlock(&cm_table_lock);
	xa_erase(&cm_local_ids, id->local_id);
	WARN_ON(!list_empty(&id->events));
	atomic_dec(&cm_id_count);
	kfree(id);
}

/* Lookups take a reference the caller drops with cm_put_id(). */
static struct cm_id *cm_ref(struct cm_id *id)
{
	return id && refcount_inc_not_zero(&id->ref) ? id : NULL;
}

struct cm_id *cm_lookup_local(u32 local_id)
{
	struct cm_id *id;

	spin_lock(&cm_table_lock);
	id = cm_ref(xa_load(&cm_local_ids, local_id));
	spin_unlock(&cm_table_lock);
	return id;
}

struct cm_id *cm_lookup_remote_id(u32 remote_id, __be64 guid)
{
	struct cm_id *id, *found = NULL;

	spin_lock(&cm_table_lock);
	hash_for_each_possible(cm_remote_ids, id, remote_id_node,
			       cm_remote_hash(remote_id, guid)) {
		if (id->remote_id == remote_id && id->remote_guid == guid) {
			found = cm_ref(id);
			break;
		}
	}
	spin_unlock(&cm_table_lock);
	return found;
}

struct cm_id *cm_lookup_remote_qpn(u32 remote_qpn, __be64 guid)
{
	struct cm_id *id, *found = NULL;

	spin_lock(&cm_table_lock);
	hash_for_each_possible(cm_remote_qpns, id, remote_qpn_node,
			       cm_remote_hash(remote_qpn, guid)) {
		if (id->remote_qpn == remote_qpn && id->remote_guid == guid) {
			found = cm_ref(id);
			break;
		}
	}
	spin_unlock(&cm_table_lock);
	return found;
}

/*
 * Makes @id findable by the peer's communication ID (duplicate REQs) and
 * by the peer's QP (stale connections, IBA 12.9.8.3.1).
 */
void cm_insert_remote(struct cm_id *id, bool by_id, bool by_qpn)
{
	spin_lock(&cm_table_lock);
	if (by_id && !id->in_remote_id) {
		hash_add(cm_remote_ids, &id->remote_id_node,
			 cm_remote_hash(id->remote_id, id->remote_guid));
		id->in_remote_id = true;
	}
	if (by_qpn && !id->in_remote_qpn) {
		hash_add(cm_remote_qpns, &id->remote_qpn_node,
			 cm_remote_hash(id->remote_qpn, id->remote_guid));
		id->in_remote_qpn = true;
	}
	spin_unlock(&cm_table_lock);
}

/* Ties @id to the port its messages use; -ENODEV if it is going away. */
int cm_bind_port(struct cm_id *id, struct cm_port *port)
{
	int ret = 0;

	spin_lock(&cm_table_lock);
	if (port->cmdev->going_down) {
		ret = -ENODEV;
	} else if (!id->port) {
		id->port = port;
		list_add_tail(&id->dev_node, &port->cmdev->ids);
	}
	spin_unlock(&cm_table_lock);
	return ret;
}

/* State changes with id->mutex held; IDLE ends the connection's lookups. */
void cm_set_state(struct cm_id *id, enum cm_state state)
{
	lockdep_assert_held(&id->mutex);
	pr_debug("id %#x: %s -> %s\n", id->local_id,
		 cm_state_name(id->state), cm_state_name(state));
	id->state = state;
	if (state == CM_IDLE)
		cm_remove_remote(id);
}

/* ---- events ---- */

struct cm_work *cm_new_work(enum cm_event_type type, const void *pdata,
			    u8 len)
{
	struct cm_work *w = kzalloc(sizeof(*w), GFP_KERNEL);

	if (!w)
		return NULL;
	w->ev.type = type;
	if (pdata) {
		memcpy(w->ev.private_data, pdata, len);
		w->ev.private_data_len = len;
	}
	return w;
}

static void cm_deliver(struct cm_id *id);

/*
 * Queues @w for @id's handler, with id->mutex held, so that events keep
 * the order of the state changes that made them.  The caller delivers
 * once it has dropped the mutex (cm_flush_events()).
 */
void cm_queue_event(struct cm_id *id, struct cm_work *w)
{
	lockdep_assert_held(&id->mutex);
	if (!w) {
		pr_warn_ratelimited("id %#x: an event was lost (no memory)\n",
				    id->local_id);
		return;
	}
	spin_lock(&id->ev_lock);
	if (id->dead) {
		spin_unlock(&id->ev_lock);
		kfree(w);
		return;
	}
	list_add_tail(&w->node, &id->events);
	spin_unlock(&id->ev_lock);
}

/*
 * Runs @id's queued events unless another thread does: one deliverer at a
 * time keeps them in order.  No CM lock may be held.
 */
void cm_flush_events(struct cm_id *id)
{
	spin_lock(&id->ev_lock);
	if (id->delivering || list_empty(&id->events)) {
		spin_unlock(&id->ev_lock);
		return;
	}
	id->delivering = true;
	id->deliverer = current;
	spin_unlock(&id->ev_lock);
	cm_deliver(id);
}

static void cm_deliver_work(struct work_struct *work)
{
	struct cm_id *id = container_of(work, struct cm_id, deliver_work);

	cm_flush_events(id);
	cm_put_id(id);
}

/* For events queued by a call down, whose caller may hold its own locks. */
void cm_schedule_events(struct cm_id *id)
{
	refcount_inc(&id->ref);
	if (!queue_work(system_wq, &id->deliver_work))
		cm_put_id(id);
}

/*
 * The consumer has no listener for a new passive id: the IBA answer is
 * REJ "invalid service ID" (12.6.7.2) or SIDR_REP "unsupported" (12.11).
 */
static void cm_reject_unclaimed(struct cm_id *id)
{
	struct cm_rep_param unsupported = { .sidr_status = CM_SIDR_UNSUPPORTED };

	mutex_lock(&id->mutex);
	if (id->state == CM_REQ_RCVD)
		cm_send_rej_locked(id, CM_REJ_INVALID_SERVICE_ID, NULL, 0,
				   NULL, 0);
	else if (id->state == CM_SIDR_REQ_RCVD)
		cm_send_sidr_rep_locked(id, &unsupported);
	cm_set_state(id, CM_IDLE);
	mutex_unlock(&id->mutex);
}

static void cm_deliver(struct cm_id *id)
{
	struct cm_work *w;
	int ret;

	refcount_inc(&id->ref);
	for (;;) {
		spin_lock(&id->ev_lock);
		w = list_first_entry_or_null(&id->events, struct cm_work, node);
		if (!w || id->dead) {
			id->delivering = false;
			id->deliverer = NULL;
			spin_unlock(&id->ev_lock);
			wake_up(&id->wait);
			break;
		}
		list_del(&w->node);
		spin_unlock(&id->ev_lock);
		pr_debug("id %#x: event %s\n", id->local_id,
			 cm_event_name(w->ev.type));
		/* A new passive id's first event goes to the consumer. */
		if (w->ev.type == CM_EV_REQ_RCVD ||
		    w->ev.type == CM_EV_SIDR_REQ_RCVD) {
			ret = cm_consumer ? cm_consumer(id, &w->ev) : -ENOENT;
			if (ret == -ENOENT)
				cm_reject_unclaimed(id);
		} else
			ret = id->handler ? id->handler(id, &w->ev) : 0;
		kfree(w);
		if (ret)
			cm_destroy_id(id);
	}
	cm_put_id(id);
}

/* ---- destruction and timewait ---- */

static void cm_timewait_work(struct work_struct *work)
{
	struct cm_id *id = container_of(to_delayed_work(work), struct cm_id,
					timewait_work);

	mutex_lock(&id->mutex);
	id->timewait_queued = false;
	if (id->state == CM_TIMEWAIT) {
		cm_set_state(id, CM_IDLE);
		cm_queue_event(id, cm_new_work(CM_EV_TIMEWAIT_EXIT, NULL, 0));
	}
	mutex_unlock(&id->mutex);
	cm_flush_events(id);
	cm_put_id(id);
}

/*
 * Time-wait (IBA 12.9.7.7): the QP number stays known to the peer for
 * about one local ACK timeout, so that a new REQ reusing it is refused as
 * stale instead of meeting packets of the old connection.
 */
void cm_enter_timewait(struct cm_id *id)
{
	cm_cancel_msg(id);
	cm_set_state(id, CM_TIMEWAIT);
	if (id->timewait_queued)
		return;
	id->timewait_queued = true;
	refcount_inc(&id->ref);
	queue_delayed_work(system_wq, &id->timewait_work,
			   msecs_to_jiffies(cm_time_ms(id->av_timeout)));
}

/* What ending @id sends, by state (upstream cm_destroy_id, IBA 12.9.7). */
static void cm_end_exchange(struct cm_id *id)
{
	__be64 guid;

	switch (id->state) {
	case CM_REQ_SENT:
	case CM_MRA_REQ_RCVD:
		/* IBA 12.9.7.1: a REQ given up on is rejected as timed out. */
		guid = id->port->cmdev->guid;
		cm_reject_locked(id, CM_REJ_TIMEOUT, &guid, sizeof(guid),
				 NULL, 0);
		break;
	case CM_REQ_RCVD:
	case CM_MRA_REQ_SENT:
	case CM_REP_RCVD:
	case CM_MRA_REP_SENT:
	case CM_REP_SENT:
	case CM_MRA_REP_RCVD:
		cm_reject_locked(id, CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
		break;
	case CM_ESTABLISHED:
		cm_send_dreq_locked(id);
		cm_enter_timewait(id);
		break;
	case CM_DREQ_SENT:
		cm_enter_timewait(id);
		break;
	case CM_DREQ_RCVD:
		cm_send_drep_locked(id);
		cm_enter_timewait(id);
		break;
	case CM_SIDR_REQ_SENT:
		cm_cancel_msg(id);
		cm_set_state(id, CM_IDLE);
		break;
	case CM_SIDR_REQ_RCVD: {
		struct cm_rep_param rej = { .sidr_status = CM_SIDR_REJECT };

		cm_send_sidr_rep_locked(id, &rej);
		cm_set_state(id, CM_IDLE);
		break;
	}
	case CM_IDLE:
	case CM_TIMEWAIT:
		break;
	}
}

void cm_destroy_id(struct cm_id *id)
{
	struct cm_work *w, *tmp;
	LIST_HEAD(dropped);

	mutex_lock(&id->mutex);
	cm_end_exchange(id);
	mutex_unlock(&id->mutex);

	spin_lock(&id->ev_lock);
	id->dead = true;
	list_splice_init(&id->events, &dropped);
	spin_unlock(&id->ev_lock);
	list_for_each_entry_safe(w, tmp, &dropped, node)
		kfree(w);
	/* The handler may be running on another thread: let it finish. */
	if (READ_ONCE(id->deliverer) != current)
		wait_event(id->wait, !READ_ONCE(id->delivering));
	/* A connection in timewait lives on until its timer ends it. */
	cm_put_id(id);
}

/* ---- devices ---- */

static struct ibx_client cm_client;

struct cm_port *cm_find_port(struct ibx_device *dev, u32 port_num)
{
	struct cm_device *cmdev = ibx_get_client_data(dev, &cm_client);

	if (!cmdev || port_num < 1 || port_num > dev->attr.base.phys_port_cnt)
		return NULL;
	return &cmdev->port[port_num - 1];
}

static void cm_remove_ports(struct cm_device *cmdev, u32 n)
{
	while (n--) {
		if (cmdev->port[n].agent)
			ibx_mad_unregister_agent(cmdev->port[n].agent);
		cmdev->port[n].agent = NULL;
	}
}

static int cm_add_one(struct ibx_device *dev)
{
	u32 nports = min_t(u32, dev->attr.base.phys_port_cnt, IBX_MAX_PORTS);
	struct cm_device *cmdev = kzalloc(sizeof(*cmdev), GFP_KERNEL);
	struct ibx_mad_agent *agent;
	u32 i;

	if (!cmdev)
		return -ENOMEM;
	cmdev->dev = dev;
	cmdev->guid = dev->attr.base.node_guid;
	cmdev->ack_delay = dev->attr.base.local_ca_ack_delay;
	INIT_LIST_HEAD(&cmdev->ids);
	for (i = 0; i < nports; i++) {
		cmdev->port[i].cmdev = cmdev;
		cmdev->port[i].port_num = i + 1;
		agent = ibx_mad_register_agent(dev, i + 1, IBX_MGMT_CLASS_CM,
					       IBX_CM_CLASS_VERSION,
					       cm_recv_handler,
					       cm_send_handler,
					       &cmdev->port[i]);
		if (IS_ERR(agent)) {
			pr_err("%s port %u: no CM agent (%ld)\n", dev->name,
			       i + 1, PTR_ERR(agent));
			cm_remove_ports(cmdev, i);
			kfree(cmdev);
			return PTR_ERR(agent);
		}
		cmdev->port[i].agent = agent;
	}
	ibx_set_client_data(dev, &cm_client, cmdev);
	return 0;
}

/*
 * The CMA (a later client) has destroyed its ids on @dev already; what is
 * left are connections in timewait and exchanges nobody owns any more.
 */
static void cm_remove_one(struct ibx_device *dev, void *data)
{
	struct cm_device *cmdev = data;
	struct cm_id *id;

	spin_lock(&cm_table_lock);
	cmdev->going_down = true;
	spin_unlock(&cm_table_lock);
	/* Cancels every send (their handlers drop their references). */
	cm_remove_ports(cmdev, min_t(u32, dev->attr.base.phys_port_cnt,
				     IBX_MAX_PORTS));
	for (;;) {
		/* Unlinked here: an id being freed must not touch cmdev. */
		spin_lock(&cm_table_lock);
		id = list_first_entry_or_null(&cmdev->ids, struct cm_id,
					      dev_node);
		if (id) {
			list_del_init(&id->dev_node);
			id = cm_ref(id) ?: ERR_PTR(-ENOENT);
		}
		spin_unlock(&cm_table_lock);
		if (!id)
			break;
		if (IS_ERR(id))
			continue;
		if (cancel_delayed_work_sync(&id->timewait_work))
			cm_put_id(id);
		if (cancel_work_sync(&id->deliver_work))
			cm_put_id(id);
		mutex_lock(&id->mutex);
		id->timewait_queued = false;
		cm_set_state(id, CM_IDLE);
		id->port = NULL;
		mutex_unlock(&id->mutex);
		cm_put_id(id);
	}
	kfree(cmdev);
}

static struct ibx_client cm_client = {
	.name = "ibx_cm",
	.add = cm_add_one,
	.remove = cm_remove_one,
};

int cm_init(cm_handler req_handler)
{
	cm_consumer = req_handler;
	cm_next_local_id = get_random_u32();
	return ibx_register_client(&cm_client);
}

void cm_exit(void)
{
	ibx_unregister_client(&cm_client);
	WARN_ON(atomic_read(&cm_id_count));
}
