/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ibverbs.h - what the files of libibverbs share and nobody else sees.
 */
#ifndef IBX_IBVERBS_PRIV_H
#define IBX_IBVERBS_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <infiniband/verbs.h>
#include <infiniband/ibx_driver.h>

/* The public names are macros in verbs.h; the library defines the functions. */
#undef ibv_query_port
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

#define __ibx_export __attribute__((visibility("default")))

#define IBX_MIN_ABI_VERSION 3
#define IBX_MAX_ABI_VERSION 6

/*
 * A device found in sysfs.  ibv_device comes first; Debian's providers
 * (which libibverbs never matches to our devices, but tools may pass them
 * our ibv_device) read a pointer right after it, at offset 664, so that
 * slot exists and is NULL.
 */
struct ibx_device {
	struct ibv_device dev;
	const void *rdma_core_ops;	/* offset 664, always NULL */
	const struct ibx_provider *provider;
	int abi_version;
	int index;			/* kernel device index, -1 if unknown */
	dev_t devnum;			/* of /dev/infiniband/uverbsN */
	__be64 node_guid;
	int refcount;			/* list references + open contexts */
	struct ibx_device *next;	/* in the global device list */
};

_Static_assert(offsetof(struct ibx_device, rdma_core_ops) == 664,
	       "Debian providers expect a pointer at offset 664");

static inline struct ibx_device *to_ibx_dev(struct ibv_device *dev)
{
	return (struct ibx_device *)dev;
}

/* Per-context data behind verbs_context.priv. */
struct verbs_ex_private {
	void *alloc_base;		/* what ibx_alloc_context() returned */
	struct ibx_context_ops ops;	/* the provider's, NULLs = default */
	struct ibx_device *device;
};

static inline struct verbs_ex_private *ctx_priv(struct ibv_context *ctx)
{
	return verbs_get_ctx(ctx)->priv;
}

static inline const struct ibx_context_ops *ctx_ops(struct ibv_context *ctx)
{
	return &ctx_priv(ctx)->ops;
}

/* init.c */
extern int ibx_abi_version;
int ibx_init_once(void);
void ibx_device_put(struct ibx_device *dev);
void ibx_device_get(struct ibx_device *dev);

/* driver_api.c */
const struct ibx_provider *ibx_match_provider(const char *ibdev_name);
void ibx_load_providers(void);

/* fork.c */
int ibx_dontfork_range(void *base, size_t size);
int ibx_dofork_range(void *base, size_t size);
int ibv_dontfork_range(void *base, size_t size);	/* IBVERBS_1.1, no header */
int ibv_dofork_range(void *base, size_t size);

/* sysfs.c; the two exported ones are declared by rdma-core's driver.h */
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);
int ibx_read_file(const char *dir, const char *file, char *buf, size_t size);
int ibx_read_ibdev_file(struct ibv_device *dev, char *buf, size_t size,
			const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* device.c: IBVERBS_PRIVATE_34, declared in rdma-core's driver.h */
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, int *type);

/* cmd.c */
int ibx_write_cmd(int fd, uint32_t command, void *req, size_t req_len,
		  const void *drv_in, size_t drv_in_len,
		  void *resp, size_t resp_len, void *drv_out,
		  size_t drv_out_len);
int ibx_write_ex_cmd(int fd, uint32_t command, const void *req,
		     size_t req_len, const void *drv_in, size_t drv_in_len,
		     void *resp, size_t resp_len, void *drv_out,
		     size_t drv_out_len);

/* Diagnostics go to stderr, as rdma-core's do. */
#define ibx_warn(fmt, ...) fprintf(stderr, "libibverbs: " fmt, ##__VA_ARGS__)

/*
 * Destroying an object with events: the kernel reported how many events it
 * queued for it; the memory may only go once the application acknowledged
 * (ibv_ack_*_events) as many.  The counters only grow, so waiting for
 * several of them one after the other is the same as waiting for all.
 */
static inline void ibx_wait_events_acked(pthread_mutex_t *mutex,
					 pthread_cond_t *cond,
					 const uint32_t *completed,
					 uint32_t reported)
{
	pthread_mutex_lock(mutex);
	while (*completed != reported)
		pthread_cond_wait(cond, mutex);
	pthread_mutex_unlock(mutex);
}

#endif /* IBX_IBVERBS_PRIV_H */
