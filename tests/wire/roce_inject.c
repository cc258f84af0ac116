// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * roce_inject - a structure-aware RoCEv2 packet generator for robustness
 * tests of a receiver (our stack or rdma_rxe) while a real RC stream runs.
 *
 *   roce_inject --dev eth0 --peer 10.9.1.2 --learn 2s --all 200 --seed 1
 *
 * It first learns the live stream between --peer and its partner (normally
 * this host) by sniffing the interface with an AF_PACKET socket: the QPNs of
 * both ends, the P_Key, the PSNs each side expects, UD Q_Keys, the path MTU
 * and the MAC addresses; only packets with a correct ICRC count, so nothing
 * but a real RoCE stack teaches it.  Then it crafts packets to the peer from
 * the partner's address, writing every byte itself (Ethernet, IP, UDP, BTH,
 * extension headers, payload, ICRC), and sends them on the same socket,
 * which keeps learning in between: the live PSNs stay current.  Each
 * category (usage() lists them) cycles through its variants, so every
 * variant is sent once the count reaches their number; the summary says
 * what a correct receiver should count each variant as.
 *
 * Packets meant to reach the receiver's deeper checks carry a correct ICRC
 * (the CRC rdma_rxe computes, see icrc()) and, over IPv6, a correct UDP
 * checksum; over IPv4 the UDP checksum is 0, as rdma_rxe sends it.  Which
 * PSN they carry is the subject of psn_ahead().  IPv4 datagrams above the
 * link MTU (or --frag-mtu) go as fragments (the receiver's IP layer
 * reassembles them); IPv6 ones are never fragmented.  No VLAN tags, IP
 * options or IPv6 extension headers, neither learned nor sent.
 *
 * It cannot see the receiver's verdicts: a test compares the receiver's
 * counters and the stream's data.  The output is the same for the same
 * --seed and the same learned state.  With --learn-pcap and --write-pcap it
 * runs offline; --check-pcap verifies the ICRC of every RoCEv2 packet of a
 * capture (tests/wire/roce-icrc.unittest).
 *
 * Exit status: 0 everything requested was sent (or written), 1 a send or
 * I/O error, 2 usage, 3 no stream to the peer was seen while learning;
 * --check-pcap: 0 every ICRC matched, 1 a mismatch, 3 no RoCEv2 packet.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------- wire constants (IBA vol 1, RoCEv2 annex A17) ------- */

#define ROCE_UDP_PORT 4791
#define ETH_LEN 14
#define IP4_LEN 20
#define IP6_LEN 40
#define UDP_LEN 8
#define BTH_LEN 12
#define RETH_LEN 16
#define AETH_LEN 4
#define ATOMIC_LEN 28
#define ATOMICACK_LEN 8
#define DETH_LEN 8
#define IMM_LEN 4
#define IETH_LEN 4
#define XRCETH_LEN 4
#define RDETH_LEN 4
#define FETH_LEN 4
#define ICRC_LEN 4
#define CNP_LEN 16 /* reserved bytes after the BTH of a CNP */

#define GSI_QPN 1u
#define GSI_QKEY 0x80010000u
#define MCAST_QPN 0xffffffu
#define PSN_MASK 0xffffffu
#define FRAME_MAX 10240

/* Transport families: the top three bits of the BTH opcode. */
#define FAM_RC 0x00
#define FAM_UC 0x20
#define FAM_RD 0x40
#define FAM_UD 0x60
#define FAM_CNP 0x80
#define FAM_XRC 0xa0

/* Opcodes (the low five bits; a family is or-ed in). */
enum {
	OP_SEND_FIRST = 0x00,
	OP_SEND_MIDDLE = 0x01,
	OP_SEND_LAST = 0x02,
	OP_SEND_LAST_IMM = 0x03,
	OP_SEND_ONLY = 0x04,
	OP_SEND_ONLY_IMM = 0x05,
	OP_WRITE_FIRST = 0x06,
	OP_WRITE_MIDDLE = 0x07,
	OP_WRITE_LAST = 0x08,
	OP_WRITE_LAST_IMM = 0x09,
	OP_WRITE_ONLY = 0x0a,
	OP_WRITE_ONLY_IMM = 0x0b,
	OP_READ_REQ = 0x0c,
	OP_READ_RESP_FIRST = 0x0d,
	OP_READ_RESP_MIDDLE = 0x0e,
	OP_READ_RESP_LAST = 0x0f,
	OP_READ_RESP_ONLY = 0x10,
	OP_ACK = 0x11,
	OP_ATOMIC_ACK = 0x12,
	OP_CMP_SWAP = 0x13,
	OP_FETCH_ADD = 0x14,
	OP_RESYNC = 0x15, /* RD only */
	OP_SEND_LAST_INV = 0x16,
	OP_SEND_ONLY_INV = 0x17,
	OP_FLUSH = 0x1c,
	OP_ATOMIC_WRITE = 0x1d,
	OP_CNP = 0x81,
};

/* Extension headers an opcode carries, in wire order. */
enum {
	X_RDETH = 1 << 0,
	X_DETH = 1 << 1,
	X_XRCETH = 1 << 2,
	X_FETH = 1 << 3,
	X_RETH = 1 << 4,
	X_ATOMIC = 1 << 5,
	X_AETH = 1 << 6,
	X_ATOMICACK = 1 << 7,
	X_IMM = 1 << 8,
	X_IETH = 1 << 9,
	X_CNP = 1 << 10,
};

static const struct {
	unsigned int bit;
	unsigned int len;
} ext_hdrs[] = {
	{X_RDETH, RDETH_LEN},	{X_DETH, DETH_LEN},
	{X_XRCETH, XRCETH_LEN}, {X_FETH, FETH_LEN},
	{X_RETH, RETH_LEN},	{X_ATOMIC, ATOMIC_LEN},
	{X_AETH, AETH_LEN},	{X_ATOMICACK, ATOMICACK_LEN},
	{X_IMM, IMM_LEN},	{X_IETH, IETH_LEN},
	{X_CNP, CNP_LEN},
};

/* One valid opcode: its extension headers and whether data follows them. */
struct opinfo {
	bool valid;
	bool payload;
	bool request;
	unsigned int ext;
	char name[32];
};

static struct opinfo ops[256];

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
static void ops_init(void)
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

static unsigned int ext_len(unsigned int ext)
{
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(ext_hdrs); i++)
		if (ext & ext_hdrs[i].bit)
			n += ext_hdrs[i].len;
	return n;
}

/* ---------------- byte order, PSN arithmetic, PRNG --------------------- */

