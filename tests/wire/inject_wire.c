// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * roce_inject's wire encoding: the opcode table, byte order, PSN arithmetic
 * and the PRNG, the ICRC and the checksums, and the builders that write a
 * frame byte by byte (Ethernet, IP, UDP, BTH, extension headers, payload).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce_inject.h"

/* ---------------- the opcode table (IBA vol 1 section 9.2) ------------- */

const struct ext_hdr ext_hdrs[N_EXT_HDRS] = {
	{X_RDETH, RDETH_LEN},	{X_DETH, DETH_LEN},
	{X_XRCETH, XRCETH_LEN}, {X_FETH, FETH_LEN},
	{X_RETH, RETH_LEN},	{X_ATOMIC, ATOMIC_LEN},
	{X_AETH, AETH_LEN},	{X_ATOMICACK, ATOMICACK_LEN},
	{X_IMM, IMM_LEN},	{X_IETH, IETH_LEN},
	{X_CNP, CNP_LEN},
};

struct opinfo ops[256];

static const char *const base_names[32] = {
	[OP_SEND_FIRST] = "SEND_FIRST",
	[OP_SEND_MIDDLE] = "SEND_MIDDLE",
	[OP_SEND_LAST] = "SEND_LAST",
	[OP_SEND_LAST_IMM] = "SEND_LAST_IMM",
	[OP_SEND_ONLY] = "SEND_ONLY",
	[OP_SEND_ONLY_IMM] = "SEND_ONLY_IMM",
	[OP_WRITE_FIRST] = "WRITE_FIRST",
	[OP_WRITE_MIDDLE] = "WRITE_MIDDLE",
	[OP_WRITE_LAST] = "WRITE_LAST",
	[OP_WRITE_LAST_IMM] = "WRITE_LAST_IMM",
	[OP_WRITE_ONLY] = "WRITE_ONLY",
	[OP_WRITE_ONLY_IMM] = "WRITE_ONLY_IMM",
	[OP_READ_REQ] = "READ_REQUEST",
	[OP_READ_RESP_FIRST] = "READ_RESP_FIRST",
	[OP_READ_RESP_MIDDLE] = "READ_RESP_MIDDLE",
	[OP_READ_RESP_LAST] = "READ_RESP_LAST",
	[OP_READ_RESP_ONLY] = "READ_RESP_ONLY",
	[OP_ACK] = "ACK",
	[OP_ATOMIC_ACK] = "ATOMIC_ACK",
	[OP_CMP_SWAP] = "CMP_SWAP",
	[OP_FETCH_ADD] = "FETCH_ADD",
	[OP_RESYNC] = "RESYNC",
	[OP_SEND_LAST_INV] = "SEND_LAST_INV",
	[OP_SEND_ONLY_INV] = "SEND_ONLY_INV",
	[OP_FLUSH] = "FLUSH",
	[OP_ATOMIC_WRITE] = "ATOMIC_WRITE",
};

/* Headers and payload of the RC/UC/XRC form of a low opcode. */
static unsigned int base_ext(unsigned int low, bool *payload)
{
	*payload = low <= OP_WRITE_ONLY_IMM ||
		   (low >= OP_READ_RESP_FIRST && low <= OP_READ_RESP_ONLY) ||
		   low == OP_SEND_LAST_INV || low == OP_SEND_ONLY_INV ||
		   low == OP_ATOMIC_WRITE;
	switch (low) {
	case OP_SEND_LAST_IMM:
	case OP_SEND_ONLY_IMM:
	case OP_WRITE_LAST_IMM:
		return X_IMM;
	case OP_WRITE_FIRST:
	case OP_WRITE_ONLY:
	case OP_READ_REQ:
	case OP_ATOMIC_WRITE:
		return X_RETH;
	case OP_WRITE_ONLY_IMM:
		return X_RETH | X_IMM;
	case OP_READ_RESP_FIRST:
	case OP_READ_RESP_LAST:
	case OP_READ_RESP_ONLY:
	case OP_ACK:
		return X_AETH;
	case OP_ATOMIC_ACK:
		return X_AETH | X_ATOMICACK;
	case OP_CMP_SWAP:
	case OP_FETCH_ADD:
		return X_ATOMIC;
	case OP_SEND_LAST_INV:
	case OP_SEND_ONLY_INV:
		return X_IETH;
	case OP_FLUSH:
		return X_FETH | X_RETH;
	}
	return 0;
}

static bool low_is_response(unsigned int low)
{
	return low >= OP_READ_RESP_FIRST && low <= OP_ATOMIC_ACK;
}

