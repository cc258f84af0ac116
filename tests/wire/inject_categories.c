// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * roce_inject's categories: one generator per kind of broken packet, each
 * cycling through its variants, and their table (cats[]), which the
 * options, usage() and the summary go by.
 */
#include <string.h>

#include "roce_inject.h"

/* ---------------- the categories ---------------------------------------- */

/*
 * Which PSN a packet carries.  LIVE: the one the receiver expects next, so
 * that a packet wrongly accepted shows as corrupt data or a broken stream.
 * AHEAD: far outside the window, for packets that pass every header check
 * and would otherwise meet a transport check IBA makes fatal for the
 * connection (a length error NAKs "invalid request"): a correct receiver
 * drops them as out of sequence and the stream survives.  --live-psn sends
 * those at the live PSN too.  (The structured random packets go behind the
 * window instead, as duplicates: see gen_randicrc().)
 */
static u32 psn_ahead(struct ctx *c, u32 live)
{
	if (c->live_psn)
		return live;
	return psn_add(live, rng_range(&c->rng, 1 << 20, 1 << 22));
}

/* Cuts a sealed packet to @keep bytes after the UDP header. */
static void cut_udp_payload(struct frame *fr, size_t keep)
{
	fr->len = fr->bth + keep;
	frame_fix(fr);
}

static const struct variant trunc_v[] = {
	{"in-udp", "malformed (UDP layer)"},
	{"udp-only", "malformed"},
	{"in-bth", "malformed"},
	{"bth-only", "malformed"},
	{"in-reth", "malformed"},
	{"in-deth", "malformed"},
	{"in-aeth", "malformed"},
	{"in-atomiceth", "malformed"},
	{"in-atomicacketh", "malformed"},
	{"in-immdt", "malformed"},
	{"in-ieth", "malformed"},
	{"no-icrc", "malformed"},
	{"hdr-then-short", "malformed"},
	{"pad-gt-payload", "malformed"},
};

/* Opcode and extension header cut inside, by variant. */
static const struct {
	u8 low;
	unsigned int ext;
} trunc_ext[] = {
	[4] = {OP_WRITE_ONLY, X_RETH},
	[5] = {OP_SEND_ONLY, X_DETH},
	[6] = {OP_ACK, X_AETH},
	[7] = {OP_CMP_SWAP, X_ATOMIC},
	[8] = {OP_ATOMIC_ACK, X_ATOMICACK},
	[9] = {OP_SEND_ONLY_IMM, X_IMM},
	[10] = {OP_SEND_ONLY_INV, X_IETH},
};

/* The opcode of the target's transport (UD ones for a UD target). */
static u8 fam_op(const struct target *t, u8 low)
{
	u8 fam = t->f->fam;

	if (fam == FAM_UD && low != OP_SEND_ONLY && low != OP_SEND_ONLY_IMM)
		fam = FAM_RC; /* a UD QP has no other opcode */
	if (fam == FAM_UC && !ops[FAM_UC | low].valid)
		fam = FAM_RC;
	return fam | low;
}

/* A packet of the target, cut inside one extension header. */
static void trunc_in_ext(struct ctx *c, struct frame *fr, int v)
{
	size_t off[ARRAY_SIZE(ext_hdrs)];
	struct spec s;
	u8 op = fam_op(&c->t, trunc_ext[v].low);
	unsigned int i;

	if (trunc_ext[v].ext == X_DETH)
		op = FAM_UD | OP_SEND_ONLY;
	spec_live(&s, &c->t, op, &c->rng);
	s.ext = ops[op].ext;
	build(fr, &c->t, &s, &c->rng, off);
	frame_seal(fr, 0);
	for (i = 0; ext_hdrs[i].bit != trunc_ext[v].ext; i++)
		;
	cut_udp_payload(fr, off[i] - fr->bth +
				    rng_range(&c->rng, 1, ext_hdrs[i].len - 1));
}

