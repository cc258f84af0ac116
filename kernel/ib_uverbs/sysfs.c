// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sysfs.c - /sys/class/infiniband/<ibdev>/... and the attributes of
 * /sys/class/infiniband_verbs/uverbsN.  The text formats are those of the
 * in-tree ib_core, since rdma-core and tools parse them.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/netdevice.h>
#include "core_priv.h"

/* ---- uverbsN ---- */

static ssize_t ibdev_show(struct device *d, struct device_attribute *attr,
			  char *buf)
{
	struct ibx_core_dev *core = dev_get_drvdata(d);

	return sysfs_emit(buf, "%s\n", core->ibdev->name);
}
static DEVICE_ATTR_RO(ibdev);

static ssize_t abi_version_show(struct device *d,
				struct device_attribute *attr, char *buf)
{
	struct ibx_core_dev *core = dev_get_drvdata(d);

	return sysfs_emit(buf, "%u\n", core->ibdev->driver_abi_version);
}
static DEVICE_ATTR_RO(abi_version);

static struct attribute *ibx_uverbs_dev_attrs[] = {
	&dev_attr_ibdev.attr,
	&dev_attr_abi_version.attr,
	NULL,
};

static const struct attribute_group ibx_uverbs_dev_group = {
	.attrs = ibx_uverbs_dev_attrs,
};

const struct attribute_group *ibx_uverbs_dev_groups[] = {
	&ibx_uverbs_dev_group,
	NULL,
};

/* ---- <ibdev>/ ---- */

static struct ibx_device *ibx_sysfs_ibdev(struct device *d)
{
	return ((struct ibx_core_dev *)dev_get_drvdata(d))->ibdev;
}

static ssize_t node_type_show(struct device *d, struct device_attribute *attr,
			      char *buf)
{
	static const char *const names[] = {
		[1] = "CA", [2] = "switch", [3] = "router", [4] = "RNIC",
		[5] = "usNIC", [6] = "usNIC UDP", [7] = "unspecified",
	};
	u32 t = ibx_sysfs_ibdev(d)->node_type;

	if (t < ARRAY_SIZE(names) && names[t])
		return sysfs_emit(buf, "%u: %s\n", t, names[t]);
	return sysfs_emit(buf, "%u\n", t);
}
static DEVICE_ATTR_RO(node_type);

static ssize_t ibx_emit_guid(char *buf, __be64 guid)
{
	u64 g = be64_to_cpu(guid);

	return sysfs_emit(buf, "%04x:%04x:%04x:%04x\n", (u16)(g >> 48),
			  (u16)(g >> 32), (u16)(g >> 16), (u16)g);
}

static ssize_t node_guid_show(struct device *d, struct device_attribute *attr,
			      char *buf)
{
	return ibx_emit_guid(buf, ibx_sysfs_ibdev(d)->attr.base.node_guid);
}
static DEVICE_ATTR_RO(node_guid);

static ssize_t sys_image_guid_show(struct device *d,
				   struct device_attribute *attr, char *buf)
{
	return ibx_emit_guid(buf, ibx_sysfs_ibdev(d)->attr.base.sys_image_guid);
}
static DEVICE_ATTR_RO(sys_image_guid);

static ssize_t fw_ver_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n", ibx_sysfs_ibdev(d)->fw_ver);
}
static DEVICE_ATTR_RO(fw_ver);

static ssize_t node_desc_show(struct device *d, struct device_attribute *attr,
			      char *buf)
{
	return sysfs_emit(buf, "%.64s\n", ibx_sysfs_ibdev(d)->name);
}
static DEVICE_ATTR_RO(node_desc);

/* hca_type, hw_rev and board_id as mlx5 has them; ibstat prints them. */
static ssize_t hca_type_show(struct device *d, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%s\n", ibx_sysfs_ibdev(d)->hca_type);
}
static DEVICE_ATTR_RO(hca_type);

static ssize_t hw_rev_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%x\n", ibx_sysfs_ibdev(d)->attr.base.hw_ver);
}
static DEVICE_ATTR_RO(hw_rev);

static ssize_t board_id_show(struct device *d, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%.*s\n", (int)sizeof(ibx_sysfs_ibdev(d)->board_id),
			  ibx_sysfs_ibdev(d)->board_id);
}
static DEVICE_ATTR_RO(board_id);

static struct attribute *ibx_ib_dev_attrs[] = {
	&dev_attr_hca_type.attr,
	&dev_attr_hw_rev.attr,
	&dev_attr_board_id.attr,
	&dev_attr_node_type.attr,
	&dev_attr_node_guid.attr,
	&dev_attr_sys_image_guid.attr,
	&dev_attr_fw_ver.attr,
	&dev_attr_node_desc.attr,
	NULL,
};
ATTRIBUTE_GROUPS(ibx_ib_dev);

