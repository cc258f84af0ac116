/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * hdr.h - the IBA transport headers as they appear on a RoCEv2 wire (IBA
 * annex A17: IP, UDP port 4791, then the headers below, payload, pad and a
 * 4-byte ICRC), their encoders and decoders, and the opcode table that says
 * which headers a packet carries (opcode.c).
 *
 * Every header is big-endian and unaligned as a whole packet is: they are
 * read and written with the unaligned helpers at an offset the opcode table
 * gives, never through structs.  skb->data points at the BTH while the
 * engine works on a packet.
 */
#ifndef MLX_HW_HDR_H
#define MLX_HW_HDR_H

#include <linux/types.h>
#include "ibx_compat.h"

#define MLX_HW_ROCE_PORT	4791	/* IANA RoCEv2 UDP destination port */
#define MLX_HW_ICRC_LEN		4
#define MLX_HW_DEFAULT_PKEY	0xffff
#define MLX_HW_PKEY_MASK	0x7fff	/* the membership bit aside */
#define MLX_HW_MCAST_QPN	0xffffff	/* BTH destination of multicast */
#define MLX_HW_PSN_MASK		0xffffff
#define MLX_HW_QPN_MASK		0xffffff

/* The headers a packet may carry, in the order they follow the BTH. */
enum mlx_hw_hdr {
	MLX_HW_XRCETH,		/* XRC SRQ number (A14) */
	MLX_HW_DETH,		/* Q_Key, source QP (UD) */
	MLX_HW_RETH,		/* VA, R_Key, DMA length */
	MLX_HW_ATMETH,		/* atomic VA, R_Key, swap/add, compare */
	MLX_HW_AETH,		/* syndrome, MSN */
	MLX_HW_ATMACK,		/* original remote data */
	MLX_HW_IMMDT,		/* immediate data */
	MLX_HW_IETH,		/* R_Key to invalidate */
	MLX_HW_NUM_HDRS
};

#define MLX_HW_BTH_LEN		12
#define MLX_HW_CNP_RSVD_LEN	16
extern const u8 mlx_hw_hdr_len[MLX_HW_NUM_HDRS];

/*
 * What an opcode means (the opcode table's mask): the headers present
 * (1 << enum mlx_hw_hdr), the operation, the position in its message and
 * the transport.
 */
enum {
	MLX_HW_M_XRCETH = 1 << MLX_HW_XRCETH,
	MLX_HW_M_DETH = 1 << MLX_HW_DETH,
	MLX_HW_M_RETH = 1 << MLX_HW_RETH,
	MLX_HW_M_ATMETH = 1 << MLX_HW_ATMETH,
	MLX_HW_M_AETH = 1 << MLX_HW_AETH,
	MLX_HW_M_ATMACK = 1 << MLX_HW_ATMACK,
	MLX_HW_M_IMMDT = 1 << MLX_HW_IMMDT,
	MLX_HW_M_IETH = 1 << MLX_HW_IETH,

	MLX_HW_M_PAYLOAD = 1 << 8,	/* may carry payload */
	MLX_HW_M_REQ = 1 << 9,		/* a request (to the responder) */
	MLX_HW_M_SEND = 1 << 10,
	MLX_HW_M_WRITE = 1 << 11,
	MLX_HW_M_READ = 1 << 12,	/* READ request */
	MLX_HW_M_ATOMIC = 1 << 13,	/* CmpSwap / FetchAdd request */
	MLX_HW_M_READ_RESP = 1 << 14,
	MLX_HW_M_ACK = 1 << 15,		/* ACK / NAK */
	MLX_HW_M_ATOMIC_ACK = 1 << 16,
	MLX_HW_M_FIRST = 1 << 17,	/* first packet of a message */
	MLX_HW_M_MIDDLE = 1 << 18,
	MLX_HW_M_LAST = 1 << 19,	/* last (ONLY = FIRST | LAST) */
	MLX_HW_M_RWQE = 1 << 20,	/* the message consumes a receive WQE */
	MLX_HW_M_CMPSWP = 1 << 21,	/* atomic: compare and swap */

