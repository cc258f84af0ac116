/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cm_msgs.h - the messages of the IB Communication Manager (IBA vol 1,
 * chapter 12.6) as fields of the CM payload, the 232 bytes after the
 * 24-byte MAD header.
 *
 * The IBA draws each message as 32-bit big-endian words with fields given
 * most significant bit first.  A field here is that picture: the byte
 * offset of the word that holds it, the bit where it starts counted from
 * that word's most significant bit, and its width.  Fields of 64 and 128
 * bits (service IDs, GUIDs, GIDs) and the private data are byte ranges.
 * cm_get()/cm_set() read and write one field in place, so a message is
 * built and parsed in its wire buffer, without a struct that could be
 * padded or reordered.
 *
 * Work in progress for issue 10 (the CM itself is not written yet).
 */
#ifndef IBX_CM_MSGS_H
#define IBX_CM_MSGS_H

#ifdef __KERNEL__
#include <linux/types.h>
#include "ibx_compat.h"	/* get/put_unaligned_be32 on 6.1 and 6.12 */
#endif

#define CM_MAD_CLASS		0x07
#define CM_CLASS_VERSION	2
#define CM_PAYLOAD_LEN		232

/* Attribute IDs of the CM messages (IBA table 216). */
enum cm_attr_id {
	CM_REQ_ATTR = 0x0010,
	CM_MRA_ATTR = 0x0011,
	CM_REJ_ATTR = 0x0012,
	CM_REP_ATTR = 0x0013,
	CM_RTU_ATTR = 0x0014,
	CM_DREQ_ATTR = 0x0015,
	CM_DREP_ATTR = 0x0016,
	CM_SIDR_REQ_ATTR = 0x0017,
	CM_SIDR_REP_ATTR = 0x0018,
	CM_LAP_ATTR = 0x0019,
	CM_APR_ATTR = 0x001a,
};

/* A field of at most 32 bits inside one big-endian word. */
struct cm_field {
	u8 word;	/* byte offset of the 32-bit word in the payload */
	u8 bit;		/* first bit, 0 = the word's most significant */
	u8 width;	/* in bits, 1..32 */
};

#define CM_F(w, b, n)	((struct cm_field){ .word = (w), .bit = (b), .width = (n) })

static inline u32 cm_field_mask(struct cm_field f)
{
	return f.width == 32 ? 0xffffffffu : (1u << f.width) - 1;
}

static inline u32 cm_get(const u8 *msg, struct cm_field f)
{
	u32 w = get_unaligned_be32(msg + f.word);

	return (w >> (32 - f.bit - f.width)) & cm_field_mask(f);
}

static inline void cm_set(u8 *msg, struct cm_field f, u32 v)
{
	u32 shift = 32 - f.bit - f.width, mask = cm_field_mask(f) << shift;
	u32 w = get_unaligned_be32(msg + f.word);

	put_unaligned_be32((w & ~mask) | ((v << shift) & mask), msg + f.word);
}

/* A byte range: 64/128-bit fields and private data. */
struct cm_bytes {
	u8 off, len;
};

#define CM_B(o, n)	((struct cm_bytes){ .off = (o), .len = (n) })

