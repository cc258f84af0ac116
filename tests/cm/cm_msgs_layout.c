// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cm_msgs_layout - the CM message fields of kernel/rdma_cm/cm_msgs.h
 * against the IBA's byte positions, natively: every field set to all ones
 * alone must light exactly the bits the IBA gives it, fields of one word
 * must not overlap, and a value must read back.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;

static u32 get_unaligned_be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static void put_unaligned_be32(u32 v, u8 *p)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

#include "../../kernel/rdma_cm/cm_msgs.h"

/* Only the bytes [@from, @to) of a message with @f all ones are nonzero. */
static int lights(struct cm_field f, unsigned int from, unsigned int to)
{
	u8 m[CM_PAYLOAD_LEN] = {};
	unsigned int i;

	cm_set(m, f, 0xffffffff);
	for (i = 0; i < sizeof(m); i++)
		if (!!m[i] != (i >= from && i < to))
			return 0;
	return cm_get(m, f) == cm_field_mask(f);
}

static int test_req(void *arg)
{
	u8 m[CM_PAYLOAD_LEN] = {};

	(void)arg;
	/* Byte-aligned fields: their bytes in IBA 12.6.5 (figure 185). */
	CHECK(lights(REQ_LOCAL_COMM_ID, 0, 4), "LocalCommID");
	CHECK(lights(REQ_VENDOR_ID, 5, 8), "VendorID at 5");
	CHECK(lights(REQ_LOCAL_QPN, 32, 35), "LocalQPN at 32");
	CHECK(lights(REQ_RESPONDER_RESOURCES, 35, 36), "ResponderResources");
	CHECK(lights(REQ_INITIATOR_DEPTH, 39, 40), "InitiatorDepth at 39");
	CHECK(lights(REQ_STARTING_PSN, 44, 47), "StartingPSN at 44");
	CHECK(lights(REQ_PARTITION_KEY, 48, 50), "P_Key at 48");
	CHECK(lights(REQ_PATH_FLOW_LABEL(REQ_PRIMARY_PATH), 88, 91),
	      "FlowLabel at 88");
	CHECK(lights(REQ_PATH_TRAFFIC_CLASS(REQ_PRIMARY_PATH), 92, 93),
	      "TrafficClass at 92");
	CHECK(lights(REQ_PATH_HOP_LIMIT(REQ_PRIMARY_PATH), 93, 94),
	      "HopLimit at 93");
	CHECK(lights(REQ_PATH_LOCAL_PORT_LID(REQ_PRIMARY_PATH), 52, 54),
	      "primary local LID at 52");
	CHECK(REQ_PATH_LOCAL_PORT_GID(REQ_PRIMARY_PATH).off == 56 &&
	      REQ_PATH_REMOTE_PORT_GID(REQ_PRIMARY_PATH).off == 72,
	      "primary GIDs at 56 and 72");
	CHECK(REQ_PRIVATE_DATA.off == 140 && REQ_PRIVATE_DATA.len == 92,
	      "private data 140+92");
	/* Sub-byte fields: bit positions in their word. */
	cm_set(m, REQ_REMOTE_CM_RESPONSE_TIMEOUT, 20);
	cm_set(m, REQ_TRANSPORT_SERVICE_TYPE, 1);
	cm_set(m, REQ_END_TO_END_FLOW_CONTROL, 1);
	CHECK(m[43] == (20 << 3 | 1 << 1 | 1), "byte 43 = %#x", m[43]);
	memset(m, 0, sizeof(m));
	cm_set(m, REQ_LOCAL_CM_RESPONSE_TIMEOUT, 20);
	cm_set(m, REQ_RETRY_COUNT, 7);
	CHECK(m[47] == (20 << 3 | 7), "byte 47 = %#x", m[47]);
	memset(m, 0, sizeof(m));
	cm_set(m, REQ_PATH_PACKET_PAYLOAD_MTU, 3);
	cm_set(m, REQ_RNR_RETRY_COUNT, 7);
	cm_set(m, REQ_MAX_CM_RETRIES, 15);
	cm_set(m, REQ_SRQ, 1);
	CHECK(m[50] == (3 << 4 | 7) && m[51] == (15 << 4 | 1 << 3),
	      "bytes 50/51 = %#x %#x", m[50], m[51]);
	memset(m, 0, sizeof(m));
	cm_set(m, REQ_PATH_SL(REQ_PRIMARY_PATH), 5);
	cm_set(m, REQ_PATH_LOCAL_ACK_TIMEOUT(REQ_PRIMARY_PATH), 19);
	CHECK(m[94] == 5 << 4 && m[95] == 19 << 3, "bytes 94/95 = %#x %#x",
	      m[94], m[95]);
	CHECK(lights(REQ_PATH_LOCAL_ACK_TIMEOUT(REQ_ALTERNATE_PATH), 139, 140),
	      "alternate LocalACKTimeout at 139");
	return 0;
}

