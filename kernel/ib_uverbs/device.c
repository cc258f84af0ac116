// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * device.c - HCA driver registration: device names, the uverbsN character
 * device, netdev binding, the GID table and disassociation of open files
 * when a device goes away.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/idr.h>
#include <linux/netdevice.h>
#include <net/net_namespace.h>
#include "core_priv.h"

#define IBX_LINK_LAYER_ETHERNET	2	/* IB_LINK_LAYER_ETHERNET */

DEFINE_MUTEX(ibx_devices_lock);
LIST_HEAD(ibx_devices);
static DEFINE_IDA(ibx_uverbs_ida);

static void ibx_core_release(struct device *d)
{
	kfree(container_of(d, struct ibx_core_dev, udev));
}

/**
 * ibx_alloc_device() - allocate a driver's device
 * @size: size of the driver's device struct, which embeds struct
 *	ibx_device as its first member
 *
 * Return: the zeroed device, or NULL.  Free it with ibx_dealloc_device().
 */
struct ibx_device *ibx_alloc_device(size_t size)
{
	struct ibx_core_dev *core;
	struct ibx_device *dev;

	if (size < sizeof(*dev))
		return NULL;
	dev = kzalloc(size, GFP_KERNEL);
	core = kzalloc(sizeof(*core), GFP_KERNEL);
	if (!dev || !core) {
		kfree(dev);
		kfree(core);
		return NULL;
	}
	mutex_init(&core->lock);
	mutex_init(&core->reg_lock);
	mutex_init(&core->view_lock);
	INIT_LIST_HEAD(&core->compat_views);
	core->net = &init_net;
	INIT_LIST_HEAD(&core->files);
	INIT_LIST_HEAD(&core->node);
	spin_lock_init(&core->event_lock);
	INIT_LIST_HEAD(&core->async_files);
	spin_lock_init(&core->gid_lock);
	mutex_init(&core->xrcd_lock);
	INIT_LIST_HEAD(&core->xrcds);
	xa_init(&core->client_data);
	core->index = -1;
	/* The uverbs device's refcount owns @core (open files hold it). */
	device_initialize(&core->udev);
	core->udev.release = ibx_core_release;
	core->ibdev = dev;
	dev->core_priv = core;
	return dev;
}
EXPORT_SYMBOL_GPL(ibx_alloc_device);

/* Drops the netdev references (port bindings, GIDs) still held. */
static void ibx_put_netdevs(struct ibx_device *dev)
{
	struct ibx_core_dev *core = ibx_cdev(dev);
	unsigned long flags;
	int port, i;

	for (port = 1; port <= IBX_MAX_PORTS; port++) {
		for (i = 0; i < IBX_GID_TABLE_LEN; i++) {
			struct net_device *nd;

			spin_lock_irqsave(&core->gid_lock, flags);
			nd = dev->gids[port].entry[i].ndev;
			memset(&dev->gids[port].entry[i], 0,
			       sizeof(dev->gids[port].entry[i]));
			spin_unlock_irqrestore(&core->gid_lock, flags);
			if (nd)
				dev_put(nd);
		}
		mutex_lock(&core->lock);
		if (dev->netdev[port])
			dev_put(dev->netdev[port]);
		dev->netdev[port] = NULL;
		mutex_unlock(&core->lock);
	}
}

/**
 * ibx_dealloc_device() - free a device from ibx_alloc_device()
 * @dev: the device, unregistered (or never registered); NULL is a no-op
 *
 * Open files may still hold the core's part; it goes with the last one.
 */
void ibx_dealloc_device(struct ibx_device *dev)
{
	struct ibx_core_dev *core;

	if (!dev)
		return;
	core = ibx_cdev(dev);
	ibx_put_netdevs(dev);
	mutex_lock(&core->lock);
	core->ibdev = NULL;
	mutex_unlock(&core->lock);
	put_device(&core->udev);
	kfree(dev);
}
EXPORT_SYMBOL_GPL(ibx_dealloc_device);