/* ---- REQ (IBA 12.6.5) ---- */
#define REQ_LOCAL_COMM_ID		CM_F(0, 0, 32)
#define REQ_VENDOR_ID			CM_F(4, 8, 24)
#define REQ_SERVICE_ID			CM_B(8, 8)
#define REQ_LOCAL_CA_GUID		CM_B(16, 8)
#define REQ_LOCAL_Q_KEY			CM_F(28, 0, 32)
#define REQ_LOCAL_QPN			CM_F(32, 0, 24)
#define REQ_RESPONDER_RESOURCES		CM_F(32, 24, 8)
#define REQ_LOCAL_EECN			CM_F(36, 0, 24)
#define REQ_INITIATOR_DEPTH		CM_F(36, 24, 8)
#define REQ_REMOTE_EECN			CM_F(40, 0, 24)
#define REQ_REMOTE_CM_RESPONSE_TIMEOUT	CM_F(40, 24, 5)
#define REQ_TRANSPORT_SERVICE_TYPE	CM_F(40, 29, 2)	/* RC 0, UC 1, XRC 3 */
#define REQ_END_TO_END_FLOW_CONTROL	CM_F(40, 31, 1)
#define REQ_STARTING_PSN		CM_F(44, 0, 24)
#define REQ_LOCAL_CM_RESPONSE_TIMEOUT	CM_F(44, 24, 5)
#define REQ_RETRY_COUNT			CM_F(44, 29, 3)
#define REQ_PARTITION_KEY		CM_F(48, 0, 16)
#define REQ_PATH_PACKET_PAYLOAD_MTU	CM_F(48, 16, 4)
#define REQ_RDC_EXISTS			CM_F(48, 20, 1)
#define REQ_RNR_RETRY_COUNT		CM_F(48, 21, 3)
#define REQ_MAX_CM_RETRIES		CM_F(48, 24, 4)
#define REQ_SRQ				CM_F(48, 28, 1)
#define REQ_EXTENDED_TRANSPORT_TYPE	CM_F(48, 29, 3)

/*
 * The primary path at byte 52, the alternate one at 96: the same layout,
 * so a path field is named by its offset from the path's start.
 */
#define REQ_PRIMARY_PATH		52
#define REQ_ALTERNATE_PATH		96
#define REQ_PATH(path, w, b, n)		CM_F((path) + (w), b, n)
#define REQ_PATH_LOCAL_PORT_LID(p)	REQ_PATH(p, 0, 0, 16)
#define REQ_PATH_REMOTE_PORT_LID(p)	REQ_PATH(p, 0, 16, 16)
#define REQ_PATH_LOCAL_PORT_GID(p)	CM_B((p) + 4, 16)
#define REQ_PATH_REMOTE_PORT_GID(p)	CM_B((p) + 20, 16)
#define REQ_PATH_FLOW_LABEL(p)		REQ_PATH(p, 36, 0, 20)
#define REQ_PATH_PACKET_RATE(p)		REQ_PATH(p, 36, 26, 6)
#define REQ_PATH_TRAFFIC_CLASS(p)	REQ_PATH(p, 40, 0, 8)
#define REQ_PATH_HOP_LIMIT(p)		REQ_PATH(p, 40, 8, 8)
#define REQ_PATH_SL(p)			REQ_PATH(p, 40, 16, 4)
#define REQ_PATH_SUBNET_LOCAL(p)	REQ_PATH(p, 40, 20, 1)
#define REQ_PATH_LOCAL_ACK_TIMEOUT(p)	REQ_PATH(p, 40, 24, 5)
#define REQ_PRIVATE_DATA		CM_B(140, 92)

/* ---- MRA (12.6.6) ---- */
#define MRA_LOCAL_COMM_ID		CM_F(0, 0, 32)
#define MRA_REMOTE_COMM_ID		CM_F(4, 0, 32)
#define MRA_MESSAGE_MRAED		CM_F(8, 0, 2)	/* REQ 0, REP 1, LAP 2 */
#define MRA_SERVICE_TIMEOUT		CM_F(8, 8, 5)
#define MRA_PRIVATE_DATA		CM_B(10, 222)

/* ---- REJ (12.6.7) ---- */
#define REJ_LOCAL_COMM_ID		CM_F(0, 0, 32)
#define REJ_REMOTE_COMM_ID		CM_F(4, 0, 32)
#define REJ_MESSAGE_REJECTED		CM_F(8, 0, 2)	/* REQ 0, REP 1, other 2 */
#define REJ_REJECTED_INFO_LENGTH	CM_F(8, 8, 7)
#define REJ_REASON			CM_F(8, 16, 16)
#define REJ_ARI				CM_B(12, 72)
#define REJ_PRIVATE_DATA		CM_B(84, 148)