static int test_rep_rej(void *arg)
{
	u8 m[CM_PAYLOAD_LEN] = {};

	(void)arg;
	CHECK(lights(REP_REMOTE_COMM_ID, 4, 8), "REP RemoteCommID");
	CHECK(lights(REP_LOCAL_QPN, 12, 15), "REP LocalQPN at 12");
	CHECK(lights(REP_STARTING_PSN, 20, 23), "REP StartingPSN at 20");
	CHECK(lights(REP_RESPONDER_RESOURCES, 24, 25), "REP resources at 24");
	CHECK(lights(REP_INITIATOR_DEPTH, 25, 26), "REP depth at 25");
	cm_set(m, REP_TARGET_ACK_DELAY, 15);
	cm_set(m, REP_FAILOVER_ACCEPTED, 0);
	cm_set(m, REP_END_TO_END_FLOW_CONTROL, 1);
	cm_set(m, REP_RNR_RETRY_COUNT, 7);
	cm_set(m, REP_SRQ, 1);
	CHECK(m[26] == (15 << 3 | 1) && m[27] == (7 << 5 | 1 << 4),
	      "REP bytes 26/27 = %#x %#x", m[26], m[27]);
	CHECK(REP_LOCAL_CA_GUID.off == 28 && REP_PRIVATE_DATA.off == 36 &&
	      REP_PRIVATE_DATA.len == 196, "REP GUID and private data");
	CHECK(lights(REJ_REASON, 10, 12), "REJ Reason at 10");
	memset(m, 0, sizeof(m));
	cm_set(m, REJ_MESSAGE_REJECTED, 2);
	cm_set(m, REJ_REJECTED_INFO_LENGTH, 0x7f);
	CHECK(m[8] == 2 << 6 && m[9] == 0x7f << 1, "REJ bytes 8/9 = %#x %#x",
	      m[8], m[9]);
	CHECK(REJ_PRIVATE_DATA.off == 84 && REJ_PRIVATE_DATA.len == 148,
	      "REJ private data 84+148");
	/* Reason codes of IBA table 219 (Linux's enum ib_cm_rej_reason). */
	CHECK(CM_REJ_NO_QP == 1 && CM_REJ_TIMEOUT == 4 &&
	      CM_REJ_INVALID_SERVICE_ID == 8 && CM_REJ_STALE_CONN == 10 &&
	      CM_REJ_INVALID_GID == 12 && CM_REJ_INVALID_MTU == 26 &&
	      CM_REJ_CONSUMER_DEFINED == 28 &&
	      CM_REJ_DUPLICATE_LOCAL_COMM_ID == 30, "REJ reason codes");
	CHECK(lights(DREQ_REMOTE_QPN_EECN, 8, 11), "DREQ RemoteQPN at 8");
	CHECK(lights(SIDR_REP_QPN, 8, 11), "SIDR_REP QPN at 8");
	CHECK(lights(SIDR_REP_STATUS, 4, 5), "SIDR_REP Status at 4");
	CHECK(lights(SIDR_REQ_PARTITION_KEY, 4, 6), "SIDR_REQ P_Key at 4");
	CHECK(SIDR_REP_PRIVATE_DATA.off + SIDR_REP_PRIVATE_DATA.len ==
	      CM_PAYLOAD_LEN && SIDR_REQ_PRIVATE_DATA.off +
	      SIDR_REQ_PRIVATE_DATA.len == CM_PAYLOAD_LEN &&
	      MRA_PRIVATE_DATA.off + MRA_PRIVATE_DATA.len == CM_PAYLOAD_LEN,
	      "private data ends at 232");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct check_section s[] = {
		{ "req", test_req, true },
		{ "rep_rej", test_rep_rej, true },
	};

	return check_run(s, 2, argv + 1, argc - 1, NULL, NULL);
}
