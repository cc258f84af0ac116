// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * device.c - the devices (their list, which the wire's receive path and
 * the loopback read under RCU), their attributes, port state, the GID
 * table and counters.
 */
#include <linux/inetdevice.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include "mlx_hw.h"

LIST_HEAD(mlx_hw_devices);		/* RCU readers: loopback, wire rx */
DEFINE_SPINLOCK(mlx_hw_devices_lock);	/* list changes (main.c binds) */

/* The device bound to @ndev, for the wire's receive path; RCU held. */
struct mlx_hw_dev *mlx_hw_dev_by_ndev_rcu(struct net_device *ndev)
{
	struct mlx_hw_dev *dev;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(),
			 "mlx_hw_dev_by_ndev_rcu() without RCU");
	list_for_each_entry_rcu(dev, &mlx_hw_devices, list)
		if (dev->ndev == ndev)
			return READ_ONCE(dev->port_active) ? dev : NULL;
	return NULL;
}

/*
 * The device of @src's namespace that owns GID @gid, with its port active
 * if @active, or NULL; RCU held, which keeps it from being freed.  Another
 * namespace is reached through its netdevs, as another host: it may use
 * the same addresses.
 */
struct mlx_hw_dev *mlx_hw_local_dev(struct mlx_hw_dev *src,
				    const union ibx_gid *gid, bool active)
{
	struct net *net = mlx_hw_dev_net(src);
	struct mlx_hw_dev *dev;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(),
			 "mlx_hw_local_dev() without RCU");
	list_for_each_entry_rcu(dev, &mlx_hw_devices, list)
		if ((!active || READ_ONCE(dev->port_active)) &&
		    net_eq(mlx_hw_dev_net(dev), net) &&
		    mlx_hw_dev_has_gid(dev, gid))
			return dev;
	return NULL;
}

/* Whether @gid is a GID of a device of @src's namespace (a loopback AV). */
bool mlx_hw_gid_is_local(struct mlx_hw_dev *src, const union ibx_gid *gid)
{
	bool found;

	rcu_read_lock();
	found = mlx_hw_local_dev(src, gid, false);
	rcu_read_unlock();
	return found;
}

/* Bytes of Ethernet/IP/UDP/BTH/... overhead subtracted from the netdev MTU. */
#define MLX_HW_MAX_HDR_LEN	80

static void mlx_hw_mac_to_eui64(const u8 *mac, u8 *eui)
{
	eui[0] = mac[0] ^ 2;	/* universal/local bit, RFC 4291 appendix A */
	eui[1] = mac[1];
	eui[2] = mac[2];
	eui[3] = 0xff;
	eui[4] = 0xfe;
	eui[5] = mac[3];
	eui[6] = mac[4];
	eui[7] = mac[5];
}

/*
 * On-demand paging (odp.c): RC and XRC do every operation from and into
 * ODP memory, a responder fault answered by an RNR NAK.  UC and UD only
 * send from it: their receiver has no NAK to wait with, so a receive
 * into a page being faulted in would drop the message.
 */
static void mlx_hw_dev_init_odp_caps(struct ib_uverbs_ex_query_device_resp *a)
{
	u32 rc = IBX_ODP_SUPPORT_SEND | IBX_ODP_SUPPORT_RECV |
		 IBX_ODP_SUPPORT_WRITE | IBX_ODP_SUPPORT_READ |
		 IBX_ODP_SUPPORT_ATOMIC | IBX_ODP_SUPPORT_SRQ_RECV;

	a->odp_caps.general_caps = IBX_ODP_SUPPORT | IBX_ODP_SUPPORT_IMPLICIT;
	a->odp_caps.per_transport_caps.rc_odp_caps = rc;
	a->odp_caps.per_transport_caps.uc_odp_caps = IBX_ODP_SUPPORT_SEND;
	a->odp_caps.per_transport_caps.ud_odp_caps = IBX_ODP_SUPPORT_SEND;
	a->xrc_odp_caps = rc;
}

