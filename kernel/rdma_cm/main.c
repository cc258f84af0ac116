// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * main.c - module ibx_rdma_cm: the misc device /dev/infiniband/rdma_cm
 * (the ABI of the in-tree rdma_ucm, version 4), the core client "rdma_cm"
 * that tells the CMA of devices coming and going and answers netlink
 * GET_CHARDEV for librdmacm, and under them the IB CM (client "ibx_cm",
 * registered first so that it is removed last).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/miscdevice.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include "ibx_compat.h"
#include "ucma.h"
#include "cm_priv.h"

static ssize_t abi_version_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", RDMA_USER_CM_ABI_VERSION);
}
static DEVICE_ATTR_RO(abi_version);

/* Live ids and memberships: tests check that nothing is left behind. */
static ssize_t ibx_ids_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&cma_id_count));
}
static DEVICE_ATTR_RO(ibx_ids);

static ssize_t ibx_mcasts_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&cma_mcast_count));
}
static DEVICE_ATTR_RO(ibx_mcasts);

/* The IB CM's counters (cm_priv.h), one "name value" per line. */
static ssize_t ibx_cm_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf,
			  "rcvd %lld\ndropped %lld\nduplicates %lld\nstale %lld\nunowned %lld\ntimeouts %lld\nids %d\n",
			  atomic64_read(&cm_counters.rcvd),
			  atomic64_read(&cm_counters.dropped),
			  atomic64_read(&cm_counters.duplicates),
			  atomic64_read(&cm_counters.stale),
			  atomic64_read(&cm_counters.unowned),
			  atomic64_read(&cm_counters.timeouts),
			  cm_live_ids());
}
static DEVICE_ATTR_RO(ibx_cm);

/*
 * Listening ports ("ps port" lines) of the reader's network namespace:
 * tests wait for a server with it.
 */
static ssize_t ibx_listen_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return cma_show_listeners(buf);
}
static DEVICE_ATTR_RO(ibx_listen);

static struct attribute *ucma_attrs[] = {
	&dev_attr_abi_version.attr,
	&dev_attr_ibx_ids.attr,
	&dev_attr_ibx_mcasts.attr,
	&dev_attr_ibx_cm.attr,
	&dev_attr_ibx_listen.attr,
	NULL,
};
ATTRIBUTE_GROUPS(ucma);

static struct miscdevice ucma_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "rdma_cm",
	.nodename = "infiniband/rdma_cm",
	.mode = 0666,
	.fops = &ucma_fops,
	.groups = ucma_groups,
};

static struct ibx_client cma_client;

/* net/rdma_ucm/max_backlog, as the in-tree rdma_ucm (LISTEN's clamp). */
static int ucma_backlog_min = 1;
static struct ctl_table ucma_sysctl[] = {
	{
		.procname = "max_backlog",
		.data = &ucma_max_backlog,
		.maxlen = sizeof(ucma_max_backlog),
		.mode = 0644,
		.proc_handler = proc_dointvec_minmax,
		.extra1 = &ucma_backlog_min,
	},
	IBX_SYSCTL_END
};
static struct ctl_table_header *ucma_sysctl_hdr;

static int cma_add_one(struct ibx_device *dev)
{
	struct cma_device *cdev = kzalloc(sizeof(*cdev), GFP_KERNEL);

	if (!cdev)
		return -ENOMEM;
	cdev->dev = dev;
	INIT_LIST_HEAD(&cdev->ids);
	mutex_lock(&cma_dev_lock);
	list_add_tail(&cdev->node, &cma_dev_list);
	mutex_unlock(&cma_dev_lock);
	ibx_set_client_data(dev, &cma_client, cdev);
	return 0;
}

static void cma_remove_one(struct ibx_device *dev, void *data)
{
	struct cma_device *cdev = data;

	mutex_lock(&cma_dev_lock);
	list_del(&cdev->node);		/* no new id binds to it */
	mutex_unlock(&cma_dev_lock);
	cma_remove_device(cdev);
	kfree(cdev);
}

/* netlink GET_CHARDEV "rdma_cm": the global device, whatever @dev. */
static int cma_get_nl_info(struct ibx_device *dev,
			   struct ibx_client_nl_info *res)
{
	res->cdev = ucma_misc.this_device;
	res->abi = RDMA_USER_CM_ABI_VERSION;
	return 0;
}

static int cma_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);

	if (event == NETDEV_CHANGEADDR || event == NETDEV_BONDING_FAILOVER)
		cma_netdev_changed(ndev);
	return NOTIFY_DONE;
}

static struct notifier_block cma_netdev_nb = {
	.notifier_call = cma_netdev_event,
};

static struct ibx_client cma_client = {
	.name = "rdma_cm",
	.add = cma_add_one,
	.remove = cma_remove_one,
	.get_nl_info = cma_get_nl_info,
};

static int __init ibx_rdma_cm_init(void)
{
	int ret;

	ret = misc_register(&ucma_misc);
	if (ret) {
		if (ret == -EEXIST || ret == -EBUSY)
			pr_err("the in-tree rdma_ucm holds /dev/infiniband/rdma_cm; unload it first (modprobe -r rdma_ucm)\n");
		else
			pr_err("cannot register the rdma_cm misc device (%d)\n",
			       ret);
		return ret;
	}
	ucma_sysctl_hdr = register_net_sysctl(&init_net, "net/rdma_ucm",
					      ucma_sysctl);
	if (!ucma_sysctl_hdr) {
		ret = -ENOMEM;
		goto err_misc;
	}
	ret = cma_port_init();
	if (ret)
		goto err_sysctl;
	ret = cm_init(cma_req_handler);
	if (ret)
		goto err_port;
	ret = ibx_register_client(&cma_client);
	if (ret)
		goto err_cm;
	ret = register_netdevice_notifier(&cma_netdev_nb);
	if (ret)
		goto err_client;
	return 0;

err_client:
	ibx_unregister_client(&cma_client);

err_cm:
	cm_exit();
err_port:
	cma_port_exit();
err_sysctl:
	unregister_net_sysctl_table(ucma_sysctl_hdr);
err_misc:
	misc_deregister(&ucma_misc);
	return ret;
}

static void __exit ibx_rdma_cm_exit(void)
{
	/* No file is open (each holds a module reference): no id is left. */
	misc_deregister(&ucma_misc);
	unregister_netdevice_notifier(&cma_netdev_nb);
	ibx_unregister_client(&cma_client);
	cm_exit();
	cma_port_exit();
	unregister_net_sysctl_table(ucma_sysctl_hdr);
	WARN_ON(atomic_read(&cma_id_count));
}

module_init(ibx_rdma_cm_init);
module_exit(ibx_rdma_cm_exit);
MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("RDMA connection manager ids and the rdma_ucm user ABI for the ibx verbs core");
