// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * roce_inject's learning: parses captured RoCEv2 packets and keeps, for
 * each QP of the peer and of this host, what the live stream shows (PSNs,
 * P_Key, Q_Keys, path MTU, addresses); target_update() picks the stream to
 * attack from that.  Where the packets come from (a capture or the
 * interface) is inject_io.c's business.
 */
#include <string.h>

#include "roce_inject.h"

/* ---------------- parsing a captured RoCEv2 packet -------------------- */

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

/* One frame of a capture of @linktype (or of the interface): see parse_l3(). */
int parse_frame(const u8 *f, size_t len, int linktype, struct roce_view *v)
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
void learn(struct learned *l, const struct roce_view *v, const u8 *peer,
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
int target_update(struct learned *l, struct target *t, unsigned int pmtu_opt)
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