void mlx_hw_dev_init_attr(struct mlx_hw_dev *dev)
{
	struct ib_uverbs_query_device_resp *a = &dev->ibx.attr.base;
	u8 eui[8];

	strscpy(dev->ibx.name, "mlx_hw%d", sizeof(dev->ibx.name));
	strscpy(dev->ibx.fw_ver, "1.0.0", sizeof(dev->ibx.fw_ver));
	strscpy(dev->ibx.hca_type, "MLX_HW", sizeof(dev->ibx.hca_type));
	strscpy(dev->ibx.board_id, "IBX0000004D48", sizeof(dev->ibx.board_id));
	dev->ibx.node_type = 1;
	dev->ibx.num_comp_vectors = 1;
	dev->ibx.driver_abi_version = MLX_HW_ABI_VERSION;
	strscpy(dev->ibx.driver_id, "mlx_hw", sizeof(dev->ibx.driver_id));

	mlx_hw_mac_to_eui64(dev->mac, eui);
	memcpy(&a->node_guid, eui, sizeof(eui));
	a->sys_image_guid = a->node_guid;
	a->fw_ver = 1ull << 32;
	a->max_mr_size = MLX_HW_MAX_MR_SIZE;
	a->page_size_cap = PAGE_SIZE;
	a->vendor_id = MLX_HW_VENDOR_ID;
	a->vendor_part_id = MLX_HW_VENDOR_PART_ID;
	a->hw_ver = MLX_HW_HW_VER;
	a->max_qp = MLX_HW_MAX_QP;
	a->max_qp_wr = MLX_HW_MAX_QP_WR;
	a->device_cap_flags = IB_UVERBS_DEVICE_BAD_PKEY_CNTR |
			      IB_UVERBS_DEVICE_BAD_QKEY_CNTR |
			      IB_UVERBS_DEVICE_PORT_ACTIVE_EVENT |
			      IB_UVERBS_DEVICE_SYS_IMAGE_GUID |
			      IB_UVERBS_DEVICE_RC_RNR_NAK_GEN |
			      IB_UVERBS_DEVICE_MEM_WINDOW |
			      IB_UVERBS_DEVICE_MEM_WINDOW_TYPE_2B |
			      IB_UVERBS_DEVICE_XRC |
			      IB_UVERBS_DEVICE_AUTO_PATH_MIG;
	a->max_sge = MLX_HW_MAX_SGE;
	a->max_sge_rd = MLX_HW_MAX_SGE;
	a->max_cq = MLX_HW_MAX_CQ;
	a->max_cqe = MLX_HW_MAX_CQE;
	a->max_mr = MLX_HW_MAX_MR;
	a->max_pd = MLX_HW_MAX_PD;
	a->max_qp_rd_atom = MLX_HW_MAX_RD_ATOM;
	a->max_res_rd_atom = MLX_HW_MAX_RD_ATOM * MLX_HW_MAX_QP;
	a->max_qp_init_rd_atom = MLX_HW_MAX_INIT_RD_ATOM;
	a->atomic_cap = 1;	/* IB_ATOMIC_HCA */
	a->max_mw = MLX_HW_MAX_MR;
	a->max_mcast_grp = MLX_HW_MAX_MCAST_GRP;
	a->max_mcast_qp_attach = MLX_HW_MAX_MCAST_ATTACH;
	a->max_total_mcast_qp_attach = MLX_HW_MAX_MCAST_GRP *
				       MLX_HW_MAX_MCAST_ATTACH;
	a->max_ah = MLX_HW_MAX_QP;
	a->max_srq = MLX_HW_MAX_SRQ;
	a->max_srq_wr = MLX_HW_MAX_QP_WR;
	a->max_srq_sge = MLX_HW_MAX_SGE;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 15;
	a->phys_port_cnt = 1;
	mlx_hw_dev_init_odp_caps(&dev->ibx.attr);
}

/* Largest IB MTU that fits the netdev MTU minus RoCEv2 headers (as rxe). */
static enum ibx_mtu mlx_hw_eth_to_ib_mtu(unsigned int eth_mtu)
{
	unsigned int room = eth_mtu > MLX_HW_MAX_HDR_LEN ?
			    eth_mtu - MLX_HW_MAX_HDR_LEN : 0;
	enum ibx_mtu mtu;

	for (mtu = IBX_MTU_4096; mtu > IBX_MTU_256; mtu--)
		if (ibx_mtu_to_bytes(mtu) <= room)
			break;
	return mtu;
}

void mlx_hw_update_mtu(struct mlx_hw_dev *dev)
{
	WRITE_ONCE(dev->mtu,
		   ibx_mtu_to_bytes(mlx_hw_eth_to_ib_mtu(READ_ONCE(dev->ndev->mtu))));
}