/* ---- <ibdev>/ports/N/ ---- */

struct ibx_port_sysfs;

struct ibx_port_attr {
	struct attribute attr;
	ssize_t (*show)(struct ibx_port_sysfs *p, struct ibx_port_attr *a,
			char *buf);
	unsigned int index;
	char name[8];
};

struct ibx_port_sysfs {
	struct kobject kobj;		/* ports/N */
	struct kobject gid_attrs;	/* ports/N/gid_attrs (child of kobj) */
	struct ibx_core_dev *core;
	u32 port;

	struct ibx_port_attr gid[IBX_GID_TABLE_LEN];
	struct ibx_port_attr type[IBX_GID_TABLE_LEN];
	struct ibx_port_attr ndev[IBX_GID_TABLE_LEN];
	struct ibx_port_attr pkey0;
	struct attribute *gid_list[IBX_GID_TABLE_LEN + 1];
	struct attribute *type_list[IBX_GID_TABLE_LEN + 1];
	struct attribute *ndev_list[IBX_GID_TABLE_LEN + 1];
	struct attribute *pkey_list[2];
	struct attribute_group gids_group, pkeys_group, types_group,
			       ndevs_group, counters_group;
	/* hw_counters: one per driver counter plus "lifespan". */
	struct ibx_port_attr *counters;
	struct attribute **counter_list;
	bool has_counters;
};

static struct ibx_device *ibx_port_ibdev(struct ibx_port_sysfs *p)
{
	return p->core->ibdev;
}

static ssize_t ibx_port_attr_show(struct kobject *kobj, struct attribute *attr,
				  char *buf)
{
	struct ibx_port_attr *a = container_of(attr, struct ibx_port_attr, attr);

	return a->show(container_of(kobj, struct ibx_port_sysfs, kobj), a, buf);
}

static ssize_t ibx_gid_attrs_show(struct kobject *kobj, struct attribute *attr,
				  char *buf)
{
	struct ibx_port_attr *a = container_of(attr, struct ibx_port_attr, attr);

	return a->show(container_of(kobj, struct ibx_port_sysfs, gid_attrs),
		       a, buf);
}

static const struct sysfs_ops ibx_port_sysfs_ops = {
	.show = ibx_port_attr_show,
};

static const struct sysfs_ops ibx_gid_attrs_sysfs_ops = {
	.show = ibx_gid_attrs_show,
};

static int ibx_port_attr_query(struct ibx_port_sysfs *p,
			       struct ib_uverbs_query_port_resp *r)
{
	return ibx_port_query(ibx_port_ibdev(p), p->port, r);
}

#define IBX_PORT_ATTR(_name)						\
static ssize_t _name##_port_show(struct ibx_port_sysfs *p,		\
				 struct ibx_port_attr *a, char *buf);	\
static struct ibx_port_attr ibx_port_attr_##_name = {			\
	.attr = { .name = __stringify(_name), .mode = 0444 },		\
	.show = _name##_port_show,					\
};									\
static ssize_t _name##_port_show(struct ibx_port_sysfs *p,		\
				 struct ibx_port_attr *a, char *buf)

/* Port attributes that print one field of the port query. */
#define IBX_PORT_FIELD(_name, _fmt, _field)				\
IBX_PORT_ATTR(_name)							\
{									\
	struct ib_uverbs_query_port_resp r;				\
	int ret = ibx_port_attr_query(p, &r);				\
									\
	return ret ? ret : sysfs_emit(buf, _fmt, r._field);		\
}

IBX_PORT_FIELD(lid, "0x%x\n", lid)
IBX_PORT_FIELD(lid_mask_count, "%u\n", lmc)
IBX_PORT_FIELD(sm_lid, "0x%x\n", sm_lid)
IBX_PORT_FIELD(sm_sl, "%u\n", sm_sl)
IBX_PORT_FIELD(cap_mask, "0x%08x\n", port_cap_flags)

IBX_PORT_ATTR(state)
{
	static const char *const names[] = {
		"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER",
	};
	struct ib_uverbs_query_port_resp r;
	int ret = ibx_port_attr_query(p, &r);

	if (ret)
		return ret;
	return sysfs_emit(buf, "%u: %s\n", r.state,
			  r.state < ARRAY_SIZE(names) ? names[r.state] :
							"UNKNOWN");
}

