// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * client.c - kernel clients of the core: the modules that build on a
 * device (the CM creates QP1 on each one) learn of devices coming and
 * going here.
 *
 * Lock order: ibx_clients_lock, then ibx_devices_lock, then core->lock.
 * ibx_clients_lock serializes every add() and remove() with device
 * registration, so a client never sees a device half registered.
 */
#include <linux/module.h>
#include <linux/xarray.h>
#include "core_priv.h"

static DEFINE_MUTEX(ibx_clients_lock);
static LIST_HEAD(ibx_clients);
static DEFINE_XARRAY_ALLOC(ibx_client_ids);
/* Stored for a client that was added but set no data: marks "added". */
static char ibx_client_no_data;

static void ibx_client_add_one(struct ibx_client *client,
			       struct ibx_core_dev *core)
{
	int ret;

	if (!client->add)
		return;
	ret = client->add(core->ibdev);
	if (ret) {
		pr_warn("client %s: %s not added (%d)\n",
			client->name, core->ibdev->name, ret);
		return;
	}
	if (!xa_load(&core->client_data, client->client_id))
		xa_store(&core->client_data, client->client_id,
			 &ibx_client_no_data, GFP_KERNEL);
}

static void ibx_client_remove_one(struct ibx_client *client,
				  struct ibx_core_dev *core)
{
	void *data;

	data = xa_erase(&core->client_data, client->client_id);
	if (!data)
		return;		/* add() failed or never ran */
	if (client->remove)
		client->remove(core->ibdev,
			       data == &ibx_client_no_data ? NULL : data);
}

/* Called by ibx_register_device() once the device is fully registered. */
void ibx_clients_add_device(struct ibx_core_dev *core)
{
	struct ibx_client *client;

	mutex_lock(&ibx_clients_lock);
	list_for_each_entry(client, &ibx_clients, node)
		ibx_client_add_one(client, core);
	core->clients_added = true;
	mutex_unlock(&ibx_clients_lock);
}

/* Called by ibx_unregister_device() before user contexts are torn down. */
void ibx_clients_remove_device(struct ibx_core_dev *core)
{
	struct ibx_client *client;

	mutex_lock(&ibx_clients_lock);
	list_for_each_entry_reverse(client, &ibx_clients, node)
		ibx_client_remove_one(client, core);
	core->clients_added = false;
	mutex_unlock(&ibx_clients_lock);
}

/**
 * ibx_register_client() - register a kernel client of the core
 * @client: name and callbacks; add() runs for every registered device
 *	before this returns, and for devices registered later
 *
 * Return: 0, or -ENOMEM.
 */
int ibx_register_client(struct ibx_client *client)
{
	struct ibx_core_dev *core;
	int ret;

	mutex_lock(&ibx_clients_lock);
	ret = xa_alloc(&ibx_client_ids, &client->client_id, client,
		       xa_limit_31b, GFP_KERNEL);
	if (ret) {
		mutex_unlock(&ibx_clients_lock);
		return ret;
	}
	list_add_tail(&client->node, &ibx_clients);
	mutex_lock(&ibx_devices_lock);
	list_for_each_entry(core, &ibx_devices, node)
		if (core->clients_added)
			ibx_client_add_one(client, core);
	mutex_unlock(&ibx_devices_lock);
	mutex_unlock(&ibx_clients_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(ibx_register_client);

/**
 * ibx_unregister_client() - unregister a kernel client
 * @client: a registered client; remove() runs for every device it was
 *	added to before this returns
 */
void ibx_unregister_client(struct ibx_client *client)
{
	struct ibx_core_dev *core;

	mutex_lock(&ibx_clients_lock);
	mutex_lock(&ibx_devices_lock);
	list_for_each_entry(core, &ibx_devices, node)
		if (core->clients_added)
			ibx_client_remove_one(client, core);
	mutex_unlock(&ibx_devices_lock);
	list_del(&client->node);
	xa_erase(&ibx_client_ids, client->client_id);
	mutex_unlock(&ibx_clients_lock);
}
EXPORT_SYMBOL_GPL(ibx_unregister_client);

/**
 * ibx_set_client_data() - set a client's pointer for a device
 * @dev: the device
 * @client: the client, usually from its add()
 * @data: the pointer, passed to remove()
 */
void ibx_set_client_data(struct ibx_device *dev, struct ibx_client *client,
			 void *data)
{
	xa_store(&ibx_cdev(dev)->client_data, client->client_id,
		 data ? data : &ibx_client_no_data, GFP_KERNEL);
}
EXPORT_SYMBOL_GPL(ibx_set_client_data);

/**
 * ibx_get_client_data() - a client's pointer for a device
 * @dev: the device
 * @client: the client
 *
 * Return: what ibx_set_client_data() stored, or NULL.
 */
void *ibx_get_client_data(struct ibx_device *dev, struct ibx_client *client)
{
	void *data = xa_load(&ibx_cdev(dev)->client_data, client->client_id);

	return data == &ibx_client_no_data ? NULL : data;
}
EXPORT_SYMBOL_GPL(ibx_get_client_data);

/*
 * The client named @name answers netlink GET_CHARDEV; -ENOENT if no
 * such client is registered or it has no character device.
 */
int ibx_client_get_nl_info(struct ibx_device *dev, const char *name,
			   struct ibx_client_nl_info *res)
{
	struct ibx_client *client;
	int ret = -ENOENT;

	mutex_lock(&ibx_clients_lock);
	list_for_each_entry(client, &ibx_clients, node) {
		if (strcmp(client->name, name) || !client->get_nl_info)
			continue;
		ret = client->get_nl_info(dev, res);
		break;
	}
	mutex_unlock(&ibx_clients_lock);
	return ret;
}

/*
 * The same, copying what netlink reports while the client (and its
 * device) cannot go away: both locks are held across get_nl_info().  A
 * device @net may not see is no device.
 */
int ibx_client_nl_chardev(struct net *net, int index, const char *name,
			  struct ibx_nl_chardev *cd)
{
	struct ibx_client_nl_info info = {};
	struct ibx_core_dev *core = NULL, *c;
	struct ibx_client *client;
	int ret = -ENOENT;

	mutex_lock(&ibx_clients_lock);
	mutex_lock(&ibx_devices_lock);
	if (index >= 0) {
		list_for_each_entry(c, &ibx_devices, node)
			if (c->index == index && c->clients_added &&
			    ibx_core_access_netns(c, net))
				core = c;
		if (!core)
			goto out;
	}
	list_for_each_entry(client, &ibx_clients, node) {
		if (strcmp(client->name, name) || !client->get_nl_info)
			continue;
		ret = client->get_nl_info(core ? core->ibdev : NULL, &info);
		if (!ret && !info.cdev)
			ret = -EINVAL;	/* ib_core: a client must name one */
		if (!ret) {
			cd->devt = info.cdev->devt;
			cd->abi = info.abi;
			strscpy(cd->name, dev_name(info.cdev), sizeof(cd->name));
		}
		break;
	}
out:
	mutex_unlock(&ibx_devices_lock);
	mutex_unlock(&ibx_clients_lock);
	return ret;
}
