// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * main.c - module entry points of the verbs core: the two sysfs classes
 * ("infiniband" for HCAs, "infiniband_verbs" for the uverbsN character
 * devices) and the file operations of /dev/infiniband/uverbsN.
 */
#include <linux/module.h>
#include <linux/init.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/cred.h>
#include <linux/sched.h>
#include <linux/nsproxy.h>
#include <net/net_namespace.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include "core_priv.h"
#include "nldev.h"

struct class *ibx_uverbs_class;

/* The namespace a device of class infiniband shows in: its view's. */
static const void *ibx_ib_namespace(IBX_CLASS_DEV_CONST struct device *d)
{
	return container_of(d, struct ibx_ib_view, dev)->net;
}

/*
 * Tagged by network namespace as upstream's ib_class: a sysfs mount shows
 * the views of the namespace that mounted it.  Registered, not made by
 * class_create(), since the tag type must be set before registration.
 */
static struct class ibx_ib_class_def = {
	.name = "infiniband",
	IBX_CLASS_OWNER
	.ns_type = &net_ns_type_operations,
	.namespace = ibx_ib_namespace,
};
struct class *ibx_ib_class = &ibx_ib_class_def;
dev_t ibx_uverbs_base;

static int ibx_uverbs_open(struct inode *inode, struct file *filp)
{
	struct ibx_core_dev *core =
		container_of(inode->i_cdev, struct ibx_core_dev, cdev);
	struct ibx_ufile *uf;
	int ret = 0;

	uf = kzalloc(sizeof(*uf), GFP_KERNEL);
	if (!uf)
		return -ENOMEM;
	init_rwsem(&uf->teardown_rwsem);
	mutex_init(&uf->cmd_mutex);
	xa_init_flags(&uf->handles, XA_FLAGS_ALLOC);
	INIT_LIST_HEAD(&uf->uobjs);
	INIT_LIST_HEAD(&uf->comp_channels);
	uf->core = core;
	uf->filp = filp;
	uf->pid = get_task_pid(current, PIDTYPE_TGID);

	mutex_lock(&core->lock);
	if (!core->registered || core->dying) {
		ret = -ENXIO;
	} else if (!ibx_core_access_netns(core, current->nsproxy->net_ns)) {
		/* Another namespace's device (exclusive mode), as ib_uverbs. */
		ret = -EPERM;
	} else if (!try_module_get(core->ibdev->ops->owner)) {
		/* The driver is being unloaded. */
		ret = -ENXIO;
	} else {
		uf->owner = core->ibdev->ops->owner;
		get_device(&core->udev);
		list_add_tail(&uf->node, &core->files);
	}
	mutex_unlock(&core->lock);
	if (ret) {
		put_pid(uf->pid);
		kfree(uf);
		return ret;
	}
	atomic_inc(&ibx_ufile_count);
	filp->private_data = uf;
	return nonseekable_open(inode, filp);
}

static int ibx_uverbs_release(struct inode *inode, struct file *filp)
{
	struct ibx_ufile *uf = filp->private_data;
	struct ibx_core_dev *core = uf->core;
	struct module *owner;

	/*
	 * Tear down while still on core->files: an unregister running now
	 * then waits for us (teardown_rwsem) before the driver goes away.
	 */
	ibx_ufile_teardown(uf, false);

	mutex_lock(&core->lock);
	list_del(&uf->node);
	/* Disassociation already dropped the module reference. */
	owner = uf->owner;
	uf->owner = NULL;
	mutex_unlock(&core->lock);

	if (owner)
		module_put(owner);
	xa_destroy(&uf->handles);
	put_device(&core->udev);
	put_pid(uf->pid);
	kfree(uf);
	atomic_dec(&ibx_ufile_count);
	return 0;
}

static ssize_t ibx_uverbs_write(struct file *filp, const char __user *buf,
				size_t count, loff_t *pos)
{
	/*
	 * Like ib_uverbs: a command acts with the opener's rights, so the
	 * fd must not be written by a task with other credentials (e.g. a
	 * setuid program handed the fd as its stdout).
	 */
	if (filp->f_cred != current_cred()) {
		pr_err_once("process %d (%s) changed security contexts after opening the file; not allowed\n",
			    task_tgid_vnr(current), current->comm);
		return -EACCES;
	}
	return ibx_cmd_dispatch(filp->private_data, buf, count);
}

static int ibx_uverbs_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct ibx_ufile *uf = filp->private_data;
	int ret;

	/*
	 * We hold mmap_lock here while a command may hold teardown_rwsem
	 * and wait for mmap_lock (pinning): never queue behind a pending
	 * teardown (the only writer), just fail as the device is going.
	 */
	if (!down_read_trylock(&uf->teardown_rwsem))
		return -EIO;
	if (uf->torn_down)
		ret = -EIO;
	else if (!uf->ucontext)
		ret = -EINVAL;
	else if (!uf->core->ibdev->ops->mmap)
		ret = -EOPNOTSUPP;
	else
		ret = uf->core->ibdev->ops->mmap(uf->ucontext, vma);
	up_read(&uf->teardown_rwsem);
	return ret;
}

