// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * debugfs.c - what the device holds, counted, for leak checks:
 * <debugfs>/mlx_hw/objects lists the mmap regions alive and each device's
 * QPs, CQs, MRs and SRQs.  After every process has exited the counts must
 * be back at their baseline (the kernel's own QP1 and CQs stay).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "mlx_hw.h"

static struct dentry *mlx_hw_debugfs_root;

static unsigned long mlx_hw_xa_count(struct xarray *xa)
{
	unsigned long idx, n = 0;
	void *entry;

	xa_for_each(xa, idx, entry)
		n++;
	return n;
}

static int mlx_hw_objects_show(struct seq_file *m, void *unused)
{
	struct mlx_hw_dev *dev;

	seq_printf(m, "regions %d\n", atomic_read(&mlx_hw_region_count));
	rcu_read_lock();
	list_for_each_entry_rcu(dev, &mlx_hw_devices, list)
		seq_printf(m, "%s qp %lu cq %lu mr %lu srq %lu\n",
			   dev->ibx.name, mlx_hw_xa_count(&dev->qp_xa),
			   mlx_hw_xa_count(&dev->cq_xa),
			   mlx_hw_xa_count(&dev->mr_xa),
			   mlx_hw_xa_count(&dev->srq_xa));
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mlx_hw_objects);

void mlx_hw_debugfs_init(void)
{
	/* Optional: without debugfs the device works, the counts are unseen. */
	mlx_hw_debugfs_root = debugfs_create_dir("mlx_hw", NULL);
	debugfs_create_file("objects", 0444, mlx_hw_debugfs_root, NULL,
			    &mlx_hw_objects_fops);
}

void mlx_hw_debugfs_exit(void)
{
	debugfs_remove_recursive(mlx_hw_debugfs_root);
}
