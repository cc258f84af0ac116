// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * compat_1_0.c - the IBVERBS_1.0 versions of the verbs that changed ABI in
 * libibverbs 1.1 (2006).  Their structures predate every application
 * still in use and no provider of ours supports them: they exist so that
 * the symbol set matches rdma-core 44, and fail cleanly (no devices,
 * EOPNOTSUPP) if an ancient binary ever calls them.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "ibverbs.h"

#define COMPAT_1_0(ret, name, body)					\
	ret __ibx_compat_1_0_##name(void);				\
	__ibx_export ret __ibx_compat_1_0_##name(void) body		\
	__asm__(".symver __ibx_compat_1_0_" #name ", " #name "@IBVERBS_1.0");

COMPAT_1_0(void, ibv_ack_async_event, { })
COMPAT_1_0(void, ibv_ack_cq_events, { })
COMPAT_1_0(void *, ibv_alloc_pd, { errno = EOPNOTSUPP; return NULL; })
COMPAT_1_0(int, ibv_attach_mcast, { errno = EOPNOTSUPP; return EOPNOTSUPP; })
COMPAT_1_0(int, ibv_close_device, { errno = EOPNOTSUPP; return EOPNOTSUPP; })
COMPAT_1_0(void *, ibv_create_ah, { errno = EOPNOTSUPP; return NULL; })
COMPAT_1_0(void *, ibv_create_cq, { errno = EOPNOTSUPP; return NULL; })
COMPAT_1_0(void *, ibv_create_qp, { errno = EOPNOTSUPP; return NULL; })
COMPAT_1_0(void *, ibv_create_srq, { errno = EOPNOTSUPP; return NULL; })
COMPAT_1_0(int, ibv_dealloc_pd, { errno = EOPNOTSUPP; return EOPNOTSUPP; })
COMPAT_1_0(int, ibv_dereg_mr, { errno = EOPNOTSUPP; return EOPNOTSUPP; })
COMPAT_1_0(int, ibv_destroy_ah, { errno = EOPNOTSUPP; return EOPNOTSUPP; })
COMPAT_1_0(int, ibv_destroy_cq, { errno = EOPNOTSUPP; return EOPNOTSUPP; })
COMPAT_1_0(int, ibv_destroy_qp, { errno = EOPNOTSUPP; return EOPNOTSUPP; })
COMPAT_1_0(int, ibv_destroy_srq, { errno = EOPNOTSUPP; return EOPNOTSUPP; })
COMPAT_1_0(int, ibv_detach_mcast, { errno = EOPNOTSUPP; return EOPNOTSUPP; })
COMPAT_1_0(void, ibv_free_device_list, { })
COMPAT_1_0(int, ibv_get_async_event, { errno = EOPNOTSUPP; return EOPNOTSUPP; })
COMPAT_1_0(int, ibv_get_cq_event, { errno = EOPNOTSUPP; return EOPNOTSUPP; })
COMPAT_1_0(uint64_t, ibv_get_device_guid, { return 0; })
COMPAT_1_0(void *, ibv_get_device_list, { errno = EOPNOTSUPP; return NULL; })
COMPAT_1_0(void *, ibv_get_device_name, { errno = EOPNOTSUPP; return NULL; })
COMPAT_1_0(int, ibv_modify_qp, { errno = EOPNOTSUPP; return EOPNOTSUPP; })
COMPAT_1_0(int, ibv_modify_srq, { errno = EOPNOTSUPP; return EOPNOTSUPP; })
COMPAT_1_0(void *, ibv_open_device, { errno = EOPNOTSUPP; return NULL; })
COMPAT_1_0(int, ibv_query_device, { errno = EOPNOTSUPP; return EOPNOTSUPP; })
COMPAT_1_0(int, ibv_query_gid, { errno = EOPNOTSUPP; return EOPNOTSUPP; })
COMPAT_1_0(int, ibv_query_pkey, { errno = EOPNOTSUPP; return EOPNOTSUPP; })
COMPAT_1_0(int, ibv_query_port, { errno = EOPNOTSUPP; return EOPNOTSUPP; })
COMPAT_1_0(int, ibv_query_qp, { errno = EOPNOTSUPP; return EOPNOTSUPP; })
COMPAT_1_0(int, ibv_query_srq, { errno = EOPNOTSUPP; return EOPNOTSUPP; })
COMPAT_1_0(void *, ibv_reg_mr, { errno = EOPNOTSUPP; return NULL; })
COMPAT_1_0(int, ibv_resize_cq, { errno = EOPNOTSUPP; return EOPNOTSUPP; })

/*
 * ibv_register_driver@IBVERBS_1.1: how providers registered before
 * rdma-core; a provider that old cannot work with this library.
 */
void __ibx_compat_register_driver(const char *name, void *init_func);
__ibx_export void __ibx_compat_register_driver(const char *name,
					       void *init_func)
{
	ibx_warn("Warning: driver %s uses an obsolete API, ignored\n",
		 name ? name : "(null)");
}
__asm__(".symver __ibx_compat_register_driver, ibv_register_driver@IBVERBS_1.1");
