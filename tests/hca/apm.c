// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * apm - Automatic Path Migration (IBA 17.2.8, docs/wire.md 14.6) through
 * the verbs, on the one port of an mlx_hw device: two RC QPs of the same
 * device, the primary path over GID index -g (1: the IPv4-mapped GID) and the
 * alternate one over GID index 0 (the link-local GID): two paths with
 * other source and destination addresses through one port.
 *
 * A dead path is a primary path whose destination GID belongs to nobody
 * (::ffff:10.9.0.99 here): its packets are lost as on a cut link.  It is
 * put in place on a QP already armed by moving it RTS -> SQD, loading the
 * address vector in SQD -> SQD and going back to RTS (IBA 10.3.1 allows
 * the AV there), since a QP arms only once its peer's packets with MigReq
 * 0 came through.
 *
 *   apm [-d DEV] [-g GID_INDEX] [SECTION...]   (rules, software,
 *                                              automatic, unarmed, mig_err)
 *
 * mig_err needs APM_ALT_GID and APM_ALT_GID_DEL (see test_mig_err).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "hca_util.h"

#define ALT_TIMEOUT	18	/* alternate path: 1 s, never hit here */
#define DEAD_TIMEOUT	14	/* primary path: 67 ms per try */

/* The alternate path: GID 0 to GID 0 of the same port (mig_err: another). */
static union ibv_gid gid0, alt_gid;
static int alt_index;

static struct ibv_ah_attr path_to(const union ibv_gid *dgid, int sgid_index)
{
	return (struct ibv_ah_attr){
		.is_global = 1,
		.port_num = 1,
		.grh = { .dgid = *dgid, .sgid_index = sgid_index,
			 .hop_limit = 64 },
	};
}

static void alt_path(struct ibv_qp_attr *a)
{
	a->alt_ah_attr = path_to(&alt_gid, alt_index);
	a->alt_port_num = 1;
	a->alt_pkey_index = 0;
	a->alt_timeout = ALT_TIMEOUT;
}

static int query(struct ibv_qp *qp, struct ibv_qp_attr *a)
{
	struct ibv_qp_init_attr ia;

	memset(a, 0, sizeof(*a));
	SETUP(!ibv_query_qp(qp, a, IBV_QP_STATE | IBV_QP_PATH_MIG_STATE |
				    IBV_QP_AV | IBV_QP_ALT_PATH, &ia),
	      "query_qp: %s", strerror(errno));
	return 0;
}

static int mig_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;

	return query(qp, &a) ? -1 : (int)a.path_mig_state;
}

/* A modify that must fail with EINVAL and leave the QP in @state. */
static int refused(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		   enum ibv_qp_state state, const char *what)
{
	int ret = ibv_modify_qp(qp, a, mask);

	CHECK(ret == EINVAL, "%s: modify returned %d (%s), expected EINVAL",
	      what, ret, strerror(ret));
	CHECK(ut_state(qp) == state, "%s: state %d after a refused modify",
	      what, ut_state(qp));
	return 0;
}

/* INIT -> RTR towards @dqpn on the primary path, with the alternate one. */
static int rtr_alt(struct ut_ctx *c, struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn,
		.rq_psn = 100,
		.max_dest_rd_atomic = 4,
		.min_rnr_timer = 1,
		.ah_attr = path_to(&c->gid, c->gid_index),
	};

	alt_path(&a);
	SETUP(!ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
				     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				     IBV_QP_MIN_RNR_TIMER | IBV_QP_ALT_PATH),
	      "to RTR: %s", strerror(errno));
	return 0;
}

/* RTR -> RTS, rearmed (IBV_MIG_REARM) if @rearm. */
static int rts_mig(struct ibv_qp *qp, uint8_t timeout, uint8_t retry_cnt,
		   bool rearm)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = 100,
		.timeout = timeout,
		.retry_cnt = retry_cnt,
		.rnr_retry = 7,
		.max_rd_atomic = 4,
		.path_mig_state = IBV_MIG_REARM,
	};
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
		   IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		   IBV_QP_MAX_QP_RD_ATOMIC;

	SETUP(!ibv_modify_qp(qp, &a, mask | (rearm ? IBV_QP_PATH_MIG_STATE : 0)),
	      "to RTS: %s", strerror(errno));
	return 0;
}