	MLX_HW_M_CNP = 1 << 22,		/* RoCEv2 congestion notification */

	MLX_HW_M_RC = 1 << 24,		/* transport of the opcode */
	MLX_HW_M_UC = 1 << 25,
	MLX_HW_M_UD = 1 << 26,
	MLX_HW_M_XRC = 1 << 27,
};

#define MLX_HW_M_RESP	(MLX_HW_M_READ_RESP | MLX_HW_M_ACK | \
			 MLX_HW_M_ATOMIC_ACK)
#define MLX_HW_M_ONLY	(MLX_HW_M_FIRST | MLX_HW_M_LAST)

/* Opcode = transport (top 3 bits) | operation (IBA 9.2, table 38). */
enum mlx_hw_opcode {
	MLX_HW_TP_RC = 0x00,
	MLX_HW_TP_UC = 0x20,
	MLX_HW_TP_UD = 0x60,
	MLX_HW_TP_XRC = 0xa0,
	/* RoCEv2 CNP (annex A17.9.3): BTH, 16 reserved bytes, ICRC. */
	MLX_HW_OPC_CNP = 0x81,

	MLX_HW_OPC_SEND_FIRST = 0x00,
	MLX_HW_OPC_SEND_MIDDLE = 0x01,
	MLX_HW_OPC_SEND_LAST = 0x02,
	MLX_HW_OPC_SEND_LAST_IMM = 0x03,
	MLX_HW_OPC_SEND_ONLY = 0x04,
	MLX_HW_OPC_SEND_ONLY_IMM = 0x05,
	MLX_HW_OPC_WRITE_FIRST = 0x06,
	MLX_HW_OPC_WRITE_MIDDLE = 0x07,
	MLX_HW_OPC_WRITE_LAST = 0x08,
	MLX_HW_OPC_WRITE_LAST_IMM = 0x09,
	MLX_HW_OPC_WRITE_ONLY = 0x0a,
	MLX_HW_OPC_WRITE_ONLY_IMM = 0x0b,
	MLX_HW_OPC_READ_REQ = 0x0c,
	MLX_HW_OPC_READ_RESP_FIRST = 0x0d,
	MLX_HW_OPC_READ_RESP_MIDDLE = 0x0e,
	MLX_HW_OPC_READ_RESP_LAST = 0x0f,
	MLX_HW_OPC_READ_RESP_ONLY = 0x10,
	MLX_HW_OPC_ACK = 0x11,
	MLX_HW_OPC_ATOMIC_ACK = 0x12,
	MLX_HW_OPC_CMP_SWAP = 0x13,
	MLX_HW_OPC_FETCH_ADD = 0x14,
	MLX_HW_OPC_SEND_LAST_INV = 0x16,
	MLX_HW_OPC_SEND_ONLY_INV = 0x17,
};

#define MLX_HW_OPC_TRANSPORT(opc)	((opc) & 0xe0)
#define MLX_HW_OPC_OP(opc)		((opc) & 0x1f)

struct mlx_hw_opcode_info {
	const char *name;		/* NULL: not an opcode we accept */
	u32 mask;			/* MLX_HW_M_* */
	u8 length;			/* bytes of BTH + extension headers */
	u8 off[MLX_HW_NUM_HDRS];	/* offset of each present header */
};

extern const struct mlx_hw_opcode_info mlx_hw_opcode[256];

/* ---------------- BTH (IBA 9.2) ---------------- */

#define MLX_HW_BTH_SE		0x80	/* solicited event */
#define MLX_HW_BTH_MIG		0x40	/* migration state */
#define MLX_HW_BTH_PAD_SHIFT	4
#define MLX_HW_BTH_TVER_MASK	0x0f	/* transport header version, 0 */
#define MLX_HW_BTH_ACKREQ	0x80000000u

