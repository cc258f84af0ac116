// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mcast.c - UD multicast (IBA 10.5.2.4; RoCE maps the groups onto IP
 * multicast: IPv4-mapped 224/4 GIDs and IPv6 ff00::/8).  The device keeps
 * the groups its UD QPs are attached to; the netdev joins the IP group
 * when the first QP attaches and leaves it with the last, so the
 * IP stack and the NIC take the group's traffic.  recv.c asks which QPs a
 * datagram to a group goes to; the sender's own host gets its copy through
 * loopback (pkt.c).
 */
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/rculist.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include "mlx_hw.h"

/*
 * A group: attached QPs by number (0 = free slot), so that a lookup
 * racing with a detach or a destroy finds at worst a QP number that no
 * longer resolves.
 */
struct mlx_hw_mcast_grp {
	struct list_head list;		/* in dev->mcast_list (RCU) */
	struct rcu_head rcu;		/* freed after readers are done */
	union ibx_gid mgid;
	unsigned int nqps;		/* slots in use, under mcast_lock */
	u32 qpn[MLX_HW_MAX_MCAST_ATTACH];	/* READ_ONCE by readers */
};

/*
 * The netdev joins the IP group of @mgid, so that the IP stack accepts
 * (and the NIC filters in) its traffic for our socket.
 */
static int mlx_hw_mcast_join(struct mlx_hw_dev *dev, const union ibx_gid *mgid)
{
	const struct in6_addr *a6 = (const struct in6_addr *)mgid->raw;
	struct in_device *in_dev;
	int err = 0;

	rtnl_lock();
	if (ipv6_addr_v4mapped(a6)) {
		in_dev = __in_dev_get_rtnl(dev->ndev);
		if (in_dev)
			ip_mc_inc_group(in_dev, a6->s6_addr32[3]);
		else
			err = -ENODEV;
	} else {
		err = ipv6_dev_mc_inc(dev->ndev, a6);
	}
	rtnl_unlock();
	return err;
}

static void mlx_hw_mcast_leave(struct mlx_hw_dev *dev, const union ibx_gid *mgid)
{
	const struct in6_addr *a6 = (const struct in6_addr *)mgid->raw;
	struct in_device *in_dev;

	rtnl_lock();
	if (ipv6_addr_v4mapped(a6)) {
		in_dev = __in_dev_get_rtnl(dev->ndev);
		if (in_dev)
			ip_mc_dec_group(in_dev, a6->s6_addr32[3]);
	} else {
		ipv6_dev_mc_dec(dev->ndev, a6);
	}
	rtnl_unlock();
}

static struct mlx_hw_mcast_grp *mlx_hw_mcast_find(struct mlx_hw_dev *dev,
						  const union ibx_gid *mgid)
{
	struct mlx_hw_mcast_grp *grp;

	list_for_each_entry_rcu(grp, &dev->mcast_list, list,
				lockdep_is_held(&dev->mcast_lock))
		if (!memcmp(&grp->mgid, mgid, sizeof(*mgid)))
			return grp;
	return NULL;
}

int mlx_hw_attach_mcast(struct ibx_qp *ibqp, const union ibx_gid *gid,
			u16 lid)
{
	struct mlx_hw_dev *dev = to_mdev(ibqp->dev);
	struct mlx_hw_mcast_grp *grp;
	unsigned int i;
	int err = 0;

	if (!mlx_hw_gid_is_mcast(gid))
		return -EINVAL;
	mutex_lock(&dev->mcast_lock);
	grp = mlx_hw_mcast_find(dev, gid);
	if (!grp) {
		err = -ENOMEM;
		if (dev->mcast_groups >= MLX_HW_MAX_MCAST_GRP)
			goto out;
		grp = kzalloc(sizeof(*grp), GFP_KERNEL);
		if (!grp)
			goto out;
		grp->mgid = *gid;
		err = mlx_hw_mcast_join(dev, gid);
		if (err) {
			kfree(grp);
			goto out;
		}
		list_add_rcu(&grp->list, &dev->mcast_list);
		dev->mcast_groups++;
	}
	err = -ENOMEM;		/* max_mcast_qp_attach reached */
	for (i = 0; i < MLX_HW_MAX_MCAST_ATTACH; i++) {
		if (!grp->qpn[i]) {
			WRITE_ONCE(grp->qpn[i], ibqp->qp_num);
			grp->nqps++;
			err = 0;
			break;
		}
	}
out:
	mutex_unlock(&dev->mcast_lock);
	return err;
}

/* Drops a group with no QP left; mcast_lock held. */
static void mlx_hw_mcast_free(struct mlx_hw_dev *dev,
			      struct mlx_hw_mcast_grp *grp)
{
	lockdep_assert_held(&dev->mcast_lock);
	list_del_rcu(&grp->list);
	dev->mcast_groups--;
	mlx_hw_mcast_leave(dev, &grp->mgid);
	kfree_rcu(grp, rcu);
}

int mlx_hw_detach_mcast(struct ibx_qp *ibqp, const union ibx_gid *gid,
			u16 lid)
{
	struct mlx_hw_dev *dev = to_mdev(ibqp->dev);
	struct mlx_hw_mcast_grp *grp;
	unsigned int i;
	int err = -EINVAL;

	mutex_lock(&dev->mcast_lock);
	grp = mlx_hw_mcast_find(dev, gid);
	for (i = 0; grp && i < MLX_HW_MAX_MCAST_ATTACH; i++) {
		if (grp->qpn[i] == ibqp->qp_num) {
			WRITE_ONCE(grp->qpn[i], 0);
			if (!--grp->nqps)
				mlx_hw_mcast_free(dev, grp);
			err = 0;
			break;
		}
	}
	mutex_unlock(&dev->mcast_lock);
	return err;
}

/*
 * The QPs attached to @mgid, referenced, into @qps (room for
 * MLX_HW_MAX_MCAST_ATTACH); returns how many.  Never sleeps.
 */
unsigned int mlx_hw_mcast_get_qps(struct mlx_hw_dev *dev,
				  const union ibx_gid *mgid,
				  struct mlx_hw_qp **qps)
{
	struct mlx_hw_mcast_grp *grp;
	unsigned int i, n = 0;
	u32 qpn;

	rcu_read_lock();
	grp = mlx_hw_mcast_find(dev, mgid);
	for (i = 0; grp && i < MLX_HW_MAX_MCAST_ATTACH; i++) {
		qpn = READ_ONCE(grp->qpn[i]);
		if (qpn && (qps[n] = mlx_hw_qp_get(dev, qpn)))
			n++;
	}
	rcu_read_unlock();
	return n;
}

/* Device removal: every QP is gone; leave what is still joined. */
void mlx_hw_mcast_cleanup(struct mlx_hw_dev *dev)
{
	struct mlx_hw_mcast_grp *grp, *tmp;

	mutex_lock(&dev->mcast_lock);
	list_for_each_entry_safe(grp, tmp, &dev->mcast_list, list)
		mlx_hw_mcast_free(dev, grp);
	mutex_unlock(&dev->mcast_lock);
}