IBX_PORT_ATTR(phys_state)
{
	static const char *const names[] = {
		[1] = "Sleep", [2] = "Polling", [3] = "Disabled",
		[4] = "PortConfigurationTraining", [5] = "LinkUp",
		[6] = "LinkErrorRecovery", [7] = "Phy Test",
	};
	struct ib_uverbs_query_port_resp r;
	int ret = ibx_port_attr_query(p, &r);

	if (ret)
		return ret;
	return sysfs_emit(buf, "%u: %s\n", r.phys_state,
			  r.phys_state < ARRAY_SIZE(names) &&
			  names[r.phys_state] ? names[r.phys_state] :
						"<unknown>");
}

IBX_PORT_ATTR(link_layer)
{
	return sysfs_emit(buf, "%s\n", "Ethernet");
}

/* IBA 14.2.5.6 PortInfo: LinkWidthActive and LinkSpeedActive encodings. */
static int ibx_width_to_int(u8 width)
{
	switch (width) {
	case 1: return 1;
	case 16: return 2;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	default: return -1;
	}
}

IBX_PORT_ATTR(rate)
{
	struct ib_uverbs_query_port_resp r;
	const char *speed;
	int ret = ibx_port_attr_query(p, &r);
	int rate, width;	/* rate in units of 0.1 Gb/s per lane */

	if (ret)
		return ret;
	switch (r.active_speed) {
	case 2: speed = " DDR"; rate = 50; break;
	case 4: speed = " QDR"; rate = 100; break;
	case 8: speed = " FDR10"; rate = 100; break;
	case 16: speed = " FDR"; rate = 140; break;
	case 32: speed = " EDR"; rate = 250; break;
	case 64: speed = " HDR"; rate = 500; break;
	case 128: speed = " NDR"; rate = 1000; break;
	default: speed = " SDR"; rate = 25; break;
	}
	width = ibx_width_to_int(r.active_width);
	if (width < 0)
		return -EINVAL;
	rate *= width;
	return sysfs_emit(buf, "%d%s Gb/sec (%dX%s)\n", rate / 10,
			  rate % 10 ? ".5" : "", width, speed);
}

static struct attribute *ibx_port_default_attrs[] = {
	&ibx_port_attr_state.attr,
	&ibx_port_attr_lid.attr,
	&ibx_port_attr_lid_mask_count.attr,
	&ibx_port_attr_sm_lid.attr,
	&ibx_port_attr_sm_sl.attr,
	&ibx_port_attr_cap_mask.attr,
	&ibx_port_attr_rate.attr,
	&ibx_port_attr_phys_state.attr,
	&ibx_port_attr_link_layer.attr,
	NULL,
};
ATTRIBUTE_GROUPS(ibx_port_default);

static void ibx_port_release(struct kobject *kobj)
{
	struct ibx_port_sysfs *p = container_of(kobj, struct ibx_port_sysfs,
						kobj);

	kfree(p->counters);
	kfree(p->counter_list);
	kfree(p);
}

/* Freed with its parent port (the child holds a reference on it). */
static void ibx_gid_attrs_release(struct kobject *kobj)
{
}

static const struct kobj_type ibx_port_ktype = {
	.release = ibx_port_release,
	.sysfs_ops = &ibx_port_sysfs_ops,
	.default_groups = ibx_port_default_groups,
};

static const struct kobj_type ibx_gid_attrs_ktype = {
	.release = ibx_gid_attrs_release,
	.sysfs_ops = &ibx_gid_attrs_sysfs_ops,
};

static ssize_t ibx_gid_show(struct ibx_port_sysfs *p, struct ibx_port_attr *a,
			    char *buf)
{
	union ibx_gid gid;

	/* An empty entry reads as the zero GID, as in ib_core. */
	if (ibx_get_gid(ibx_port_ibdev(p), p->port, a->index, &gid, NULL))
		memset(&gid, 0, sizeof(gid));
	return sysfs_emit(buf, "%pI6\n", gid.raw);
}

static ssize_t ibx_gid_type_show(struct ibx_port_sysfs *p,
				 struct ibx_port_attr *a, char *buf)
{
	enum ibx_gid_type type;

	if (ibx_get_gid(ibx_port_ibdev(p), p->port, a->index, NULL, &type))
		return -ENODATA;
	return sysfs_emit(buf, "%s\n", type == IBX_GID_TYPE_ROCE_V2 ?
				       "RoCE v2" : "IB/RoCE v1");
}

static ssize_t ibx_gid_ndev_show(struct ibx_port_sysfs *p,
				 struct ibx_port_attr *a, char *buf)
{
	struct ibx_device *dev = ibx_port_ibdev(p);
	char name[IFNAMSIZ] = "";
	unsigned long flags;
	bool valid;

