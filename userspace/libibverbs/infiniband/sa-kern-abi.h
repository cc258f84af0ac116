/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* sa-kern-abi.h - obsolete names of the kernel's path record structure. */
#ifndef INFINIBAND_SA_KERN_ABI_H
#define INFINIBAND_SA_KERN_ABI_H

#warning "This header is obsolete, use rdma/ib_user_sa.h instead"

#include <rdma/ib_user_sa.h>

#define ib_kern_path_rec ib_user_path_rec
#define ibv_kern_path_rec ib_user_path_rec

#endif