/* A valid packet of the target (low opcode @low), at its live PSN. */
static void sealed_live(struct ctx *c, struct frame *fr, u8 low)
{
	struct spec s;

	spec_live(&s, &c->t, fam_op(&c->t, low), &c->rng);
	build(fr, &c->t, &s, &c->rng, NULL);
	frame_seal(fr, 0);
}

/*
 * Valid packets at the live PSN cut short, the IP and UDP lengths telling
 * the truth about what is left; or complete but with a pad count the data
 * cannot hold.  Nothing of them may reach a QP.
 */
static void gen_trunc(struct ctx *c, struct frame *fr, unsigned long i,
		      struct made *m)
{
	int v = i % ARRAY_SIZE(trunc_v);
	struct spec s;
	size_t hdrs;

	m->variant = v;
	m->icrc = "none";
	switch (v) {
	case 0: /* the IP payload is part of a UDP header */
		sealed_live(c, fr, OP_SEND_ONLY);
		fr->len = fr->l4 + rng_range(&c->rng, 1, UDP_LEN - 1);
		frame_fix(fr);
		break;
	case 1: /* a UDP header and nothing after it */
		sealed_live(c, fr, OP_SEND_ONLY);
		cut_udp_payload(fr, 0);
		break;
	case 2:
		sealed_live(c, fr, OP_SEND_ONLY);
		cut_udp_payload(fr, rng_range(&c->rng, 1, BTH_LEN - 1));
		break;
	case 3:
		sealed_live(c, fr, OP_SEND_ONLY);
		cut_udp_payload(fr, BTH_LEN);
		break;
	case 11: /* everything but (part of) the ICRC */
		sealed_live(c, fr, OP_SEND_ONLY);
		cut_udp_payload(fr, fr->len - fr->bth -
					    rng_range(&c->rng, 1, ICRC_LEN));
		break;
	case 12: /* complete headers, then fewer bytes than an ICRC */
		spec_live(&s, &c->t, fam_op(&c->t, OP_WRITE_ONLY), &c->rng);
		s.paylen = 0;
		build(fr, &c->t, &s, &c->rng, NULL);
		hdrs = fr->len - fr->bth;
		rng_fill(&c->rng, frame_put(fr, ICRC_LEN), ICRC_LEN);
		cut_udp_payload(fr, hdrs + rng_range(&c->rng, 0, ICRC_LEN - 1));
		break;
	case 13: /* a BTH pad count larger than the data, valid ICRC */
		spec_live(&s, &c->t, fam_op(&c->t, OP_SEND_ONLY), &c->rng);
		s.paylen = rng_range(&c->rng, 0, 2);
		s.pad = 3;
		build(fr, &c->t, &s, &c->rng, NULL);
		frame_seal(fr, 0);
		m->icrc = "valid";
		break;
	default:
		trunc_in_ext(c, fr, v);
	}
	m->bth_off = v <= 1 ? 0 : fr->bth;
}

static const struct variant badicrc_v[] = {
	{"icrc-bitflip", "icrc"},    {"icrc-big-endian", "icrc"},
	{"icrc-zero", "icrc"},	     {"payload-bitflip", "icrc"},
	{"bth-psn-bitflip", "icrc"}, {"udp-sport-changed", "icrc"},
};

/* Request opcodes a valid packet of the target may carry. */
static u8 some_request(struct ctx *c)
{
	static const u8 lows[] = {OP_SEND_ONLY, OP_WRITE_ONLY,
				  OP_READ_REQ,	OP_SEND_ONLY_IMM,
				  OP_CMP_SWAP,	OP_FETCH_ADD};
	u8 op;

	if (c->t.f->fam == FAM_UD)
		return FAM_UD | OP_SEND_ONLY;
	op = fam_op(&c->t, lows[rng_next(&c->rng) % ARRAY_SIZE(lows)]);
	return ops[op].valid ? op : fam_op(&c->t, OP_SEND_ONLY);
}

static void flip_bit(struct ctx *c, u8 *p, size_t n)
{
	p[rng_next(&c->rng) % n] ^= 1 << (rng_next(&c->rng) % 8);
}

