/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cma_priv.h - the connection manager ids (cma.c, addr.c, cma_mcast.c) and
 * the user ABI contexts on top of them (ucma.c), as the in-tree rdma_cm
 * and rdma_ucm split them.
 *
 * Layering: a cma_id knows nothing of files.  It reports what happens to
 * it through its event handler, which ucma.c turns into queued
 * rdma_ucm_event_resp records.  Below it the IB CM (cm.h) exchanges the
 * connection messages; cma_conn.c joins the two.
 *
 * Locking:
 *  - cma_id->lock (mutex) serializes every state change of one id, its
 *    work items and its event handler calls; the handler runs with it held.
 *  - ucma_file->mut protects the file's event and context lists; it nests
 *    inside cma_id->lock (the handler queues events under it).
 *  - cma_bind_lock protects the port tables (cma_port.c); taken inside
 *    cma_id->lock.
 *  - cma_dev_lock protects the device list and each device's id list;
 *    taken inside cma_id->lock, never the other way round (device removal
 *    takes a reference on each id, drops cma_dev_lock, then locks the id).
 *  - The CM calls cma_id handlers with no CM lock held, and an id's CM
 *    calls may be made under cma_id->lock, except cm_destroy_id(), which
 *    waits for the CM's handler and so is called after dropping it.
 */
#ifndef IBX_CMA_PRIV_H
#define IBX_CMA_PRIV_H

#include <linux/version.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/socket.h>
#include <linux/workqueue.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/completion.h>
#include <linux/wait.h>
#include <rdma/rdma_user_cm.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include "ibx_core.h"
#include "cm.h"

/* The Q_Key of rdma_cm UD ids (PS_UDP/PS_IPOIB), as upstream RDMA_UDP_QKEY. */
#define CMA_UDP_QKEY		0x01234567
/* The multicast QPN of UD sends (IBA 10.8.3: 0xFFFFFF). */
#define CMA_MCAST_QPN		0xFFFFFF
/* RoCE packet life time of a resolved path (upstream CMA_IBOE_PACKET_LIFETIME). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
#define CMA_IBOE_PACKET_LIFETIME 18
#else
#define CMA_IBOE_PACKET_LIFETIME 16
#endif
/* QUERY_PORT's state of an active port (IBA 14.2.5.6, enum ib_port_state). */
#define CMA_PORT_ACTIVE		4
/* Neighbour resolution is retried at this period until the timeout. */
#define CMA_ADDR_RETRY_MS	50

/* Event numbers of rdma_ucm_event_resp.event (enum rdma_cm_event_type). */
enum {
	RDMA_CM_EVENT_ADDR_RESOLVED,
	RDMA_CM_EVENT_ADDR_ERROR,
	RDMA_CM_EVENT_ROUTE_RESOLVED,
	RDMA_CM_EVENT_ROUTE_ERROR,
	RDMA_CM_EVENT_CONNECT_REQUEST,
	RDMA_CM_EVENT_CONNECT_RESPONSE,
	RDMA_CM_EVENT_CONNECT_ERROR,
	RDMA_CM_EVENT_UNREACHABLE,
	RDMA_CM_EVENT_REJECTED,
	RDMA_CM_EVENT_ESTABLISHED,
	RDMA_CM_EVENT_DISCONNECTED,
	RDMA_CM_EVENT_DEVICE_REMOVAL,
	RDMA_CM_EVENT_MULTICAST_JOIN,
	RDMA_CM_EVENT_MULTICAST_ERROR,
	RDMA_CM_EVENT_ADDR_CHANGE,
	RDMA_CM_EVENT_TIMEWAIT_EXIT,
};

/* The id state machine (upstream enum rdma_cm_state, same order). */
enum cma_state {
	CMA_IDLE,
	CMA_ADDR_QUERY,
	CMA_ADDR_RESOLVED,
	CMA_ROUTE_QUERY,
	CMA_ROUTE_RESOLVED,
	CMA_CONNECT,
	CMA_DISCONNECT,
	CMA_ADDR_BOUND,
	CMA_LISTEN,
	CMA_DEVICE_REMOVAL,
	CMA_DESTROYING,
};

const char *cma_state_name(enum cma_state state);