/* Two RC QPs connected with both paths, @rearm as rts_mig(). */
static int pair(struct ut_ctx *c, struct ibv_qp **a, struct ibv_qp **b,
		uint8_t timeout, uint8_t retry_cnt, bool rearm)
{
	*a = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);
	*b = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);
	SETUP(*a && *b, "QPs");
	if (rtr_alt(c, *a, (*b)->qp_num) || rtr_alt(c, *b, (*a)->qp_num) ||
	    rts_mig(*a, timeout, retry_cnt, rearm) ||
	    rts_mig(*b, timeout, retry_cnt, rearm))
		return -1;
	return 0;
}

/* A SEND of @len bytes from @a to @b, both completions successful. */
static int send_ok(struct ut_ctx *c, struct ibv_qp *a, struct ibv_qp *b,
		   uint32_t len, uint64_t id)
{
	struct ibv_wc w1, w2;

	ut_fill(c->buf + UT_SRC, len, (unsigned int)id);
	memset(c->buf + UT_DST, 0, len);
	if (ut_post_recv(c, b, NULL, UT_DST, len, id + 1) ||
	    ut_post_send(c, a, IBV_WR_SEND, UT_SRC, len, id, 0, 0) ||
	    ut_poll_two(c, id, id + 1, &w1, &w2))
		return -1;
	CHECK_WC(w1, IBV_WC_SUCCESS, IBV_WC_SEND, len);
	CHECK_WC(w2, IBV_WC_SUCCESS, IBV_WC_RECV, len);
	CHECK(!memcmp(c->buf + UT_SRC, c->buf + UT_DST, len),
	      "received data differs");
	return 0;
}

/* The QP's primary path is now what was its alternate one. */
static int check_on_alt(struct ibv_qp *qp, const char *who)
{
	struct ibv_qp_attr a;

	if (query(qp, &a))
		return -1;
	CHECK(a.path_mig_state == IBV_MIG_MIGRATED, "%s: path_mig_state %d",
	      who, a.path_mig_state);
	CHECK(a.ah_attr.grh.sgid_index == alt_index &&
	      !memcmp(&a.ah_attr.grh.dgid, &alt_gid, sizeof(alt_gid)),
	      "%s: primary path sgid_index %u, not the alternate one", who,
	      a.ah_attr.grh.sgid_index);
	CHECK(a.timeout == ALT_TIMEOUT, "%s: timeout %u, expected %u", who,
	      a.timeout, ALT_TIMEOUT);
	CHECK(a.port_num == 1 && a.pkey_index == 0, "%s: port %u pkey %u",
	      who, a.port_num, a.pkey_index);
	return 0;
}

/* The alternate path of @m, spoiled in way @i; NULL past the last. */
static const char *spoil_alt(struct ibv_qp_attr *m, int i)
{
	alt_path(m);
	switch (i) {
	case 0:
		m->alt_port_num = 2;
		m->alt_ah_attr.port_num = 2;
		return "alt port 2";
	case 1:
		m->alt_ah_attr.port_num = 0;
		return "alt AV port differs from alt_port_num";
	case 2:
		m->alt_ah_attr.grh.sgid_index = 200;
		return "alt sgid_index 200";
	case 3:
		m->alt_timeout = 32;
		return "alt_timeout 32";
	case 4:
		m->alt_pkey_index = 1;
		return "alt_pkey_index 1";
	case 5:
		m->alt_ah_attr.is_global = 0;
		return "alt path without GRH";
	default:
		return NULL;
	}
}

/* RTR -> RTS refusals: path_mig_state values and states it may not take. */
static int rules_rts(struct ibv_qp *qp, bool has_alt)
{
	struct ibv_qp_attr m = { .qp_state = IBV_QPS_RTS, .sq_psn = 1,
				 .timeout = 14, .retry_cnt = 7,
				 .rnr_retry = 7, .max_rd_atomic = 1 };
	int rts = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
		  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		  IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_PATH_MIG_STATE;

	/* ARMED is the device's to set; 3 is no state at all. */
	m.path_mig_state = IBV_MIG_ARMED;
	if (refused(qp, &m, rts, IBV_QPS_RTR, "set ARMED"))
		return -1;
	m.path_mig_state = (enum ibv_mig_state)3;
	if (refused(qp, &m, rts, IBV_QPS_RTR, "path_mig_state 3"))
		return -1;
	/* IBA 17.2.8: a migration only from ARMED. */
	m.path_mig_state = IBV_MIG_MIGRATED;
	if (refused(qp, &m, rts, IBV_QPS_RTR, "MIGRATED while MIGRATED"))
		return -1;
	m.path_mig_state = IBV_MIG_REARM;
	if (!has_alt)
		return refused(qp, &m, rts, IBV_QPS_RTR,
			       "REARM without an alternate path");
	CHECK(!ibv_modify_qp(qp, &m, rts), "to RTS with REARM: %s",
	      strerror(errno));
	return 0;
}