/* IBA PortInfo encodings of LinkWidthActive and LinkSpeedActive. */
enum {
	MLX_HW_WIDTH_1X = 1, MLX_HW_WIDTH_4X = 2, MLX_HW_WIDTH_8X = 4,
	MLX_HW_WIDTH_12X = 8, MLX_HW_WIDTH_2X = 16,
	MLX_HW_SPEED_SDR = 1, MLX_HW_SPEED_DDR = 2, MLX_HW_SPEED_FDR10 = 8,
	MLX_HW_SPEED_FDR = 16, MLX_HW_SPEED_EDR = 32, MLX_HW_SPEED_HDR = 64,
	MLX_HW_SPEED_NDR = 128,
};

/*
 * An Ethernet speed without a lane count as an IB width and speed: the
 * table of Linux's ib_get_eth_speed(), so that we report what rxe reports
 * on the same netdev.
 */
static void mlx_hw_speed_from_mbps(u32 mbps, u8 *speed, u8 *width)
{
	static const struct { u32 mbps; u8 width, speed; } table[] = {
		{ SPEED_1000, MLX_HW_WIDTH_1X, MLX_HW_SPEED_SDR },
		{ SPEED_10000, MLX_HW_WIDTH_1X, MLX_HW_SPEED_FDR10 },
		{ SPEED_20000, MLX_HW_WIDTH_4X, MLX_HW_SPEED_DDR },
		{ SPEED_25000, MLX_HW_WIDTH_1X, MLX_HW_SPEED_EDR },
		{ SPEED_40000, MLX_HW_WIDTH_4X, MLX_HW_SPEED_FDR10 },
		{ SPEED_50000, MLX_HW_WIDTH_2X, MLX_HW_SPEED_EDR },
		{ SPEED_100000, MLX_HW_WIDTH_4X, MLX_HW_SPEED_EDR },
		{ SPEED_200000, MLX_HW_WIDTH_4X, MLX_HW_SPEED_HDR },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(table); i++) {
		if (mbps <= table[i].mbps) {
			*width = table[i].width;
			*speed = table[i].speed;
			return;
		}
	}
	*width = MLX_HW_WIDTH_4X;
	*speed = MLX_HW_SPEED_NDR;
}

/* A lane count and the speed per lane, for drivers that report lanes. */
static void mlx_hw_speed_from_lanes(u32 mbps, u32 lanes, u8 *speed, u8 *width)
{
	switch (lanes) {
	case 2: *width = MLX_HW_WIDTH_2X; break;
	case 4: *width = MLX_HW_WIDTH_4X; break;
	case 8: *width = MLX_HW_WIDTH_8X; break;
	case 12: *width = MLX_HW_WIDTH_12X; break;
	default: *width = MLX_HW_WIDTH_1X; break;
	}
	switch (mbps / lanes) {
	case SPEED_5000: *speed = MLX_HW_SPEED_DDR; break;
	case SPEED_10000: *speed = MLX_HW_SPEED_FDR10; break;
	case SPEED_14000: *speed = MLX_HW_SPEED_FDR; break;
	case SPEED_25000: *speed = MLX_HW_SPEED_EDR; break;
	case SPEED_50000: *speed = MLX_HW_SPEED_HDR; break;
	case SPEED_100000: *speed = MLX_HW_SPEED_NDR; break;
	default: *speed = MLX_HW_SPEED_SDR; break;
	}
}

/*
 * Port speed and width from @ndev's ethtool link settings, as Linux's
 * ib_get_eth_speed() derives them for rxe: a netdev that reports no speed
 * (dummy, virtio-net without VIRTIO_NET_F_SPEED_DUPLEX) counts as 1 Gb/s.
 * May sleep (the driver's get_link_ksettings); caller holds RTNL.
 */
void mlx_hw_eth_speed(struct net_device *ndev, u8 *speed, u8 *width)
{
	struct ethtool_link_ksettings ks = {};
	bool known;

	ASSERT_RTNL();
	known = !__ethtool_get_link_ksettings(ndev, &ks) &&
		ks.base.speed != (u32)SPEED_UNKNOWN;
	if (known && ks.lanes && ndev->ethtool_ops->cap_link_lanes_supported)
		mlx_hw_speed_from_lanes(ks.base.speed, ks.lanes, speed, width);
	else
		mlx_hw_speed_from_mbps(known ? ks.base.speed : SPEED_1000,
				       speed, width);
}

