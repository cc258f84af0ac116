// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * apm.c - Automatic Path Migration of connected QPs (IBA 17.2.8,
 * docs/wire.md 14.6): the alternate path, the migration state machine
 * (MIGRATED, REARM, ARMED), the BTH MigReq bit that carries it between the
 * two ends, and the migration itself, which the consumer asks for (modify
 * to MIGRATED), the requester makes when its retries on the primary path
 * run out, and the responder makes when the peer shows it has migrated.
 *
 * The paths and the state change in a path write section (model.h:
 * path_lock, path_seq): modify_qp, the completer, the service of a
 * migration the peer asked for.  recv.c compares a packet's source with
 * them in a read section.
 */
#include "mlx_hw.h"

/* The QP types with a path to a peer: RC, UC and both halves of XRC. */
static bool mlx_hw_qp_has_paths(u32 qp_type)
{
	return qp_type == IB_UVERBS_QPT_RC || qp_type == IB_UVERBS_QPT_UC ||
	       qp_type == IB_UVERBS_QPT_XRC_INI ||
	       qp_type == IB_UVERBS_QPT_XRC_TGT;
}

/* Resolves @path->av from @path->ah: 0, or -ENOENT if its GID is gone. */
static int mlx_hw_path_resolve(struct mlx_hw_qp *qp, struct mlx_hw_path *path)
{
	const struct ibx_ah_attr *ah = &path->ah;

	return mlx_hw_av_set(to_mdev(qp->ibx.dev), &path->av, ah->sgid_index,
			     &ah->dgid, ah->traffic_class, ah->hop_limit,
			     ah->flow_label, qp->ibx.qp_num, qp->dest_qpn, NULL);
}

static void mlx_hw_path_from_attr(struct mlx_hw_path *path,
				  const struct ibx_qp_attr *attr)
{
	path->ah = attr->alt_ah_attr;
	path->pkey_index = attr->alt_pkey_index;
	path->port = attr->alt_port_num;
	path->timeout = attr->alt_timeout & 0x1f;
}

/*
 * Puts the alternate path in the primary's place; in a path write
 * section.  After
 * a migration both are the same path (IBA 17.2.8) until the consumer
 * loads another.  An alternate path whose source GID has gone from the
 * table cannot be used: Path Migration Error, and the QP stays on its
 * primary path in REARM (the consumer loads a usable one and rearms).
 */
static bool mlx_hw_apm_switch(struct mlx_hw_qp *qp)
{
	/* ARMED, so an alternate path was loaded: qp->alt is there. */
	struct mlx_hw_path alt = *qp->alt;

	lockdep_assert_held(&qp->path_lock);
	if (mlx_hw_path_resolve(qp, &alt)) {
		mlx_hw_qp_dbg(qp, "apm: alternate path unusable\n");
		WRITE_ONCE(qp->mig_state, IBX_MIG_REARM);
		ibx_qp_event(&qp->ibx, IBX_EVENT_PATH_MIG_ERR);
		return false;
	}
	qp->ah = alt.ah;
	qp->av = alt.av;
	qp->pkey_index = alt.pkey_index;
	qp->port = alt.port;
	WRITE_ONCE(qp->timeout, alt.timeout);
	*qp->alt = alt;
	WRITE_ONCE(qp->mig_state, IBX_MIG_MIGRATED);
	mlx_hw_qp_dbg(qp, "apm: migrated\n");
	ibx_qp_event(&qp->ibx, IBX_EVENT_PATH_MIG);
	return true;
}

/*
 * The checks of a modify_qp that loads an alternate path or sets the
 * migration state, before anything changes.  The core has checked the
 * transition table and the value (MIGRATED or REARM).
 */