/* Which attributes and values a modify takes, and the errno of the rest. */
static int test_rules(struct ut_ctx *c)
{
	struct ibv_qp *ud = ut_qp(c, IBV_QPT_UD, NULL, 0);
	struct ibv_qp *a = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);
	struct ibv_qp *b = ut_qp(c, IBV_QPT_RC, NULL, UT_ACCESS_REMOTE);
	int rtr = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
		  IBV_QP_MIN_RNR_TIMER;
	struct ibv_device_attr da;
	struct ibv_qp_attr q, m = {};
	const char *what;
	int i;

	CHECK(ud && a && b, "QPs");
	CHECK(!ibv_query_device(c->ctx, &da) &&
	      (da.device_cap_flags & IBV_DEVICE_AUTO_PATH_MIG),
	      "device does not claim IBV_DEVICE_AUTO_PATH_MIG");
	/* UD has no path to load or migrate (IBA 11.2.5.2 tables). */
	alt_path(&m);
	m.qp_state = IBV_QPS_RTR;
	if (refused(ud, &m, IBV_QP_STATE | IBV_QP_ALT_PATH, IBV_QPS_INIT,
		    "UD ALT_PATH"))
		return -1;
	/* Neither attribute INIT -> INIT, no migration state to RTR. */
	m.qp_state = IBV_QPS_INIT;
	if (refused(a, &m, IBV_QP_STATE | IBV_QP_ALT_PATH, IBV_QPS_INIT,
		    "INIT->INIT ALT_PATH") ||
	    refused(a, &m, IBV_QP_STATE | IBV_QP_PATH_MIG_STATE, IBV_QPS_INIT,
		    "INIT->INIT PATH_MIG_STATE"))
		return -1;

	m = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR,
				  .path_mtu = IBV_MTU_1024,
				  .dest_qp_num = b->qp_num, .rq_psn = 1,
				  .max_dest_rd_atomic = 1, .min_rnr_timer = 1,
				  .ah_attr = path_to(&c->gid, c->gid_index) };
	m.path_mig_state = IBV_MIG_REARM;
	if (refused(a, &m, rtr | IBV_QP_PATH_MIG_STATE, IBV_QPS_INIT,
		    "INIT->RTR PATH_MIG_STATE"))
		return -1;
	for (i = 0; (what = spoil_alt(&m, i)); i++)
		if (refused(a, &m, rtr | IBV_QP_ALT_PATH, IBV_QPS_INIT, what))
			return -1;
	/* A good one is taken and reported as given. */
	alt_path(&m);
	CHECK(!ibv_modify_qp(a, &m, rtr | IBV_QP_ALT_PATH),
	      "INIT->RTR with ALT_PATH: %s", strerror(errno));
	if (query(a, &q))
		return -1;
	CHECK(q.path_mig_state == IBV_MIG_MIGRATED, "path_mig_state %d",
	      q.path_mig_state);
	CHECK(q.alt_port_num == 1 && q.alt_pkey_index == 0 &&
	      q.alt_timeout == ALT_TIMEOUT &&
	      q.alt_ah_attr.grh.sgid_index == alt_index &&
	      !memcmp(&q.alt_ah_attr.grh.dgid, &alt_gid, sizeof(alt_gid)),
	      "alt path reported: port %u pkey %u timeout %u sgid %u",
	      q.alt_port_num, q.alt_pkey_index, q.alt_timeout,
	      q.alt_ah_attr.grh.sgid_index);
	CHECK(q.ah_attr.grh.sgid_index == c->gid_index, "primary sgid %u",
	      q.ah_attr.grh.sgid_index);
	if (rules_rts(a, true))
		return -1;
	CHECK(mig_state(a) == IBV_MIG_REARM, "after REARM: %d", mig_state(a));

	/* RTS -> RTS: a migration needs ARMED (the peer never answered). */
	m = (struct ibv_qp_attr){ .path_mig_state = IBV_MIG_MIGRATED };
	if (refused(a, &m, IBV_QP_PATH_MIG_STATE, IBV_QPS_RTS,
		    "MIGRATED while REARM"))
		return -1;
	/* A new alternate path in RTS, and REARM again: both taken. */
	alt_path(&m);
	m.alt_timeout = 17;
	m.path_mig_state = IBV_MIG_REARM;
	CHECK(!ibv_modify_qp(a, &m, IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE),
	      "RTS->RTS ALT_PATH + REARM: %s", strerror(errno));
	CHECK(!query(a, &q) && q.alt_timeout == 17 &&
	      q.path_mig_state == IBV_MIG_REARM,
	      "alt_timeout %u mig %d", q.alt_timeout, q.path_mig_state);

	/* Without an alternate path there is nothing to rearm. */
	m = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR,
				  .path_mtu = IBV_MTU_1024,
				  .dest_qp_num = a->qp_num, .rq_psn = 1,
				  .max_dest_rd_atomic = 1, .min_rnr_timer = 1,
				  .ah_attr = path_to(&c->gid, c->gid_index) };
	CHECK(!ibv_modify_qp(b, &m, rtr), "b to RTR: %s", strerror(errno));
	if (rules_rts(b, false))
		return -1;

	/* RESET forgets the alternate path and the migration state. */
	m = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RESET };
	CHECK(!ibv_modify_qp(a, &m, IBV_QP_STATE), "to RESET: %s",
	      strerror(errno));
	CHECK(mig_state(a) == IBV_MIG_MIGRATED, "after RESET: %d",
	      mig_state(a));
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b) && !ibv_destroy_qp(ud),
	      "destroy");
	return 0;
}

