/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sa.h - Subnet Administration records (IBA 15.2.5) in host form, and the
 * wire-format path record exchanged with the rdma_cm.
 */
#ifndef INFINIBAND_SA_H
#define INFINIBAND_SA_H

#include <infiniband/verbs.h>
#include <linux/types.h>

/* PathRecord (IBA 15.2.5.16); reserved fields are left out. */
struct ibv_sa_path_rec {
	union ibv_gid dgid;
	union ibv_gid sgid;
	__be16 dlid;
	__be16 slid;
	int raw_traffic;
	__be32 flow_label;
	uint8_t hop_limit;
	uint8_t traffic_class;
	int reversible;
	uint8_t numb_path;
	__be16 pkey;
	uint8_t sl;
	uint8_t mtu_selector;
	uint8_t mtu;
	uint8_t rate_selector;
	uint8_t rate;
	uint8_t packet_life_time_selector;
	uint8_t packet_life_time;
	uint8_t preference;
};

/* MCMemberRecord (IBA 15.2.5.17). */
struct ibv_sa_mcmember_rec {
	union ibv_gid mgid;
	union ibv_gid port_gid;
	uint32_t qkey;
	uint16_t mlid;
	uint8_t mtu_selector;
	uint8_t mtu;
	uint8_t traffic_class;
	uint16_t pkey;
	uint8_t rate_selector;
	uint8_t rate;
	uint8_t packet_life_time_selector;
	uint8_t packet_life_time;
	uint8_t sl;
	uint32_t flow_label;
	uint8_t hop_limit;
	uint8_t scope;
	uint8_t join_state;
	int proxy_join;
};

/* ServiceRecord (IBA 15.2.5.14). */
struct ibv_sa_service_rec {
	uint64_t id;
	union ibv_gid gid;
	uint16_t pkey;
	uint32_t lease;
	uint8_t key[16];
	uint8_t name[64];
	uint8_t data8[16];
	uint16_t data16[8];
	uint32_t data32[4];
	uint64_t data64[2];
};

#define IBV_PATH_RECORD_REVERSIBLE 0x80

/* PathRecord exactly as on the wire, 64 bytes. */
struct ibv_path_record {
	__be64 service_id;
	union ibv_gid dgid;
	union ibv_gid sgid;
	__be16 dlid;
	__be16 slid;
	__be32 flowlabel_hoplimit;	/* rsvd 31:28, flow label 27:8, hop limit 7:0 */
	uint8_t tclass;
	uint8_t reversible_numpath;	/* reversible 7, numb path 6:0 */
	__be16 pkey;
	__be16 qosclass_sl;		/* QoS class 15:4, SL 3:0 */
	uint8_t mtu;			/* selector 7:6, MTU 5:0 */
	uint8_t rate;			/* selector 7:6, rate 5:0 */
	uint8_t packetlifetime;		/* selector 7:6, lifetime 5:0 */
	uint8_t preference;
	uint8_t reserved[6];
};

#define IBV_PATH_FLAG_GMP		(1 << 0)
#define IBV_PATH_FLAG_PRIMARY		(1 << 1)
#define IBV_PATH_FLAG_ALTERNATE		(1 << 2)
#define IBV_PATH_FLAG_OUTBOUND		(1 << 3)
#define IBV_PATH_FLAG_INBOUND		(1 << 4)
#define IBV_PATH_FLAG_INBOUND_REVERSE	(1 << 5)
#define IBV_PATH_FLAG_BIDIRECTIONAL	(IBV_PATH_FLAG_OUTBOUND | \
					 IBV_PATH_FLAG_INBOUND_REVERSE)

struct ibv_path_data {
	uint32_t flags;
	uint32_t reserved;
	struct ibv_path_record path;
};

#endif /* INFINIBAND_SA_H */
