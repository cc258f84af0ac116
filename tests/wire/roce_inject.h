// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * roce_inject.h - what the parts of roce_inject share: the wire constants
 * and the opcode table, the learned stream, frames, the context and the
 * categories, and the functions one part calls in another.  The program
 * is described at the top of roce_inject.c.
 */
#ifndef ROCE_INJECT_H
#define ROCE_INJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

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

/* The length of each extension header, in wire order: one per X_ bit. */
#define N_EXT_HDRS 11

struct ext_hdr {
	unsigned int bit;
	unsigned int len;
};

extern const struct ext_hdr ext_hdrs[N_EXT_HDRS];

/* One valid opcode: its extension headers and whether data follows them. */
struct opinfo {
	bool valid;
	bool payload;
	bool request;
	unsigned int ext;
	char name[32];
};

extern struct opinfo ops[256];

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

/* pcap link types this program reads. */
#define LINKTYPE_ETHERNET 1
#define LINKTYPE_RAW 101
#define LINKTYPE_LINUX_SLL 113
#define LINKTYPE_LINUX_SLL2 276

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

/* ---------------- building frames ------------------------------------- */

struct frame {
	u8 b[FRAME_MAX];
	size_t len; /* bytes of the frame */
	size_t l3, l4, bth;
	bool v6;
	bool df; /* IPv4 don't-fragment, as rdma_rxe sends */
};

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

extern const struct category cats[NCAT];

/* ---------------- pcap files ------------------------------------------- */

struct pcap_in {
	u8 *buf;
	size_t len, off;
	bool swap;
	int linktype;
};

/* ---------------- shared functions ------------------------------------- */

/* inject_wire.c: the opcode table, byte order, PSNs, the PRNG, the ICRC,
 * checksums and the frame builders. */
void ops_init(void);
unsigned int ext_len(unsigned int ext);
void put16(u8 *p, u16 v);
void put32(u8 *p, u32 v);
u16 get16(const u8 *p);
u32 get32(const u8 *p);
u32 get24(const u8 *p);
int32_t psn_diff(u32 a, u32 b);
u32 psn_add(u32 psn, int32_t n);
u64 rng_next(u64 *s);
u64 rng_range(u64 *s, u64 lo, u64 hi);
void rng_fill(u64 *s, u8 *p, size_t n);
void crc_init(void);
u32 icrc(const u8 *l3, size_t len, bool v6);
void put_le32(u8 *p, u32 v);
u32 get_le32(const u8 *p);
u32 csum_add(u32 sum, const u8 *p, size_t n);
u16 csum_fold(u32 sum);
u8 *frame_put(struct frame *fr, size_t n);
void frame_start(struct frame *fr, const struct fwd *f, u16 ip_id);
void frame_csum(struct frame *fr);
void frame_seal(struct frame *fr, int udp_lie);
void frame_fix(struct frame *fr);
void spec_live(struct spec *s, const struct target *t, u8 opcode, u64 *rng);
void build(struct frame *fr, const struct target *t, const struct spec *s,
	   u64 *rng, size_t *ext_off);

/* inject_learn.c: parsing captured packets, learning the stream. */
int parse_frame(const u8 *f, size_t len, int linktype, struct roce_view *v);
void learn(struct learned *l, const struct roce_view *v, const u8 *peer,
	   bool peer_v6, const u8 *src);
int target_update(struct learned *l, struct target *t, unsigned int pmtu_opt);

/* inject_io.c: pcap files, the interface, sending. */
int pcap_open(struct pcap_in *p, const char *path);
const u8 *pcap_next(struct pcap_in *p, size_t *len);
int pcap_create(struct ctx *c);
int dev_open(struct ctx *c);
void dev_drain(struct ctx *c);
double now_s(void);
void learn_dev(struct ctx *c);
int learn_file(struct ctx *c);
int fix_macs(struct ctx *c);
int emit(struct ctx *c, const struct frame *fr);

#endif /* ROCE_INJECT_H */