/* Both QPs armed by one message each way with MigReq 0. */
static int arm(struct ut_ctx *c, struct ibv_qp *a, struct ibv_qp *b)
{
	CHECK(mig_state(a) == IBV_MIG_REARM && mig_state(b) == IBV_MIG_REARM,
	      "before traffic: %d %d (expected REARM)", mig_state(a),
	      mig_state(b));
	if (send_ok(c, a, b, 512, 10))
		return -1;
	CHECK(mig_state(a) == IBV_MIG_ARMED && mig_state(b) == IBV_MIG_ARMED,
	      "after traffic: %d %d (expected ARMED)", mig_state(a),
	      mig_state(b));
	return 0;
}

/*
 * Software migration: a consumer moves an ARMED QP to MIGRATED; its peer
 * follows when the first packet from the alternate path arrives; both
 * raise IBV_EVENT_PATH_MIG, and traffic flows on.  Then a new alternate
 * path (the old primary) is loaded and both arm again.
 */
static int test_software(struct ut_ctx *c)
{
	struct ibv_qp_attr m = { .path_mig_state = IBV_MIG_MIGRATED };
	struct ibv_qp *a, *b;

	if (pair(c, &a, &b, 14, 7, true) || arm(c, a, b))
		return -1;
	if (ut_no_event(c, 50))
		return -1;
	CHECK(!ibv_modify_qp(a, &m, IBV_QP_PATH_MIG_STATE),
	      "RTS->RTS MIGRATED: %s", strerror(errno));
	if (ut_expect_event(c, IBV_EVENT_PATH_MIG, a) ||
	    check_on_alt(a, "a"))
		return -1;
	CHECK(mig_state(b) == IBV_MIG_ARMED, "b before a's packets: %d",
	      mig_state(b));
	if (send_ok(c, a, b, 3000, 20) ||
	    ut_expect_event(c, IBV_EVENT_PATH_MIG, b) ||
	    check_on_alt(b, "b") || send_ok(c, b, a, 100, 30) ||
	    ut_no_event(c, 50))
		return -1;
	/* Migrated already: no second migration. */
	if (refused(a, &m, IBV_QP_PATH_MIG_STATE, IBV_QPS_RTS,
		    "MIGRATED while MIGRATED"))
		return -1;

	/* The old primary as the new alternate path, armed again. */
	m = (struct ibv_qp_attr){ .path_mig_state = IBV_MIG_REARM,
				  .alt_ah_attr = path_to(&c->gid,
							 c->gid_index),
				  .alt_port_num = 1, .alt_timeout = 14 };
	CHECK(!ibv_modify_qp(a, &m, IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE) &&
	      !ibv_modify_qp(b, &m, IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE),
	      "load and rearm: %s", strerror(errno));
	if (arm(c, a, b))
		return -1;
	m = (struct ibv_qp_attr){ .path_mig_state = IBV_MIG_MIGRATED };
	CHECK(!ibv_modify_qp(b, &m, IBV_QP_PATH_MIG_STATE),
	      "b back to the first path: %s", strerror(errno));
	if (ut_expect_event(c, IBV_EVENT_PATH_MIG, b) ||
	    send_ok(c, b, a, 64, 40) ||
	    ut_expect_event(c, IBV_EVENT_PATH_MIG, a))
		return -1;
	CHECK(mig_state(a) == IBV_MIG_MIGRATED, "a: %d", mig_state(a));
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy");
	return 0;
}

