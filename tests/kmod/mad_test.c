// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibx_mad_test - exercises the MAD layer (ibx_mad.h) of the first mlx_hw
 * device at load time.
 *
 * Without parameters (loopback): an agent of a vendor class sends MADs to
 * QP1 of its own GID: a plain send arrives intact from QP 1; a Get is
 * answered by the agent itself with a GetResp of the same TID, which
 * completes the request; a Get nobody answers is sent 1 + retries times and
 * ends in -ETIMEDOUT; a MAD with a bad base version and one of a class
 * nobody claims are dropped and counted.  (The CM over the wire is tested
 * with rdmacm-utils against rxe: tests/cm.)
 *
 * Verdicts: /sys/module/ibx_mad_test/parameters/result, as ibx_kverbs_test.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include "ibx_mad.h"

static char result[4096];
module_param_string(result, result, sizeof(result), 0444);
static unsigned int passed, failed;
static struct ibx_device *test_dev;

static void report(bool ok, const char *name, const char *fmt, ...)
{
	size_t len = strlen(result);
	char why[160] = "";
	va_list ap;

	if (!ok && fmt) {
		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
	}
	ok ? passed++ : failed++;
	snprintf(result + len, sizeof(result) - len, "%s %s%s%s\n",
		 ok ? "ok" : "FAIL", name, ok ? "" : ": ", why);
	pr_info("%s %s %s\n", ok ? "ok" : "FAIL", name, why);
}

