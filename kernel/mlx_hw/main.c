// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * main.c - module load/unload and the binding of mlx_hw devices to netdevs.
 *
 * A device is created per netdev named by the load parameter netdev=d0,d1,
 * written at run time to /sys/module/mlx_hw/parameters/add, or by `rdma
 * link add NAME type mlx_hw netdev NETDEV`; writing the name to .../remove,
 * `rdma link delete NAME`, unregistering the netdev (moving it to another
 * network namespace included) or unloading the module removes it.  A
 * device lives in its netdev's namespace: its wire (net.c), and in the
 * core's exclusive netns mode its visibility.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/rtnetlink.h>
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/platform_device.h>
#include <linux/nsproxy.h>
#include "mlx_hw.h"

MODULE_AUTHOR("ibx project");
MODULE_DESCRIPTION("mlx_hw: HCA driver for a ConnectX-style device model");
MODULE_LICENSE("Dual BSD/GPL");

static DEFINE_MUTEX(mlx_hw_bind_mutex);	/* serializes add/remove */
static struct workqueue_struct *mlx_hw_remove_wq; /* removals on unregister */
static bool mlx_hw_loaded;		/* module init finished */
static char mlx_hw_pending[256];	/* names given before init finished */

static struct mlx_hw_dev *mlx_hw_find_by_ndev(struct net_device *ndev)
{
	struct mlx_hw_dev *dev;

	list_for_each_entry(dev, &mlx_hw_devices, list)
		if (dev->ndev == ndev)
			return dev;
	return NULL;
}

/*
 * Each HCA's sysfs parent is a platform device bound to a platform driver
 * named "mlx_hw", as a real HCA's is a PCI function bound to mlx5_core:
 * Open MPI's pml ucx picks devices by the name of
 * /sys/class/infiniband/<ibdev>/device/driver.  The driver does nothing
 * itself; HCAs are still made by mlx_hw_bind().  No module alias is
 * declared, so the device's uevent makes nothing load.
 */
static int mlx_hw_pdrv_probe(struct platform_device *pdev)
{
	return 0;
}

static struct platform_driver mlx_hw_pdrv = {
	.probe = mlx_hw_pdrv_probe,
	.driver = {
		.name = "mlx_hw",
		.suppress_bind_attrs = true,	/* no unbind under a live HCA */
	},
};

static int mlx_hw_pdev_add(struct mlx_hw_dev *dev)
{
	struct platform_device *pdev;

	pdev = platform_device_register_simple("mlx_hw", PLATFORM_DEVID_AUTO,
					       NULL, 0);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	if (!pdev->dev.driver) {	/* probed synchronously above */
		platform_device_unregister(pdev);
		return -ENODEV;
	}
	dev->pdev = pdev;
	dev->ibx.parent = &pdev->dev;
	return 0;
}

static void mlx_hw_pdev_del(struct mlx_hw_dev *dev)
{
	if (dev->pdev)
		platform_device_unregister(dev->pdev);
	dev->pdev = NULL;
	dev->ibx.parent = NULL;
}

static void mlx_hw_dev_free(struct mlx_hw_dev *dev)
{
	mlx_hw_pdev_del(dev);	/* after ibx_unregister_device() */
	mlx_hw_engine_stop(dev);
	mlx_hw_net_put(dev);	/* no packet of ours is sent any more */
	kfree_skb(dev->lo_held);
	mlx_hw_mcast_cleanup(dev);
	if (dev->engine_region)
		mlx_hw_region_put(dev->engine_region);
	xa_destroy(&dev->qp_xa);
	xa_destroy(&dev->cq_xa);
	xa_destroy(&dev->mr_xa);
	xa_destroy(&dev->srq_xa);
	if (dev->ndev)
		dev_put(dev->ndev);
	ibx_dealloc_device(&dev->ibx);
}

static void mlx_hw_remove_work(struct work_struct *work);

/*
 * Creates a device on @ndev named @ibname ("mlx_hw%d" if NULL).  -EEXIST
 * if @ndev already has one or the name is taken.  Takes its own reference
 * on @ndev.
 */
