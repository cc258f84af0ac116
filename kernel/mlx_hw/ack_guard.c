// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ack_guard.c - which PSN a responder's ACK names (docs/wire.md 14.3.3).
 * A leaf of the responder: resp.c tells it what each request did, resp_tx.c
 * asks it before each ACK.  With qp->recv_side owned.
 *
 * An ACK for a PSN acknowledges every request before it (IBA 9.7.5.1), so
 * a responder may always name an older PSN than the newest it took; it
 * names the newest unless that is unsafe.  It is unsafe to name the last
 * PSN of a message that the requester has gone back over and not yet sent
 * again: Linux's rxe then moves its expected PSN past the message without
 * completing it, ignores the NAKs that follow, and its next ACK timeout
 * resends the message as a SEND of 0 bytes and shifts every PSN after it
 * by one.  Two ways lead there:
 *
 * - after a sequence NAK for PSN N, packets from N on that the requester
 *   sent before the NAK reached it (reordered behind the one that showed
 *   the gap) are taken while it is sending them again from N;
 * - a duplicate (the requester went back, after a NAK or its timer) is
 *   answered with the newest PSN taken, far beyond the duplicate.
 *
 * So, during a NAK's guard, an ACK names no message end newer than the
 * newest duplicate since the NAK (what the resend has provably reached),
 * and the ACK for a duplicate names no message end newer than the
 * duplicate.  It names the newest PSN before such an end that ends no
 * message and is no READ's or atomic's, with the MSN of the messages done
 * up to it, or the newest PSN known to be safe.  The guard lasts until a
 * packet at or past the fence is taken, the fence being the lowest PSN
 * received and dropped beyond the gap since the last NAK: that copy was
 * dropped, so the one taken was sent after the requester went back, and
 * so was everything before it (a resend sends each PSN once).  Without
 * reordering the fence is the first PSN after the lost ones, so the guard
 * covers only the lost PSNs themselves: plain loss is not slowed.
 */
#include "mlx_hw.h"
#include "responder.h"

static bool mlx_hw_ackg_test(const unsigned long *map, u32 psn)
{
	return test_bit(psn % MLX_HW_ACKG_PSNS, map);
}

static void mlx_hw_ackg_assign(unsigned long *map, u32 psn, bool on)
{
	if (on)
		__set_bit(psn % MLX_HW_ACKG_PSNS, map);
	else
		__clear_bit(psn % MLX_HW_ACKG_PSNS, map);
}

/* Forgets everything (RESET, creation, destroy). */
void mlx_hw_ackg_reset(struct mlx_hw_qp *qp)
{
	memset(&qp->resp.ackg, 0, sizeof(qp->resp.ackg));
}

/*
 * A request was taken: @npsn PSNs from @psn (a READ takes one per response
 * packet), the last of them ending a message if @end, all a READ's or an
 * atomic's if @rd_atomic.  One taken at or past the fence ends the guard.
 */
void mlx_hw_ackg_took(struct mlx_hw_qp *qp, u32 psn, u32 npsn, bool end,
		      bool rd_atomic)
{
	struct mlx_hw_ack_guard *g = &qp->resp.ackg;
	u32 i, n = min_t(u32, npsn, MLX_HW_ACKG_PSNS), last;

	last = mlx_hw_psn_add(psn, npsn - 1);
	for (i = 0; i < n; i++) {
		u32 p = mlx_hw_psn_add(last, -i);

		mlx_hw_ackg_assign(g->msg_end, p, end && !i);
		mlx_hw_ackg_assign(g->rd_atomic, p, rd_atomic);
	}
	if (g->active && mlx_hw_psn_diff(last, g->fence) >= 0)
		g->active = false;
}

/*
 * A sequence NAK for @expected goes out, answering a packet of @psn beyond
 * the gap; or, with the NAK already out, such a packet is dropped.  A NAK
 * during a guard keeps the guard's NAK PSN and what its resend has shown,
 * but starts the fence anew: the requester may go back a second time, to
 * @expected, and a packet dropped before this NAK may have been sent before
 * that second time (by the first resend), the ones dropped after it not.
 */
void mlx_hw_ackg_gap(struct mlx_hw_qp *qp, u32 expected, u32 psn, bool nak)
{
	struct mlx_hw_ack_guard *g = &qp->resp.ackg;

	if (!nak) {
		if (g->active && mlx_hw_psn_diff(psn, g->fence) < 0)
			g->fence = psn;
		return;
	}
	g->fence = psn;
	if (g->active)
		return;
	g->active = true;
	g->nak_psn = expected;
	g->resent = mlx_hw_psn_add(expected, MLX_HW_PSN_MASK);
}

/* A duplicate of @psn came: the requester has sent it again since. */
void mlx_hw_ackg_duplicate(struct mlx_hw_qp *qp, u32 psn)
{
	struct mlx_hw_ack_guard *g = &qp->resp.ackg;

	if (g->active && mlx_hw_psn_diff(psn, g->nak_psn) >= 0 &&
	    mlx_hw_psn_diff(psn, g->resent) > 0)
		g->resent = psn;
}

/*
 * The PSN an ACK meant for @want may name, @floor (<= @want) the newest
 * one known to be safe outside a guard; *@msn is lowered by the messages
 * it then leaves unacknowledged.  Counts the ACKs it lowers.
 */
u32 mlx_hw_ackg_psn(struct mlx_hw_qp *qp, u32 want, u32 floor, u32 *msn)
{
	struct mlx_hw_ack_guard *g = &qp->resp.ackg;
	u32 expected = qp->resp.psn, psn = want, ends = 0;

	if (g->active) {
		floor = mlx_hw_psn_add(g->nak_psn, MLX_HW_PSN_MASK);
		if (mlx_hw_psn_diff(g->resent, floor) > 0)
			floor = g->resent;
	}
	if (mlx_hw_psn_diff(want, floor) <= 0)
		return want;
	while (mlx_hw_psn_diff(psn, floor) > 0) {
		/* Only the last MLX_HW_ACKG_PSNS PSNs taken are known. */
		if (mlx_hw_psn_diff(expected, psn) > MLX_HW_ACKG_PSNS) {
			psn = floor;
			break;
		}
		if (!mlx_hw_ackg_test(g->msg_end, psn) &&
		    !mlx_hw_ackg_test(g->rd_atomic, psn))
			break;
		ends += mlx_hw_ackg_test(g->msg_end, psn);
		psn = mlx_hw_psn_add(psn, MLX_HW_PSN_MASK);
	}
	if (psn == want)
		return want;
	*msn = (*msn - ends) & 0xffffff;
	mlx_hw_count(to_mdev(qp->ibx.dev), MLX_HW_CNT_ACKS_LOWERED, 1);
	return psn;
}