static void op_define(unsigned int fam, unsigned int low, const char *famname)
{
	struct opinfo *o = &ops[fam | low];

	o->valid = true;
	o->ext = base_ext(low, &o->payload);
	o->request = !low_is_response(low);
	if (fam == FAM_UD || (fam == FAM_RD && o->request))
		o->ext |= X_DETH;
	if (fam == FAM_RD)
		o->ext |= X_RDETH;
	if (fam == FAM_XRC && o->request)
		o->ext |= X_XRCETH;
	snprintf(o->name, sizeof(o->name), "%s_%s", famname, base_names[low]);
}

/* The opcode table of IBA 1.5 section 9.2 plus the RoCEv2 CNP. */
void ops_init(void)
{
	unsigned int low;

	for (low = 0; low <= OP_SEND_ONLY_INV; low++) {
		if (low != OP_RESYNC) {
			op_define(FAM_RC, low, "RC");
			op_define(FAM_XRC, low, "XRC");
		}
		if (low <= OP_FETCH_ADD || low == OP_RESYNC)
			op_define(FAM_RD, low, "RD");
		if (low <= OP_WRITE_ONLY_IMM)
			op_define(FAM_UC, low, "UC");
	}
	op_define(FAM_RC, OP_FLUSH, "RC");
	op_define(FAM_RC, OP_ATOMIC_WRITE, "RC");
	op_define(FAM_UD, OP_SEND_ONLY, "UD");
	op_define(FAM_UD, OP_SEND_ONLY_IMM, "UD");
	ops[OP_CNP] = (struct opinfo){.valid = true, .ext = X_CNP};
	strcpy(ops[OP_CNP].name, "CNP");
}

unsigned int ext_len(unsigned int ext)
{
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(ext_hdrs); i++)
		if (ext & ext_hdrs[i].bit)
			n += ext_hdrs[i].len;
	return n;
}

/* ---------------- byte order, PSN arithmetic, PRNG --------------------- */

void put16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

