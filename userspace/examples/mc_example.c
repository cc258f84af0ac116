// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mc_example - UD multicast through RDMA_CM: a receiver joins a group and
 * verifies every message a sender sends to it.
 *
 *   receiver: mc_example -m GROUP [-b LOCAL_ADDR] [-c COUNT] [-l LENGTH]
 *                        [-R READY_FILE] [-t SECONDS]
 *   sender:   mc_example -s -m GROUP [-b LOCAL_ADDR] [-c COUNT] [-l LENGTH]
 *                        [-o] [-t SECONDS]
 *
 * Both sides create a UD rdma_cm_id (RDMA_PS_UDP), bind it to LOCAL_ADDR
 * (or resolve the group's address, which picks the local device), create
 * their QP with rdma_create_qp and join the group with rdma_join_multicast
 * (with -o a send-only join).  The receiver posts its receives before it
 * joins, then writes "ready" to READY_FILE; it expects COUNT messages, each
 * of LENGTH bytes with its sequence number and a pattern, and checks each
 * byte and that every sequence number arrives exactly once.  The sender
 * addresses the group with the address handle of the MULTICAST_JOIN event.
 *
 * Exit status 0 only when the receiver got all COUNT messages intact (or
 * the sender sent all of them and saw them complete).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_verbs.h>
#include "ex_util.h"

#define GRH_BYTES	40	/* before every UD payload received */
#define MAX_WINDOW	64	/* receives posted at once */

struct mc {
	const char *group, *bind, *ready;
	unsigned int count, len;
	bool sender, send_only;
	struct rdma_addrinfo *group_ai, *bind_ai;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct ibv_ah *ah;
	uint32_t remote_qpn;
	bool joined;
};

static void usage(void)
{
	fprintf(stderr,
		"usage: %s -m GROUP [-s [-o]] [-b LOCAL_ADDR] [-c COUNT] [-l LENGTH]\n"
		"          [-R READY_FILE] [-t SECONDS]\n"
		"  -m GROUP   multicast group (IPv4 or IPv6 address)\n"
		"  -s         send (default: receive)\n"
		"  -o         sender joins send-only\n"
		"  -b ADDR    local address to bind to (default: routed towards GROUP)\n"
		"  -c COUNT   messages (default 10)\n"
		"  -l LENGTH  bytes per message, 16 to 4096 (default 100)\n"
		"  -R FILE    receiver: append \"ready\" to FILE once it has joined\n"
		"  -t SECONDS give up after this long (default 60)\n", ex_prog);
	exit(EX_USAGE);
}

static struct rdma_addrinfo *mc_addr(const char *node, bool passive)
{
	struct rdma_addrinfo hints, *ai = NULL;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_UDP;
	hints.ai_qp_type = IBV_QPT_UD;
	if (passive)
		hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(node, NULL, &hints, &ai)) {
		ex_err("rdma_getaddrinfo(%s): %s", node, strerror(errno));
		return NULL;
	}
	return ai;
}

/* Waits for one CM event of type @want on the channel; 0 if it came OK. */
static int expect_event(struct mc *m, enum rdma_cm_event_type want,
			struct rdma_ud_param *ud)
{
	struct rdma_cm_event *ev;
	int ok;

	if (rdma_get_cm_event(m->ch, &ev)) {
		ex_perr("rdma_get_cm_event");
		return -1;
	}
	ok = ev->event == want && ev->status == 0;
	if (!ok)
		ex_err("got %s (status %d) while waiting for %s",
		       rdma_event_str(ev->event), ev->status, rdma_event_str(want));
	else if (ud)
		*ud = ev->param.ud;
	rdma_ack_cm_event(ev);
	return ok ? 0 : -1;
}