static int mlx_hw_bind(struct net_device *ndev, const char *ibname)
{
	struct mlx_hw_dev *dev;
	u8 speed, width;
	int err;

	dev_hold(ndev);
	mutex_lock(&mlx_hw_bind_mutex);
	spin_lock(&mlx_hw_devices_lock);
	dev = mlx_hw_find_by_ndev(ndev);
	spin_unlock(&mlx_hw_devices_lock);
	if (dev) {
		err = -EEXIST;
		goto out_put;
	}
	if (ndev->type != ARPHRD_ETHER || ndev->addr_len != ETH_ALEN) {
		err = -EINVAL;
		goto out_put;
	}

	dev = (struct mlx_hw_dev *)ibx_alloc_device(sizeof(*dev));
	if (!dev) {
		err = -ENOMEM;
		goto out_put;
	}
	dev->ndev = ndev;		/* our reference */
	mlx_hw_net_get(dev);
	dev->ibx.net = dev_net(ndev);	/* its owner in exclusive netns mode */
	INIT_LIST_HEAD(&dev->list);
	INIT_WORK(&dev->gid_work, mlx_hw_gid_work);
	INIT_WORK(&dev->remove_work, mlx_hw_remove_work);
	spin_lock_init(&dev->gid_lock);
	init_waitqueue_head(&dev->engine_wq);
	spin_lock_init(&dev->run_lock);
	INIT_LIST_HEAD(&dev->run_list);
	mutex_init(&dev->ctx_lock);
	INIT_LIST_HEAD(&dev->ctx_list);
	spin_lock_init(&dev->lo_lock);
	mutex_init(&dev->mcast_lock);
	INIT_LIST_HEAD(&dev->mcast_list);
	xa_init_flags(&dev->qp_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH);
	xa_init_flags(&dev->cq_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_BH);
	xa_init_flags(&dev->mr_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_BH);
	spin_lock_init(&dev->bind_lock);
	xa_init_flags(&dev->srq_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_BH);
	ether_addr_copy(dev->mac, ndev->dev_addr);
	mlx_hw_dev_init_attr(dev);
	dev->ibx.ops = &mlx_hw_ops;
	if (ibname)
		strscpy(dev->ibx.name, ibname, sizeof(dev->ibx.name));
	mlx_hw_update_mtu(dev);
	rtnl_lock();
	mlx_hw_eth_speed(ndev, &speed, &width);
	rtnl_unlock();
	mlx_hw_set_speed(dev, speed, width);

	dev->engine_region = mlx_hw_region_alloc(PAGE_SIZE, true);
	if (!dev->engine_region) {
		err = -ENOMEM;
		goto out_free;
	}
	dev->engine_page = dev->engine_region->vaddr;
	err = mlx_hw_engine_start(dev);
	if (err)
		goto out_free;
	err = mlx_hw_pdev_add(dev);
	if (err)
		goto out_free;

	err = ibx_register_device(&dev->ibx);
	if (err)
		goto out_free;
	dev->registered = true;
	err = ibx_set_netdev(&dev->ibx, 1, ndev);
	if (err)
		goto out_unreg;

	spin_lock(&mlx_hw_devices_lock);
	list_add_tail_rcu(&dev->list, &mlx_hw_devices);
	spin_unlock(&mlx_hw_devices_lock);
	mutex_unlock(&mlx_hw_bind_mutex);

	/*
	 * GIDs and port state from the netdev's current configuration; the
	 * work item also serves the address notifiers, and never runs
	 * concurrently with itself.
	 */
	schedule_work(&dev->gid_work);
	flush_work(&dev->gid_work);
	mlx_hw_update_port_state(dev);
	pr_info("%s bound to %s\n", dev->ibx.name, ndev->name);
	return 0;

out_unreg:
	ibx_unregister_device(&dev->ibx);
out_free:
	mlx_hw_dev_free(dev);
	mutex_unlock(&mlx_hw_bind_mutex);
	return err;
out_put:
	mutex_unlock(&mlx_hw_bind_mutex);
	dev_put(ndev);
	return err;
}