/* RTS -> SQD -> SQD (a primary path to nobody) -> RTS. */
static int kill_primary(struct ibv_qp *qp, int sgid_index)
{
	static const union ibv_gid dead = {
		.raw = { [10] = 0xff, [11] = 0xff, 10, 9, 0, 99 }
	};
	struct ibv_qp_attr m = { .qp_state = IBV_QPS_SQD };

	SETUP(!ibv_modify_qp(qp, &m, IBV_QP_STATE), "to SQD: %s",
	      strerror(errno));
	m.ah_attr = path_to(&dead, sgid_index);
	SETUP(!ibv_modify_qp(qp, &m, IBV_QP_STATE | IBV_QP_AV),
	      "SQD AV: %s", strerror(errno));
	m.qp_state = IBV_QPS_RTS;
	SETUP(!ibv_modify_qp(qp, &m, IBV_QP_STATE), "to RTS: %s",
	      strerror(errno));
	return 0;
}

/*
 * Automatic migration: the requester's retries on a dead primary path run
 * out while it is ARMED; it migrates, sends again on the alternate path,
 * the peer follows, and the message completes.
 */
static int test_automatic(struct ut_ctx *c)
{
	long long timeouts = ut_counter(c, "local_ack_timeout_err");
	struct ibv_qp *a, *b;

	if (pair(c, &a, &b, DEAD_TIMEOUT, 3, true) || arm(c, a, b) ||
	    kill_primary(a, c->gid_index))
		return -1;
	if (send_ok(c, a, b, 5000, 50) ||
	    ut_expect_event(c, IBV_EVENT_PATH_MIG, a) ||
	    ut_expect_event(c, IBV_EVENT_PATH_MIG, b))
		return -1;
	/* retry_cnt 3: four tries on the dead path before the migration. */
	CHECK(ut_counter(c, "local_ack_timeout_err") - timeouts >= 4,
	      "%lld ACK timeouts", ut_counter(c, "local_ack_timeout_err") -
	      timeouts);
	if (check_on_alt(a, "a") || check_on_alt(b, "b") ||
	    send_ok(c, b, a, 200, 60) || ut_no_event(c, 50))
		return -1;
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy");
	return 0;
}

/*
 * The same dead path without an armed migration: alternate path loaded
 * but never rearmed, or rearmed but not yet armed (no packet from the
 * peer): the retries run out and the send fails as without APM.
 */
static int unarmed(struct ut_ctx *c, bool rearm)
{
	struct ibv_qp *a, *b;
	struct ibv_qp_attr q;
	struct ibv_wc wc;

	if (pair(c, &a, &b, DEAD_TIMEOUT, 1, rearm) ||
	    kill_primary(a, c->gid_index))
		return -1;
	CHECK(mig_state(a) == (rearm ? IBV_MIG_REARM : IBV_MIG_MIGRATED),
	      "path_mig_state %d", mig_state(a));
	if (ut_post_recv(c, b, NULL, UT_DST, 64, 71) ||
	    ut_post_send(c, a, IBV_WR_SEND, UT_SRC, 64, 70, 0, 0) ||
	    ut_expect(c, 70, IBV_WC_RETRY_EXC_ERR, &wc))
		return -1;
	if (ut_no_event(c, 50) || query(a, &q))
		return -1;
	CHECK(q.path_mig_state == (rearm ? IBV_MIG_REARM : IBV_MIG_MIGRATED) &&
	      q.ah_attr.grh.sgid_index == c->gid_index &&
	      q.ah_attr.grh.dgid.raw[15] == 99,
	      "migrated anyway: mig %d sgid %u", q.path_mig_state,
	      q.ah_attr.grh.sgid_index);
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy");
	return 0;
}