/*
 * The values query_port reports are cached here, because query_port is
 * called in contexts that cannot take RTNL; they are refreshed at bind
 * time and on the netdev's UP, DOWN and CHANGE events.
 */
void mlx_hw_set_speed(struct mlx_hw_dev *dev, u8 speed, u8 width)
{
	WRITE_ONCE(dev->active_speed, speed);
	WRITE_ONCE(dev->active_width, width);
}

static bool mlx_hw_carrier(struct mlx_hw_dev *dev)
{
	return netif_running(dev->ndev) && netif_carrier_ok(dev->ndev);
}

int mlx_hw_query_port(struct ibx_device *ibx, u32 port,
		      struct ib_uverbs_query_port_resp *attr)
{
	struct mlx_hw_dev *dev = to_mdev(ibx);
	bool up = mlx_hw_carrier(dev);

	if (port != 1)
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->port_cap_flags = 1u << 16;	/* IB_PORT_CM_SUP, as rxe */
	attr->max_msg_sz = MLX_HW_MAX_MSG_SZ;
	attr->gid_tbl_len = IBX_GID_TABLE_LEN;
	attr->pkey_tbl_len = 1;
	attr->state = up ? 4 : 1;		/* IB_PORT_ACTIVE : IB_PORT_DOWN */
	attr->max_mtu = IBX_MTU_4096;
	attr->active_mtu = mlx_hw_eth_to_ib_mtu(READ_ONCE(dev->ndev->mtu));
	attr->lmc = 0;
	attr->max_vl_num = 1;			/* VL0 */
	attr->subnet_timeout = 0;
	attr->active_width = READ_ONCE(dev->active_width);
	attr->active_speed = READ_ONCE(dev->active_speed);
	attr->phys_state = up ? 5 : 3;		/* LinkUp : Disabled */
	attr->link_layer = 2;			/* IB_LINK_LAYER_ETHERNET */
	return 0;
}

/* Reports port state changes that follow the netdev carrier. */
void mlx_hw_update_port_state(struct mlx_hw_dev *dev)
{
	bool up = mlx_hw_carrier(dev);

	if (up == READ_ONCE(dev->port_active))
		return;
	WRITE_ONCE(dev->port_active, up);
	ibx_port_event(&dev->ibx, 1,
		       up ? IBX_EVENT_PORT_ACTIVE : IBX_EVENT_PORT_ERR);
}

/* ---------------- GID table ---------------- */

struct mlx_hw_gid_list {
	unsigned int n;
	union ibx_gid gid[IBX_GID_TABLE_LEN];
};

static void mlx_hw_gid_list_add(struct mlx_hw_gid_list *l,
				const union ibx_gid *gid)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (!memcmp(&l->gid[i], gid, sizeof(*gid)))
			return;
	if (l->n < IBX_GID_TABLE_LEN)
		l->gid[l->n++] = *gid;
}

/* Builds the GIDs of the netdev: link-local, IPv4-mapped, other IPv6. */
static void mlx_hw_collect_gids(struct mlx_hw_dev *dev,
				struct mlx_hw_gid_list *l)
{
	struct net_device *ndev = dev->ndev;
	struct in_device *in_dev;
	struct inet6_dev *in6_dev;
	const struct in_ifaddr *ifa;
	struct inet6_ifaddr *ifp;
	union ibx_gid gid;

	memset(&gid, 0, sizeof(gid));
	gid.raw[0] = 0xfe;
	gid.raw[1] = 0x80;
	mlx_hw_mac_to_eui64(dev->mac, &gid.raw[8]);
	mlx_hw_gid_list_add(l, &gid);

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(ndev);
	if (in_dev) {
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			ipv6_addr_set_v4mapped(ifa->ifa_address,
					       (struct in6_addr *)gid.raw);
			mlx_hw_gid_list_add(l, &gid);
		}
	}
	rcu_read_unlock();

	in6_dev = in6_dev_get(ndev);
	if (in6_dev) {
		read_lock_bh(&in6_dev->lock);
		list_for_each_entry(ifp, &in6_dev->addr_list, if_list) {
			memcpy(gid.raw, &ifp->addr, sizeof(gid.raw));
			mlx_hw_gid_list_add(l, &gid);
		}
		read_unlock_bh(&in6_dev->lock);
		in6_dev_put(in6_dev);
	}
}

