/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * tm_types.h - the headers of tag-matching messages as they are on the
 * wire (network byte order).
 */
#ifndef _TM_TYPES_H
#define _TM_TYPES_H

#include <linux/types.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ibv_tmh_op {
	IBV_TMH_NO_TAG	= 0,
	IBV_TMH_RNDV	= 1,
	IBV_TMH_FIN	= 2,
	IBV_TMH_EAGER	= 3,
};

/* Tag-matching header, first in every tagged message. */
struct ibv_tmh {
	uint8_t opcode;		/* enum ibv_tmh_op */
	uint8_t reserved[3];	/* zero */
	__be32 app_ctx;
	__be64 tag;
};

/* Rendezvous header: where the sender's data is, for an RDMA read. */
struct ibv_rvh {
	__be64 va;
	__be32 rkey;
	__be32 len;
};

#ifdef __cplusplus
}
#endif

#endif /* _TM_TYPES_H */