static int mlx_hw_apm_check_attr(struct mlx_hw_qp *qp,
				 const struct ibx_qp_attr *attr, u32 mask)
{
	struct mlx_hw_path alt = {};
	int next;

	if (!(mask & (IBX_QP_ALT_PATH | IBX_QP_PATH_MIG_STATE)))
		return 0;
	if (!mlx_hw_qp_has_paths(qp->ibx.qp_type))
		return -EINVAL;
	if (qp->alt)
		alt = *qp->alt;
	if (mask & IBX_QP_ALT_PATH) {
		if (attr->alt_port_num != 1 ||
		    attr->alt_ah_attr.sgid_index >= IBX_GID_TABLE_LEN)
			return -EINVAL;
		mlx_hw_path_from_attr(&alt, attr);
	}
	if (!(mask & IBX_QP_PATH_MIG_STATE))
		return 0;
	switch (attr->path_mig_state) {
	case IBX_MIG_REARM:
		/* There is nothing to arm without an alternate path. */
		return (qp->has_alt || (mask & IBX_QP_ALT_PATH)) ? 0 : -EINVAL;
	case IBX_MIG_MIGRATED:
		/*
		 * IBA 17.2.8: the consumer may migrate a QP only from ARMED
		 * and in RTS; anything else is an immediate error.
		 */
		next = (mask & IBX_QP_STATE) ? attr->qp_state :
					       READ_ONCE(qp->state);
		if (READ_ONCE(qp->mig_state) != IBX_MIG_ARMED ||
		    next != IBX_QPS_RTS)
			return -EINVAL;
		return mlx_hw_path_resolve(qp, &alt) ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
}

/*
 * mlx_hw_apm_check_attr(), and the alternate path's memory when this is
 * the first to load one (it stays until the QP is destroyed, even if a
 * later check fails); both sides paused.
 */
int mlx_hw_apm_check(struct mlx_hw_qp *qp, const struct ibx_qp_attr *attr,
		     u32 mask)
{
	struct mlx_hw_path *alt;
	int err = mlx_hw_apm_check_attr(qp, attr, mask);

	if (err || !(mask & IBX_QP_ALT_PATH) || qp->alt)
		return err;
	alt = kzalloc(sizeof(*alt), GFP_KERNEL);
	if (!alt)
		return -ENOMEM;
	/*
	 * Before has_alt can be set, in the path write section of
	 * mlx_hw_apm_modify(); readers check for NULL all the same.
	 */
	WRITE_ONCE(qp->alt, alt);
	return 0;
}

/* What a checked modify_qp changes here; both sides paused. */
void mlx_hw_apm_modify(struct mlx_hw_qp *qp, const struct ibx_qp_attr *attr,
		       u32 mask)
{
	mlx_hw_path_write_begin(qp);
	if (mask & IBX_QP_PKEY_INDEX)
		qp->pkey_index = attr->pkey_index;
	if (mask & IBX_QP_PORT)
		qp->port = attr->port_num;
	if (mask & IBX_QP_ALT_PATH) {	/* qp->alt is there: apm_check */
		mlx_hw_path_from_attr(qp->alt, attr);
		WRITE_ONCE(qp->has_alt, true);
	}
	/*
	 * A GID missing now may be back by the time of a migration, which
	 * resolves the path again: no error here (IBA 17.2.8 leaves stale
	 * alternate paths to the consumer).
	 */
	if (qp->has_alt && (mask & (IBX_QP_ALT_PATH | IBX_QP_DEST_QPN)))
		mlx_hw_path_resolve(qp, qp->alt);
	if (mask & IBX_QP_PATH_MIG_STATE) {
		if (attr->path_mig_state == IBX_MIG_MIGRATED) {
			mlx_hw_apm_switch(qp);
		} else {
			/* REARM: ARMED once a packet shows the peer rearmed. */
			clear_bit(MLX_HW_MIG_PEER, &qp->mig_flags);
			WRITE_ONCE(qp->mig_state, IBX_MIG_REARM);
		}
	}
	mlx_hw_path_write_end(qp);
}

/* RESET forgets the alternate path (IBA 10.3.1); both sides paused. */
void mlx_hw_apm_reset(struct mlx_hw_qp *qp)
{
	mlx_hw_path_write_begin(qp);
	WRITE_ONCE(qp->mig_state, IBX_MIG_MIGRATED);
	WRITE_ONCE(qp->has_alt, false);
	qp->mig_flags = 0;
	if (qp->alt)
		memset(qp->alt, 0, sizeof(*qp->alt));
	mlx_hw_path_write_end(qp);
}

/* Whether @sgid is the peer's GID of the primary path, or of the alternate. */
static void mlx_hw_apm_match(struct mlx_hw_qp *qp, const union ibx_gid *sgid,
			     bool *primary, bool *alt)
{
	const struct mlx_hw_path *path = READ_ONCE(qp->alt);
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&qp->path_seq);
		*primary = !memcmp(sgid, &qp->av.dgid, sizeof(*sgid));
		*alt = path && READ_ONCE(qp->has_alt) &&
		       !memcmp(sgid, &path->av.dgid, sizeof(*sgid));
	} while (read_seqcount_retry(&qp->path_seq, seq));
}

