// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * device.c - HCA driver registration (stubs until the real core lands).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include "ibx_core.h"

struct ibx_device *ibx_alloc_device(size_t size)
{
	if (size < sizeof(struct ibx_device))
		return NULL;
	return kzalloc(size, GFP_KERNEL);
}
EXPORT_SYMBOL_GPL(ibx_alloc_device);

void ibx_dealloc_device(struct ibx_device *dev)
{
	kfree(dev);
}
EXPORT_SYMBOL_GPL(ibx_dealloc_device);

int ibx_register_device(struct ibx_device *dev)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL_GPL(ibx_register_device);

void ibx_unregister_device(struct ibx_device *dev)
{
}
EXPORT_SYMBOL_GPL(ibx_unregister_device);

int ibx_set_netdev(struct ibx_device *dev, u32 port, struct net_device *ndev)
{
	return 0;
}
EXPORT_SYMBOL_GPL(ibx_set_netdev);

int ibx_set_gid(struct ibx_device *dev, u32 port, unsigned int index,
		const union ibx_gid *gid, enum ibx_gid_type type,
		struct net_device *ndev)
{
	return 0;
}
EXPORT_SYMBOL_GPL(ibx_set_gid);

int ibx_get_gid(struct ibx_device *dev, u32 port, unsigned int index,
		union ibx_gid *gid, enum ibx_gid_type *type)
{
	return -ENOENT;
}
EXPORT_SYMBOL_GPL(ibx_get_gid);