/*
 * A valid packet at the live PSN, then one change the ICRC must catch.
 * Every change is to a byte the ICRC covers (never TTL, TOS, checksums or
 * the BTH reserved byte, which it masks), so a correct receiver drops all.
 */
static void gen_badicrc(struct ctx *c, struct frame *fr, unsigned long i,
			struct made *m)
{
	int v = i % ARRAY_SIZE(badicrc_v);
	struct spec s;
	u8 *icrcp;
	u32 good;

	m->variant = v;
	m->icrc = "invalid";
	spec_live(&s, &c->t,
		  v == 3 ? fam_op(&c->t, OP_SEND_ONLY) : some_request(c),
		  &c->rng);
	build(fr, &c->t, &s, &c->rng, NULL);
	frame_seal(fr, 0);
	m->bth_off = fr->bth;
	icrcp = fr->b + fr->len - ICRC_LEN;
	good = get_le32(icrcp);
	switch (v) {
	case 0:
		flip_bit(c, icrcp, ICRC_LEN);
		break;
	case 1: /* most significant byte first: a classic implementation bug */
		put32(icrcp, good);
		break;
	case 2:
		memset(icrcp, 0, ICRC_LEN);
		break;
	case 3: /* data corrupted on the way: what the ICRC is for */
		flip_bit(c, fr->b + fr->bth + BTH_LEN + ext_len(s.ext),
			 s.paylen);
		break;
	case 4: /* the A bit or the PSN */
		flip_bit(c, fr->b + fr->bth + 8, 4);
		break;
	case 5: /* the UDP header is covered too, all but its checksum */
		flip_bit(c, fr->b + fr->l4, 2);
		break;
	}
	/* A change that leaves the stored value right (a palindromic ICRC
	 * byte-swapped, an ICRC of 0 zeroed) is made wrong. */
	if (v <= 2 && get_le32(icrcp) == good)
		icrcp[0] ^= 1;
	/* The IPv6 UDP checksum covers the ICRC: only the ICRC may be wrong,
	 * or the UDP layer drops the packet before the receiver sees it. */
	frame_csum(fr);
}

static const struct variant qpn_v[] = {
	{"qpn-0", "qpn (QP0 does not exist on RoCE)"},
	{"qpn-1-gsi", "qp type (RC opcode to the GSI QP)"},
	{"qpn-ffffff", "qpn (multicast QPN, unicast address)"},
	{"qpn-absent", "qpn"},
	{"qpn-neighbour", "qpn"},
	{"qpn-other-known", "qpn or address (another QP of the stream)"},
};

static bool qpn_known(struct ctx *c, u32 qpn)
{
	int k;

	for (k = 0; k < c->l.nfwd; k++)
		if (c->l.fwd[k].qpn == qpn)
			return true;
	for (k = 0; k < c->l.nrev; k++)
		if (c->l.rev[k].qpn == qpn)
			return true;
	return qpn <= GSI_QPN || qpn == MCAST_QPN;
}

/* A QPN the stream's QPs do not use, near @base or anywhere. */
static u32 unused_qpn(struct ctx *c, u32 base, bool near)
{
	u32 q;

	do {
		if (near)
			q = (base + (u32)rng_range(&c->rng, 1, 8) *
					    (rng_next(&c->rng) & 1 ? 1 : -1)) &
			    PSN_MASK;
		else
			q = rng_next(&c->rng) & PSN_MASK;
	} while (qpn_known(c, q));
	return q;
}

/* Another QPN seen in the stream (either side) than the target's. */
static bool other_qpn(struct ctx *c, u32 *qpn)
{
	u32 cand[2 * MAX_FLOWS];
	int k, n = 0;

	for (k = 0; k < c->l.nfwd; k++)
		if (c->l.fwd[k].qpn != c->t.f->qpn)
			cand[n++] = c->l.fwd[k].qpn;
	for (k = 0; k < c->l.nrev; k++)
		if (c->l.rev[k].qpn != c->t.f->qpn)
			cand[n++] = c->l.rev[k].qpn;
	if (!n)
		return false;
	*qpn = cand[rng_next(&c->rng) % n];
	return true;
}

