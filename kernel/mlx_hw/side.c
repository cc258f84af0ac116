// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * side.c - who runs a side of a QP: its send side (requester and
 * completer) or its receive side (responder).  Any context may offer to
 * run a side.  The first takes it (owns it); the others only mark it to
 * run again, and the owner runs it once more before it lets go.  So a side
 * is never run by two contexts at once, and no context ever waits for
 * another on the data path: no lock, nothing that sleeps, the way rxe's
 * tasks exclude each other.
 *
 * The control path (modify, destroy) pauses a side: nobody takes it from
 * then on, and the pauser waits for the owner to let go.  Work offered
 * while it is paused is remembered; resuming says so, and the caller
 * schedules the QP.  Control paths exclude each other (qp->ctrl_lock), so
 * one pause bit is enough.
 *
 * A leaf: it calls nothing back.
 */
#include <linux/atomic.h>
#include <linux/wait_bit.h>
#include "mlx_hw.h"

#define MLX_HW_SIDE_OWNED	(1 << 0)	/* a context runs the side */
#define MLX_HW_SIDE_AGAIN	(1 << 1)	/* offered while owned */
#define MLX_HW_SIDE_PAUSED	(1 << 2)	/* the control path holds it */
#define MLX_HW_SIDE_PENDING	(1 << 3)	/* offered while paused */

void mlx_hw_side_init(struct mlx_hw_side *s)
{
	atomic_set(&s->state, 0);
}

/*
 * Offers work to @s: a paused side remembers it for the resume, an owned
 * side is run once more by its owner, and a free side is taken if @take.
 * Returns the state before.  Fully ordered: a new owner sees what the
 * previous owner and the control path wrote (their releasing atomics are
 * fully ordered too).
 */
static int mlx_hw_side_offer(struct mlx_hw_side *s, bool take)
{
	int old = atomic_read(&s->state), new;

	do {
		if (old & MLX_HW_SIDE_PAUSED)
			new = old | MLX_HW_SIDE_PENDING;
		else if (old & MLX_HW_SIDE_OWNED)
			new = old | MLX_HW_SIDE_AGAIN;
		else if (take)
			new = old | MLX_HW_SIDE_OWNED;
		else
			return old;
	} while (!atomic_try_cmpxchg(&s->state, &old, new));
	return old;
}

/*
 * Offers to run @s: true if the caller now owns it, and must run it and
 * then call mlx_hw_side_end() until that says stop.  Any context.
 */
bool mlx_hw_side_begin(struct mlx_hw_side *s)
{
	return !(mlx_hw_side_offer(s, true) &
		 (MLX_HW_SIDE_OWNED | MLX_HW_SIDE_PAUSED));
}

/*
 * Offers work to @s without taking it: true if a context owns it (it runs
 * the side once more) or the control path holds it (the resume reports
 * the work); false if nobody does, and the caller must see to a run.
 */
bool mlx_hw_side_again(struct mlx_hw_side *s)
{
	return mlx_hw_side_offer(s, false) &
	       (MLX_HW_SIDE_OWNED | MLX_HW_SIDE_PAUSED);
}

/*
 * The owner's run is over.  If work was offered meanwhile: with @keep the
 * caller stays the owner and runs the side again (true); without, it lets
 * go all the same and must schedule the QP (true), behind the others.
 * False: nothing was offered, and the side is let go.  A side paused
 * meanwhile is let go, its offers kept for the resume (false).
 */
bool mlx_hw_side_end(struct mlx_hw_side *s, bool keep)
{
	int old = atomic_read(&s->state), new;
	bool again;

	do {
		again = (old & MLX_HW_SIDE_AGAIN) && !(old & MLX_HW_SIDE_PAUSED);
		if (again && keep)
			new = old & ~MLX_HW_SIDE_AGAIN;
		else if (old & MLX_HW_SIDE_PAUSED)
			new = (old & ~(MLX_HW_SIDE_OWNED | MLX_HW_SIDE_AGAIN)) |
			      ((old & MLX_HW_SIDE_AGAIN) ? MLX_HW_SIDE_PENDING : 0);
		else
			new = old & ~(MLX_HW_SIDE_OWNED | MLX_HW_SIDE_AGAIN);
	} while (!atomic_try_cmpxchg(&s->state, &old, new));
	/* The cmpxchg ordered the side's state before the pauser's wake. */
	if (!(new & MLX_HW_SIDE_OWNED) && (new & MLX_HW_SIDE_PAUSED))
		wake_up_var(&s->state);
	return again;
}

/*
 * Takes @s from the data path: no context owns it when this returns, and
 * none will until mlx_hw_side_resume().  Process context; it waits for an
 * owner to finish its run (a budget's worth of work).
 */
void mlx_hw_side_pause(struct mlx_hw_side *s)
{
	might_sleep();
	atomic_or(MLX_HW_SIDE_PAUSED, &s->state);
	/* The pause bit before the owner check: pairs with end's cmpxchg. */
	smp_mb__after_atomic();
	wait_var_event(&s->state,
		       !(atomic_read(&s->state) & MLX_HW_SIDE_OWNED));
	/* The last owner's writes before ours: pairs with end's cmpxchg. */
	smp_mb();
}

/*
 * Gives @s back to the data path; true if work was offered while it was
 * paused (the caller schedules the QP).  Fully ordered: the next owner
 * sees what the control path changed.
 */
bool mlx_hw_side_resume(struct mlx_hw_side *s)
{
	return atomic_fetch_andnot(MLX_HW_SIDE_PAUSED | MLX_HW_SIDE_PENDING,
				   &s->state) & MLX_HW_SIDE_PENDING;
}

/* For assertions: whether some context owns @s (or it is paused). */
bool mlx_hw_side_held(struct mlx_hw_side *s)
{
	return atomic_read(&s->state) &
	       (MLX_HW_SIDE_OWNED | MLX_HW_SIDE_PAUSED);
}