static int mlx_hw_add(const char *name)
{
	struct net_device *ndev;
	int err;

	/* The writer's namespace, as for `rdma link add`. */
	ndev = dev_get_by_name(current->nsproxy->net_ns, name);
	if (!ndev)
		return -ENODEV;
	err = mlx_hw_bind(ndev, NULL);
	dev_put(ndev);
	return err;
}

/* Takes a device off the list and destroys it; caller holds bind_mutex. */
static void mlx_hw_destroy(struct mlx_hw_dev *dev)
{
	lockdep_assert_held(&mlx_hw_bind_mutex);
	spin_lock(&mlx_hw_devices_lock);
	list_del_rcu(&dev->list);
	spin_unlock(&mlx_hw_devices_lock);
	/* No loopback sender or wire packet finds it any more. */
	synchronize_rcu();
	INIT_LIST_HEAD(&dev->list);

	/* Off the list, so no notifier queues new work for it. */
	cancel_work_sync(&dev->gid_work);
	pr_info("removing %s from %s\n", dev->ibx.name, dev->ndev->name);
	mlx_hw_clear_gids(dev);
	ibx_set_netdev(&dev->ibx, 1, NULL);
	ibx_unregister_device(&dev->ibx);
	mlx_hw_dev_free(dev);
}

/* Removes the device named @name, or bound to netdev @name if @by_ndev. */
static int mlx_hw_remove(const char *name, bool by_ndev)
{
	struct mlx_hw_dev *dev, *found = NULL;

	mutex_lock(&mlx_hw_bind_mutex);
	spin_lock(&mlx_hw_devices_lock);
	list_for_each_entry(dev, &mlx_hw_devices, list) {
		if (!dev->removing &&
		    ((by_ndev && !strcmp(dev->ndev->name, name) &&
		      net_eq(mlx_hw_dev_net(dev), current->nsproxy->net_ns)) ||
		     !strcmp(dev->ibx.name, name))) {
			found = dev;
			found->removing = true;
			break;
		}
	}
	spin_unlock(&mlx_hw_devices_lock);
	if (found)
		mlx_hw_destroy(found);
	mutex_unlock(&mlx_hw_bind_mutex);
	return found ? 0 : -ENODEV;
}

/*
 * A network namespace goes away (net.c): destroys the devices that still
 * count on its sockets, once the removals queued for them have run.  Its
 * own netdevs are gone already; a physical netdev moved back to init_net
 * may have left its device behind.
 */
static void mlx_hw_destroy_net_devices(struct net *net)
{
	struct mlx_hw_dev *dev, *found;
	bool queued;

	for (;;) {
		flush_workqueue(mlx_hw_remove_wq);
		mutex_lock(&mlx_hw_bind_mutex);
		found = NULL;
		queued = false;
		spin_lock(&mlx_hw_devices_lock);
		list_for_each_entry(dev, &mlx_hw_devices, list) {
			if (dev->net != net)
				continue;
			if (dev->removing) {
				queued = true;	/* its work item frees it */
				continue;
			}
			dev->removing = true;
			found = dev;
			break;
		}
		spin_unlock(&mlx_hw_devices_lock);
		if (found)
			mlx_hw_destroy(found);
		mutex_unlock(&mlx_hw_bind_mutex);
		if (!found && !queued)
			return;
	}
}

static void mlx_hw_remove_work(struct work_struct *work)
{
	struct mlx_hw_dev *dev = container_of(work, struct mlx_hw_dev,
					      remove_work);

	mutex_lock(&mlx_hw_bind_mutex);
	if (!list_empty(&dev->list))
		mlx_hw_destroy(dev);
	mutex_unlock(&mlx_hw_bind_mutex);
}

/*
 * A bound netdev's link settings may have changed (RTNL held).  They are
 * read outside the list lock, since a driver's get_link_ksettings may sleep.
 */
static void mlx_hw_netdev_speed_event(struct net_device *ndev)
{
	struct mlx_hw_dev *dev;
	u8 speed, width;

	ASSERT_RTNL();
	spin_lock(&mlx_hw_devices_lock);
	dev = mlx_hw_find_by_ndev(ndev);
	spin_unlock(&mlx_hw_devices_lock);
	if (!dev)
		return;
	mlx_hw_eth_speed(ndev, &speed, &width);
	spin_lock(&mlx_hw_devices_lock);
	dev = mlx_hw_find_by_ndev(ndev);
	if (dev)
		mlx_hw_set_speed(dev, speed, width);
	spin_unlock(&mlx_hw_devices_lock);
}