static bool ibx_name_in_use(const char *name)
{
	struct ibx_core_dev *c;

	list_for_each_entry(c, &ibx_devices, node)
		if (!strcmp(c->ibdev->name, name))
			return true;
	return false;
}

/* Resolves one "%d" in the driver's name to the lowest free number. */
static int ibx_assign_name(struct ibx_device *dev)
{
	char prefix[IBX_DEVICE_NAME_MAX], name[IBX_DEVICE_NAME_MAX];
	const char *pct = strstr(dev->name, "%d");
	const char *suffix;
	int i;

	if (!dev->name[0] || strchr(dev->name, '/'))
		return -EINVAL;
	if (!pct) {
		if (strchr(dev->name, '%'))
			return -EINVAL;
		return ibx_name_in_use(dev->name) ? -EEXIST : 0;
	}
	suffix = pct + 2;
	if (strchr(suffix, '%'))
		return -EINVAL;
	strscpy(prefix, dev->name, min_t(size_t, pct - dev->name + 1,
					 sizeof(prefix)));
	for (i = 0; i < 1000; i++) {
		if (snprintf(name, sizeof(name), "%s%d%s", prefix, i, suffix) >=
		    sizeof(name))
			return -EINVAL;
		if (!ibx_name_in_use(name)) {
			strscpy(dev->name, name, sizeof(dev->name));
			return 0;
		}
	}
	return -ENFILE;
}

static void ibx_hca_dev_release(struct device *d)
{
	kfree(d);
}

/*
 * The ibdev's "device": the driver's parent device if it gives one (a
 * device bound to a driver, as a real HCA's PCI function: Open MPI and
 * UCX read /sys/class/infiniband/<ibdev>/device/driver), else a small
 * device of our own.  Either way we add a net/ directory linking the
 * bound netdevs, the path rdma-core tools read
 * (/sys/class/infiniband/<ibdev>/device/net/<ifname>).
 */
static struct device *ibx_hca_dev_get(struct ibx_core_dev *core)
{
	struct ibx_device *dev = core->ibdev;
	struct device *d;
	int ret;

	if (dev->parent) {
		core->hca_dev_ours = false;
		return get_device(dev->parent);
	}
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return ERR_PTR(-ENOMEM);
	device_initialize(d);
	d->release = ibx_hca_dev_release;
	ret = dev_set_name(d, "%s_hca", dev->name);
	if (!ret)
		ret = device_add(d);
	if (ret) {
		put_device(d);
		return ERR_PTR(ret);
	}
	core->hca_dev_ours = true;
	return d;
}

static void ibx_hca_dev_put(struct ibx_core_dev *core)
{
	if (core->hca_dev_ours)
		device_unregister(core->hca_dev);
	else
		put_device(core->hca_dev);
	core->hca_dev = NULL;
}

static int ibx_hca_dev_add(struct ibx_core_dev *core)
{
	struct ibx_device *dev = core->ibdev;
	struct device *d;
	int port;

	d = ibx_hca_dev_get(core);
	if (IS_ERR(d))
		return PTR_ERR(d);
	core->hca_dev = d;
	core->net_kobj = kobject_create_and_add("net", &d->kobj);
	if (!core->net_kobj) {
		ibx_hca_dev_put(core);
		return -ENOMEM;
	}
	for (port = 1; port <= IBX_MAX_PORTS; port++)
		if (dev->netdev[port] &&
		    sysfs_create_link(core->net_kobj, &dev->netdev[port]->dev.kobj,
				      dev->netdev[port]->name))
			pr_warn("%s: no device/net link for %s\n",
				dev->name, dev->netdev[port]->name);
	return 0;
}

static void ibx_hca_dev_del(struct ibx_core_dev *core)
{
	kobject_put(core->net_kobj);	/* removes the links with it */
	core->net_kobj = NULL;
	ibx_hca_dev_put(core);
}

