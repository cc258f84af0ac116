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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce_inject.h"

/*
 * The parts: roce_inject.h (what they share), inject_wire.c (opcodes, the
 * ICRC, checksums, frame builders), inject_learn.c (parsing and learning
 * the stream), inject_categories.c (the broken packets), inject_io.c (pcap
 * files, the interface, sending).  This file runs them: the packet loop,
 * the reports, --check-pcap and the command line.
 */

/* ---------------- the packet loop -------------------------------------- */

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