/*
 * Netdev events.  Removal runs from a work item: unregistering the verbs
 * device may sleep for long and must not run under RTNL.
 */
static int mlx_hw_netdev_event(struct notifier_block *nb, unsigned long event,
			       void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct mlx_hw_dev *dev;

	if (event == NETDEV_UP || event == NETDEV_DOWN ||
	    event == NETDEV_CHANGE)
		mlx_hw_netdev_speed_event(ndev);
	spin_lock(&mlx_hw_devices_lock);
	dev = mlx_hw_find_by_ndev(ndev);
	if (!dev || dev->removing) {
		spin_unlock(&mlx_hw_devices_lock);
		return NOTIFY_DONE;
	}
	switch (event) {
	case NETDEV_UNREGISTER:
		dev->removing = true;
		queue_work(mlx_hw_remove_wq, &dev->remove_work);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		mlx_hw_update_port_state(dev);
		break;
	case NETDEV_CHANGEMTU:
		mlx_hw_update_mtu(dev);
		break;
	case NETDEV_CHANGEADDR:
		ether_addr_copy(dev->mac, ndev->dev_addr);
		schedule_work(&dev->gid_work);
		break;
	default:
		break;
	}
	spin_unlock(&mlx_hw_devices_lock);
	return NOTIFY_DONE;
}

static struct notifier_block mlx_hw_netdev_nb = {
	.notifier_call = mlx_hw_netdev_event,
};