/**
 * ibx_register_device() - make a device visible to users
 * @dev: filled by the driver: name (one %d allowed), ops, attr, ports,
 *	optionally the owning network namespace
 *
 * Creates /sys/class/infiniband/<name> (in the owning namespace, and in
 * shared mode in every other one) and /dev/infiniband/uverbsN, then tells
 * the kernel clients (ibx_register_client()).
 *
 * Return: 0, -EINVAL for a bad name or port count, -EEXIST for a name in
 * use, or another errno from the driver core.
 */
int ibx_register_device(struct ibx_device *dev)
{
	struct ibx_core_dev *core = ibx_cdev(dev);
	int ret;

	if (!dev->ops || !dev->ops->owner || core->registered)
		return -EINVAL;
	if (dev->attr.base.phys_port_cnt < 1 ||
	    dev->attr.base.phys_port_cnt > IBX_MAX_PORTS)
		return -EINVAL;

	mutex_lock(&core->reg_lock);
	/*
	 * The owning namespace is chosen and the device listed under the
	 * namespaces' lock: a namespace's exit either sees the device or
	 * made it choose init_net (netns.c).
	 */
	ibx_netns_lock();
	mutex_lock(&ibx_devices_lock);
	ret = ibx_assign_name(dev);
	if (!ret) {
		ibx_netns_assign(core);
		list_add_tail(&core->node, &ibx_devices);
	}
	mutex_unlock(&ibx_devices_lock);
	ibx_netns_unlock();
	if (ret) {
		mutex_unlock(&core->reg_lock);
		return ret;
	}

	ret = ida_alloc_max(&ibx_uverbs_ida, IBX_MAX_DEVICES - 1, GFP_KERNEL);
	if (ret < 0)
		goto err_list;
	core->index = ret;

	mutex_lock(&core->lock);
	ret = ibx_hca_dev_add(core);
	if (ret)
		goto err_unlock;
	ret = ibx_sysfs_add(core);
	if (ret)
		goto err_hca;

	core->udev.class = ibx_uverbs_class;
	core->udev.parent = core->hca_dev;
	core->udev.devt = MKDEV(MAJOR(ibx_uverbs_base), core->index);
	core->udev.groups = ibx_uverbs_dev_groups;
	dev_set_drvdata(&core->udev, core);
	ret = dev_set_name(&core->udev, "uverbs%d", core->index);
	if (ret)
		goto err_sysfs;
	cdev_init(&core->cdev, &ibx_uverbs_fops);
	core->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&core->cdev, &core->udev);
	if (ret)
		goto err_sysfs;
	core->registered = true;
	mutex_unlock(&core->lock);
	ibx_clients_add_device(core);
	ibx_netns_open_views(core);
	mutex_unlock(&core->reg_lock);
	return 0;

err_sysfs:
	ibx_sysfs_del(core);
err_hca:
	ibx_hca_dev_del(core);
err_unlock:
	mutex_unlock(&core->lock);
	ida_free(&ibx_uverbs_ida, core->index);
	core->index = -1;