static void gen_qpn(struct ctx *c, struct frame *fr, unsigned long i,
		    struct made *m)
{
	int v = i % ARRAY_SIZE(qpn_v);
	struct spec s;

	m->variant = v;
	m->icrc = "valid";
	spec_live(&s, &c->t, some_request(c), &c->rng);
	switch (v) {
	case 0:
		s.qpn = 0;
		break;
	case 1:
		s.qpn = GSI_QPN;
		s.opcode = FAM_RC | OP_SEND_ONLY;
		s.ext = ops[s.opcode].ext;
		s.paylen = 64;
		break;
	case 2:
		s.qpn = MCAST_QPN;
		break;
	case 3:
		s.qpn = unused_qpn(c, 0, false);
		break;
	case 4:
		s.qpn = unused_qpn(c, c->t.f->qpn, true);
		break;
	case 5: /* none known: a neighbour instead */
		if (!other_qpn(c, &s.qpn))
			s.qpn = unused_qpn(c, c->t.f->qpn, true);
		break;
	}
	build(fr, &c->t, &s, &c->rng, NULL);
	frame_seal(fr, 0);
	m->bth_off = fr->bth;
}

static const struct variant pkey_v[] = {
	{"pkey-invalid-0000", "pkey"},
	{"pkey-invalid-8000", "pkey"},
	{"pkey-other-full", "pkey"},
	{"pkey-other-limited", "pkey"},
};

/* A P_Key of another partition than @pkey (the low 15 bits differ). */
static u16 other_pkey(struct ctx *c, u16 pkey, bool full)
{
	u16 p;

	do
		p = rng_next(&c->rng) & 0x7fff;
	while (!p || p == (pkey & 0x7fff));
	return p | (full ? 0x8000 : 0);
}

static void gen_pkey(struct ctx *c, struct frame *fr, unsigned long i,
		     struct made *m)
{
	int v = i % ARRAY_SIZE(pkey_v);
	struct spec s;

	m->variant = v;
	m->icrc = "valid";
	spec_live(&s, &c->t, some_request(c), &c->rng);
	if (v <= 1) /* the two P_Keys with no partition: never valid */
		s.pkey = v == 0 ? 0x0000 : 0x8000;
	else
		s.pkey = other_pkey(c, c->t.f->pkey, v == 2);
	build(fr, &c->t, &s, &c->rng, NULL);
	frame_seal(fr, 0);
	m->bth_off = fr->bth;
}

static const struct variant qkey_v[] = {
	{"qkey-gsi", "qkey (QP1 expects 0x80010000)"},
	{"qkey-gsi-controlled", "qkey (QP1 expects 0x80010000)"},
	{"qkey-ud", "qkey (a learned UD QP; QP1 if none)"},
};

static void gen_qkey(struct ctx *c, struct frame *fr, unsigned long i,
		     struct made *m)
{
	int v = i % ARRAY_SIZE(qkey_v);
	bool ud = v == 2 && c->t.ud && c->t.ud->have_qkey;
	struct target t = c->t;
	struct spec s;
	u32 want = GSI_QKEY;

	m->variant = v;
	m->icrc = "valid";
	if (ud) {
		t.f = c->t.ud;
		want = t.f->qkey;
	}
	spec_live(&s, &t, FAM_UD | OP_SEND_ONLY, &c->rng);
	s.qpn = ud ? t.f->qpn : GSI_QPN;
	s.paylen = 256; /* a MAD */
	do {
		s.qkey = rng_next(&c->rng);
		if (v == 1)
			s.qkey |= 0x80000000u;
		if (v == 0)
			s.qkey &= 0x7fffffffu;
	} while (s.qkey == want);
	if (!ud)
		s.srcqp = GSI_QPN;
	s.pkey = c->t.f->pkey;
	build(fr, &t, &s, &c->rng, NULL);
	frame_seal(fr, 0);
	m->bth_off = fr->bth;
}

