// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * opcode.c - the table of BTH opcodes this device sends and accepts (IBA
 * 9.2 table 38, annex A14 for XRC): what each means and where each of its
 * extension headers sits.  A packet whose opcode has no entry is dropped.
 */
#include "mlx_hw.h"

const u8 mlx_hw_hdr_len[MLX_HW_NUM_HDRS] = {
	[MLX_HW_XRCETH] = 4,
	[MLX_HW_DETH] = 8,
	[MLX_HW_RETH] = 16,
	[MLX_HW_ATMETH] = 28,
	[MLX_HW_AETH] = 4,
	[MLX_HW_ATMACK] = 8,
	[MLX_HW_IMMDT] = 4,
	[MLX_HW_IETH] = 4,
};

/* Compile-time header layout: the same lengths as mlx_hw_hdr_len. */
#define HL(m, h, len)	(((m) & (1 << (h))) ? (len) : 0)
#define O_XRCETH(m)	MLX_HW_BTH_LEN
#define O_DETH(m)	(O_XRCETH(m) + HL(m, MLX_HW_XRCETH, 4))
#define O_RETH(m)	(O_DETH(m) + HL(m, MLX_HW_DETH, 8))
#define O_ATMETH(m)	(O_RETH(m) + HL(m, MLX_HW_RETH, 16))
#define O_AETH(m)	(O_ATMETH(m) + HL(m, MLX_HW_ATMETH, 28))
#define O_ATMACK(m)	(O_AETH(m) + HL(m, MLX_HW_AETH, 4))
#define O_IMMDT(m)	(O_ATMACK(m) + HL(m, MLX_HW_ATMACK, 8))
#define O_IETH(m)	(O_IMMDT(m) + HL(m, MLX_HW_IMMDT, 4))
#define O_END(m)	(O_IETH(m) + HL(m, MLX_HW_IETH, 4))

#define OPC(m, nm) {							\
	.name = nm,							\
	.mask = (m),							\
	.length = O_END(m),						\
	.off = {							\
		[MLX_HW_XRCETH] = O_XRCETH(m),				\
		[MLX_HW_DETH] = O_DETH(m),				\
		[MLX_HW_RETH] = O_RETH(m),				\
		[MLX_HW_ATMETH] = O_ATMETH(m),				\
		[MLX_HW_AETH] = O_AETH(m),				\
		[MLX_HW_ATMACK] = O_ATMACK(m),				\
		[MLX_HW_IMMDT] = O_IMMDT(m),				\
		[MLX_HW_IETH] = O_IETH(m),				\
	},								\
}

/* Kinds of packet, before the transport and its request header. */
#define T_SEND		(MLX_HW_M_REQ | MLX_HW_M_SEND | MLX_HW_M_PAYLOAD | \
			 MLX_HW_M_RWQE)
#define T_WRITE		(MLX_HW_M_REQ | MLX_HW_M_WRITE | MLX_HW_M_PAYLOAD)
#define T_IMM		MLX_HW_M_IMMDT
#define T_INV		MLX_HW_M_IETH
#define T_FIRST		MLX_HW_M_FIRST
#define T_MIDDLE		MLX_HW_M_MIDDLE
#define T_LAST		MLX_HW_M_LAST
#define T_ONLY		MLX_HW_M_ONLY
#define T_RETH		MLX_HW_M_RETH
#define T_READ_RESP	(MLX_HW_M_READ_RESP | MLX_HW_M_PAYLOAD)
#define T_AETH		MLX_HW_M_AETH

/*
 * The operations of the connected transports (RC, and XRC whose requests
 * also carry an XRCETH), at their operation number.
 */