static bool mlx_hw_gid_list_has(const struct mlx_hw_gid_list *l,
				 const union ibx_gid *gid)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (!memcmp(&l->gid[i], gid, sizeof(*gid)))
			return true;
	return false;
}

/* Empties the slots whose GID the netdev no longer has. */
static void mlx_hw_gid_drop_stale(struct mlx_hw_dev *dev,
				  const struct mlx_hw_gid_list *l)
{
	unsigned int i;
	bool stale;

	for (i = 0; i < IBX_GID_TABLE_LEN; i++) {
		spin_lock_bh(&dev->gid_lock);
		stale = dev->gid_valid[i] &&
			!mlx_hw_gid_list_has(l, &dev->gid[i]);
		if (stale)
			dev->gid_valid[i] = false;
		spin_unlock_bh(&dev->gid_lock);
		if (stale)
			ibx_set_gid(&dev->ibx, 1, i, NULL, IBX_GID_TYPE_ROCE_V2,
				    NULL);
	}
}

/*
 * Puts @gid in the lowest free slot unless some slot has it already.
 * Returns the slot, or -1 if it was there or the table is full.
 */
static int mlx_hw_gid_insert(struct mlx_hw_dev *dev, const union ibx_gid *gid)
{
	int i, free = -1;

	spin_lock_bh(&dev->gid_lock);
	for (i = 0; i < IBX_GID_TABLE_LEN; i++) {
		if (!dev->gid_valid[i]) {
			if (free < 0)
				free = i;
		} else if (!memcmp(&dev->gid[i], gid, sizeof(*gid))) {
			free = -1;
			break;
		}
	}
	if (free >= 0) {
		dev->gid[free] = *gid;
		dev->gid_valid[free] = true;
	}
	spin_unlock_bh(&dev->gid_lock);
	return free;
}

/*
 * Brings the GID table in line with the netdev's addresses; process
 * context.  As Linux's GID cache does, an entry keeps its index until its
 * GID goes away: stale entries are emptied first, then each new GID takes
 * the lowest free slot, so other entries never move (consumers hold GID
 * indices in their QPs and AHs).  The default GID takes slot 0 again
 * after a MAC change, being first in the list.
 */
void mlx_hw_gid_work(struct work_struct *work)
{
	struct mlx_hw_dev *dev = container_of(work, struct mlx_hw_dev,
					      gid_work);
	struct mlx_hw_gid_list *l;
	unsigned int i;
	int slot;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return;
	mlx_hw_collect_gids(dev, l);
	mlx_hw_gid_drop_stale(dev, l);
	for (i = 0; i < l->n; i++) {
		slot = mlx_hw_gid_insert(dev, &l->gid[i]);
		if (slot >= 0)
			ibx_set_gid(&dev->ibx, 1, slot, &l->gid[i],
				    IBX_GID_TYPE_ROCE_V2, dev->ndev);
	}
	kfree(l);
}

void mlx_hw_clear_gids(struct mlx_hw_dev *dev)
{
	unsigned int i;
	bool was;

	for (i = 0; i < IBX_GID_TABLE_LEN; i++) {
		spin_lock_bh(&dev->gid_lock);
		was = dev->gid_valid[i];
		dev->gid_valid[i] = false;
		spin_unlock_bh(&dev->gid_lock);
		if (was)
			ibx_set_gid(&dev->ibx, 1, i, NULL, IBX_GID_TYPE_ROCE_V2,
				    NULL);
	}
}

bool mlx_hw_dev_has_gid(struct mlx_hw_dev *dev, const union ibx_gid *gid)
{
	unsigned int i;
	bool found = false;

	spin_lock_bh(&dev->gid_lock);
	for (i = 0; i < IBX_GID_TABLE_LEN && !found; i++)
		found = dev->gid_valid[i] &&
			!memcmp(&dev->gid[i], gid, sizeof(*gid));
	spin_unlock_bh(&dev->gid_lock);
	return found;
}

int mlx_hw_dev_get_gid(struct mlx_hw_dev *dev, unsigned int index,
		       union ibx_gid *gid)
{
	int err = -ENOENT;

