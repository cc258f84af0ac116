// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * compat_private34.c - the IBVERBS_PRIVATE_34 node of rdma-core 44, which
 * Debian's own providers (libmlx5, libefa, ... pulled in by perftest and
 * pyverbs) link against.  Those providers never drive our devices: their
 * registration is accepted and ignored and every other entry point fails
 * safely, so that they load and stay idle.  The one real member,
 * ibv_query_gid_type(), lives in device.c.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "ibverbs.h"

/* The signatures do not matter to callers of a stub that ignores them. */
#define STUB_ERRNO(name)						\
	int name(void);							\
	__ibx_export int name(void)					\
	{								\
		errno = EOPNOTSUPP;					\
		return EOPNOTSUPP;					\
	}

#define STUB_NULL(name)							\
	void *name(void);						\
	__ibx_export void *name(void)					\
	{								\
		errno = EOPNOTSUPP;					\
		return NULL;						\
	}

#define STUB_VOID(name)							\
	void name(void);						\
	__ibx_export void name(void)					\
	{								\
	}

/* Registration from a Debian provider's constructor: ignored. */
STUB_VOID(verbs_register_driver_34)
STUB_VOID(verbs_set_ops)
STUB_VOID(verbs_uninit_context)
STUB_VOID(verbs_init_cq)
STUB_VOID(__verbs_log)

STUB_NULL(_verbs_init_and_alloc_context)
STUB_NULL(verbs_open_device)

/* Lets a provider treat a failed destroy of a disassociated object as done. */
bool verbs_allow_disassociate_destroy(int ret);
__ibx_export bool verbs_allow_disassociate_destroy(int ret)
{
	return false;
}

/* Number of ioctl attributes in a command buffer: nothing is queued. */
unsigned int __ioctl_final_num_attrs(unsigned int num_attrs, void *link);
__ibx_export unsigned int __ioctl_final_num_attrs(unsigned int num_attrs,
						  void *link)
{
	return num_attrs;
}

int ibv_read_ibdev_sysfs_file(char *buf, size_t size, void *sysfs_dev,
			      const char *fnfmt, ...);
__ibx_export int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
					   void *sysfs_dev,
					   const char *fnfmt, ...)
{
	errno = EOPNOTSUPP;
	return -1;
}

STUB_ERRNO(execute_ioctl)
STUB_ERRNO(ibv_cmd_advise_mr)
STUB_ERRNO(ibv_cmd_alloc_dm)
STUB_ERRNO(ibv_cmd_alloc_mw)
STUB_ERRNO(ibv_cmd_alloc_pd)
STUB_ERRNO(ibv_cmd_attach_mcast)
STUB_ERRNO(ibv_cmd_close_xrcd)
STUB_ERRNO(ibv_cmd_create_ah)
STUB_ERRNO(ibv_cmd_create_counters)
STUB_ERRNO(ibv_cmd_create_cq)
STUB_ERRNO(ibv_cmd_create_cq_ex)
STUB_ERRNO(ibv_cmd_create_flow)
STUB_ERRNO(ibv_cmd_create_flow_action_esp)
STUB_ERRNO(ibv_cmd_create_qp)
STUB_ERRNO(ibv_cmd_create_qp_ex)
STUB_ERRNO(ibv_cmd_create_qp_ex2)
STUB_ERRNO(ibv_cmd_create_rwq_ind_table)
STUB_ERRNO(ibv_cmd_create_srq)
STUB_ERRNO(ibv_cmd_create_srq_ex)
STUB_ERRNO(ibv_cmd_create_wq)
STUB_ERRNO(ibv_cmd_dealloc_mw)
STUB_ERRNO(ibv_cmd_dealloc_pd)
STUB_ERRNO(ibv_cmd_dereg_mr)
STUB_ERRNO(ibv_cmd_destroy_ah)
STUB_ERRNO(ibv_cmd_destroy_counters)
STUB_ERRNO(ibv_cmd_destroy_cq)
STUB_ERRNO(ibv_cmd_destroy_flow)
STUB_ERRNO(ibv_cmd_destroy_flow_action)
STUB_ERRNO(ibv_cmd_destroy_qp)
STUB_ERRNO(ibv_cmd_destroy_rwq_ind_table)
STUB_ERRNO(ibv_cmd_destroy_srq)
STUB_ERRNO(ibv_cmd_destroy_wq)
STUB_ERRNO(ibv_cmd_detach_mcast)
STUB_ERRNO(ibv_cmd_free_dm)
STUB_ERRNO(ibv_cmd_get_context)
STUB_ERRNO(ibv_cmd_modify_cq)
STUB_ERRNO(ibv_cmd_modify_flow_action_esp)
STUB_ERRNO(ibv_cmd_modify_qp)
STUB_ERRNO(ibv_cmd_modify_qp_ex)
STUB_ERRNO(ibv_cmd_modify_srq)
STUB_ERRNO(ibv_cmd_modify_wq)
STUB_ERRNO(ibv_cmd_open_qp)
STUB_ERRNO(ibv_cmd_open_xrcd)
STUB_ERRNO(ibv_cmd_poll_cq)
STUB_ERRNO(ibv_cmd_post_recv)
STUB_ERRNO(ibv_cmd_post_send)
STUB_ERRNO(ibv_cmd_post_srq_recv)
STUB_ERRNO(ibv_cmd_query_context)
STUB_ERRNO(ibv_cmd_query_device_any)
STUB_ERRNO(ibv_cmd_query_mr)
STUB_ERRNO(ibv_cmd_query_port)
STUB_ERRNO(ibv_cmd_query_qp)
STUB_ERRNO(ibv_cmd_query_srq)
STUB_ERRNO(ibv_cmd_read_counters)
STUB_ERRNO(ibv_cmd_reg_dm_mr)
STUB_ERRNO(ibv_cmd_reg_dmabuf_mr)
STUB_ERRNO(ibv_cmd_reg_mr)
STUB_ERRNO(ibv_cmd_req_notify_cq)
STUB_ERRNO(ibv_cmd_rereg_mr)
STUB_ERRNO(ibv_cmd_resize_cq)
