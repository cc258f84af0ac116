// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * roce_inject - RoCEv2 packets for robustness tests of a receiver (our stack
 * or rdma_rxe).  For now the part every later one rests on: the ICRC, the
 * CRC a RoCEv2 packet ends with, computed as rdma_rxe computes it (see
 * icrc() below).  --check-pcap recomputes the ICRC of every RoCEv2 packet
 * of a capture and compares it with the one the packet carries: the
 * known-answer test of tests/wire/roce-icrc.unittest runs it on packets
 * rdma_rxe sent.
 *
 *   roce_inject --check-pcap FILE [-v]
 *
 * Exit status: 0 every ICRC matched, 1 a mismatch (or an unreadable file),
 * 2 usage, 3 no RoCEv2 packet in the file.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;

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

/* ---------------- byte order --------------------------------------------- */

static u16 get16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

static u32 get24(const u8 *p)
{
	return (u32)p[0] << 16 | (u32)p[1] << 8 | p[2];
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
static u32 get_le32(const u8 *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24;
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

/* ---------------- --check-pcap ----------------------------------------- */

static void ip_str(const u8 *ip, bool v6, char *buf, size_t n)
{
	inet_ntop(v6 ? AF_INET6 : AF_INET, ip, buf, n);
}

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

static void usage(void)
{
	fprintf(stderr, "usage: roce_inject --check-pcap FILE [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"check-pcap", 1, 0, 'c'},
		{},
	};
	const char *check = NULL;
	int o, verbose = 0;

	while ((o = getopt_long(argc, argv, "v", lo, NULL)) != -1) {
		if (o == 'c')
			check = optarg;
		else if (o == 'v')
			verbose++;
		else
			usage();
	}
	if (!check || optind != argc)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	crc_init();
	ops_init();
	return check_pcap(check, verbose);
}