/*
 * @migreq: the sender's path migration state is MIGRATED (IBA 9.2, 17.2.8);
 * 0 while it is REARM or ARMED.  rxe sends 1 always.
 */
static inline void mlx_hw_bth_set(u8 *p, u8 opcode, bool se, bool migreq,
				  u8 pad, u16 pkey, u32 qpn, bool ackreq,
				  u32 psn)
{
	p[0] = opcode;
	p[1] = (se ? MLX_HW_BTH_SE : 0) | (migreq ? MLX_HW_BTH_MIG : 0) |
	       (pad << MLX_HW_BTH_PAD_SHIFT);
	put_unaligned_be16(pkey, p + 2);
	put_unaligned_be32(qpn & MLX_HW_QPN_MASK, p + 4);
	put_unaligned_be32((psn & MLX_HW_PSN_MASK) |
			   (ackreq ? MLX_HW_BTH_ACKREQ : 0), p + 8);
}

static inline u8 mlx_hw_bth_opcode(const u8 *p) { return p[0]; }
static inline bool mlx_hw_bth_se(const u8 *p) { return p[1] & MLX_HW_BTH_SE; }
static inline bool mlx_hw_bth_mig(const u8 *p) { return p[1] & MLX_HW_BTH_MIG; }
static inline u8 mlx_hw_bth_pad(const u8 *p) { return (p[1] >> 4) & 3; }
static inline u8 mlx_hw_bth_tver(const u8 *p)
{
	return p[1] & MLX_HW_BTH_TVER_MASK;
}
static inline u16 mlx_hw_bth_pkey(const u8 *p)
{
	return get_unaligned_be16(p + 2);
}
static inline u32 mlx_hw_bth_qpn(const u8 *p)
{
	return get_unaligned_be32(p + 4) & MLX_HW_QPN_MASK;
}
static inline bool mlx_hw_bth_ackreq(const u8 *p)
{
	return get_unaligned_be32(p + 8) & MLX_HW_BTH_ACKREQ;
}
static inline u32 mlx_hw_bth_psn(const u8 *p)
{
	return get_unaligned_be32(p + 8) & MLX_HW_PSN_MASK;
}

/* ---------------- extension headers (IBA 9.3) ---------------- */

/* RETH: VA (8), R_Key (4), DMA length (4). */
static inline void mlx_hw_reth_set(u8 *p, u64 va, u32 rkey, u32 len)
{
	put_unaligned_be64(va, p);
	put_unaligned_be32(rkey, p + 8);
	put_unaligned_be32(len, p + 12);
}
static inline u64 mlx_hw_reth_va(const u8 *p) { return get_unaligned_be64(p); }
static inline u32 mlx_hw_reth_rkey(const u8 *p)
{
	return get_unaligned_be32(p + 8);
}
static inline u32 mlx_hw_reth_len(const u8 *p)
{
	return get_unaligned_be32(p + 12);
}

/* AtomicETH: VA (8), R_Key (4), swap or add data (8), compare data (8). */
static inline void mlx_hw_atmeth_set(u8 *p, u64 va, u32 rkey, u64 swap_add,
				     u64 compare)
{
	put_unaligned_be64(va, p);
	put_unaligned_be32(rkey, p + 8);
	put_unaligned_be64(swap_add, p + 12);
	put_unaligned_be64(compare, p + 20);
}
static inline u64 mlx_hw_atmeth_va(const u8 *p)
{
	return get_unaligned_be64(p);
}
static inline u32 mlx_hw_atmeth_rkey(const u8 *p)
{
	return get_unaligned_be32(p + 8);
}
static inline u64 mlx_hw_atmeth_swap_add(const u8 *p)
{
	return get_unaligned_be64(p + 12);
}
static inline u64 mlx_hw_atmeth_compare(const u8 *p)
{
	return get_unaligned_be64(p + 20);
}