/* An RDMA device known to the CMA (one per ibx_client add()). */
struct cma_device {
	struct ibx_device *dev;		/* valid until client remove() */
	struct list_head node;		/* in cma_dev_list */
	struct list_head ids;		/* cma_id.dev_node of the ids bound to it */
};

/* One multicast membership of an id. */
struct cma_mcast {
	struct cma_id *id;		/* the UD id that joined */
	struct list_head node;		/* in cma_id.mcasts, under id->lock */
	struct sockaddr_storage addr;	/* the group */
	union ibx_gid mgid;		/* ::ffff:group (IPv4) or the group */
	u8 join_state;			/* RDMA_MC_JOIN_FLAG_* */
	bool igmp;			/* ip_mc_inc_group() done: dec on leave */
	bool left;			/* left: its work item reports nothing */
	void *context;			/* the ucma_multicast */
	struct work_struct work;	/* delivers MULTICAST_JOIN */
};

/* What the CMA reports to its user (ucma.c). */
struct cma_event {
	u32 event;			/* RDMA_CM_EVENT_* values (ucma numbering) */
	int status;			/* 0 or a negative errno / CM reason */
	struct cma_mcast *mc;		/* MULTICAST_JOIN/ERROR only */
	struct cma_id *new_id;		/* CONNECT_REQUEST: the passive id */
	union {				/* as rdma_ucm_event_resp.param */
		struct rdma_ucm_conn_param conn;	/* RC ids */
		struct rdma_ucm_ud_param ud;		/* UD ids, multicast */
	} param;
};

struct cma_id;
/*
 * Called with the id's lock held.  Return 0; for CONNECT_REQUEST an errno
 * refuses the connection (the CM rejects it and destroys new_id's CM id).
 */
typedef int (*cma_event_handler)(struct cma_id *id, struct cma_event *ev);

struct cma_id {
	struct mutex lock;		/* see the locking rules above */
	struct net *net;		/* its namespace, referenced */
	enum cma_state state;
	atomic_t refs;			/* the owner + device removal in flight */
	struct completion done;		/* refs reached 0 */
	cma_event_handler handler;	/* called with lock held */
	void *context;			/* the ucma_context */
	u16 ps;				/* RDMA_PS_* */
	u8 qp_type;			/* IB_UVERBS_QPT_RC or _UD */
	u32 qkey;			/* CMA_UDP_QKEY for UD ids */
	u32 seq_num;			/* random initial PSN (24 bits) */

	struct sockaddr_storage src;	/* bound/resolved source (port too) */
	struct sockaddr_storage dst;	/* destination once resolving */

	/* The port reservation (cma_port.c), under cma_bind_lock. */
	struct cma_bind *bind;		/* NULL: no port reserved */
	struct hlist_node bind_node;	/* in bind->owners */
	bool reuseaddr;			/* RDMA_OPTION_ID_REUSEADDR */
	bool afonly;			/* RDMA_OPTION_ID_AFONLY */
	bool afonly_set;
	int backlog;			/* LISTEN backlog */

	/* The device binding, set once the source GID is found. */
	struct cma_device *cdev;	/* NULL: not bound to a device */
	struct list_head dev_node;	/* in cdev->ids, under cma_dev_lock */
	u8 port;			/* 1-based port of cdev */
	u8 sgid_index;			/* GID table index of the source */
	int ifindex;			/* the netdev of the source GID */
	u8 dmac[ETH_ALEN];		/* destination MAC (resolved) */
	u8 hop_limit;			/* from the route (64 normally) */
	bool gateway;			/* routed through a gateway */

	/* Options. */
	u8 tos;				/* RDMA_OPTION_ID_TOS */
	bool tos_set;
	u8 ack_timeout;			/* RDMA_OPTION_ID_ACK_TIMEOUT, 0: unset */

	/* Route. */
	struct cm_path path;
	bool path_valid;

	/* Asynchronous work (all cancelled by cma_destroy_id). */
	struct delayed_work addr_work;	/* address resolution and retries */
	unsigned long addr_deadline;	/* jiffies at which it gives up */
	struct work_struct route_work;	/* ROUTE_RESOLVED delivery */
	struct work_struct addr_change_work;	/* ADDR_CHANGE, holds a ref */
	struct list_head mcasts;	/* cma_mcast.node */

	/* The connection: its IB CM id from CONNECT or a REQ, until destroy. */
	struct cm_id *cm;
};

