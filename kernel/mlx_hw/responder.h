/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * responder.h - what the responder (resp.c) uses of the receive queue side
 * (resp_rq.c: receive WQEs from the RQ or an SRQ, their completions, the
 * XRC SRQ a request names) and of its sending side (resp_tx.c); direct.c
 * uses the latter too.
 */
#ifndef MLX_HW_RESPONDER_H
#define MLX_HW_RESPONDER_H

#include "mlx_hw.h"

int mlx_hw_resp_get_rwqe(struct mlx_hw_qp *qp);
void mlx_hw_recv_cqe(struct mlx_hw_qp *qp, struct mlx_hw_cqe *cqe,
		     bool solicited);
void mlx_hw_recv_complete(struct mlx_hw_qp *qp, u8 status, u8 opcode);
enum mlx_hw_resp_state mlx_hw_resp_too_long(struct mlx_hw_qp *qp);
void mlx_hw_resp_abort_msg(struct mlx_hw_qp *qp);
bool mlx_hw_resp_xrc_srq(struct mlx_hw_qp *qp, const struct mlx_hw_rx *rx);
void mlx_hw_resp_put_xrc_srq(struct mlx_hw_qp *qp);

/* ack_guard.c */
void mlx_hw_ackg_reset(struct mlx_hw_qp *qp);
void mlx_hw_ackg_took(struct mlx_hw_qp *qp, u32 psn, u32 npsn, bool end,
		      bool rd_atomic);
void mlx_hw_ackg_gap(struct mlx_hw_qp *qp, u32 expected, u32 psn, bool nak);
void mlx_hw_ackg_duplicate(struct mlx_hw_qp *qp, u32 psn);
u32 mlx_hw_ackg_psn(struct mlx_hw_qp *qp, u32 want, u32 floor, u32 *msn);

/* resp_tx.c */
void mlx_hw_resp_send_ack(struct mlx_hw_qp *qp, u8 syndrome, u32 psn);
void mlx_hw_resp_flush_ack(struct mlx_hw_qp *qp);
void mlx_hw_resp_send_atomic_ack(struct mlx_hw_qp *qp, u32 psn, u64 orig);
bool mlx_hw_resp_read_send(struct mlx_hw_qp *qp, unsigned int *budget);
enum mlx_hw_resp_state mlx_hw_resp_duplicate(struct mlx_hw_qp *qp,
					     const struct mlx_hw_rx *rx);
bool mlx_hw_resp_read_restart_queued(struct mlx_hw_qp *qp);
void mlx_hw_direct_count(struct mlx_hw_dev *src, struct mlx_hw_dev *dst,
			 const struct mlx_hw_rx *rx, bool ack);

#endif /* MLX_HW_RESPONDER_H */