static int test_unarmed(struct ut_ctx *c)
{
	return unarmed(c, false) || unarmed(c, true) ? -1 : 0;
}

/*
 * The index of GID @g on port 1 once it is there (@present) or -1 once it
 * is gone, as the table follows the netdev's addresses; -2 if it never
 * does within 5 s.
 */
static int wait_gid(struct ut_ctx *c, const union ibv_gid *g, bool present)
{
	union ibv_gid x;
	int n, i, found;

	for (n = 0; n < 500; n++) {
		found = -1;
		for (i = 0; i < 16 && found < 0; i++)
			if (!ibv_query_gid(c->ctx, 1, i, &x) &&
			    !memcmp(&x, g, sizeof(x)))
				found = i;
		if ((found >= 0) == present)
			return found;
		usleep(10000);
	}
	return -2;
}

/*
 * IBV_EVENT_PATH_MIG_ERR: both QPs armed with an alternate path over the
 * GID of the address APM_ALT_GID, which the command APM_ALT_GID_DEL then
 * removes from the netdev.  A consumer's migration is refused; one after
 * the retries on a dead primary path ran out fails with the event, the
 * QP rearms and the send ends in RETRY_EXC_ERR.
 */
static int mig_err(struct ut_ctx *c, const union ibv_gid *g, const char *del)
{
	struct ibv_qp_attr m = { .path_mig_state = IBV_MIG_MIGRATED };
	struct ibv_qp *a, *b;
	struct ibv_wc wc;

	if (pair(c, &a, &b, DEAD_TIMEOUT, 1, true) || arm(c, a, b))
		return -1;
	SETUP(system(del) == 0, "%s failed", del);
	CHECK(wait_gid(c, g, false) == -1, "the GID stays in the table");
	if (refused(b, &m, IBV_QP_PATH_MIG_STATE, IBV_QPS_RTS,
		    "MIGRATED to a path whose GID is gone") ||
	    kill_primary(a, c->gid_index) ||
	    ut_post_recv(c, b, NULL, UT_DST, 64, 81) ||
	    ut_post_send(c, a, IBV_WR_SEND, UT_SRC, 64, 80, 0, 0) ||
	    ut_expect(c, 80, IBV_WC_RETRY_EXC_ERR, &wc) ||
	    ut_expect_event(c, IBV_EVENT_PATH_MIG_ERR, a) ||
	    ut_no_event(c, 50))
		return -1;
	CHECK(mig_state(a) == IBV_MIG_REARM && mig_state(b) == IBV_MIG_ARMED,
	      "after the failed migration: a %d, b %d", mig_state(a),
	      mig_state(b));
	CHECK(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy");
	return 0;
}

static int test_mig_err(struct ut_ctx *c)
{
	const char *addr = getenv("APM_ALT_GID");
	const char *del = getenv("APM_ALT_GID_DEL");
	union ibv_gid g;
	int ret;

	SETUP(addr && del && inet_pton(AF_INET6, addr, g.raw) == 1,
	      "APM_ALT_GID (an IPv6 address of the netdev) and "
	      "APM_ALT_GID_DEL (a command removing it) must be set");
	alt_index = wait_gid(c, &g, true);
	SETUP(alt_index >= 0, "GID %s never showed in the table", addr);
	alt_gid = g;
	ret = mig_err(c, &g, del);
	alt_gid = gid0;
	alt_index = 0;
	return ret;
}

static const struct ut_test tests[] = {
	{ "rules", test_rules },
	{ "software", test_software },
	{ "automatic", test_automatic },
	{ "unarmed", test_unarmed },
	{ "mig_err", test_mig_err },
};

int main(int argc, char **argv)
{
	/* ut_main opens the device only after parsing; GID 0 is fixed. */
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	const char *dev = "mlx_hw0";
	int i;

	for (i = 1; i < argc - 1; i++)
		if (!strcmp(argv[i], "-d"))
			dev = argv[i + 1];
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx || ibv_query_gid(ctx, 1, 0, &gid0)) {
		printf("FAIL cannot open %s or read its GID 0\n", dev);
		return 1;
	}
	ibv_close_device(ctx);
	alt_gid = gid0;
	return ut_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