/* cma.c */
struct cma_id *cma_create_id(struct net *net, u16 ps, u8 qp_type,
			     cma_event_handler handler, void *context);
void cma_destroy_id(struct cma_id *id);
int cma_bind_addr(struct cma_id *id, const struct sockaddr *addr);
int cma_listen(struct cma_id *id, int backlog);
int cma_resolve_route(struct cma_id *id, unsigned long timeout_ms);
int cma_set_option(struct cma_id *id, u32 level, u32 name, const void *val,
		   size_t len);
int cma_init_qp_attr(struct cma_id *id, u32 qp_state,
		     struct ib_uverbs_qp_attr *attr);
int cma_connect(struct cma_id *id, const struct rdma_ucm_conn_param *p);
int cma_accept(struct cma_id *id, const struct rdma_ucm_conn_param *p);
int cma_reject(struct cma_id *id, const void *pdata, u8 len, u8 reason);
int cma_disconnect(struct cma_id *id);
int cma_notify(struct cma_id *id, u32 event);
struct net *cma_req_net(struct ibx_device *dev, u32 port,
			const struct sockaddr *local);
void cma_fill_ah_attr(struct cma_id *id, const union ibx_gid *dgid,
		      struct ib_uverbs_ah_attr *ah);
int cma_device_index(struct cma_id *id);
u64 cma_node_guid(struct cma_id *id);	/* raw big-endian; 0 if unbound */
void cma_id_counts(unsigned int *ids, unsigned int *mcasts);
int cma_acquire_dev(struct cma_id *id, const struct sockaddr *src,
		    int ifindex);
void cma_release_dev(struct cma_id *id);
int cma_bind_loopback(struct cma_id *id);
void cma_remove_device(struct cma_device *cdev);
void cma_netdev_changed(struct net_device *ndev);
extern struct mutex cma_dev_lock;
extern struct list_head cma_dev_list;
extern atomic_t cma_id_count;
extern atomic_t cma_mcast_count;

/* addr.c */
int cma_resolve_addr(struct cma_id *id, const struct sockaddr *src,
		     const struct sockaddr *dst, unsigned long timeout_ms);
void cma_addr_work(struct work_struct *work);
void cma_ip_to_gid(const struct sockaddr *addr, union ibx_gid *gid);
enum ibx_mtu cma_netdev_mtu(int mtu);

/* cma_mcast.c */
int cma_join_multicast(struct cma_id *id, const struct sockaddr *addr,
		       u8 join_state, void *context, struct cma_mcast **mcp);
void cma_leave_multicast(struct cma_id *id, struct cma_mcast *mc);
void cma_leave_all(struct cma_id *id);	/* without id->lock */

int cma_set_ib_path(struct cma_id *id, const struct cm_path *path);
void cma_id_put(struct cma_id *id);
int cma_translate_ip(struct net *net, const struct sockaddr *addr);

/* cma_port.c: port spaces, per network namespace */
bool cma_any_addr(const struct sockaddr *a);	/* wildcard or loopback */
bool cma_zero_addr(const struct sockaddr *a);
int cma_get_port(struct cma_id *id);
void cma_release_port(struct cma_id *id);
int cma_check_listen_port(struct cma_id *id);
struct cma_id *cma_find_listener(struct net *net, u16 ps, u16 port,
				 const struct sockaddr *local);
ssize_t cma_show_listeners(char *buf);	/* the reader's namespace */
int cma_port_init(void);
void cma_port_exit(void);

/* cma_conn.c */
int cma_req_handler(struct cm_id *cm, const struct cm_event *ev);
struct cm_id *cma_take_cm(struct cma_id *id);

static inline size_t cma_addr_size(const struct sockaddr *a)
{
	return a->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
	       sizeof(struct sockaddr_in);
}

static inline __be16 cma_port(const struct sockaddr *a)
{
	return a->sa_family == AF_INET6 ?
	       ((const struct sockaddr_in6 *)a)->sin6_port :
	       ((const struct sockaddr_in *)a)->sin_port;
}

static inline void cma_set_port(struct sockaddr *a, __be16 port)
{
	if (a->sa_family == AF_INET6)
		((struct sockaddr_in6 *)a)->sin6_port = port;
	else
		((struct sockaddr_in *)a)->sin_port = port;
}

#endif /* IBX_CMA_PRIV_H */