err_list:
	mutex_lock(&ibx_devices_lock);
	list_del_init(&core->node);
	mutex_unlock(&ibx_devices_lock);
	mutex_unlock(&core->reg_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(ibx_register_device);

/*
 * Disassociates every open context, as when the device goes away:
 * DEVICE_FATAL, objects destroyed through the ops, mappings zapped, later
 * commands -EIO; the files stay open until their owners close them.
 */
void ibx_disassociate_files(struct ibx_core_dev *core)
{
	struct ibx_ufile *uf;

	lockdep_assert_held(&core->lock);
	list_for_each_entry(uf, &core->files, node) {
		ibx_ufile_teardown(uf, true);
		if (uf->owner)
			module_put(uf->owner);
		uf->owner = NULL;
	}
}

/**
 * ibx_unregister_device() - withdraw a device
 * @dev: a registered device
 *
 * Kernel clients are removed first; then open contexts get
 * IBX_EVENT_DEVICE_FATAL and are disassociated (objects destroyed through
 * the ops, later commands fail with -EIO).  Returns once no op of @dev
 * runs or will run.  May sleep.
 */
void ibx_unregister_device(struct ibx_device *dev)
{
	struct ibx_core_dev *core = ibx_cdev(dev);

	mutex_lock(&core->reg_lock);
	/* Kernel clients' objects (QP1, CM ids) go before user contexts. */
	ibx_clients_remove_device(core);
	ibx_netns_close_views(core);
	mutex_lock(&core->lock);
	if (!core->registered) {
		mutex_unlock(&core->lock);
		mutex_unlock(&core->reg_lock);
		return;
	}
	core->dying = true;
	/* No new opens; open files keep core->udev (and @core) alive. */
	cdev_device_del(&core->cdev, &core->udev);
	ibx_sysfs_del(core);
	ibx_disassociate_files(core);
	ibx_hca_dev_del(core);
	core->registered = false;
	mutex_unlock(&core->lock);
	mutex_unlock(&core->reg_lock);

	ibx_put_netdevs(dev);

	ida_free(&ibx_uverbs_ida, core->index);
	core->index = -1;
	mutex_lock(&ibx_devices_lock);
	list_del_init(&core->node);
	mutex_unlock(&ibx_devices_lock);
	mutex_lock(&core->lock);
	core->dying = false;
	mutex_unlock(&core->lock);
}
EXPORT_SYMBOL_GPL(ibx_unregister_device);

/**
 * ibx_set_netdev() - bind a port to its netdev
 * @dev: the device
 * @port: the port number
 * @ndev: the netdev (held while bound), or NULL to unbind
 *
 * The binding is what device/net/ in sysfs shows.
 *
 * Return: 0, or -EINVAL for a bad port.
 */
int ibx_set_netdev(struct ibx_device *dev, u32 port, struct net_device *ndev)
{
	struct ibx_core_dev *core = ibx_cdev(dev);
	struct net_device *old;

	if (port < 1 || port > IBX_MAX_PORTS)
		return -EINVAL;
	if (ndev)
		dev_hold(ndev);
	mutex_lock(&core->lock);
	old = dev->netdev[port];
	if (old && core->net_kobj)
		sysfs_remove_link(core->net_kobj, old->name);
	dev->netdev[port] = ndev;
	if (ndev && core->net_kobj &&
	    sysfs_create_link(core->net_kobj, &ndev->dev.kobj, ndev->name))
		pr_warn("%s: no device/net link for %s\n",
			dev->name, ndev->name);
	mutex_unlock(&core->lock);
	if (old)
		dev_put(old);
	return 0;
}
EXPORT_SYMBOL_GPL(ibx_set_netdev);

/**
 * ibx_set_gid() - set or clear a GID table entry
 * @dev: the device
 * @port: the port number
 * @index: the entry
 * @gid: the GID, or NULL to clear the entry
 * @type: its type (RoCE v1 or v2)
 * @ndev: the netdev it belongs to (held while set)
 *
 * Raises IBX_EVENT_GID_CHANGE.  Any context that may take a spinlock.
 *
 * Return: 0, or -EINVAL for a bad port or index.
 */
int ibx_set_gid(struct ibx_device *dev, u32 port, unsigned int index,
		const union ibx_gid *gid, enum ibx_gid_type type,
		struct net_device *ndev)
{
	struct ibx_core_dev *core = ibx_cdev(dev);
	struct net_device *old;
	unsigned long flags;

	if (port < 1 || port > IBX_MAX_PORTS || index >= IBX_GID_TABLE_LEN)
		return -EINVAL;
	if (gid && ndev)
		dev_hold(ndev);
	spin_lock_irqsave(&core->gid_lock, flags);
	old = dev->gids[port].entry[index].ndev;
	if (gid) {
		dev->gids[port].entry[index].gid = *gid;
		dev->gids[port].entry[index].type = type;
		dev->gids[port].entry[index].ndev = ndev;
		dev->gids[port].entry[index].valid = true;
	} else {
		memset(&dev->gids[port].entry[index], 0,
		       sizeof(dev->gids[port].entry[index]));
	}
	spin_unlock_irqrestore(&core->gid_lock, flags);
	if (old)
		dev_put(old);
	ibx_port_event(dev, port, IBX_EVENT_GID_CHANGE);
	return 0;
}
EXPORT_SYMBOL_GPL(ibx_set_gid);

/**
 * ibx_get_gid() - read a GID table entry
 * @dev: the device
 * @port: the port number
 * @index: the entry
 * @gid: where to copy the GID (may be NULL)
 * @type: where to copy its type (may be NULL)
 *
 * Any context.
 *
 * Return: 0, -ENOENT for an empty entry, -EINVAL for a bad port or index.
 */
int ibx_get_gid(struct ibx_device *dev, u32 port, unsigned int index,
		union ibx_gid *gid, enum ibx_gid_type *type)
{
	struct ibx_core_dev *core = ibx_cdev(dev);
	unsigned long flags;
	int ret = -ENOENT;

	if (port < 1 || port > IBX_MAX_PORTS || index >= IBX_GID_TABLE_LEN)
		return -EINVAL;
	spin_lock_irqsave(&core->gid_lock, flags);
	if (dev->gids[port].entry[index].valid) {
		if (gid)
			*gid = dev->gids[port].entry[index].gid;
		if (type)
			*type = dev->gids[port].entry[index].type;
		ret = 0;
	}
	spin_unlock_irqrestore(&core->gid_lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(ibx_get_gid);

/**
 * ibx_get_gid_ndev() - the netdev of a GID table entry
 * @dev: the device
 * @port: the port number
 * @index: the entry
 *
 * Any context.  The namespace of the netdev is the one the GID's
 * addresses belong to (rdma_cm binds and listens per namespace by it).
 *
 * Return: the netdev, held (dev_put() it), or NULL.
 */
struct net_device *ibx_get_gid_ndev(struct ibx_device *dev, u32 port,
				    unsigned int index)
{
	struct ibx_core_dev *core = ibx_cdev(dev);
	struct net_device *nd = NULL;
	unsigned long flags;

	if (port < 1 || port > IBX_MAX_PORTS || index >= IBX_GID_TABLE_LEN)
		return NULL;
	spin_lock_irqsave(&core->gid_lock, flags);
	if (dev->gids[port].entry[index].valid)
		nd = dev->gids[port].entry[index].ndev;
	if (nd)
		dev_hold(nd);
	spin_unlock_irqrestore(&core->gid_lock, flags);
	return nd;
}
EXPORT_SYMBOL_GPL(ibx_get_gid_ndev);

/**
 * ibx_device_index() - the device's index
 * @dev: the device
 *
 * The N of its uverbsN, which is also our libibverbs'
 * ibv_get_device_index() and the ibdev index of netlink and rdma_cm.
 *
 * Return: the index, or -1 while unregistered.
 */
int ibx_device_index(struct ibx_device *dev)
{
	return ibx_cdev(dev)->index;
}
EXPORT_SYMBOL_GPL(ibx_device_index);

bool ibx_gid_valid(struct ibx_device *dev, u32 port, unsigned int index)
{
	return ibx_get_gid(dev, port, index, NULL, NULL) == 0;
}

bool ibx_port_valid(struct ibx_device *dev, u32 port)
{
	return port >= 1 && port <= dev->attr.base.phys_port_cnt &&
	       port <= IBX_MAX_PORTS;
}

int ibx_port_query(struct ibx_device *dev, u32 port,
		   struct ib_uverbs_query_port_resp *resp)
{
	int ret;

	memset(resp, 0, sizeof(*resp));
	if (!ibx_port_valid(dev, port))
		return -EINVAL;
	if (!dev->ops->query_port)
		return -EOPNOTSUPP;
	ret = dev->ops->query_port(dev, port, resp);
	if (ret)
		return ret;
	/* The GID table is the core's; every port of this core is RoCE. */
	resp->gid_tbl_len = IBX_GID_TABLE_LEN;
	resp->link_layer = IBX_LINK_LAYER_ETHERNET;
	if (!resp->pkey_tbl_len)
		resp->pkey_tbl_len = 1;
	return 0;
}