void put32(u8 *p, u32 v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static void put64(u8 *p, u64 v)
{
	put32(p, v >> 32);
	put32(p + 4, v);
}

u16 get16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

u32 get32(const u8 *p)
{
	return (u32)get16(p) << 16 | get16(p + 2);
}

u32 get24(const u8 *p)
{
	return (u32)p[0] << 16 | (u32)p[1] << 8 | p[2];
}

/* a - b in the 24-bit PSN space, as a signed distance in [-2^23, 2^23). */
int32_t psn_diff(u32 a, u32 b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

u32 psn_add(u32 psn, int32_t n)
{
	return (psn + (u32)n) & PSN_MASK;
}

/* splitmix64: small, and the same sequence everywhere for one --seed. */
u64 rng_next(u64 *s)
{
	u64 z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
u64 rng_range(u64 *s, u64 lo, u64 hi)
{
	return lo + rng_next(s) % (hi - lo + 1);
}

void rng_fill(u64 *s, u8 *p, size_t n)
{
	while (n--)
		*p++ = rng_next(s);
}

/* ---------------- CRC-32 and the ICRC ------------------------------------ */

static u32 crc_table[256];

/* The reflected CRC-32 of IEEE 802.3 (polynomial 0xEDB88320), as zlib's. */
void crc_init(void)
{
	u32 c, i, k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

/* Runs the CRC register (no pre- or post-inversion) over @n bytes. */
static u32 crc_update(u32 crc, const u8 *p, size_t n)
{
	while (n--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

/*
 * The ICRC of a RoCEv2 packet whose IP header starts at @l3 and whose ICRC
 * would start @len bytes later, as rdma_rxe computes it (IBA annex A17.3.3):
 * CRC-32 over 8 bytes of 0xff standing for a masked LRH, the IP and UDP
 * headers with the fields routers may change set to all ones (IPv4 TOS, TTL
 * and header checksum; IPv6 traffic class, flow label and hop limit; the
 * UDP checksum), the BTH with its reserved byte before the QPN set to 0xff,
 * then everything up to the ICRC.  The stored ICRC is the complemented
 * register, least significant byte first.  No IP options or IPv6 extension
 * headers: rdma_rxe assumes none either.
 */
u32 icrc(const u8 *l3, size_t len, bool v6)
{
	static const u8 lrh[8] = {0xff, 0xff, 0xff, 0xff,
				  0xff, 0xff, 0xff, 0xff};
	u8 hdr[IP6_LEN + UDP_LEN + BTH_LEN];
	size_t iplen = v6 ? IP6_LEN : IP4_LEN;
	size_t hlen = iplen + UDP_LEN + BTH_LEN;
	u32 crc;

	memcpy(hdr, l3, hlen);
	if (v6) {
		hdr[0] |= 0x0f; /* traffic class, high nibble */
		hdr[1] = hdr[2] = hdr[3] =
			0xff;  /* its low nibble, flow label */
		hdr[7] = 0xff; /* hop limit */
	} else {
		hdr[1] = 0xff;		  /* TOS */
		hdr[8] = 0xff;		  /* TTL */
		hdr[10] = hdr[11] = 0xff; /* header checksum */
	}
	hdr[iplen + 6] = hdr[iplen + 7] = 0xff; /* UDP checksum */
	hdr[iplen + UDP_LEN + 4] = 0xff;	/* BTH reserved byte */
	crc = crc_update(0xffffffffu, lrh, sizeof(lrh));
	crc = crc_update(crc, hdr, hlen);
	crc = crc_update(crc, l3 + hlen, len - hlen);
	return ~crc;
}

/* The ICRC goes on the wire least significant byte first. */
void put_le32(u8 *p, u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

u32 get_le32(const u8 *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24;
}

/* RFC 1071 one's-complement sum, folded. */
u32 csum_add(u32 sum, const u8 *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += get16(p + i);
	if (n & 1)
		sum += p[n - 1] << 8;
	return sum;
}

u16 csum_fold(u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

/* ---------------- building frames ------------------------------------- */

u8 *frame_put(struct frame *fr, size_t n)
{
	u8 *p;

	if (fr->len + n > FRAME_MAX) {
		fprintf(stderr, "roce_inject: frame overflow (%zu + %zu)\n",
			fr->len, n);
		exit(1);
	}
	p = fr->b + fr->len;
	memset(p, 0, n);
	fr->len += n;
	return p;
}

/* Ethernet, IP and UDP headers of a packet from this host to the peer. */
void frame_start(struct frame *fr, const struct fwd *f, u16 ip_id)
{
	u8 *p;

	fr->len = 0;
	fr->v6 = f->v6;
	fr->df = true;
	p = frame_put(fr, ETH_LEN);
	memcpy(p, f->peer_mac, 6);
	memcpy(p + 6, f->local_mac, 6);
	put16(p + 12, f->v6 ? 0x86dd : 0x0800);
	fr->l3 = fr->len;
	if (f->v6) {
		p = frame_put(fr, IP6_LEN);
		p[0] = 0x60;
		p[6] = 17;
		p[7] = 64;
		memcpy(p + 8, f->local_ip, 16);
		memcpy(p + 24, f->peer_ip, 16);
	} else {
		p = frame_put(fr, IP4_LEN);
		p[0] = 0x45;
		put16(p + 4, ip_id);
		p[8] = 64;
		p[9] = 17;
		memcpy(p + 12, f->local_ip, 4);
		memcpy(p + 16, f->peer_ip, 4);
	}
	fr->l4 = fr->len;
	p = frame_put(fr, UDP_LEN);
	put16(p, f->sport ? f->sport : 0xc000);
	put16(p + 2, ROCE_UDP_PORT);
	fr->bth = fr->len;
}

/*
 * Writes the IP and UDP length fields for the current frame length, the
 * UDP one off by @udp_lie bytes, and the IPv4 flags: the fields the ICRC
 * covers.  The checksums come after the ICRC (frame_csum): it masks them.
 */
static void frame_lengths(struct frame *fr, int udp_lie)
{
	u8 *ip = fr->b + fr->l3;

	if (fr->v6) {
		put16(ip + 4, fr->len - fr->l3 - IP6_LEN);
	} else {
		put16(ip + 2, fr->len - fr->l3);
		put16(ip + 6, fr->df ? 0x4000 : 0);
	}
	put16(fr->b + fr->l4 + 4, fr->len - fr->l4 + udp_lie);
}

/*
 * The IPv4 header checksum; the UDP checksum is 0 ("none") over IPv4, as
 * rdma_rxe sends it, and computed over IPv6, where 0 is not allowed (over
 * the bytes the UDP length claims, or the ones present if it claims more).
 */
void frame_csum(struct frame *fr)
{
	u8 *ip = fr->b + fr->l3, *udp = fr->b + fr->l4;
	size_t ulen = get16(udp + 4);
	u32 sum;

	put16(udp + 6, 0);
	if (!fr->v6) {
		put16(ip + 10, 0);
		put16(ip + 10, csum_fold(csum_add(0, ip, IP4_LEN)));
		return;
	}
	if (ulen > fr->len - fr->l4)
		ulen = fr->len - fr->l4;
	sum = csum_add(0, ip + 8, 32);
	sum += get16(udp + 4) + 17;
	sum = csum_add(sum, udp, ulen);
	put16(udp + 6, csum_fold(sum) ? csum_fold(sum) : 0xffff);
}

/* Lengths, ICRC (over everything before it) and checksums. */
void frame_seal(struct frame *fr, int udp_lie)
{
	u8 *p = frame_put(fr, ICRC_LEN);

	frame_lengths(fr, udp_lie);
	put_le32(p, icrc(fr->b + fr->l3, p - (fr->b + fr->l3), fr->v6));
	frame_csum(fr);
}

/* Headers without an ICRC (truncated packets): lengths and checksums. */
void frame_fix(struct frame *fr)
{
	frame_lengths(fr, 0);
	frame_csum(fr);
}

/* A valid packet of @opcode for the target, at its live PSN. */
void spec_live(struct spec *s, const struct target *t, u8 opcode, u64 *rng)
{
	memset(s, 0, sizeof(*s));
	s->opcode = opcode;
	s->pad = -1;
	s->pkey = t->f->pkey;
	s->qpn = t->f->qpn;
	s->psn = ops[opcode].request ? t->req_psn : t->resp_psn;
	s->ackreq = ops[opcode].request;
	s->qkey = t->f->qkey;
	s->srcqp = t->r ? t->r->qpn : (u32)rng_next(rng) & PSN_MASK;
	s->va = rng_next(rng);
	s->rkey = rng_next(rng);
	s->dmalen = 64;
	s->syndrome = 0x1f; /* ACK, unlimited credits */
	s->msn = rng_next(rng) & PSN_MASK;
	s->paylen = ops[opcode].payload ? 64 : 0;
	s->ext = ops[opcode].ext;
}

static void put_bth(struct frame *fr, const struct spec *s, unsigned int pad)
{
	u8 *p = frame_put(fr, BTH_LEN);

	p[0] = s->opcode;
	p[1] = (pad & 3) << 4 | (s->tver & 0xf);
	put16(p + 2, s->pkey);
	put32(p + 4, s->qpn & PSN_MASK); /* reserved byte 0 */
	put32(p + 8, (s->ackreq ? 0x80000000u : 0) | (s->psn & PSN_MASK));
}

static void put_ext(struct frame *fr, const struct spec *s, unsigned int bit,
		    u64 *rng)
{
	u8 *p;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ext_hdrs) && ext_hdrs[i].bit != bit; i++)
		;
	p = frame_put(fr, ext_hdrs[i].len);
	switch (bit) {
	case X_DETH:
		put32(p, s->qkey);
		put32(p + 4, s->srcqp & PSN_MASK);
		break;
	case X_RETH:
		put64(p, s->va);
		put32(p + 8, s->rkey);
		put32(p + 12, s->dmalen);
		break;
	case X_ATOMIC:
		put64(p, s->va & ~7ull);
		put32(p + 8, s->rkey);
		rng_fill(rng, p + 12, 16);
		break;
	case X_AETH:
		put32(p, (u32)s->syndrome << 24 | (s->msn & PSN_MASK));
		break;
	case X_CNP:
		break;
	default:
		/* ImmDt, IETH, XRCETH, RDETH, FETH, AtomicAckETH: any value */
		rng_fill(rng, p, ext_hdrs[i].len);
	}
}

/*
 * Ethernet to payload (and pad) of a packet, without the ICRC.  Returns the
 * offset of each extension header in @ext_off (0 when absent).
 */
void build(struct frame *fr, const struct target *t, const struct spec *s,
	   u64 *rng, size_t *ext_off)
{
	unsigned int pad =
		s->pad >= 0 ? (unsigned int)s->pad : (4 - (s->paylen & 3)) & 3;
	unsigned int i;

	frame_start(fr, t->f, rng_next(rng));
	put_bth(fr, s, pad);
	for (i = 0; i < ARRAY_SIZE(ext_hdrs); i++) {
		if (ext_off)
			ext_off[i] = 0;
		if (!(s->ext & ext_hdrs[i].bit))
			continue;
		if (ext_off)
			ext_off[i] = fr->len;
		put_ext(fr, s, ext_hdrs[i].bit, rng);
	}
	rng_fill(rng, frame_put(fr, s->paylen), s->paylen);
	if (s->pad < 0)
		frame_put(fr, pad); /* pad bytes are zero */
}