static const struct variant psn_v[] = {
	{"req-ahead", "psn: out of sequence (NAK once)"},
	{"req-behind", "psn: duplicate"},
	{"req-max-ahead", "psn: out of sequence (NAK once)"},
	{"req-max-behind", "psn: duplicate"},
	{"resp-behind", "psn: stale response, ignored"},
	{"resp-ahead", "psn: response to nothing sent (ghost), ignored"},
};

static void gen_psn(struct ctx *c, struct frame *fr, unsigned long i,
		    struct made *m)
{
	int v = i % ARRAY_SIZE(psn_v);
	struct spec s;
	int32_t d = rng_range(&c->rng, 1 << 10, 1 << 22);

	m->variant = v;
	m->icrc = "valid";
	if (v >= 4 && c->t.f->fam != FAM_UD)
		spec_live(&s, &c->t, fam_op(&c->t, OP_ACK), &c->rng);
	else
		spec_live(&s, &c->t, fam_op(&c->t, OP_SEND_ONLY), &c->rng);
	switch (v) {
	case 0:
	case 5:
		s.psn = psn_add(s.psn, d);
		break;
	case 1:
	case 4:
		s.psn = psn_add(s.psn, -d);
		break;
	case 2:
		s.psn = psn_add(s.psn, (1 << 23) - 1);
		break;
	case 3:
		s.psn = psn_add(s.psn, -(1 << 23) + 1);
		break;
	}
	build(fr, &c->t, &s, &c->rng, NULL);
	frame_seal(fr, 0);
	m->bth_off = fr->bth;
}

static const struct variant over_v[] = {
	{"only-above-pmtu", "length (or psn: sent ahead)"},
	{"middle-above-pmtu", "length (or psn: sent ahead)"},
	{"above-4096", "length (or psn: sent ahead)"},
	{"udp-len-long", "malformed (UDP layer)"},
	{"udp-len-short", "malformed or icrc"},
};

/* The most payload an unfragmented IPv6 SEND packet carries on the link. */
static unsigned int v6_room(const struct ctx *c)
{
	return c->dev_mtu - IP6_LEN - UDP_LEN - BTH_LEN - ICRC_LEN;
}

static void gen_oversize(struct ctx *c, struct frame *fr, unsigned long i,
			 struct made *m)
{
	int v = i % ARRAY_SIZE(over_v);
	unsigned int room =
		c->t.f->v6 ? v6_room(c) : FRAME_MAX - ETH_LEN - IP4_LEN - 128;
	struct spec s;
	u8 low = v == 1 ? OP_SEND_MIDDLE : OP_SEND_ONLY;
	int lie = 0;

	m->variant = v;
	m->icrc = "valid";
	if (c->t.f->fam == FAM_UD)
		low = OP_SEND_ONLY;
	spec_live(&s, &c->t, fam_op(&c->t, low), &c->rng);
	/* Without IPv6 fragments a datagram must fit the link: the variants
	 * that cannot give way to the lying UDP lengths. */
	if (c->t.f->v6 && v <= 2 &&
	    (v == 2 ? 4100 : c->t.pmtu + 4) > v6_room(c))
		v = m->variant = 3 + i / ARRAY_SIZE(over_v) % 2;
	switch (v) {
	case 0:
	case 1:
		s.paylen = c->t.pmtu + 4 * rng_range(&c->rng, 1, 64);
		s.psn = psn_ahead(c, s.psn);
		break;
	case 2:
		s.paylen = 4096 + 4 * rng_range(&c->rng, 1, 100);
		s.psn = psn_ahead(c, s.psn);
		break;
	case 3:
		s.paylen = 4 * rng_range(&c->rng, 1, 64);
		lie = rng_range(&c->rng, 1, 64);
		break;
	case 4:
		s.paylen = 4 * rng_range(&c->rng, 4, 64);
		lie = -(int)rng_range(&c->rng, 1, 16);
		break;
	}
	if (s.paylen > room)
		s.paylen = room & ~3u;
	build(fr, &c->t, &s, &c->rng, NULL);
	/* Above the netdev MTU (or --frag-mtu) the datagram is sent as IPv4
	 * fragments, which the receiver's IP layer reassembles; the ICRC
	 * covers the header it rebuilds, with no don't-fragment flag. */
	if (!fr->v6 && fr->len - ETH_LEN > c->frag_mtu)
		fr->df = false;
	frame_seal(fr, lie);
	if (lie < 0)
		m->icrc = "invalid"; /* where the receiver looks for it */
	m->bth_off = fr->bth;
}