#define CHECK(cond, name, fmt, ...)					\
	({ bool __ok = (cond); report(__ok, name, fmt, ##__VA_ARGS__); __ok; })

#define TEST_CLASS	0x30	/* first vendor class (IBA 13.4.4) */
#define UNCLAIMED_CLASS	0x31	/* the next one, which nobody registers */
#define TEST_VERSION	1

/* What the handlers saw; written in the MAD layer's workqueue. */
struct state {
	struct ibx_device *dev;
	union ibx_gid gid;		/* our IPv4-mapped GID (index 1) */
	bool respond;			/* answer Gets with GetResp */
	atomic_t gets;			/* Gets received */
	atomic_t sends;			/* Sends received */
	struct ibx_mad last;		/* the last Send or response received */
	u32 last_src_qp;
	union ibx_gid last_sgid;
	struct ibx_mad_send *matched;	/* recv->send of the last response */
	struct completion recvd;	/* a Send, response or REJ arrived */
	struct completion done;		/* a tracked send ended */
	int done_status;
	unsigned int done_sends;
	/* Wire: the REQ's LocalCommID and what the REJ said. */
	u32 comm_id;
	bool got_rej;
	u32 rej_remote_id;
	u16 rej_reason;
	u8 rej_msg;
};

static int test_add(struct ibx_device *dev)
{
	if (!test_dev && !strncmp(dev->name, "mlx_hw", 6))
		test_dev = dev;
	return 0;
}

static void test_remove(struct ibx_device *dev, void *data)
{
	if (dev == test_dev)
		test_dev = NULL;
}

static struct ibx_client test_client = {
	.name = "ibx_mad_test",
	.add = test_add,
	.remove = test_remove,
};

static void send_handler(struct ibx_mad_agent *agent,
			 struct ibx_mad_send *send)
{
	struct state *s = agent->context;

	if (!send->context) {		/* a reply: nobody waits for it */
		ibx_mad_free_send(send);
		return;
	}
	s->done_status = send->status;
	s->done_sends = send->sends;
	complete(&s->done);
}

static void reply(struct ibx_mad_agent *agent, struct ibx_mad_recv *r)
{
	struct ibx_mad_send *rsp = ibx_mad_alloc_send(agent, GFP_KERNEL);

	if (!rsp)
		return;
	rsp->mad = *r->mad;
	rsp->mad.hdr.method = IBX_MGMT_METHOD_GET_RESP;
	rsp->ah_attr = r->ah_attr;
	rsp->remote_qpn = r->src_qp;
	if (ibx_mad_post_send(rsp))
		ibx_mad_free_send(rsp);
}

static void recv_handler(struct ibx_mad_agent *agent, struct ibx_mad_recv *r)
{
	struct state *s = agent->context;
	const struct ibx_mad_hdr *h = &r->mad->hdr;

	if (h->mgmt_class == IBX_MGMT_CLASS_CM) {
		/* REJ (IBA 12.6.7): offsets from the CM payload. */
		if (h->attr_id == cpu_to_be16(0x0012) &&
		    be32_to_cpup((__be32 *)(r->mad->data + 4)) == s->comm_id) {
			s->rej_remote_id = s->comm_id;
			s->rej_msg = r->mad->data[8] >> 6;
			s->rej_reason = be16_to_cpup((__be16 *)(r->mad->data + 10));
			s->got_rej = true;
			complete(&s->recvd);
		}
		return;
	}
	if (h->method == IBX_MGMT_METHOD_GET) {
		atomic_inc(&s->gets);
		if (s->respond)
			reply(agent, r);
		return;
	}
	if (h->method == IBX_MGMT_METHOD_SEND)
		atomic_inc(&s->sends);
	s->last = *r->mad;
	s->last_src_qp = r->src_qp;
	s->last_sgid = r->sgid;
	s->matched = r->send;
	complete(&s->recvd);
}

static struct ibx_mad_send *new_send(struct ibx_mad_agent *agent,
				     struct state *s, u8 method,
				     const union ibx_gid *dgid)
{
	struct ibx_mad_send *send = ibx_mad_alloc_send(agent, GFP_KERNEL);
	int i;

	if (!send)
		return NULL;
	send->mad.hdr.base_version = IBX_MAD_BASE_VERSION;
	send->mad.hdr.mgmt_class = agent->mgmt_class;
	send->mad.hdr.class_version = agent->class_version;
	send->mad.hdr.method = method;
	send->mad.hdr.tid = ibx_mad_next_tid(agent);
	send->mad.hdr.attr_id = cpu_to_be16(0xff00);
	for (i = 0; i < sizeof(send->mad.data); i++)
		send->mad.data[i] = i ^ 0x5a;
	send->context = s;
	if (ibx_mad_init_ah_attr(s->dev, 1, 1, dgid, &send->ah_attr)) {
		ibx_mad_free_send(send);
		return NULL;
	}
	return send;
}

/* Posts @send and waits for its send handler (5 s safety net). */
static int post_wait(struct state *s, struct ibx_mad_send *send)
{
	int ret;

	reinit_completion(&s->done);
	ret = ibx_mad_post_send(send);
	if (ret)
		return ret;
	if (!wait_for_completion_timeout(&s->done, 10 * HZ))
		return -EAGAIN;
	return 0;
}

static void loopback_tests(struct state *s)
{
	struct ibx_mad_counters c0, c1;
	struct ibx_mad_agent *agent, *dup;
	struct ibx_mad_send *send;
	int ret, gets;

	agent = ibx_mad_register_agent(s->dev, 1, TEST_CLASS, TEST_VERSION,
				       recv_handler, send_handler, s);
	if (!CHECK(!IS_ERR(agent), "register_agent", "%ld", PTR_ERR(agent)))
		return;
	dup = ibx_mad_register_agent(s->dev, 1, TEST_CLASS, TEST_VERSION,
				     recv_handler, send_handler, s);
	CHECK(PTR_ERR(dup) == -EBUSY, "register_dup_busy", "%ld", PTR_ERR(dup));
	if (!IS_ERR(dup))
		ibx_mad_unregister_agent(dup);

	/* A plain Send to our own QP1. */
	send = new_send(agent, s, IBX_MGMT_METHOD_SEND, &s->gid);
	if (!CHECK(send, "alloc_send", "no send"))
		goto out;
	reinit_completion(&s->recvd);
	ret = post_wait(s, send);
	CHECK(!ret && s->done_status == 0 && s->done_sends == 1, "send_status",
	      "ret %d status %d sends %u", ret, s->done_status, s->done_sends);
	ret = wait_for_completion_timeout(&s->recvd, 10 * HZ) ? 0 : -ETIMEDOUT;
	CHECK(!ret && !memcmp(&s->last, &send->mad, IBX_MAD_SIZE) &&
	      s->last_src_qp == 1 && !memcmp(&s->last_sgid, &s->gid, 16) &&
	      !s->matched, "send_loopback",
	      "ret %d src_qp %u", ret, s->last_src_qp);

	/* A Get answered by the agent itself: TID-matched response. */
	s->respond = true;
	send->mad.hdr.method = IBX_MGMT_METHOD_GET;
	send->mad.hdr.tid = ibx_mad_next_tid(agent);
	send->timeout_ms = 2000;
	send->retries = 2;
	reinit_completion(&s->recvd);
	ret = post_wait(s, send);
	CHECK(!ret && s->done_status == 0 && s->done_sends == 1,
	      "response_completes", "ret %d status %d sends %u", ret,
	      s->done_status, s->done_sends);
	CHECK(wait_for_completion_timeout(&s->recvd, 10 * HZ) &&
	      s->matched == send &&
	      s->last.hdr.method == IBX_MGMT_METHOD_GET_RESP &&
	      s->last.hdr.tid == send->mad.hdr.tid, "response_matched",
	      "matched %p method 0x%x", s->matched, s->last.hdr.method);

	/* A Get nobody answers: 1 + 2 sends, then -ETIMEDOUT. */
	s->respond = false;
	gets = atomic_read(&s->gets);
	ibx_mad_get_counters(s->dev, 1, &c0);
	send->mad.hdr.tid = ibx_mad_next_tid(agent);
	send->timeout_ms = 100;
	send->retries = 2;
	ret = post_wait(s, send);
	ibx_mad_get_counters(s->dev, 1, &c1);
	CHECK(!ret && s->done_status == -ETIMEDOUT && s->done_sends == 3,
	      "timeout_retries", "ret %d status %d sends %u", ret,
	      s->done_status, s->done_sends);
	CHECK(atomic_read(&s->gets) - gets == 3 &&
	      c1.retries - c0.retries == 2 && c1.timeouts - c0.timeouts == 1,
	      "timeout_counted", "gets %d retries %llu timeouts %llu",
	      atomic_read(&s->gets) - gets, c1.retries - c0.retries,
	      c1.timeouts - c0.timeouts);

	/* Cancel a request waiting for its response. */
	send->mad.hdr.tid = ibx_mad_next_tid(agent);
	send->timeout_ms = 5000;
	send->retries = 5;
	reinit_completion(&s->done);
	ret = ibx_mad_post_send(send);
	if (!ret) {
		msleep(50);	/* let it reach the wait; either way it ends */
		ibx_mad_cancel_send(send);
		ret = wait_for_completion_timeout(&s->done, 10 * HZ) ? 0 :
			-ETIMEDOUT;
	}
	CHECK(!ret && s->done_status == -ECANCELED && s->done_sends == 1,
	      "cancel", "ret %d status %d sends %u", ret, s->done_status,
	      s->done_sends);

	/*
	 * A bad base version and a MAD of a class nobody claims (the CM's
	 * is ibx_rdma_cm's now): dropped, counted.
	 */
	ibx_mad_get_counters(s->dev, 1, &c0);
	send->mad.hdr.base_version = 2;
	send->timeout_ms = 0;
	ret = post_wait(s, send);
	send->mad.hdr.base_version = IBX_MAD_BASE_VERSION;
	send->mad.hdr.mgmt_class = UNCLAIMED_CLASS;
	send->mad.hdr.method = IBX_MGMT_METHOD_SEND;
	ret = ret ? ret : post_wait(s, send);
	/* Both were received once their sends completed (loopback order). */
	msleep(100);
	ibx_mad_get_counters(s->dev, 1, &c1);
	CHECK(!ret && c1.rcvd_bad - c0.rcvd_bad == 1 &&
	      c1.unclaimed - c0.unclaimed == 1, "bad_and_unclaimed",
	      "ret %d bad %llu unclaimed %llu", ret,
	      c1.rcvd_bad - c0.rcvd_bad, c1.unclaimed - c0.unclaimed);
	ibx_mad_free_send(send);
out:
	ibx_mad_unregister_agent(agent);
	report(true, "unregister", NULL);
}

static int __init mad_test_init(void)
{
	struct state *s;
	size_t len;
	int ret;

	ret = ibx_register_client(&test_client);
	if (ret)
		return ret;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s || !test_dev) {
		report(false, "setup", "no memory or no mlx_hw device");
		goto out;
	}
	s->dev = test_dev;
	atomic_set(&s->gets, 0);
	atomic_set(&s->sends, 0);
	init_completion(&s->recvd);
	init_completion(&s->done);
	if (!CHECK(!ibx_get_gid(s->dev, 1, 1, &s->gid, NULL), "gid", "no GID 1"))
		goto out;
	loopback_tests(s);
out:
	kfree(s);
	len = strlen(result);
	snprintf(result + len, sizeof(result) - len, "passed %u failed %u\n",
		 passed, failed);
	pr_info("passed %u failed %u\n", passed, failed);
	return 0;
}

static void __exit mad_test_exit(void)
{
	ibx_unregister_client(&test_client);
}

module_init(mad_test_init);
module_exit(mad_test_exit);
MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("tests of the ibx MAD layer");
