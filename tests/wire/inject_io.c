// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * roce_inject's input and output: pcap files read and written, the
 * AF_PACKET socket that sniffs the stream and sends our frames, IPv4
 * fragments and the --pps pacing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>

#include "roce_inject.h"

/* ---------------- pcap files ------------------------------------------- */

static u32 pcap_u32(const struct pcap_in *p, const u8 *b)
{
	u32 v = b[0] | b[1] << 8 | b[2] << 16 | (u32)b[3] << 24;

	return p->swap ? __builtin_bswap32(v) : v;
}

/* Reads a classic pcap file (micro- or nanosecond, either byte order). */
int pcap_open(struct pcap_in *p, const char *path)
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

const u8 *pcap_next(struct pcap_in *p, size_t *len)
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

int pcap_create(struct ctx *c)
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

int dev_open(struct ctx *c)
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
void dev_drain(struct ctx *c)
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

double now_s(void)
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

void learn_dev(struct ctx *c)
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

int learn_file(struct ctx *c)
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

/* Where the frames come from: this interface and the learned peer MAC. */
int fix_macs(struct ctx *c)
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

int emit(struct ctx *c, const struct frame *fr)
{
	pace(c);
	if (!fr->v6 && fr->len - ETH_LEN > c->frag_mtu)
		return emit_fragments(c, fr);
	return emit_frame(c, fr->b, fr->len);
}