	spin_lock_irqsave(&p->core->gid_lock, flags);
	valid = dev->gids[p->port].entry[a->index].valid;
	if (valid && dev->gids[p->port].entry[a->index].ndev)
		strscpy(name, dev->gids[p->port].entry[a->index].ndev->name,
			sizeof(name));
	spin_unlock_irqrestore(&p->core->gid_lock, flags);
	if (!valid || !name[0])
		return -ENODATA;
	return sysfs_emit(buf, "%s\n", name);
}

static ssize_t ibx_pkey_show(struct ibx_port_sysfs *p, struct ibx_port_attr *a,
			     char *buf)
{
	/* RoCE uses only the default full-membership P_Key (annex A16). */
	return sysfs_emit(buf, "0x%04x\n", 0xffff);
}

static ssize_t ibx_counter_show(struct ibx_port_sysfs *p,
				struct ibx_port_attr *a, char *buf)
{
	struct ibx_device *dev = ibx_port_ibdev(p);
	unsigned int n = dev->ops->num_hw_counters;
	u64 *values;
	ssize_t ret;

	if (!dev->ops->get_hw_counters)
		return -EOPNOTSUPP;
	values = kcalloc(n, sizeof(*values), GFP_KERNEL);
	if (!values)
		return -ENOMEM;
	ret = dev->ops->get_hw_counters(dev, p->port, values);
	if (!ret)
		ret = sysfs_emit(buf, "%llu\n", values[a->index]);
	kfree(values);
	return ret;
}

static ssize_t ibx_lifespan_show(struct ibx_port_sysfs *p,
				 struct ibx_port_attr *a, char *buf)
{
	/* Counters are read live; report ib_core's default lifespan (ms). */
	return sysfs_emit(buf, "%d\n", 10);
}

static void ibx_attr_set(struct ibx_port_attr *a, const char *name,
			 unsigned int index,
			 ssize_t (*show)(struct ibx_port_sysfs *,
					 struct ibx_port_attr *, char *))
{
	sysfs_attr_init(&a->attr);
	if (!name) {
		snprintf(a->name, sizeof(a->name), "%u", index);
		name = a->name;
	}
	a->attr.name = name;
	a->attr.mode = 0444;
	a->show = show;
	a->index = index;
}

static int ibx_port_counters_init(struct ibx_port_sysfs *p)
{
	const struct ibx_device_ops *ops = ibx_port_ibdev(p)->ops;
	unsigned int i, n = ops->num_hw_counters;

	if (!n || !ops->hw_counter_names)
		return 0;
	p->counters = kcalloc(n + 1, sizeof(*p->counters), GFP_KERNEL);
	p->counter_list = kcalloc(n + 2, sizeof(*p->counter_list), GFP_KERNEL);
	if (!p->counters || !p->counter_list)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ibx_attr_set(&p->counters[i], ops->hw_counter_names[i], i,
			     ibx_counter_show);
		p->counter_list[i] = &p->counters[i].attr;
	}
	ibx_attr_set(&p->counters[n], "lifespan", n, ibx_lifespan_show);
	p->counter_list[n] = &p->counters[n].attr;
	p->counters_group.name = "hw_counters";
	p->counters_group.attrs = p->counter_list;
	p->has_counters = true;
	return 0;
}