/* Adds every name of a comma/space separated list; returns the first error. */
static int mlx_hw_add_list(const char *list)
{
	char *buf, *p, *name;
	int err = 0, ret;

	buf = kstrdup(list, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	p = buf;
	while ((name = strsep(&p, ", \n\t")) != NULL) {
		if (!*name)
			continue;
		ret = mlx_hw_add(name);
		if (ret) {
			pr_warn("cannot bind to %s: %d\n", name, ret);
			if (!err)
				err = ret;
		}
	}
	kfree(buf);
	return err;
}

static int mlx_hw_param_add(const char *val, const struct kernel_param *kp)
{
	if (!mlx_hw_loaded) {
		/* Load-time parameter: remember it for module init. */
		if (strlen(mlx_hw_pending) + strlen(val) + 2 >
		    sizeof(mlx_hw_pending))
			return -ENOSPC;
		strcat(mlx_hw_pending, ",");
		strcat(mlx_hw_pending, val);
		return 0;
	}
	return mlx_hw_add_list(val);
}

static int mlx_hw_param_remove(const char *val, const struct kernel_param *kp)
{
	char name[IFNAMSIZ + IBX_DEVICE_NAME_MAX];

	if (!mlx_hw_loaded)
		return -EINVAL;
	strscpy(name, val, sizeof(name));
	strim(name);
	return mlx_hw_remove(name, true);
}

/* Reading add/remove/netdev lists the bound netdevs. */
static int mlx_hw_param_get(char *buffer, const struct kernel_param *kp)
{
	struct mlx_hw_dev *dev;
	int len = 0;

	spin_lock(&mlx_hw_devices_lock);
	list_for_each_entry(dev, &mlx_hw_devices, list)
		len += scnprintf(buffer + len, PAGE_SIZE - len, "%s%s",
				 len ? "," : "", dev->ndev->name);
	spin_unlock(&mlx_hw_devices_lock);
	len += scnprintf(buffer + len, PAGE_SIZE - len, "\n");
	return len;
}

/*
 * `rdma link add NAME type mlx_hw netdev NETDEV`, as rxe; the core found
 * NETDEV in the sender's network namespace, which the device then lives
 * in.
 */
static int mlx_hw_newlink(const char *ibdev_name, struct net_device *ndev)
{
	return mlx_hw_bind(ndev, ibdev_name);
}

static int mlx_hw_dellink(const char *ibdev_name)
{
	return mlx_hw_remove(ibdev_name, false);
}

static struct ibx_link_ops mlx_hw_link_ops = {
	.type = "mlx_hw",
	.owner = THIS_MODULE,
	.newlink = mlx_hw_newlink,
	.dellink = mlx_hw_dellink,
};

static const struct kernel_param_ops mlx_hw_add_ops = {
	.set = mlx_hw_param_add,
	.get = mlx_hw_param_get,
};

static const struct kernel_param_ops mlx_hw_remove_ops = {
	.set = mlx_hw_param_remove,
	.get = mlx_hw_param_get,
};

module_param_cb(netdev, &mlx_hw_add_ops, NULL, 0444);
MODULE_PARM_DESC(netdev, "netdevs to bind at load time (comma separated)");
module_param_cb(add, &mlx_hw_add_ops, NULL, 0644);
MODULE_PARM_DESC(add, "write a netdev name to create an mlx_hw device on it");
module_param_cb(remove, &mlx_hw_remove_ops, NULL, 0644);
MODULE_PARM_DESC(remove, "write a netdev (or mlx_hw device) name to remove it");

static int __init mlx_hw_init(void)
{
	int err;

	mlx_hw_remove_wq = alloc_ordered_workqueue("mlx_hw_remove", 0);
	if (!mlx_hw_remove_wq)
		return -ENOMEM;
	err = mlx_hw_qp_cache_init();
	if (err)
		goto out_wq;
	err = mlx_hw_odp_init();
	if (err)
		goto out_qp_cache;
	err = mlx_hw_net_init(mlx_hw_destroy_net_devices);
	if (err)
		goto out_odp;
	err = platform_driver_register(&mlx_hw_pdrv);
	if (err)
		goto out_net;
	err = register_netdevice_notifier(&mlx_hw_netdev_nb);
	if (err)
		goto out_pdrv;
	err = mlx_hw_register_notifiers();
	if (err) {
		unregister_netdevice_notifier(&mlx_hw_netdev_nb);
		goto out_pdrv;
	}
	err = ibx_register_link_ops(&mlx_hw_link_ops);
	if (err) {
		mlx_hw_unregister_notifiers();
		unregister_netdevice_notifier(&mlx_hw_netdev_nb);
		goto out_pdrv;
	}
	mlx_hw_debugfs_init();
	mlx_hw_loaded = true;
	if (mlx_hw_pending[0])
		mlx_hw_add_list(mlx_hw_pending);	/* errors are logged */
	return 0;
out_pdrv:
	platform_driver_unregister(&mlx_hw_pdrv);
out_net:
	mlx_hw_net_exit();
out_odp:
	mlx_hw_odp_exit();
out_qp_cache:
	mlx_hw_qp_cache_exit();
out_wq:
	destroy_workqueue(mlx_hw_remove_wq);
	return err;
}

static void __exit mlx_hw_exit(void)
{
	struct mlx_hw_dev *dev;

	/* Waits for a running `rdma link add/delete`; no new one comes. */
	ibx_unregister_link_ops(&mlx_hw_link_ops);
	mlx_hw_unregister_notifiers();
	unregister_netdevice_notifier(&mlx_hw_netdev_nb);
	/* Pending removals first: they free their device. */
	flush_workqueue(mlx_hw_remove_wq);
	mutex_lock(&mlx_hw_bind_mutex);
	for (;;) {
		spin_lock(&mlx_hw_devices_lock);
		dev = list_first_entry_or_null(&mlx_hw_devices,
					       struct mlx_hw_dev, list);
		spin_unlock(&mlx_hw_devices_lock);
		if (!dev)
			break;
		mlx_hw_destroy(dev);
	}
	mutex_unlock(&mlx_hw_bind_mutex);
	platform_driver_unregister(&mlx_hw_pdrv);
	mlx_hw_debugfs_exit();
	mlx_hw_net_exit();
	mlx_hw_odp_exit();
	mlx_hw_qp_cache_exit();
	destroy_workqueue(mlx_hw_remove_wq);
}

module_init(mlx_hw_init);
module_exit(mlx_hw_exit);