/*
 * A packet that passed the other checks of a connected QP: it must come
 * from the peer's address of the primary path or, while the QP is REARM
 * or ARMED, of the alternate one.  Then the receiving half of the state
 * machine: MigReq 0 (the peer is REARM or ARMED) arms a QP in REARM;
 * MigReq 1 on the alternate path (the peer migrated) makes an ARMED QP
 * follow, at its next service.  Any context: never sleeps.
 */
enum mlx_hw_counter mlx_hw_apm_rcv(struct mlx_hw_qp *qp,
				   const union ibx_gid *sgid, bool migreq)
{
	int mig = READ_ONCE(qp->mig_state);
	bool on_primary, on_alt;

	mlx_hw_apm_match(qp, sgid, &on_primary, &on_alt);
	on_alt &= mig != IBX_MIG_MIGRATED;
	if (!on_alt && !on_primary)
		return MLX_HW_CNT_DROP_ADDR;
	if (mig == IBX_MIG_REARM && !migreq) {
		if (cmpxchg(&qp->mig_state, IBX_MIG_REARM, IBX_MIG_ARMED) ==
		    IBX_MIG_REARM)
			mlx_hw_qp_dbg(qp, "apm: armed\n");
	} else if (mig == IBX_MIG_ARMED && migreq && on_alt) {
		set_bit(MLX_HW_MIG_PEER, &qp->mig_flags);
	}
	return 0;
}

/*
 * The migration the peer asked for (mlx_hw_apm_rcv), before the QP's
 * packets are processed, so that the answers take the new path.
 */
void mlx_hw_apm_service(struct mlx_hw_qp *qp)
{
	int state;

	if (!test_bit(MLX_HW_MIG_PEER, &qp->mig_flags))
		return;
	mlx_hw_path_write_begin(qp);
	state = READ_ONCE(qp->state);
	if (test_and_clear_bit(MLX_HW_MIG_PEER, &qp->mig_flags) &&
	    READ_ONCE(qp->mig_state) == IBX_MIG_ARMED &&
	    (state == IBX_QPS_RTR || state == IBX_QPS_RTS ||
	     state == IBX_QPS_SQD))
		mlx_hw_apm_switch(qp);
	mlx_hw_path_write_end(qp);
}

/*
 * The requester used up retry_cnt on the primary path; the send side
 * owned.  IBA 17.2.8: an ARMED QP then migrates and goes on over the
 * alternate path (true); otherwise the WQE fails with the retry error as
 * usual.
 */
bool mlx_hw_apm_retries_exhausted(struct mlx_hw_qp *qp)
{
	bool migrated = false;

	mlx_hw_side_assert_owned(&qp->send_side);
	if (READ_ONCE(qp->mig_state) != IBX_MIG_ARMED)
		return false;
	mlx_hw_path_write_begin(qp);
	if (READ_ONCE(qp->mig_state) == IBX_MIG_ARMED)
		migrated = mlx_hw_apm_switch(qp);
	mlx_hw_path_write_end(qp);
	return migrated;
}

/* The BTH MigReq bit of the QP's packets: 0 while REARM or ARMED. */
bool mlx_hw_apm_migreq(struct mlx_hw_qp *qp)
{
	return READ_ONCE(qp->mig_state) == IBX_MIG_MIGRATED;
}

/* ops->query_qp: the migration state and the paths as the QP has them. */
void mlx_hw_query_qp(struct ibx_qp *ibqp, struct ibx_qp_attr *attr)
{
	struct mlx_hw_qp *qp = to_mqp(ibqp);

	if (!mlx_hw_qp_has_paths(ibqp->qp_type))
		return;
	spin_lock_bh(&qp->path_lock);
	attr->path_mig_state = READ_ONCE(qp->mig_state);
	attr->ah_attr = qp->ah;
	attr->pkey_index = qp->pkey_index;
	attr->port_num = qp->port;
	attr->timeout = qp->timeout;
	if (qp->has_alt) {
		attr->alt_ah_attr = qp->alt->ah;
		attr->alt_pkey_index = qp->alt->pkey_index;
		attr->alt_port_num = qp->alt->port;
		attr->alt_timeout = qp->alt->timeout;
	}
	spin_unlock_bh(&qp->path_lock);
}