#define RC_LIKE(tp, req, pfx)						\
	[tp | MLX_HW_OPC_SEND_FIRST] = OPC(tp##_M | req | T_SEND | T_FIRST,	\
					  pfx "SEND_FIRST"),		\
	[tp | MLX_HW_OPC_SEND_MIDDLE] = OPC(tp##_M | req | T_SEND | T_MIDDLE, \
					   pfx "SEND_MIDDLE"),		\
	[tp | MLX_HW_OPC_SEND_LAST] = OPC(tp##_M | req | T_SEND | T_LAST,	\
					 pfx "SEND_LAST"),		\
	[tp | MLX_HW_OPC_SEND_LAST_IMM] =				\
		OPC(tp##_M | req | T_SEND | T_LAST | T_IMM, pfx "SEND_LAST_IMM"), \
	[tp | MLX_HW_OPC_SEND_ONLY] = OPC(tp##_M | req | T_SEND | T_ONLY,	\
					 pfx "SEND_ONLY"),		\
	[tp | MLX_HW_OPC_SEND_ONLY_IMM] =				\
		OPC(tp##_M | req | T_SEND | T_ONLY | T_IMM, pfx "SEND_ONLY_IMM"), \
	[tp | MLX_HW_OPC_SEND_LAST_INV] =				\
		OPC(tp##_M | req | T_SEND | T_LAST | T_INV, pfx "SEND_LAST_INV"), \
	[tp | MLX_HW_OPC_SEND_ONLY_INV] =				\
		OPC(tp##_M | req | T_SEND | T_ONLY | T_INV, pfx "SEND_ONLY_INV"), \
	[tp | MLX_HW_OPC_WRITE_FIRST] =					\
		OPC(tp##_M | req | T_WRITE | T_FIRST | T_RETH, pfx "WRITE_FIRST"), \
	[tp | MLX_HW_OPC_WRITE_MIDDLE] =				\
		OPC(tp##_M | req | T_WRITE | T_MIDDLE, pfx "WRITE_MIDDLE"),	\
	[tp | MLX_HW_OPC_WRITE_LAST] =					\
		OPC(tp##_M | req | T_WRITE | T_LAST, pfx "WRITE_LAST"),	\
	[tp | MLX_HW_OPC_WRITE_LAST_IMM] =				\
		OPC(tp##_M | req | T_WRITE | T_LAST | T_IMM | MLX_HW_M_RWQE,	\
		    pfx "WRITE_LAST_IMM"),				\
	[tp | MLX_HW_OPC_WRITE_ONLY] =					\
		OPC(tp##_M | req | T_WRITE | T_ONLY | T_RETH, pfx "WRITE_ONLY"), \
	[tp | MLX_HW_OPC_WRITE_ONLY_IMM] =				\
		OPC(tp##_M | req | T_WRITE | T_ONLY | T_RETH | T_IMM | MLX_HW_M_RWQE, \
		    pfx "WRITE_ONLY_IMM"),				\
	[tp | MLX_HW_OPC_READ_REQ] =					\
		OPC(tp##_M | req | MLX_HW_M_REQ | MLX_HW_M_READ | T_ONLY | T_RETH, \
		    pfx "READ_REQUEST"),				\
	[tp | MLX_HW_OPC_READ_RESP_FIRST] =				\
		OPC(tp##_M | T_READ_RESP | T_FIRST | T_AETH, pfx "READ_RESPONSE_FIRST"), \
	[tp | MLX_HW_OPC_READ_RESP_MIDDLE] =				\
		OPC(tp##_M | T_READ_RESP | T_MIDDLE, pfx "READ_RESPONSE_MIDDLE"), \
	[tp | MLX_HW_OPC_READ_RESP_LAST] =				\
		OPC(tp##_M | T_READ_RESP | T_LAST | T_AETH, pfx "READ_RESPONSE_LAST"), \
	[tp | MLX_HW_OPC_READ_RESP_ONLY] =				\
		OPC(tp##_M | T_READ_RESP | T_ONLY | T_AETH, pfx "READ_RESPONSE_ONLY"), \
	[tp | MLX_HW_OPC_ACK] =						\
		OPC(tp##_M | MLX_HW_M_ACK | T_ONLY | T_AETH, pfx "ACKNOWLEDGE"), \
	[tp | MLX_HW_OPC_ATOMIC_ACK] =					\
		OPC(tp##_M | MLX_HW_M_ATOMIC_ACK | T_ONLY | T_AETH |	\
		    MLX_HW_M_ATMACK, pfx "ATOMIC_ACKNOWLEDGE"),		\
	[tp | MLX_HW_OPC_CMP_SWAP] =					\
		OPC(tp##_M | req | MLX_HW_M_REQ | MLX_HW_M_ATOMIC |	\
		    MLX_HW_M_CMPSWP | T_ONLY | MLX_HW_M_ATMETH,		\
		    pfx "COMPARE_SWAP"),				\
	[tp | MLX_HW_OPC_FETCH_ADD] =					\
		OPC(tp##_M | req | MLX_HW_M_REQ | MLX_HW_M_ATOMIC | T_ONLY | \
		    MLX_HW_M_ATMETH, pfx "FETCH_ADD")

#define MLX_HW_TP_RC_M	MLX_HW_M_RC
#define MLX_HW_TP_UC_M	MLX_HW_M_UC
#define MLX_HW_TP_XRC_M	MLX_HW_M_XRC

const struct mlx_hw_opcode_info mlx_hw_opcode[256] = {
	/* Its reserved bytes count as header: no payload, nothing to pad. */
	[MLX_HW_OPC_CNP] = {
		.name = "CNP",
		.mask = MLX_HW_M_CNP,
		.length = MLX_HW_BTH_LEN + MLX_HW_CNP_RSVD_LEN,
	},
	RC_LIKE(MLX_HW_TP_RC, 0, "RC_"),
	RC_LIKE(MLX_HW_TP_XRC, MLX_HW_M_XRCETH, "XRC_"),

	/* UC: sends and writes only (IBA 9.8.2). */
	[MLX_HW_TP_UC | MLX_HW_OPC_SEND_FIRST] =
		OPC(MLX_HW_M_UC | T_SEND | T_FIRST, "UC_SEND_FIRST"),
	[MLX_HW_TP_UC | MLX_HW_OPC_SEND_MIDDLE] =
		OPC(MLX_HW_M_UC | T_SEND | T_MIDDLE, "UC_SEND_MIDDLE"),
	[MLX_HW_TP_UC | MLX_HW_OPC_SEND_LAST] =
		OPC(MLX_HW_M_UC | T_SEND | T_LAST, "UC_SEND_LAST"),
	[MLX_HW_TP_UC | MLX_HW_OPC_SEND_LAST_IMM] =
		OPC(MLX_HW_M_UC | T_SEND | T_LAST | T_IMM, "UC_SEND_LAST_IMM"),
	[MLX_HW_TP_UC | MLX_HW_OPC_SEND_ONLY] =
		OPC(MLX_HW_M_UC | T_SEND | T_ONLY, "UC_SEND_ONLY"),
	[MLX_HW_TP_UC | MLX_HW_OPC_SEND_ONLY_IMM] =
		OPC(MLX_HW_M_UC | T_SEND | T_ONLY | T_IMM, "UC_SEND_ONLY_IMM"),
	[MLX_HW_TP_UC | MLX_HW_OPC_WRITE_FIRST] =
		OPC(MLX_HW_M_UC | T_WRITE | T_FIRST | T_RETH, "UC_WRITE_FIRST"),
	[MLX_HW_TP_UC | MLX_HW_OPC_WRITE_MIDDLE] =
		OPC(MLX_HW_M_UC | T_WRITE | T_MIDDLE, "UC_WRITE_MIDDLE"),
	[MLX_HW_TP_UC | MLX_HW_OPC_WRITE_LAST] =
		OPC(MLX_HW_M_UC | T_WRITE | T_LAST, "UC_WRITE_LAST"),
	[MLX_HW_TP_UC | MLX_HW_OPC_WRITE_LAST_IMM] =
		OPC(MLX_HW_M_UC | T_WRITE | T_LAST | T_IMM | MLX_HW_M_RWQE,
		    "UC_WRITE_LAST_IMM"),
	[MLX_HW_TP_UC | MLX_HW_OPC_WRITE_ONLY] =
		OPC(MLX_HW_M_UC | T_WRITE | T_ONLY | T_RETH, "UC_WRITE_ONLY"),
	[MLX_HW_TP_UC | MLX_HW_OPC_WRITE_ONLY_IMM] =
		OPC(MLX_HW_M_UC | T_WRITE | T_ONLY | T_RETH | T_IMM | MLX_HW_M_RWQE,
		    "UC_WRITE_ONLY_IMM"),

	/* UD: single-packet sends with a DETH (IBA 9.8.3). */
	[MLX_HW_TP_UD | MLX_HW_OPC_SEND_ONLY] =
		OPC(MLX_HW_M_UD | T_SEND | T_ONLY | MLX_HW_M_DETH, "UD_SEND_ONLY"),
	[MLX_HW_TP_UD | MLX_HW_OPC_SEND_ONLY_IMM] =
		OPC(MLX_HW_M_UD | T_SEND | T_ONLY | MLX_HW_M_DETH | T_IMM,
		    "UD_SEND_ONLY_IMM"),
};