	if (index >= IBX_GID_TABLE_LEN)
		return -EINVAL;
	spin_lock_bh(&dev->gid_lock);
	if (dev->gid_valid[index]) {
		*gid = dev->gid[index];
		err = 0;
	}
	spin_unlock_bh(&dev->gid_lock);
	return err;
}

/* Address notifiers: queue a rebuild for the device on that netdev. */
static void mlx_hw_addr_changed(struct net_device *ndev)
{
	struct mlx_hw_dev *dev;

	spin_lock(&mlx_hw_devices_lock);
	list_for_each_entry(dev, &mlx_hw_devices, list)
		if (dev->ndev == ndev && !dev->removing)
			schedule_work(&dev->gid_work);
	spin_unlock(&mlx_hw_devices_lock);
}

static int mlx_hw_inetaddr_event(struct notifier_block *nb,
				 unsigned long event, void *ptr)
{
	struct in_ifaddr *ifa = ptr;

	mlx_hw_addr_changed(ifa->ifa_dev->dev);
	return NOTIFY_DONE;
}

static int mlx_hw_inet6addr_event(struct notifier_block *nb,
				  unsigned long event, void *ptr)
{
	struct inet6_ifaddr *ifp = ptr;

	mlx_hw_addr_changed(ifp->idev->dev);
	return NOTIFY_DONE;
}

static struct notifier_block mlx_hw_inetaddr_nb = {
	.notifier_call = mlx_hw_inetaddr_event,
};

static struct notifier_block mlx_hw_inet6addr_nb = {
	.notifier_call = mlx_hw_inet6addr_event,
};

int mlx_hw_register_notifiers(void)
{
	int err;

	err = register_inetaddr_notifier(&mlx_hw_inetaddr_nb);
	if (err)
		return err;
	err = register_inet6addr_notifier(&mlx_hw_inet6addr_nb);
	if (err)
		unregister_inetaddr_notifier(&mlx_hw_inetaddr_nb);
	return err;
}

void mlx_hw_unregister_notifiers(void)
{
	unregister_inet6addr_notifier(&mlx_hw_inet6addr_nb);
	unregister_inetaddr_notifier(&mlx_hw_inetaddr_nb);
}

/* ---------------- counters ---------------- */