/* ---- REP (12.6.8) ---- */
#define REP_LOCAL_COMM_ID		CM_F(0, 0, 32)
#define REP_REMOTE_COMM_ID		CM_F(4, 0, 32)
#define REP_LOCAL_Q_KEY			CM_F(8, 0, 32)
#define REP_LOCAL_QPN			CM_F(12, 0, 24)
#define REP_VENDOR_ID_H			CM_F(12, 24, 8)
#define REP_LOCAL_EECN			CM_F(16, 0, 24)
#define REP_VENDOR_ID_M			CM_F(16, 24, 8)
#define REP_STARTING_PSN		CM_F(20, 0, 24)
#define REP_VENDOR_ID_L			CM_F(20, 24, 8)
#define REP_RESPONDER_RESOURCES		CM_F(24, 0, 8)
#define REP_INITIATOR_DEPTH		CM_F(24, 8, 8)
#define REP_TARGET_ACK_DELAY		CM_F(24, 16, 5)
#define REP_FAILOVER_ACCEPTED		CM_F(24, 21, 2)
#define REP_END_TO_END_FLOW_CONTROL	CM_F(24, 23, 1)
#define REP_RNR_RETRY_COUNT		CM_F(24, 24, 3)
#define REP_SRQ				CM_F(24, 27, 1)
#define REP_LOCAL_CA_GUID		CM_B(28, 8)
#define REP_PRIVATE_DATA		CM_B(36, 196)

/* ---- RTU, DREQ, DREP (12.6.9-12.6.11) ---- */
#define RTU_LOCAL_COMM_ID		CM_F(0, 0, 32)
#define RTU_REMOTE_COMM_ID		CM_F(4, 0, 32)
#define RTU_PRIVATE_DATA		CM_B(8, 224)
#define DREQ_LOCAL_COMM_ID		CM_F(0, 0, 32)
#define DREQ_REMOTE_COMM_ID		CM_F(4, 0, 32)
#define DREQ_REMOTE_QPN_EECN		CM_F(8, 0, 24)
#define DREQ_PRIVATE_DATA		CM_B(12, 220)
#define DREP_LOCAL_COMM_ID		CM_F(0, 0, 32)
#define DREP_REMOTE_COMM_ID		CM_F(4, 0, 32)
#define DREP_PRIVATE_DATA		CM_B(8, 224)

/* ---- SIDR_REQ, SIDR_REP (12.11) ---- */
#define SIDR_REQ_REQUEST_ID		CM_F(0, 0, 32)
#define SIDR_REQ_PARTITION_KEY		CM_F(4, 0, 16)
#define SIDR_REQ_SERVICE_ID		CM_B(8, 8)
#define SIDR_REQ_PRIVATE_DATA		CM_B(16, 216)
#define SIDR_REP_REQUEST_ID		CM_F(0, 0, 32)
#define SIDR_REP_STATUS			CM_F(4, 0, 8)
#define SIDR_REP_ADDITIONAL_INFO_LENGTH	CM_F(4, 8, 8)
#define SIDR_REP_VENDOR_ID_H		CM_F(4, 16, 16)
#define SIDR_REP_QPN			CM_F(8, 0, 24)
#define SIDR_REP_VENDOR_ID_L		CM_F(8, 24, 8)
#define SIDR_REP_SERVICE_ID		CM_B(12, 8)
#define SIDR_REP_Q_KEY			CM_F(20, 0, 32)
#define SIDR_REP_ADDITIONAL_INFO	CM_B(24, 72)
#define SIDR_REP_PRIVATE_DATA		CM_B(96, 136)

/* REJ reasons (IBA table 219) the CM sends or acts on. */
enum cm_rej_reason {
	CM_REJ_NO_QP = 1,
	CM_REJ_INVALID_SERVICE_ID = 8,
	CM_REJ_STALE_CONN = 10,
	CM_REJ_INVALID_GID = 12,
	CM_REJ_TIMEOUT = 4,		/* ARI: the rejecting CA's GUID */
	CM_REJ_INVALID_MTU = 26,
	CM_REJ_INSUFFICIENT_RESP_RESOURCES = 27,
	CM_REJ_CONSUMER_DEFINED = 28,
	CM_REJ_DUPLICATE_LOCAL_COMM_ID = 30,
	CM_REJ_INVALID_CLASS_VERSION = 31,
	CM_REJ_VENDOR_OPTION_NOT_SUPPORTED = 35,
};

#endif /* IBX_CM_MSGS_H */
