// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * path.c - the SA PathRecord in its 64-byte wire format (IBA 15.2.5.16,
 * big-endian 32-bit words), as QUERY(PATH) returns it and
 * RDMA_OPTION_IB_PATH takes it.  On RoCE the LIDs are 0 and the P_Key
 * is the default 0xffff.
 */
#include "ucma.h"

/* Word indexes of the fields used on RoCE. */
enum {
	PR_DGID = 2,		/* 4 words */
	PR_SGID = 6,		/* 4 words */
	PR_FLOW_HOP = 11,	/* RawTraffic:1 rsv:3 FlowLabel:20 HopLimit:8 */
	PR_TC_PKEY = 12,	/* TClass:8 Reversible:1 NumbPath:7 PKey:16 */
	PR_SL_MTU_RATE = 13,	/* QoS:12 SL:4 MtuSel:2 MTU:6 RateSel:2 Rate:6 */
	PR_PLT = 14,		/* PLTSel:2 PLT:6 Preference:8 rsv:16 */
};

#define IB_SA_EQ 2

void cma_pack_path(const struct cm_path *p, __be32 rec[16])
{
	memset(rec, 0, 64);
	memcpy(&rec[PR_DGID], p->dgid.raw, 16);
	memcpy(&rec[PR_SGID], p->sgid.raw, 16);
	rec[PR_FLOW_HOP] = cpu_to_be32((p->flow_label & 0xfffff) << 8 |
				       p->hop_limit);
	rec[PR_TC_PKEY] = cpu_to_be32((u32)p->traffic_class << 24 |
				      1u << 23 /* reversible */ |
				      1u << 16 /* numb_path */ | 0xffff);
	rec[PR_SL_MTU_RATE] = cpu_to_be32((u32)(p->sl & 0xf) << 16 |
					  IB_SA_EQ << 14 | (p->mtu & 0x3f) << 8 |
					  IB_SA_EQ << 6 /* rate 0: port current */);
	rec[PR_PLT] = cpu_to_be32((u32)IB_SA_EQ << 30 |
				  (u32)(p->packet_life_time & 0x3f) << 24);
}

void cma_unpack_path(const __be32 rec[16], struct cm_path *p)
{
	u32 w;

	memset(p, 0, sizeof(*p));
	memcpy(p->dgid.raw, &rec[PR_DGID], 16);
	memcpy(p->sgid.raw, &rec[PR_SGID], 16);
	w = be32_to_cpu(rec[PR_FLOW_HOP]);
	p->flow_label = (w >> 8) & 0xfffff;
	p->hop_limit = w & 0xff;
	p->traffic_class = be32_to_cpu(rec[PR_TC_PKEY]) >> 24;
	w = be32_to_cpu(rec[PR_SL_MTU_RATE]);
	p->sl = (w >> 16) & 0xf;
	p->mtu = (w >> 8) & 0x3f;
	p->packet_life_time = (be32_to_cpu(rec[PR_PLT]) >> 24) & 0x3f;
}