static const struct variant opcode_v[] = {
	{"rc-reserved", "opcode"},
	{"uc-reserved", "opcode"},
	{"ud-reserved", "opcode"},
	{"cnp-family-reserved", "opcode"},
	{"xrc-reserved", "opcode"},
	{"vendor-c0-ff", "opcode"},
	{"other-transport", "qp type (valid opcode, other transport)"},
};

/* An opcode of @fam that IBA does not define (rejection sampling). */
static u8 reserved_op(struct ctx *c, u8 fam, u8 span)
{
	u8 op;

	do
		op = fam | (rng_next(&c->rng) % span);
	while (ops[op].valid);
	return op;
}

static void gen_opcode(struct ctx *c, struct frame *fr, unsigned long i,
		       struct made *m)
{
	static const u8 fams[] = {FAM_RC, FAM_UC, FAM_UD, FAM_CNP, FAM_XRC};
	int v = i % ARRAY_SIZE(opcode_v);
	struct spec s;
	u8 op, fam;

	m->variant = v;
	m->icrc = "valid";
	if (v < 5) {
		op = reserved_op(c, fams[v], 32);
	} else if (v == 5) {
		op = reserved_op(c, 0xc0, 64);
	} else {
		/* a valid request of a transport the target QP is not */
		do {
			op = rng_next(&c->rng);
			fam = op & 0xe0;
		} while (!ops[op].valid || !ops[op].request ||
			 fam == c->t.f->fam || fam == FAM_CNP);
	}
	spec_live(&s, &c->t, fam_op(&c->t, OP_SEND_ONLY), &c->rng);
	s.opcode = op;
	if (v == 6) {
		s.ext = ops[op].ext;
		s.paylen = ops[op].payload ? 64 : 0;
	} else {
		s.ext = 0;
		s.paylen = 4 * rng_range(&c->rng, 0, 16);
	}
	build(fr, &c->t, &s, &c->rng, NULL);
	frame_seal(fr, 0);
	m->bth_off = fr->bth;
}

static const struct variant tver_v[] = {
	{"tver-1", "tver"},
	{"tver-2-15", "tver"},
};

static void gen_tver(struct ctx *c, struct frame *fr, unsigned long i,
		     struct made *m)
{
	int v = i % ARRAY_SIZE(tver_v);
	struct spec s;

	m->variant = v;
	m->icrc = "valid";
	spec_live(&s, &c->t, some_request(c), &c->rng);
	s.tver = v == 0 ? 1 : rng_range(&c->rng, 2, 15);
	build(fr, &c->t, &s, &c->rng, NULL);
	frame_seal(fr, 0);
	m->bth_off = fr->bth;
}

static const struct variant random_v[] = {
	{"random-short", "malformed or any"},
	{"random-mtu", "any"},
};

static void gen_random(struct ctx *c, struct frame *fr, unsigned long i,
		       struct made *m)
{
	int v = i % ARRAY_SIZE(random_v);
	size_t n = v == 0 ? rng_range(&c->rng, 1, BTH_LEN + ICRC_LEN)
			  : rng_range(&c->rng, BTH_LEN + ICRC_LEN + 1,
				      c->t.pmtu + 64);

	m->variant = v;
	m->icrc = "random";
	if (n > c->dev_mtu - IP6_LEN - UDP_LEN)
		n = c->dev_mtu - IP6_LEN - UDP_LEN;
	frame_start(fr, c->t.f, rng_next(&c->rng));
	rng_fill(&c->rng, frame_put(fr, n), n);
	frame_fix(fr);
	m->bth_off = n >= BTH_LEN ? fr->bth : 0;
}