static void put16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put32(u8 *p, u32 v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static void put64(u8 *p, u64 v)
{
	put32(p, v >> 32);
	put32(p + 4, v);
}

static u16 get16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

static u32 get32(const u8 *p)
{
	return (u32)get16(p) << 16 | get16(p + 2);
}

static u32 get24(const u8 *p)
{
	return (u32)p[0] << 16 | (u32)p[1] << 8 | p[2];
}

/* a - b in the 24-bit PSN space, as a signed distance in [-2^23, 2^23). */
static int32_t psn_diff(u32 a, u32 b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

static u32 psn_add(u32 psn, int32_t n)
{
	return (psn + (u32)n) & PSN_MASK;
}

/* splitmix64: small, and the same sequence everywhere for one --seed. */
static u64 rng_next(u64 *s)
{
	u64 z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static u64 rng_range(u64 *s, u64 lo, u64 hi)
{
	return lo + rng_next(s) % (hi - lo + 1);
}

static void rng_fill(u64 *s, u8 *p, size_t n)
{
	while (n--)
		*p++ = rng_next(s);
}

/* ---------------- CRC-32 and the ICRC ------------------------------------ */

static u32 crc_table[256];

/* The reflected CRC-32 of IEEE 802.3 (polynomial 0xEDB88320), as zlib's. */
static void crc_init(void)
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
static u32 icrc(const u8 *l3, size_t len, bool v6)
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
static void put_le32(u8 *p, u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static u32 get_le32(const u8 *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24;
}

/* RFC 1071 one's-complement sum, folded. */
static u32 csum_add(u32 sum, const u8 *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += get16(p + i);
	if (n & 1)
		sum += p[n - 1] << 8;
	return sum;
}

static u16 csum_fold(u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

/* ---------------- parsing a captured RoCEv2 packet -------------------- */

/* What learning and --check-pcap need of one frame. */
struct roce_view {
	const u8 *eth; /* NULL when the capture has no Ethernet header */
	const u8 *l3;
	bool v6;
	u8 saddr[16], daddr[16]; /* IPv4 in the first four bytes */
	u16 sport;
	size_t paylen; /* UDP payload: BTH .. ICRC */
	const u8 *bth;
	u8 opcode;
	u8 tver;
	u8 pad;
	u16 pkey;
	u32 qpn;
	u32 psn;
	bool icrc_ok;
	u32 icrc_found, icrc_want;
};

/*
 * Parses an IP packet of @len bytes into @v (zeroed by the caller); 0 if it
 * is RoCEv2 with room for a BTH and an ICRC.
 */
static int parse_l3(const u8 *l3, size_t len, struct roce_view *v)
{
	const u8 *udp;
	size_t iplen, ulen;

	if (len < 1)
		return -1;
	v->l3 = l3;
	v->v6 = (l3[0] >> 4) == 6;
	if (!v->v6) {
		/* IPv4 without options, not a fragment, carrying UDP */
		if (len < IP4_LEN || l3[0] != 0x45 || l3[9] != 17 ||
		    (get16(l3 + 6) & 0x3fff))
			return -1;
		iplen = IP4_LEN;
		if (get16(l3 + 2) < IP4_LEN || get16(l3 + 2) > len)
			return -1;
		len = get16(l3 + 2);
		memcpy(v->saddr, l3 + 12, 4);
		memcpy(v->daddr, l3 + 16, 4);
	} else {
		if (len < IP6_LEN || l3[6] != 17)
			return -1;
		iplen = IP6_LEN;
		if (IP6_LEN + (size_t)get16(l3 + 4) > len)
			return -1;
		len = IP6_LEN + get16(l3 + 4);
		memcpy(v->saddr, l3 + 8, 16);
		memcpy(v->daddr, l3 + 24, 16);
	}
	udp = l3 + iplen;
	if (len < iplen + UDP_LEN || get16(udp + 2) != ROCE_UDP_PORT)
		return -1;
	ulen = get16(udp + 4);
	if (ulen < UDP_LEN + BTH_LEN + ICRC_LEN || iplen + ulen > len)
		return -1;
	v->sport = get16(udp);
	v->paylen = ulen - UDP_LEN;
	v->bth = udp + UDP_LEN;
	v->opcode = v->bth[0];
	v->pad = (v->bth[1] >> 4) & 3;
	v->tver = v->bth[1] & 0xf;
	v->pkey = get16(v->bth + 2);
	v->qpn = get24(v->bth + 5);
	v->psn = get24(v->bth + 9);
	v->icrc_found = get_le32(v->bth + v->paylen - ICRC_LEN);
	v->icrc_want = icrc(l3, iplen + ulen - ICRC_LEN, v->v6);
	v->icrc_ok = v->icrc_found == v->icrc_want;
	return 0;
}

/* pcap link types this program reads. */
#define LINKTYPE_ETHERNET 1
#define LINKTYPE_RAW 101
#define LINKTYPE_LINUX_SLL 113
#define LINKTYPE_LINUX_SLL2 276

static int parse_frame(const u8 *f, size_t len, int linktype,
		       struct roce_view *v)
{
	size_t off;
	u16 proto;

	memset(v, 0, sizeof(*v));
	switch (linktype) {
	case LINKTYPE_ETHERNET:
		if (len < ETH_LEN)
			return -1;
		proto = get16(f + 12);
		off = ETH_LEN;
		v->eth = f;
		break;
	case LINKTYPE_LINUX_SLL:
		if (len < 16)
			return -1;
		proto = get16(f + 14);
		off = 16;
		break;
	case LINKTYPE_LINUX_SLL2:
		if (len < 20)
			return -1;
		proto = get16(f);
		off = 20;
		break;
	case LINKTYPE_RAW:
		proto = len && (f[0] >> 4) == 6 ? 0x86dd : 0x0800;
		off = 0;
		break;
	default:
		return -1;
	}
	if (proto != 0x0800 && proto != 0x86dd)
		return -1;
	return parse_l3(f + off, len - off, v);
}

/* ---------------- what learning found --------------------------------- */

/* A QP of the peer, seen as the destination of packets from this host. */
struct fwd {
	u32 qpn;
	u8 fam;
	u16 pkey;
	bool v6;
	u8 local_ip[16], peer_ip[16];
	u8 local_mac[6], peer_mac[6];
	bool have_mac;
	u16 sport;
	bool have_req, have_resp;
	u32 next_req_psn;  /* after the last request sent to the peer */
	u32 last_resp_psn; /* of the last response sent to the peer */
	u32 qkey, srcqp;   /* UD: DETH of the last packet */
	bool have_qkey;
	unsigned int mtu_seen; /* payload of FIRST/MIDDLE packets = PMTU */
	unsigned long pkts;
};

/* A QP of this host, seen as the destination of packets from the peer. */
struct rev {
	u32 qpn;
	u8 fam;
	bool have_req, have_resp;
	u32 last_req_psn; /* of the last request the peer sent */
	u32 next_req_psn; /* from the peer's responses to this host */
	unsigned long pkts;
};

#define MAX_FLOWS 64

struct learned {
	struct fwd fwd[MAX_FLOWS];
	struct rev rev[MAX_FLOWS];
	int nfwd, nrev;
	unsigned long roce, bad_icrc;
};

/* The stream under attack: derived from the learned tables. */
struct target {
	struct fwd *f;
	struct rev *r; /* NULL if the peer never sent to this host */
	u32 req_psn;   /* the PSN the peer's responder expects next */
	u32 resp_psn;  /* the PSN of a response the peer's requester awaits */
	bool req_known, resp_known; /* else the --seed's choice */
	unsigned int pmtu;
	bool pmtu_known;
	struct fwd *ud; /* a UD QP of the peer, if any */
};

static bool psn_newer(bool have, u32 old, u32 psn)
{
	return !have || psn_diff(psn, old) > 0;
}

/* Number of PSNs a request consumes: an RDMA READ one per response. */
static u32 req_psns(const struct roce_view *v, unsigned int pmtu)
{
	unsigned int ext = ops[v->opcode].ext;
	u32 len;

	if ((v->opcode & 0x1f) != OP_READ_REQ || !pmtu ||
	    v->paylen < BTH_LEN + ext_len(ext) + ICRC_LEN)
		return 1;
	/* the DMA length, the last field of the RETH, the last header */
	len = get32(v->bth + BTH_LEN + ext_len(ext) - 4);
	return len ? (len + pmtu - 1) / pmtu : 1;
}

/*
 * The PSN a responder expects after sending response @v: the next one
 * after an ACK, the one it names in a NAK (sequence error, RNR, ...).
 */
static u32 resp_next_psn(const struct roce_view *v)
{
	if ((ops[v->opcode].ext & X_AETH) &&
	    v->paylen >= BTH_LEN + AETH_LEN + ICRC_LEN &&
	    (v->bth[BTH_LEN] >> 5) != 0)
		return v->psn;
	return psn_add(v->psn, 1);
}

static struct fwd *fwd_get(struct learned *l, u32 qpn)
{
	int i;

	for (i = 0; i < l->nfwd; i++)
		if (l->fwd[i].qpn == qpn)
			return &l->fwd[i];
	if (l->nfwd == MAX_FLOWS)
		return NULL;
	memset(&l->fwd[l->nfwd], 0, sizeof(l->fwd[0]));
	l->fwd[l->nfwd].qpn = qpn;
	return &l->fwd[l->nfwd++];
}

static struct rev *rev_get(struct learned *l, u32 qpn)
{
	int i;

	for (i = 0; i < l->nrev; i++)
		if (l->rev[i].qpn == qpn)
			return &l->rev[i];
	if (l->nrev == MAX_FLOWS)
		return NULL;
	memset(&l->rev[l->nrev], 0, sizeof(l->rev[0]));
	l->rev[l->nrev].qpn = qpn;
	return &l->rev[l->nrev++];
}

static void learn_fwd(struct fwd *f, const struct roce_view *v)
{
	const struct opinfo *o = &ops[v->opcode];
	unsigned int low = v->opcode & 0x1f;
	size_t hdrs = BTH_LEN + ext_len(o->ext);
	size_t data;
	u32 next;

	f->fam = v->opcode & 0xe0;
	f->pkey = v->pkey;
	f->v6 = v->v6;
	memcpy(f->local_ip, v->saddr, 16);
	memcpy(f->peer_ip, v->daddr, 16);
	f->sport = v->sport;
	if (v->eth) {
		memcpy(f->peer_mac, v->eth, 6);
		memcpy(f->local_mac, v->eth + 6, 6);
		f->have_mac = true;
	}
	if (o->request) {
		next = psn_add(v->psn, req_psns(v, f->mtu_seen));
		if (psn_newer(f->have_req, f->next_req_psn, next))
			f->next_req_psn = next;
		f->have_req = true;
	} else {
		if (psn_newer(f->have_resp, f->last_resp_psn, v->psn))
			f->last_resp_psn = v->psn;
		f->have_resp = true;
	}
	if ((o->ext & X_DETH) && v->paylen >= hdrs + ICRC_LEN) {
		f->qkey = get32(v->bth + BTH_LEN + ext_len(o->ext & X_RDETH));
		f->srcqp =
			get24(v->bth + BTH_LEN + 5 + ext_len(o->ext & X_RDETH));
		f->have_qkey = true;
	}
	/* FIRST and MIDDLE packets carry exactly one path MTU of data. */
	if (f->fam != FAM_UD &&
	    (low == OP_SEND_FIRST || low == OP_SEND_MIDDLE ||
	     low == OP_WRITE_FIRST || low == OP_WRITE_MIDDLE ||
	     low == OP_READ_RESP_FIRST || low == OP_READ_RESP_MIDDLE) &&
	    v->paylen >= hdrs + ICRC_LEN) {
		data = v->paylen - hdrs - ICRC_LEN - v->pad;
		if (data > f->mtu_seen)
			f->mtu_seen = data;
	}
	f->pkts++;
}

static void learn_rev(struct rev *r, const struct roce_view *v)
{
	const struct opinfo *o = &ops[v->opcode];

	r->fam = v->opcode & 0xe0;
	if (o->request) {
		if (psn_newer(r->have_req, r->last_req_psn, v->psn))
			r->last_req_psn = v->psn;
		r->have_req = true;
	} else {
		if (psn_newer(r->have_resp, r->next_req_psn, resp_next_psn(v)))
			r->next_req_psn = resp_next_psn(v);
		r->have_resp = true;
	}
	r->pkts++;
}

static bool addr_eq(const u8 *a, const u8 *b, bool v6)
{
	return !memcmp(a, b, v6 ? 16 : 4);
}

/*
 * Learns from one parsed packet if it belongs to a stream between the peer
 * and (with @src set) this host.  Only packets with a good ICRC count: they
 * come from a real RoCE stack, never from us.
 */
static void learn(struct learned *l, const struct roce_view *v, const u8 *peer,
		  bool peer_v6, const u8 *src)
{
	struct fwd *f;
	struct rev *r;

	if (v->v6 != peer_v6 || !ops[v->opcode].valid || v->opcode == OP_CNP)
		return;
	if (addr_eq(v->daddr, peer, v->v6) &&
	    (!src || addr_eq(v->saddr, src, v->v6))) {
		l->roce++;
		if (!v->icrc_ok) {
			l->bad_icrc++;
			return;
		}
		f = fwd_get(l, v->qpn);
		if (f)
			learn_fwd(f, v);
	} else if (addr_eq(v->saddr, peer, v->v6) &&
		   (!src || addr_eq(v->daddr, src, v->v6))) {
		l->roce++;
		if (!v->icrc_ok) {
			l->bad_icrc++;
			return;
		}
		r = rev_get(l, v->qpn);
		if (r)
			learn_rev(r, v);
	}
}

static struct fwd *busiest_fwd(struct learned *l, bool ud)
{
	struct fwd *best = NULL;
	int i;

	for (i = 0; i < l->nfwd; i++) {
		if ((l->fwd[i].fam == FAM_UD) != ud)
			continue;
		if (!best || l->fwd[i].pkts > best->pkts)
			best = &l->fwd[i];
	}
	return best;
}

/* How far apart two PSNs are, in either direction. */
static u32 psn_dist(u32 a, u32 b)
{
	int32_t d = psn_diff(a, b);

	return d < 0 ? -d : d;
}

/*
 * The peer's partner QP on this host.  Nothing on the wire names it, but
 * the two ends of a connection acknowledge each other's PSNs: the peer's
 * ACKs to its partner follow the requests we send it, and our responses to
 * the peer follow the peer's requests to its partner.  PSNs start at random,
 * so the closest pair (within 2^16) is the connection; failing that the
 * busiest QP of the same transport.
 */
static struct rev *partner_rev(struct learned *l, const struct fwd *f,
			       bool *matched)
{
	struct rev *best = NULL, *busiest = NULL, *r;
	u32 d, bestd = 1u << 16;
	int i;

	for (i = 0; i < l->nrev; i++) {
		r = &l->rev[i];
		if (r->fam != f->fam)
			continue;
		if (!busiest || r->pkts > busiest->pkts)
			busiest = r;
		d = bestd;
		if (f->have_req && r->have_resp)
			d = psn_dist(f->next_req_psn, r->next_req_psn);
		if (f->have_resp && r->have_req &&
		    psn_dist(f->last_resp_psn, r->last_req_psn) < d)
			d = psn_dist(f->last_resp_psn, r->last_req_psn);
		if (d < bestd) {
			bestd = d;
			best = r;
		}
	}
	*matched = best != NULL;
	return best ? best : busiest;
}

/*
 * Picks the stream to attack (the busiest connected QP of the peer, else a
 * UD one) and brings its live PSNs up to date.  Called after learning and
 * again before every packet while the tracker keeps learning.
 */
static int target_update(struct learned *l, struct target *t,
			 unsigned int pmtu_opt)
{
	struct fwd *f = t->f;
	bool matched;

	if (!f) {
		f = busiest_fwd(l, false);
		if (!f)
			f = busiest_fwd(l, true);
		if (!f)
			return -1;
		t->f = f;
	}
	t->ud = busiest_fwd(l, true);
	t->r = partner_rev(l, f, &matched);
	/* The responder expects what follows our last request, or what its
	 * own latest response acknowledged.  A partner only guessed (the
	 * busiest QP) speaks for PSNs the target's own packets did not show. */
	if (f->have_req)
		t->req_psn = f->next_req_psn;
	if (t->r && t->r->have_resp && (matched || !f->have_req) &&
	    psn_newer(f->have_req, t->req_psn, t->r->next_req_psn))
		t->req_psn = t->r->next_req_psn;
	t->req_known = f->have_req || (t->r && t->r->have_resp);
	/* The requester awaits responses up to its latest request. */
	if (f->have_resp)
		t->resp_psn = f->last_resp_psn;
	if (t->r && t->r->have_req && (matched || !f->have_resp) &&
	    psn_newer(f->have_resp, t->resp_psn, t->r->last_req_psn))
		t->resp_psn = t->r->last_req_psn;
	t->resp_known = f->have_resp || (t->r && t->r->have_req);
	t->pmtu_known = true;
	if (pmtu_opt)
		t->pmtu = pmtu_opt;
	else if (f->mtu_seen)
		t->pmtu = f->mtu_seen;
	else {
		/* Unknown: assume the largest, so that "above the path MTU"
		 * stays true whatever the real one is. */
		t->pmtu = 4096;
		t->pmtu_known = false;
	}
	return 0;
}

/* ---------------- building frames ------------------------------------- */

struct frame {
	u8 b[FRAME_MAX];
	size_t len; /* bytes of the frame */
	size_t l3, l4, bth;
	bool v6;
	bool df; /* IPv4 don't-fragment, as rdma_rxe sends */
};

static u8 *frame_put(struct frame *fr, size_t n)
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
static void frame_start(struct frame *fr, const struct fwd *f, u16 ip_id)
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
static void frame_csum(struct frame *fr)
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
static void frame_seal(struct frame *fr, int udp_lie)
{
	u8 *p = frame_put(fr, ICRC_LEN);

	frame_lengths(fr, udp_lie);
	put_le32(p, icrc(fr->b + fr->l3, p - (fr->b + fr->l3), fr->v6));
	frame_csum(fr);
}

/* Headers without an ICRC (truncated packets): lengths and checksums. */
static void frame_fix(struct frame *fr)
{
	frame_lengths(fr, 0);
	frame_csum(fr);
}

/* The transport headers and payload of one packet. */
struct spec {
	u8 opcode;
	u8 tver;
	int pad; /* -1: what the payload length needs */
	bool ackreq;
	u16 pkey;
	u32 qpn, psn;
	u32 qkey, srcqp;
	u64 va;
	u32 rkey, dmalen;
	u8 syndrome;
	u32 msn;
	size_t paylen;
	unsigned int ext; /* headers to write; default ops[opcode].ext */
};

/* A valid packet of @opcode for the target, at its live PSN. */
static void spec_live(struct spec *s, const struct target *t, u8 opcode,
		      u64 *rng)
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
static void build(struct frame *fr, const struct target *t,
		  const struct spec *s, u64 *rng, size_t *ext_off)
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

/* ---------------- options, context, output --------------------------- */

enum cat {
	C_TRUNC,
	C_BADICRC,
	C_QPN,
	C_PKEY,
	C_QKEY,
	C_PSN,
	C_OVERSIZE,
	C_OPCODE,
	C_TVER,
	C_RANDOM,
	C_RANDICRC,
	NCAT
};

#define MAX_VARIANTS 16

struct ctx {
	/* options */
	const char *dev, *learn_pcap, *write_pcap;
	u8 peer[16], src[16];
	bool peer_v6, have_src;
	double learn_s;
	unsigned long learn_pkts;
	unsigned long count[NCAT];
	u64 seed;
	unsigned long pps;
	bool live_psn;
	unsigned int pmtu_opt;
	int verbose;

	struct learned l;
	struct target t;
	u64 rng;
	int sock, ifindex;
	unsigned int dev_mtu;
	unsigned int frag_mtu; /* IPv4 datagrams above: fragments */
	FILE *pcap;
	unsigned long sent[NCAT][MAX_VARIANTS];
	unsigned long frames, seq;
	struct timespec next;
	u8 rx[FRAME_MAX + 64];
};

/* What one generated packet is, for the log and the summary. */
struct made {
	int variant;
	const char *icrc; /* "valid", "invalid" or "none" */
	size_t bth_off;	  /* 0: no BTH (cut inside UDP) */
};

struct variant {
	const char *name;
	const char *expect; /* the drop reason a correct receiver reports */
};

typedef void (*gen_fn)(struct ctx *c, struct frame *fr, unsigned long i,
		       struct made *m);

struct category {
	const char *name; /* and its option */
	const char *help;
	gen_fn gen;
	const struct variant *variants;
	unsigned int nvariants;
};

static const struct category cats[NCAT];

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

static const struct category cats[NCAT] = {
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

/* ---------------- pcap files ------------------------------------------- */

struct pcap_in {
	u8 *buf;
	size_t len, off;
	bool swap;
	int linktype;
};

static u32 pcap_u32(const struct pcap_in *p, const u8 *b)
{
	u32 v = b[0] | b[1] << 8 | b[2] << 16 | (u32)b[3] << 24;

	return p->swap ? __builtin_bswap32(v) : v;
}

/* Reads a classic pcap file (micro- or nanosecond, either byte order). */
static int pcap_open(struct pcap_in *p, const char *path)
{
	FILE *f = fopen(path, "rb");
	u32 magic;
	long n;

	memset(p, 0, sizeof(*p));
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 24 ||
	    fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "roce_inject: %s: %s\n", path,
			f ? "not a pcap file" : strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	p->buf = malloc(n);
	if (!p->buf || fread(p->buf, 1, n, f) != (size_t)n) {
		fprintf(stderr, "roce_inject: %s: read error\n", path);
		fclose(f);
		return -1;
	}
	fclose(f);
	p->len = n;
	magic = pcap_u32(p, p->buf);
	if (magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1)
		p->swap = true;
	else if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) {
		fprintf(stderr,
			"roce_inject: %s: not a classic pcap file "
			"(pcapng? convert with editcap -F pcap)\n",
			path);
		return -1;
	}
	p->linktype = pcap_u32(p, p->buf + 20) & 0xffff;
	p->off = 24;
	return 0;
}

static const u8 *pcap_next(struct pcap_in *p, size_t *len)
{
	const u8 *rec;
	size_t n;

	if (p->off + 16 > p->len)
		return NULL;
	rec = p->buf + p->off;
	n = pcap_u32(p, rec + 8);
	if (p->off + 16 + n > p->len)
		return NULL;
	p->off += 16 + n;
	*len = n;
	return rec + 16;
}

static int pcap_create(struct ctx *c)
{
	u8 h[24] = {0};

	c->pcap = fopen(c->write_pcap, "wb");
	if (!c->pcap) {
		fprintf(stderr, "roce_inject: %s: %s\n", c->write_pcap,
			strerror(errno));
		return -1;
	}
	put_le32(h, 0xa1b2c3d4);
	h[4] = 2;
	h[6] = 4;
	put_le32(h + 16, 65535);
	put_le32(h + 20, LINKTYPE_ETHERNET);
	return fwrite(h, 1, sizeof(h), c->pcap) == sizeof(h) ? 0 : -1;
}

/* Records carry a made-up clock (1 ms per frame): the file is the same
 * for the same seed and input. */
static int pcap_write(struct ctx *c, const u8 *b, size_t len)
{
	u8 h[16];

	put_le32(h, c->frames / 1000);
	put_le32(h + 4, c->frames % 1000 * 1000);
	put_le32(h + 8, len);
	put_le32(h + 12, len);
	if (fwrite(h, 1, 16, c->pcap) != 16 ||
	    fwrite(b, 1, len, c->pcap) != len)
		return -1;
	return 0;
}

/* ---------------- the interface ---------------------------------------- */

static int dev_open(struct ctx *c)
{
	struct sockaddr_ll sll = {0};
	struct ifreq ifr = {0};
	int one = 1 << 22;

	c->sock = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (c->sock < 0) {
		perror("roce_inject: AF_PACKET socket (root?)");
		return -1;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", c->dev);
	if (ioctl(c->sock, SIOCGIFINDEX, &ifr) < 0) {
		fprintf(stderr, "roce_inject: %s: %s\n", c->dev,
			strerror(errno));
		return -1;
	}
	c->ifindex = ifr.ifr_ifindex;
	if (ioctl(c->sock, SIOCGIFMTU, &ifr) < 0) {
		perror("roce_inject: SIOCGIFMTU");
		return -1;
	}
	c->dev_mtu = ifr.ifr_mtu;
	setsockopt(c->sock, SOL_SOCKET, SO_RCVBUF, &one, sizeof(one));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = c->ifindex;
	if (bind(c->sock, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		perror("roce_inject: bind");
		return -1;
	}
	return 0;
}

/* This interface's MAC address, the source of every frame we send. */
static int dev_mac(struct ctx *c, u8 *mac)
{
	struct ifreq ifr = {0};

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", c->dev);
	if (ioctl(c->sock, SIOCGIFHWADDR, &ifr) < 0) {
		perror("roce_inject: SIOCGIFHWADDR");
		return -1;
	}
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return 0;
}

/*
 * Learns from every frame queued on the socket, without waiting.  The
 * socket also sends our packets, and a packet socket never sees its own
 * transmissions: what it reads comes from the real stacks.
 */
static void dev_drain(struct ctx *c)
{
	struct roce_view v;
	ssize_t n;

	for (;;) {
		n = recv(c->sock, c->rx, sizeof(c->rx), MSG_DONTWAIT);
		if (n < 0)
			return;
		if (!parse_frame(c->rx, n, LINKTYPE_ETHERNET, &v))
			learn(&c->l, &v, c->peer, c->peer_v6,
			      c->have_src ? c->src : NULL);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long stream_pkts(const struct learned *l)
{
	unsigned long n = 0;
	int i;

	for (i = 0; i < l->nfwd; i++)
		n += l->fwd[i].pkts;
	for (i = 0; i < l->nrev; i++)
		n += l->rev[i].pkts;
	return n;
}

static void learn_dev(struct ctx *c)
{
	double end = now_s() + c->learn_s, left;
	struct pollfd pfd = {.fd = c->sock, .events = POLLIN};

	while ((left = end - now_s()) > 0) {
		if (c->learn_pkts && stream_pkts(&c->l) >= c->learn_pkts)
			return;
		poll(&pfd, 1, (int)(left * 1000) + 1);
		dev_drain(c);
	}
}

static int learn_file(struct ctx *c)
{
	struct pcap_in p;
	struct roce_view v;
	const u8 *f;
	size_t len;

	if (pcap_open(&p, c->learn_pcap))
		return -1;
	while ((f = pcap_next(&p, &len))) {
		if (!parse_frame(f, len, p.linktype, &v))
			learn(&c->l, &v, c->peer, c->peer_v6,
			      c->have_src ? c->src : NULL);
		if (c->learn_pkts && stream_pkts(&c->l) >= c->learn_pkts)
			break;
	}
	free(p.buf);
	return 0;
}

/* The peer's MAC from the neighbour table, when no frame showed it. */
static int arp_lookup(const u8 *ip, u8 *mac)
{
	char line[256], addr[64], hw[64], want[INET_ADDRSTRLEN];
	unsigned int m[6];
	FILE *f = fopen("/proc/net/arp", "r");
	int k, found = -1;

	if (!f)
		return -1;
	inet_ntop(AF_INET, ip, want, sizeof(want));
	while (found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %*s %*s %63s", addr, hw) != 2 ||
		    strcmp(addr, want) ||
		    sscanf(hw, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3],
			   &m[4], &m[5]) != 6)
			continue;
		for (k = 0; k < 6; k++)
			mac[k] = m[k];
		found = 0;
	}
	fclose(f);
	return found;
}

/* ---------------- sending ---------------------------------------------- */

static int emit_frame(struct ctx *c, const u8 *b, size_t len)
{
	struct sockaddr_ll sll = {0};

	c->frames++;
	if (c->pcap)
		return pcap_write(c, b, len);
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = c->ifindex;
	sll.sll_halen = 6;
	memcpy(sll.sll_addr, b, 6);
	if (sendto(c->sock, b, len, 0, (struct sockaddr *)&sll, sizeof(sll)) !=
	    (ssize_t)len) {
		fprintf(stderr, "roce_inject: send of %zu bytes: %s\n", len,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* An IPv4 datagram larger than the netdev MTU, as fragments. */
static int emit_fragments(struct ctx *c, const struct frame *fr)
{
	static u8 part[FRAME_MAX];
	size_t hl = ETH_LEN + IP4_LEN, data = fr->len - hl;
	size_t chunk = (c->frag_mtu - IP4_LEN) & ~7ul, off, n;
	u8 *ip = part + ETH_LEN;

	for (off = 0; off < data; off += n) {
		n = data - off < chunk ? data - off : chunk;
		memcpy(part, fr->b, hl);
		memcpy(part + hl, fr->b + hl + off, n);
		put16(ip + 2, IP4_LEN + n);
		put16(ip + 6, off / 8 | (off + n < data ? 0x2000 : 0));
		put16(ip + 10, 0);
		put16(ip + 10, csum_fold(csum_add(0, ip, IP4_LEN)));
		if (emit_frame(c, part, hl + n))
			return -1;
	}
	return 0;
}

/* Waits for the packet's slot of the --pps schedule. */
static void pace(struct ctx *c)
{
	long step;

	if (!c->pps || c->pcap)
		return;
	if (!c->next.tv_sec)
		clock_gettime(CLOCK_MONOTONIC, &c->next);
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &c->next, NULL);
	step = 1000000000L / c->pps;
	c->next.tv_nsec += step;
	while (c->next.tv_nsec >= 1000000000L) {
		c->next.tv_nsec -= 1000000000L;
		c->next.tv_sec++;
	}
}

static int emit(struct ctx *c, const struct frame *fr)
{
	pace(c);
	if (!fr->v6 && fr->len - ETH_LEN > c->frag_mtu)
		return emit_fragments(c, fr);
	return emit_frame(c, fr->b, fr->len);
}

/* @frame: the last frame of the packet (where tshark shows a reassembled
 * datagram). */
static void log_packet(struct ctx *c, enum cat k, const struct frame *fr,
		       const struct made *m, unsigned long frame)
{
	const u8 *b = fr->b + m->bth_off;

	printf("#%lu frame %lu %s/%s len %zu", c->seq, frame, cats[k].name,
	       cats[k].variants[m->variant].name, fr->len);
	if (m->bth_off && fr->len >= m->bth_off + BTH_LEN)
		printf(" op 0x%02x qpn 0x%06x psn 0x%06x pkey 0x%04x tver %u",
		       b[0], get24(b + 5), get24(b + 9), get16(b + 2),
		       b[1] & 0xf);
	else
		printf(" op - qpn - psn - pkey - tver -");
	printf(" icrc %s\n", m->icrc);
}

/* One packet of category @k: tracks the stream, builds, sends. */
static int one_packet(struct ctx *c, enum cat k, unsigned long i)
{
	static struct frame fr;
	struct made m = {0};

	if (c->sock >= 0 && !c->pcap) {
		dev_drain(c);
		target_update(&c->l, &c->t, c->pmtu_opt);
	}
	cats[k].gen(c, &fr, i, &m);
	c->seq++;
	if (emit(c, &fr))
		return -1;
	c->sent[k][m.variant]++;
	if (c->verbose)
		log_packet(c, k, &fr, &m, c->frames);
	return 0;
}

/* Round robin over the categories, so that they interleave in time. */
static int run(struct ctx *c)
{
	unsigned long i, max = 0;
	int k;

	for (k = 0; k < NCAT; k++)
		if (c->count[k] > max)
			max = c->count[k];
	for (i = 0; i < max; i++)
		for (k = 0; k < NCAT; k++)
			if (i < c->count[k] && one_packet(c, k, i))
				return -1;
	return 0;
}

/* ---------------- reports ---------------------------------------------- */

static void ip_str(const u8 *ip, bool v6, char *buf, size_t n)
{
	inet_ntop(v6 ? AF_INET6 : AF_INET, ip, buf, n);
}

static const char *fam_name(u8 fam)
{
	switch (fam) {
	case FAM_RC:
		return "RC";
	case FAM_UC:
		return "UC";
	case FAM_UD:
		return "UD";
	case FAM_XRC:
		return "XRC";
	}
	return "RD";
}

static void report_learned(struct ctx *c)
{
	const struct target *t = &c->t;
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	int i;

	ip_str(t->f->local_ip, t->f->v6, a, sizeof(a));
	ip_str(t->f->peer_ip, t->f->v6, b, sizeof(b));
	printf("roce_inject: learned %lu RoCEv2 packets (%lu with a bad ICRC, "
	       "ignored); target %s QP 0x%06x of %s, partner QP ",
	       c->l.roce, c->l.bad_icrc, fam_name(t->f->fam), t->f->qpn, b);
	if (t->r)
		printf("0x%06x", t->r->qpn);
	else
		printf("unseen");
	printf(" of %s, P_Key 0x%04x, next request PSN 0x%06x%s, response "
	       "PSN 0x%06x%s, path MTU %u%s\n",
	       a, t->f->pkey, t->req_psn, t->req_known ? "" : " (unknown)",
	       t->resp_psn, t->resp_known ? "" : " (unknown)", t->pmtu,
	       t->pmtu_known ? "" : " (assumed: no FIRST/MIDDLE seen)");
	for (i = 0; i < c->l.nfwd; i++)
		if (c->l.fwd[i].have_qkey)
			printf("roce_inject: UD QP 0x%06x of the peer, Q_Key "
			       "0x%08x\n",
			       c->l.fwd[i].qpn, c->l.fwd[i].qkey);
}

static void report_sent(struct ctx *c, double secs)
{
	unsigned long tot, all = 0;
	unsigned int v;
	int k;

	printf("%-12s %-20s %6s  %s\n", "category", "variant", "sent",
	       "a correct receiver drops it as");
	for (k = 0; k < NCAT; k++) {
		if (!c->count[k])
			continue;
		tot = 0;
		for (v = 0; v < cats[k].nvariants; v++) {
			tot += c->sent[k][v];
			printf("%-12s %-20s %6lu  %s\n", cats[k].name,
			       cats[k].variants[v].name, c->sent[k][v],
			       cats[k].variants[v].expect);
		}
		printf("%-12s %-20s %6lu\n", cats[k].name, "(total)", tot);
		all += tot;
	}
	printf("roce_inject: sent %lu packets in %lu frames in %.1f s "
	       "(seed %llu)\n",
	       all, c->frames, secs, (unsigned long long)c->seed);
}

/* ---------------- --check-pcap ----------------------------------------- */

static int check_pcap(const char *path, int verbose)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	unsigned long frame = 0, n = 0, bad = 0;
	struct roce_view v;
	struct pcap_in p;
	const u8 *f;
	size_t len;

	if (pcap_open(&p, path))
		return 1;
	while ((f = pcap_next(&p, &len))) {
		frame++;
		if (parse_frame(f, len, p.linktype, &v))
			continue;
		n++;
		bad += !v.icrc_ok;
		if (!verbose && v.icrc_ok)
			continue;
		ip_str(v.saddr, v.v6, a, sizeof(a));
		ip_str(v.daddr, v.v6, b, sizeof(b));
		printf("frame %lu %s > %s op 0x%02x %s qpn 0x%06x psn 0x%06x "
		       "pkey 0x%04x pad %u udp-payload %zu icrc 0x%08x %s\n",
		       frame, a, b, v.opcode,
		       ops[v.opcode].valid ? ops[v.opcode].name : "reserved",
		       v.qpn, v.psn, v.pkey, v.pad, v.paylen, v.icrc_found,
		       v.icrc_ok ? "ok" : "BAD");
	}
	free(p.buf);
	printf("roce_inject: %s: %lu frames, %lu RoCEv2 packets, %lu ICRC "
	       "ok, %lu bad\n",
	       path, frame, n, n - bad, bad);
	return !n ? 3 : bad ? 1 : 0;
}

/* ---------------- command line ----------------------------------------- */

static void usage(void)
{
	char opt[32];
	int k;

	fprintf(stderr,
		"usage: roce_inject --peer IP (--dev IFACE | --learn-pcap FILE "
		"--write-pcap FILE) [options]\n"
		"       roce_inject --check-pcap FILE [-v]\n"
		"learning:\n"
		"  --dev IFACE         sniff the stream and inject on IFACE "
		"(AF_PACKET, root)\n"
		"  --peer IP           the receiver under test (IPv4 or IPv6)\n"
		"  --src IP            only a stream from IP (default: any "
		"partner of the peer)\n"
		"  --learn TIME        sniff this long first (default 2s; "
		"e.g. 500ms, 3s)\n"
		"  --learn-packets N   ... or until N packets of the stream\n"
		"  --learn-pcap FILE   learn from a capture instead\n"
		"  --pmtu N            the path MTU (default: learned, else "
		"4096)\n"
		"  --frag-mtu N        send IPv4 datagrams above N bytes as "
		"fragments (default:\n"
		"                      the interface MTU; 576..MTU)\n"
		"output:\n"
		"  --write-pcap FILE   write the frames to FILE instead of "
		"sending (MTU 1500)\n"
		"categories, N packets each (--all N: every one):\n");
	for (k = 0; k < NCAT; k++) {
		snprintf(opt, sizeof(opt), "%s N", cats[k].name);
		fprintf(stderr, "  --%-17s %s\n", opt, cats[k].help);
	}
	fprintf(stderr,
		"pacing and determinism:\n"
		"  --seed N            the PRNG seed (default 1): same seed, "
		"same learned state, same packets\n"
		"  --pps N             packets per second (default 1000, 0 = "
		"no limit)\n"
		"  --live-psn          oversized and random-with-ICRC packets "
		"at the live PSN too\n"
		"                      (a correct receiver may then NAK and "
		"end the connection)\n"
		"  -v                  one line per packet\n");
	exit(2);
}

static bool parse_ip(const char *s, u8 *ip, bool *v6)
{
	memset(ip, 0, 16);
	*v6 = strchr(s, ':') != NULL;
	return inet_pton(*v6 ? AF_INET6 : AF_INET, s, ip) == 1;
}

/* "2s", "500ms", "1.5" (seconds). */
static double parse_time(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (!strcmp(end, "ms"))
		return v / 1000;
	if (*end && strcmp(end, "s"))
		usage();
	return v;
}

static unsigned long parse_num(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (*end || !*s)
		usage();
	return v;
}

enum {
	O_DEV = 256,
	O_PEER,
	O_SRC,
	O_LEARN,
	O_LEARN_PKTS,
	O_LEARN_PCAP,
	O_WRITE_PCAP,
	O_CHECK_PCAP,
	O_PMTU,
	O_FRAG_MTU,
	O_SEED,
	O_PPS,
	O_LIVE,
	O_ALL,
	O_CAT, /* + category */
};

static const char *parse_args(struct ctx *c, int argc, char **argv)
{
	struct option lo[O_CAT - O_DEV + NCAT + 2] = {
		{"dev", 1, 0, O_DEV},
		{"peer", 1, 0, O_PEER},
		{"src", 1, 0, O_SRC},
		{"learn", 1, 0, O_LEARN},
		{"learn-packets", 1, 0, O_LEARN_PKTS},
		{"learn-pcap", 1, 0, O_LEARN_PCAP},
		{"write-pcap", 1, 0, O_WRITE_PCAP},
		{"check-pcap", 1, 0, O_CHECK_PCAP},
		{"pmtu", 1, 0, O_PMTU},
		{"frag-mtu", 1, 0, O_FRAG_MTU},
		{"seed", 1, 0, O_SEED},
		{"pps", 1, 0, O_PPS},
		{"live-psn", 0, 0, O_LIVE},
		{"all", 1, 0, O_ALL},
	};
	const char *check = NULL;
	bool have_peer = false, v6 = false;
	int o, k, n = O_CAT - O_DEV;

	for (k = 0; k < NCAT; k++)
		lo[n++] = (struct option){cats[k].name, 1, 0, O_CAT + k};
	while ((o = getopt_long(argc, argv, "vh", lo, NULL)) != -1) {
		switch (o) {
		case O_DEV:
			c->dev = optarg;
			break;
		case O_PEER:
			if (!parse_ip(optarg, c->peer, &c->peer_v6))
				usage();
			have_peer = true;
			break;
		case O_SRC:
			if (!parse_ip(optarg, c->src, &v6))
				usage();
			c->have_src = true;
			break;
		case O_LEARN:
			c->learn_s = parse_time(optarg);
			break;
		case O_LEARN_PKTS:
			c->learn_pkts = parse_num(optarg);
			break;
		case O_LEARN_PCAP:
			c->learn_pcap = optarg;
			break;
		case O_WRITE_PCAP:
			c->write_pcap = optarg;
			break;
		case O_CHECK_PCAP:
			check = optarg;
			break;
		case O_PMTU:
			c->pmtu_opt = parse_num(optarg);
			break;
		case O_FRAG_MTU:
			c->frag_mtu = parse_num(optarg);
			if (c->frag_mtu < 576)
				usage();
			break;
		case O_SEED:
			c->seed = parse_num(optarg);
			break;
		case O_PPS:
			c->pps = parse_num(optarg);
			break;
		case O_LIVE:
			c->live_psn = true;
			break;
		case O_ALL:
			for (k = 0; k < NCAT; k++)
				c->count[k] = parse_num(optarg);
			break;
		case 'v':
			c->verbose++;
			break;
		default:
			if (o >= O_CAT && o < O_CAT + NCAT) {
				c->count[o - O_CAT] = parse_num(optarg);
				break;
			}
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (check)
		return check;
	if (!have_peer || (!c->dev == !c->learn_pcap) ||
	    (!c->dev != !!c->write_pcap))
		usage();
	if (c->have_src && v6 != c->peer_v6)
		usage();
	return NULL;
}

/* Where the frames come from: this interface and the learned peer MAC. */
static int fix_macs(struct ctx *c)
{
	struct fwd *f;
	int i;

	for (i = 0; i < c->l.nfwd; i++) {
		f = &c->l.fwd[i];
		if (c->dev && dev_mac(c, f->local_mac))
			return -1;
		if (!f->have_mac &&
		    (f->v6 || arp_lookup(f->peer_ip, f->peer_mac))) {
			fprintf(stderr,
				"roce_inject: the peer's MAC address "
				"is unknown (no Ethernet frame to it seen)\n");
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct ctx c = {.learn_s = 2,
			       .seed = 1,
			       .pps = 1000,
			       .sock = -1,
			       .dev_mtu = 1500};
	const char *check;
	char peer[INET6_ADDRSTRLEN];
	double t0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	crc_init();
	ops_init();
	check = parse_args(&c, argc, argv);
	if (check)
		return check_pcap(check, c.verbose);
	c.rng = c.seed;
	/* PSNs for a direction the stream never showed */
	c.t.req_psn = rng_next(&c.rng) & PSN_MASK;
	c.t.resp_psn = rng_next(&c.rng) & PSN_MASK;
	if (c.dev) {
		if (dev_open(&c))
			return 1;
		learn_dev(&c);
	} else if (learn_file(&c)) {
		return 1;
	}
	if (!c.frag_mtu)
		c.frag_mtu = c.dev_mtu;
	if (c.frag_mtu > c.dev_mtu) {
		fprintf(stderr,
			"roce_inject: --frag-mtu %u is above the MTU %u\n",
			c.frag_mtu, c.dev_mtu);
		return 2;
	}
	if (target_update(&c.l, &c.t, c.pmtu_opt)) {
		ip_str(c.peer, c.peer_v6, peer, sizeof(peer));
		fprintf(stderr,
			"roce_inject: no RoCEv2 stream to %s seen "
			"(%lu RoCEv2 packets of it, %lu with a bad ICRC)\n",
			peer, c.l.roce, c.l.bad_icrc);
		return 3;
	}
	if (fix_macs(&c))
		return 1;
	report_learned(&c);
	/* UC takes a FIRST or ONLY packet at any PSN as a new message, UD has
	 * no sequence: out of the window is no error there. */
	if (c.count[C_PSN] && c.t.f->fam != FAM_RC && c.t.f->fam != FAM_XRC) {
		printf("roce_inject: psn-window not sent: the target is a %s "
		       "QP, where no PSN is out of the window\n",
		       fam_name(c.t.f->fam));
		c.count[C_PSN] = 0;
	}
	if (c.write_pcap && pcap_create(&c))
		return 1;
	t0 = now_s();
	if (run(&c))
		return 1;
	if (c.pcap && fclose(c.pcap)) {
		perror("roce_inject: write");
		return 1;
	}
	report_sent(&c, now_s() - t0);
	return 0;
}
