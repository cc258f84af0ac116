// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * obj.c - the end of an object the engine looks up (QP, CQ, SRQ, MR, MW):
 * its destroy waits for the references the engine's runs hold.  Taking
 * and dropping them are inlines of mlx_hw.h.  A leaf: the one call out is
 * the @holders its caller hands mlx_hw_obj_drain().
 */
#include <linux/completion.h>
#include "mlx_hw.h"

/*
 * Drops the object's own reference and waits for the engine's to go.  The
 * engine holds one for at most a run, so a wait that lasts is a reference
 * leaked: every 10 s the wait says so, as unregister_netdevice() does,
 * and @holders (may be NULL) names the lists that still hold the object.
 */
void mlx_hw_obj_drain(struct mlx_hw_obj_ref *obj, const char *what,
		      void (*holders)(struct mlx_hw_obj_ref *obj))
{
	unsigned int secs = 0;

	mlx_hw_obj_put(obj);
	while (!wait_for_completion_timeout(&obj->free, 10 * HZ)) {
		secs += 10;
		pr_warn("destroying %s: %u engine references left after %u s\n",
			what, refcount_read(&obj->ref), secs);
		if (holders)
			holders(obj);
	}
}