static int ibx_port_add(struct ibx_ib_view *view, u32 port)
{
	struct ibx_port_sysfs *p;
	unsigned int i;
	int ret;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->core = view->core;
	p->port = port;
	kobject_init(&p->kobj, &ibx_port_ktype);
	ret = kobject_add(&p->kobj, view->ports_kobj, "%u", port);
	if (ret)
		goto err_put;

	for (i = 0; i < IBX_GID_TABLE_LEN; i++) {
		ibx_attr_set(&p->gid[i], NULL, i, ibx_gid_show);
		ibx_attr_set(&p->type[i], NULL, i, ibx_gid_type_show);
		ibx_attr_set(&p->ndev[i], NULL, i, ibx_gid_ndev_show);
		p->gid_list[i] = &p->gid[i].attr;
		p->type_list[i] = &p->type[i].attr;
		p->ndev_list[i] = &p->ndev[i].attr;
	}
	ibx_attr_set(&p->pkey0, NULL, 0, ibx_pkey_show);
	p->pkey_list[0] = &p->pkey0.attr;
	p->gids_group = (struct attribute_group){ .name = "gids",
						  .attrs = p->gid_list };
	p->pkeys_group = (struct attribute_group){ .name = "pkeys",
						   .attrs = p->pkey_list };
	p->types_group = (struct attribute_group){ .name = "types",
						   .attrs = p->type_list };
	p->ndevs_group = (struct attribute_group){ .name = "ndevs",
						   .attrs = p->ndev_list };

	ret = sysfs_create_group(&p->kobj, &p->gids_group);
	if (!ret)
		ret = sysfs_create_group(&p->kobj, &p->pkeys_group);
	if (!ret)
		ret = ibx_port_counters_init(p);
	if (!ret && p->has_counters)
		ret = sysfs_create_group(&p->kobj, &p->counters_group);
	if (ret)
		goto err_del;

	kobject_init(&p->gid_attrs, &ibx_gid_attrs_ktype);
	ret = kobject_add(&p->gid_attrs, &p->kobj, "gid_attrs");
	if (ret) {
		kobject_put(&p->gid_attrs);
		goto err_del;
	}
	ret = sysfs_create_group(&p->gid_attrs, &p->types_group);
	if (!ret)
		ret = sysfs_create_group(&p->gid_attrs, &p->ndevs_group);
	if (ret) {
		kobject_put(&p->gid_attrs);
		goto err_del;
	}
	view->ports[port] = p;
	kobject_uevent(&p->kobj, KOBJ_ADD);
	return 0;

err_del:
	kobject_del(&p->kobj);
err_put:
	kobject_put(&p->kobj);
	return ret;
}

static void ibx_port_del(struct ibx_port_sysfs *p)
{
	/* Deleting removes the files and waits for running show()s. */
	kobject_del(&p->gid_attrs);
	kobject_put(&p->gid_attrs);
	kobject_del(&p->kobj);
	kobject_put(&p->kobj);
}

static void ibx_view_release(struct device *d)
{
	kfree(container_of(d, struct ibx_ib_view, dev));
}

/**
 * ibx_view_add() - add /sys/class/infiniband/<ibdev> for one namespace
 * @core: the device, registered or being registered
 * @net: the namespace whose sysfs mounts show it (the device's own, or
 *	another one's in shared mode)
 *
 * The attributes of every view read the same device.
 *
 * Return: the view, or an ERR_PTR.
 */
struct ibx_ib_view *ibx_view_add(struct ibx_core_dev *core, struct net *net)
{
	struct ibx_device *dev = core->ibdev;
	struct ibx_ib_view *view;
	u32 port;
	int ret;

	view = kzalloc(sizeof(*view), GFP_KERNEL);
	if (!view)
		return ERR_PTR(-ENOMEM);
	view->core = core;
	view->net = net;	/* the class's namespace() reads it in device_add */
	INIT_LIST_HEAD(&view->node);
	device_initialize(&view->dev);
	view->dev.class = ibx_ib_class;
	view->dev.parent = core->hca_dev;
	view->dev.groups = ibx_ib_dev_groups;
	view->dev.release = ibx_view_release;
	dev_set_drvdata(&view->dev, core);
	ret = dev_set_name(&view->dev, "%s", dev->name);
	if (!ret)
		ret = device_add(&view->dev);
	if (ret) {
		put_device(&view->dev);
		return ERR_PTR(ret);
	}
	view->ports_kobj = kobject_create_and_add("ports", &view->dev.kobj);
	if (!view->ports_kobj) {
		ret = -ENOMEM;
		goto err;
	}
	for (port = 1; port <= dev->attr.base.phys_port_cnt; port++) {
		ret = ibx_port_add(view, port);
		if (ret)
			goto err;
	}
	return view;
err:
	ibx_view_del(view);
	return ERR_PTR(ret);
}

/* Removes a view; waits for the show() calls running in it. */
void ibx_view_del(struct ibx_ib_view *view)
{
	u32 port;

	for (port = 1; port <= IBX_MAX_PORTS; port++) {
		if (view->ports[port])
			ibx_port_del(view->ports[port]);
		view->ports[port] = NULL;
	}
	kobject_put(view->ports_kobj);
	view->ports_kobj = NULL;
	device_unregister(&view->dev);	/* the release frees the view */
}

int ibx_sysfs_add(struct ibx_core_dev *core)
{
	struct ibx_ib_view *view;

	lockdep_assert_held(&core->lock);
	view = ibx_view_add(core, core->net);
	if (IS_ERR(view))
		return PTR_ERR(view);
	core->view = view;
	return 0;
}

void ibx_sysfs_del(struct ibx_core_dev *core)
{
	lockdep_assert_held(&core->lock);
	if (core->view)
		ibx_view_del(core->view);
	core->view = NULL;
}