/* The id, bound or routed to the local device, and its UD QP. */
static int mc_setup(struct mc *m, unsigned int window)
{
	struct ibv_qp_init_attr attr;

	ex_step = "creating the rdma_cm id";
	m->ch = rdma_create_event_channel();
	if (!m->ch) {
		ex_perr("rdma_create_event_channel");
		return -1;
	}
	if (rdma_create_id(m->ch, &m->id, m, RDMA_PS_UDP)) {
		ex_perr("rdma_create_id");
		return -1;
	}
	if (m->bind_ai) {
		ex_step = "binding (rdma_bind_addr)";
		if (rdma_bind_addr(m->id, m->bind_ai->ai_src_addr)) {
			ex_err("rdma_bind_addr(%s): %s", m->bind, strerror(errno));
			return -1;
		}
	} else {
		ex_step = "resolving the group's route (rdma_resolve_addr)";
		if (rdma_resolve_addr(m->id, NULL, m->group_ai->ai_dst_addr, 5000) ||
		    expect_event(m, RDMA_CM_EVENT_ADDR_RESOLVED, NULL)) {
			ex_err("cannot resolve %s to a local RDMA device", m->group);
			return -1;
		}
	}
	if (!m->id->verbs) {
		ex_err("%s is not an address of an RDMA device", m->bind ? m->bind : m->group);
		return -1;
	}
	ex_step = "creating the UD QP (rdma_create_qp)";
	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_UD;
	attr.sq_sig_all = 1;
	attr.cap.max_send_wr = 1;
	attr.cap.max_recv_wr = window;
	attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
	if (rdma_create_qp(m->id, NULL, &attr)) {
		ex_perr("rdma_create_qp");
		return -1;
	}
	m->buf = calloc(window, GRH_BYTES + m->len);
	if (!m->buf) {
		ex_err("out of memory");
		return -1;
	}
	m->mr = rdma_reg_msgs(m->id, m->buf, (size_t)window * (GRH_BYTES + m->len));
	if (!m->mr) {
		ex_perr("rdma_reg_msgs");
		return -1;
	}
	return 0;
}

static int post_recv(struct mc *m, unsigned int slot)
{
	uint8_t *p = m->buf + (size_t)slot * (GRH_BYTES + m->len);

	if (rdma_post_recv(m->id, (void *)(uintptr_t)slot, p, GRH_BYTES + m->len, m->mr)) {
		ex_perr("rdma_post_recv");
		return -1;
	}
	return 0;
}

static int mc_join(struct mc *m)
{
	struct rdma_cm_join_mc_attr_ex ja;
	struct rdma_ud_param ud;

	ex_step = "joining the group (rdma_join_multicast)";
	memset(&ja, 0, sizeof(ja));
	ja.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS | RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
	ja.join_flags = m->send_only ? RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER
				     : RDMA_MC_JOIN_FLAG_FULLMEMBER;
	ja.addr = m->group_ai->ai_dst_addr;
	if (rdma_join_multicast_ex(m->id, &ja, m)) {
		ex_err("rdma_join_multicast(%s): %s", m->group, strerror(errno));
		return -1;
	}
	if (expect_event(m, RDMA_CM_EVENT_MULTICAST_JOIN, &ud))
		return -1;
	m->joined = true;
	m->remote_qpn = ud.qp_num;
	if (m->sender) {
		m->ah = ibv_create_ah(m->id->pd, &ud.ah_attr);
		if (!m->ah) {
			ex_perr("ibv_create_ah for the group");
			return -1;
		}
	}
	return 0;
}

static int mc_receive(struct mc *m, unsigned int window)
{
	uint8_t *seen = calloc(m->count, 1);
	unsigned int got = 0, posted = window, slot;
	struct ibv_wc wc;
	struct ex_hdr h;
	int ret = -1;

	if (!seen)
		return -1;
	ex_step = "receiving the group's messages (rdma_get_recv_comp)";
	printf("%s: joined %s, waiting for %u messages\n", ex_prog, m->group, m->count);
	fflush(stdout);
	if (ex_signal_ready(m->ready))
		goto out;
	while (got < m->count) {
		if (rdma_get_recv_comp(m->id, &wc) <= 0) {
			ex_perr("rdma_get_recv_comp");
			goto out;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			ex_err("receive completion: %s", ibv_wc_status_str(wc.status));
			goto out;
		}
		if (wc.byte_len != GRH_BYTES + m->len) {
			ex_err("received %u bytes, want %u (GRH + %u)", wc.byte_len,
			       GRH_BYTES + m->len, m->len);
			goto out;
		}
		slot = (unsigned int)wc.wr_id;
		if (!ex_verify(m->buf + (size_t)slot * (GRH_BYTES + m->len) + GRH_BYTES,
			       m->len, &h))
			goto out;
		if (h.seq >= m->count || seen[h.seq]) {
			ex_err("message %u: %s", h.seq, h.seq >= m->count ?
			       "beyond the count" : "received twice");
			goto out;
		}
		seen[h.seq] = 1;
		got++;
		if (posted < m->count) {
			if (post_recv(m, slot))
				goto out;
			posted++;
		}
	}
	printf("%s: received and verified %u messages of %u bytes\n", ex_prog,
	       got, m->len);
	ret = 0;
out:
	free(seen);
	return ret;
}