static const struct variant randicrc_v[] = {
	{"random-all", "any"},
	{"random-bth-fields", "any (PSN in the duplicate region)"},
};

/*
 * Random bytes the receiver cannot reject by ICRC.  The second variant
 * keeps what makes a packet reach a QP (TVer 0, the target's QPN and
 * P_Key) and randomizes the rest, with a PSN in the duplicate half of the
 * window (--live-psn: the live one): a duplicate is answered, never
 * executed, so a correct receiver keeps the stream intact.  UC and UD know
 * no duplicates and take any SEND: for those targets the opcode is never
 * one of their own transport.
 */
static void gen_randicrc(struct ctx *c, struct frame *fr, unsigned long i,
			 struct made *m)
{
	int v = i % ARRAY_SIZE(randicrc_v);
	size_t n = rng_range(&c->rng, BTH_LEN, BTH_LEN + 64 + c->t.pmtu / 4);
	u8 *p;
	u32 psn;

	m->variant = v;
	m->icrc = "valid";
	frame_start(fr, c->t.f, rng_next(&c->rng));
	p = frame_put(fr, n);
	rng_fill(&c->rng, p, n);
	if (v == 1) {
		while (c->t.f->fam != FAM_RC && c->t.f->fam != FAM_XRC &&
		       (p[0] & 0xe0) == c->t.f->fam && ops[p[0]].valid)
			p[0] = rng_next(&c->rng);
		p[1] &= 0xf0; /* TVer 0 */
		put16(p + 2, c->t.f->pkey);
		put32(p + 4, c->t.f->qpn);
		psn = ops[p[0]].request ? c->t.req_psn : c->t.resp_psn;
		if (!c->live_psn)
			psn = psn_add(psn, -(int32_t)rng_range(&c->rng, 1 << 10,
							       1 << 22));
		put32(p + 8, (p[8] & 0x80u) << 24 | psn);
	}
	frame_seal(fr, 0);
	m->bth_off = fr->bth;
}

const struct category cats[NCAT] = {
	[C_TRUNC] = {"truncated",
		     "cut inside UDP, BTH, every extension header, ICRC",
		     gen_trunc, trunc_v, ARRAY_SIZE(trunc_v)},
	[C_BADICRC] = {"bad-icrc", "one change the ICRC must catch",
		       gen_badicrc, badicrc_v, ARRAY_SIZE(badicrc_v)},
	[C_QPN] = {"wrong-qpn", "QP0, QP1, 0xffffff, absent and other QPs",
		   gen_qpn, qpn_v, ARRAY_SIZE(qpn_v)},
	[C_PKEY] = {"wrong-pkey", "invalid P_Keys, other partitions", gen_pkey,
		    pkey_v, ARRAY_SIZE(pkey_v)},
	[C_QKEY] = {"wrong-qkey", "UD SENDs to QP1 or a learned UD QP",
		    gen_qkey, qkey_v, ARRAY_SIZE(qkey_v)},
	[C_PSN] = {"psn-window", "requests and ACKs far ahead or behind",
		   gen_psn, psn_v, ARRAY_SIZE(psn_v)},
	[C_OVERSIZE] = {"oversized",
			"above the path MTU, above 4096, UDP "
			"lengths that lie",
			gen_oversize, over_v, ARRAY_SIZE(over_v)},
	[C_OPCODE] = {"bad-opcode", "reserved opcodes, other transports",
		      gen_opcode, opcode_v, ARRAY_SIZE(opcode_v)},
	[C_TVER] = {"bad-tver", "BTH TVer 1..15", gen_tver, tver_v,
		    ARRAY_SIZE(tver_v)},
	[C_RANDOM] = {"random", "random bytes after a valid UDP header",
		      gen_random, random_v, ARRAY_SIZE(random_v)},
	[C_RANDICRC] = {"random-icrc", "random bytes with a valid ICRC",
			gen_randicrc, randicrc_v, ARRAY_SIZE(randicrc_v)},
};