static long ibx_uverbs_ioctl(struct file *filp, unsigned int cmd,
			     unsigned long arg)
{
	struct ibx_ufile *uf = filp->private_data;
	long ret;

	/*
	 * This core speaks only the write() ABI.  ENOTTY is what a kernel
	 * without the ioctl ABI returns; rdma-core falls back to write().
	 */
	if (_IOC_TYPE(cmd) == RDMA_IOCTL_MAGIC)
		return -ENOTTY;

	down_read(&uf->teardown_rwsem);
	if (uf->torn_down)
		ret = -EIO;
	else if (!uf->ucontext)
		ret = -EINVAL;
	else if (!uf->core->ibdev->ops->ioctl)
		ret = -ENOTTY;
	else
		ret = uf->core->ibdev->ops->ioctl(uf->ucontext, cmd, arg);
	up_read(&uf->teardown_rwsem);
	return ret;
}

const struct file_operations ibx_uverbs_fops = {
	.owner = THIS_MODULE,
	.open = ibx_uverbs_open,
	.release = ibx_uverbs_release,
	.write = ibx_uverbs_write,
	.mmap = ibx_uverbs_mmap,
	.unlocked_ioctl = ibx_uverbs_ioctl,
	.compat_ioctl = ibx_uverbs_ioctl,
	.llseek = IBX_NO_LLSEEK,
};

static char *ibx_uverbs_devnode(IBX_CLASS_DEV_CONST struct device *dev,
				umode_t *mode)
{
	/* Everyone may open it, as with the in-tree ib_uverbs. */
	if (mode)
		*mode = 0666;
	return kasprintf(GFP_KERNEL, "infiniband/%s", dev_name(dev));
}

static CLASS_ATTR_STRING(abi_version, 0444,
			 __stringify(IBX_UVERBS_ABI_VERSION));

static bool ibx_sysfs_exists(const char *path)
{
	struct path p;

	if (kern_path(path, 0, &p))
		return false;
	path_put(&p);
	return true;
}

static int __init ibx_uverbs_init(void)
{
	int ret;

	/*
	 * The in-tree RDMA core owns the same class names; creating ours
	 * next to it would fail with duplicate sysfs entries.
	 */
	if (ibx_sysfs_exists("/sys/class/infiniband") ||
	    ibx_sysfs_exists("/sys/class/infiniband_verbs")) {
		pr_err("the in-tree RDMA core (ib_core/ib_uverbs) is loaded; unload it first (modprobe -r ib_uverbs ib_core)\n");
		return -EEXIST;
	}

	ret = alloc_chrdev_region(&ibx_uverbs_base, 0, IBX_MAX_DEVICES,
				  "infiniband_verbs");
	if (ret)
		return ret;

	ibx_uverbs_class = ibx_class_create("infiniband_verbs");
	if (IS_ERR(ibx_uverbs_class)) {
		ret = PTR_ERR(ibx_uverbs_class);
		goto err_region;
	}
	ibx_uverbs_class->devnode = ibx_uverbs_devnode;
	ret = class_create_file(ibx_uverbs_class,
				&class_attr_abi_version.attr);
	if (ret)
		goto err_uclass;

	ret = class_register(ibx_ib_class);
	if (ret)
		goto err_uclass;
	/* The MAD layer: QP1 on every device that registers from now on. */
	ret = ibx_mad_init();
	if (ret)
		goto err_ibclass;
	ibx_debugfs_init();
	/* Ours is the RDMA core now: answer NETLINK_RDMA (netlink.c). */
	ret = ibx_nl_init();
	if (ret)
		goto err_debugfs;
	/* Every namespace, existing and future (netns.c). */
	ret = ibx_netns_init();
	if (ret)
		goto err_nl;
	return 0;

err_nl:
	ibx_nl_exit();
err_debugfs:
	ibx_debugfs_exit();
	ibx_mad_exit();
err_ibclass:
	class_unregister(ibx_ib_class);
err_uclass:
	class_destroy(ibx_uverbs_class);
err_region:
	unregister_chrdev_region(ibx_uverbs_base, IBX_MAX_DEVICES);
	if (ret == -EEXIST)
		pr_err("the in-tree RDMA core (ib_core/ib_uverbs) is loaded; unload it first\n");
	return ret;
}

static void __exit ibx_uverbs_exit(void)
{
	ibx_netns_exit();
	ibx_nl_exit();
	ibx_mad_exit();
	ibx_debugfs_exit();
	class_unregister(ibx_ib_class);
	class_remove_file(ibx_uverbs_class, &class_attr_abi_version.attr);
	class_destroy(ibx_uverbs_class);
	unregister_chrdev_region(ibx_uverbs_base, IBX_MAX_DEVICES);
}

module_init(ibx_uverbs_init);
module_exit(ibx_uverbs_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Out-of-tree RDMA verbs core (uverbs write() ABI)");
