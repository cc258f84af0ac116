// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * debugfs.c - what the core holds, counted, for leak checks: after every
 * process has exited, <debugfs>/ibx_uverbs/objects must be back at its
 * baseline (the fuzz and load tests compare it).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "core_priv.h"

atomic_t ibx_obj_count[IBX_OBJ_NTYPES];
atomic_t ibx_ufile_count;
atomic64_t ibx_pinned_pages;

static struct dentry *ibx_debugfs_root;

static int ibx_objects_show(struct seq_file *m, void *unused)
{
	int t;

	seq_printf(m, "files %d\n", atomic_read(&ibx_ufile_count));
	for (t = 0; t < IBX_OBJ_NTYPES; t++)
		seq_printf(m, "%s %d\n", ibx_obj_type_names[t],
			   atomic_read(&ibx_obj_count[t]));
	seq_printf(m, "pinned_pages %lld\n",
		   (long long)atomic64_read(&ibx_pinned_pages));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ibx_objects);

void ibx_debugfs_init(void)
{
	/* Optional: without debugfs the core works, the counts are unseen. */
	ibx_debugfs_root = debugfs_create_dir("ibx_uverbs", NULL);
	debugfs_create_file("objects", 0444, ibx_debugfs_root, NULL,
			    &ibx_objects_fops);
}

void ibx_debugfs_exit(void)
{
	debugfs_remove_recursive(ibx_debugfs_root);
}