static int mc_send(struct mc *m)
{
	struct ibv_wc wc;
	unsigned int i;

	ex_step = "sending to the group (rdma_post_ud_send)";
	for (i = 0; i < m->count; i++) {
		ex_fill(m->buf, m->len, i, 0, m->len);
		if (rdma_post_ud_send(m->id, NULL, m->buf, m->len, m->mr,
				      IBV_SEND_SIGNALED, m->ah, m->remote_qpn)) {
			ex_perr("rdma_post_ud_send");
			return -1;
		}
		if (rdma_get_send_comp(m->id, &wc) <= 0) {
			ex_perr("rdma_get_send_comp");
			return -1;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			ex_err("send %u: %s", i, ibv_wc_status_str(wc.status));
			return -1;
		}
	}
	printf("%s: sent %u messages of %u bytes to %s\n", ex_prog, m->count,
	       m->len, m->group);
	return 0;
}

/* Leaves the group and frees everything; -1 if the leave failed. */
static int mc_cleanup(struct mc *m)
{
	int ret = 0;

	ex_step = "leaving the group and cleaning up";
	if (m->joined && rdma_leave_multicast(m->id, m->group_ai->ai_dst_addr)) {
		ex_perr("rdma_leave_multicast");
		ret = -1;
	}
	if (m->ah)
		ibv_destroy_ah(m->ah);
	if (m->mr)
		rdma_dereg_mr(m->mr);
	if (m->id) {
		if (m->id->qp)
			rdma_destroy_qp(m->id);
		rdma_destroy_id(m->id);
	}
	if (m->ch)
		rdma_destroy_event_channel(m->ch);
	free(m->buf);
	if (m->group_ai)
		rdma_freeaddrinfo(m->group_ai);
	if (m->bind_ai)
		rdma_freeaddrinfo(m->bind_ai);
	return ret;
}

int main(int argc, char **argv)
{
	struct mc m = { .count = 10, .len = 100 };
	unsigned int limit = 60, window;
	int opt, ret = -1;

	ex_prog = "mc_example";
	while ((opt = getopt(argc, argv, "m:b:c:l:R:t:soh")) != -1) {
		switch (opt) {
		case 'm': m.group = optarg; break;
		case 'b': m.bind = optarg; break;
		case 'c': m.count = ex_uint(optarg, "-c COUNT", 1000000); break;
		case 'l': m.len = ex_uint(optarg, "-l LENGTH", 4096); break;
		case 'R': m.ready = optarg; break;
		case 't': limit = ex_uint(optarg, "-t SECONDS", 86400); break;
		case 's': m.sender = true; break;
		case 'o': m.send_only = true; break;
		default: usage();
		}
	}
	if (!m.group || optind != argc || m.len < sizeof(struct ex_hdr) ||
	    (m.send_only && !m.sender))
		usage();
	ex_set_time_limit(limit);
	window = m.sender ? 1 : (m.count < MAX_WINDOW ? m.count : MAX_WINDOW);
	m.group_ai = mc_addr(m.group, false);
	if (m.group_ai && m.bind)
		m.bind_ai = mc_addr(m.bind, true);
	if (!m.group_ai || (m.bind && !m.bind_ai) || mc_setup(&m, window))
		goto out;
	if (!m.sender) {
		unsigned int i;

		for (i = 0; i < window; i++)
			if (post_recv(&m, i))
				goto out;
	}
	if (mc_join(&m))
		goto out;
	ret = m.sender ? mc_send(&m) : mc_receive(&m, window);
out:
	if (mc_cleanup(&m))
		ret = -1;
	if (ret)
		fprintf(stderr, "%s: FAIL\n", ex_prog);
	return ret ? EX_FAIL : 0;
}