const char *const mlx_hw_counter_names[] = {
	[MLX_HW_CNT_TX_PACKETS] = "sent_pkts",
	[MLX_HW_CNT_TX_BYTES] = "sent_bytes",
	[MLX_HW_CNT_RX_PACKETS] = "rcvd_pkts",
	[MLX_HW_CNT_RX_BYTES] = "rcvd_bytes",
	[MLX_HW_CNT_TX_REQUESTS] = "tx_requests",
	[MLX_HW_CNT_TX_READ_RESPONSES] = "tx_read_responses",
	[MLX_HW_CNT_TX_ACKS] = "tx_acks",
	[MLX_HW_CNT_RX_REQUESTS] = "rx_requests",
	[MLX_HW_CNT_RX_READ_RESPONSES] = "rx_read_responses",
	[MLX_HW_CNT_RX_ACKS] = "rx_acks",
	[MLX_HW_CNT_RNR_NAKS_SENT] = "rnr_nak_sent",
	[MLX_HW_CNT_RNR_NAKS_RCVD] = "rcvd_rnr_err",
	[MLX_HW_CNT_SEQ_NAKS_SENT] = "seq_nak_sent",
	[MLX_HW_CNT_SEQ_NAKS_RCVD] = "rcvd_seq_err",
	[MLX_HW_CNT_DUPLICATES] = "duplicate_request",
	[MLX_HW_CNT_OUT_OF_SEQ] = "out_of_seq_request",
	[MLX_HW_CNT_RETRANSMITS] = "retry_err",
	[MLX_HW_CNT_ACK_TIMEOUTS] = "local_ack_timeout_err",
	[MLX_HW_CNT_ERR_CQES] = "completer_error",
	[MLX_HW_CNT_ICRC_ERR] = "rx_icrc_err",
	[MLX_HW_CNT_DROP_TRUNCATED] = "rx_drop_truncated",
	[MLX_HW_CNT_DROP_OPCODE] = "rx_drop_opcode",
	[MLX_HW_CNT_DROP_VERSION] = "rx_drop_version",
	[MLX_HW_CNT_DROP_PKEY] = "rx_drop_pkey",
	[MLX_HW_CNT_DROP_QKEY] = "rx_drop_qkey",
	[MLX_HW_CNT_DROP_QPN] = "rx_drop_qpn",
	[MLX_HW_CNT_DROP_TRANSPORT] = "rx_drop_transport",
	[MLX_HW_CNT_DROP_ADDR] = "rx_drop_addr",
	[MLX_HW_CNT_DROP_STATE] = "rx_drop_state",
	[MLX_HW_CNT_DROP_LENGTH] = "rx_drop_length",
	[MLX_HW_CNT_DROP_QUEUE_FULL] = "rx_drop_queue_full",
	[MLX_HW_CNT_TX_BACKOFF] = "tx_backoff",
	[MLX_HW_CNT_CWND_SHRINKS] = "tx_window_shrinks",
	[MLX_HW_CNT_ACKS_LOWERED] = "tx_acks_lowered",
	[MLX_HW_CNT_CWND_SMALLEST] = "tx_window_smallest",
	/* ECN: mlx5's names (np: notification point, rp: reaction point). */
	[MLX_HW_CNT_ECN_MARKED] = "np_ecn_marked_roce_packets",
	[MLX_HW_CNT_CNP_SENT] = "np_cnp_sent",
	[MLX_HW_CNT_CNP_HANDLED] = "rp_cnp_handled",
	[MLX_HW_CNT_CNP_IGNORED] = "rp_cnp_ignored",
	[MLX_HW_CNT_TX_NO_ROUTE] = "tx_no_route",
	[MLX_HW_CNT_LO_DROPPED] = "lo_dropped",
	[MLX_HW_CNT_LO_DUPLICATED] = "lo_duplicated",
	[MLX_HW_CNT_LO_REORDERED] = "lo_reordered",
	[MLX_HW_CNT_DIRECT_SEGMENTS] = "direct_segments",
	[MLX_HW_CNT_WAKEUPS] = "engine_wakeups",
	[MLX_HW_CNT_INLINE_WAKES] = "engine_inline_wakes",
	[MLX_HW_CNT_DB_ENTRIES] = "engine_db_entries",
	[MLX_HW_CNT_DB_BAD] = "engine_db_bad",
	[MLX_HW_CNT_DB_FALLBACKS] = "engine_db_fallbacks",
	[MLX_HW_CNT_QPS_EXAMINED] = "engine_qps_examined",
	[MLX_HW_CNT_QP_RUNS] = "engine_qp_runs",
	[MLX_HW_CNT_YIELDS] = "engine_yields",
	[MLX_HW_CNT_LATE_WAKES] = "engine_late_wakes",
	[MLX_HW_CNT_STALL_WAKES] = "engine_stall_wakes",
	[MLX_HW_CNT_WAKE_STREAM] = "engine_wake_stream",
	[MLX_HW_CNT_WAKE_RUN_LIST] = "engine_wake_run_list",
	[MLX_HW_CNT_WAKE_RING] = "engine_wake_ring",
	[MLX_HW_CNT_WAKE_TIMER] = "engine_wake_timer",
	[MLX_HW_CNT_WAKE_OFFER] = "engine_wake_offer",
	[MLX_HW_CNT_WAKE_LEFTOVER] = "engine_wake_leftover",
	[MLX_HW_CNT_WAKE_OTHER] = "engine_wake_other",
	[MLX_HW_CNT_ODP_FAULTS] = "odp_faults",
	[MLX_HW_CNT_ODP_FAULT_PAGES] = "odp_fault_pages",
	[MLX_HW_CNT_ODP_FAULT_ERRORS] = "odp_fault_errors",
	[MLX_HW_CNT_ODP_INVALIDATIONS] = "odp_invalidations",
	[MLX_HW_CNT_ODP_PREFETCHES] = "odp_prefetches",
};
static_assert(ARRAY_SIZE(mlx_hw_counter_names) == MLX_HW_NUM_COUNTERS);

int mlx_hw_get_hw_counters(struct ibx_device *ibx, u32 port, u64 *values)
{
	struct mlx_hw_dev *dev = to_mdev(ibx);
	unsigned int i;

	for (i = 0; i < MLX_HW_NUM_COUNTERS; i++)
		values[i] = atomic64_read(&dev->counters[i]);
	values[MLX_HW_CNT_CWND_SMALLEST] = mlx_hw_cwnd_smallest(dev);
	return 0;
}
