// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * main.c - module entry points of the verbs core.
 */
#include <linux/module.h>
#include <linux/init.h>

static int __init ibx_uverbs_init(void)
{
	return 0;
}

static void __exit ibx_uverbs_exit(void)
{
}

module_init(ibx_uverbs_init);
module_exit(ibx_uverbs_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Out-of-tree RDMA verbs core (uverbs write() ABI)");