/*
 * AETH: syndrome (1), MSN (3).  The syndrome's top bits say ACK, RNR NAK
 * or NAK (IBA 9.7.5.2.1, table 42); the low five carry the credit count,
 * the RNR timer or the NAK code.
 */
#define MLX_HW_AETH_ACK		0x00
#define MLX_HW_AETH_RNR_NAK	0x20
#define MLX_HW_AETH_NAK		0x60
#define MLX_HW_AETH_TYPE_MASK	0xe0
#define MLX_HW_AETH_VALUE_MASK	0x1f
#define MLX_HW_AETH_NO_CREDIT	0x1f	/* "invalid" credit count, as rxe */

enum mlx_hw_nak_code {
	MLX_HW_NAK_PSN_SEQ = 0,
	MLX_HW_NAK_INV_REQ = 1,
	MLX_HW_NAK_REM_ACCESS = 2,
	MLX_HW_NAK_REM_OP = 3,
	MLX_HW_NAK_INV_RD_REQ = 4,
};

static inline void mlx_hw_aeth_set(u8 *p, u8 syndrome, u32 msn)
{
	put_unaligned_be32(((u32)syndrome << 24) | (msn & 0xffffff), p);
}
static inline u8 mlx_hw_aeth_syndrome(const u8 *p) { return p[0]; }
static inline u32 mlx_hw_aeth_msn(const u8 *p)
{
	return get_unaligned_be32(p) & 0xffffff;
}

/* AtomicAckETH: the original remote data (8). */
static inline void mlx_hw_atmack_set(u8 *p, u64 orig)
{
	put_unaligned_be64(orig, p);
}
static inline u64 mlx_hw_atmack_orig(const u8 *p)
{
	return get_unaligned_be64(p);
}

/* DETH: Q_Key (4), reserved (1), source QP (3). */
static inline void mlx_hw_deth_set(u8 *p, u32 qkey, u32 src_qpn)
{
	put_unaligned_be32(qkey, p);
	put_unaligned_be32(src_qpn & MLX_HW_QPN_MASK, p + 4);
}
static inline u32 mlx_hw_deth_qkey(const u8 *p)
{
	return get_unaligned_be32(p);
}
static inline u32 mlx_hw_deth_sqpn(const u8 *p)
{
	return get_unaligned_be32(p + 4) & MLX_HW_QPN_MASK;
}

/* XRCETH: reserved (1), XRC SRQ number (3). */
static inline void mlx_hw_xrceth_set(u8 *p, u32 srqn)
{
	put_unaligned_be32(srqn & 0xffffff, p);
}
static inline u32 mlx_hw_xrceth_srqn(const u8 *p)
{
	return get_unaligned_be32(p) & 0xffffff;
}

/* ImmDt is carried in network order end to end; IETH is an R_Key. */
static inline void mlx_hw_immdt_set(u8 *p, __be32 imm)
{
	memcpy(p, &imm, sizeof(imm));
}
static inline __be32 mlx_hw_immdt(const u8 *p)
{
	__be32 imm;

	memcpy(&imm, p, sizeof(imm));
	return imm;
}
static inline void mlx_hw_ieth_set(u8 *p, u32 rkey)
{
	put_unaligned_be32(rkey, p);
}
static inline u32 mlx_hw_ieth_rkey(const u8 *p)
{
	return get_unaligned_be32(p);
}

/* ---------------- PSN arithmetic (24 bits, wrapping) ---------------- */

/* Signed distance a - b of two PSNs: negative when a is older. */
static inline int mlx_hw_psn_diff(u32 a, u32 b)
{
	return ((s32)((a - b) << 8)) >> 8;
}

static inline u32 mlx_hw_psn_add(u32 psn, u32 n)
{
	return (psn + n) & MLX_HW_PSN_MASK;
}

#endif /* MLX_HW_HDR_H */
