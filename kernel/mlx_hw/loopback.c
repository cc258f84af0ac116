// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * loopback.c - the transport between mlx_hw devices of this host: a packet
 * whose destination GID is a GID of any mlx_hw device goes straight to the
 * responder of the destination QP, and its response comes straight back.
 * Packets to other GIDs are lost (the RoCEv2 wire is future work), which
 * RC turns into retries and finally IBV_WC_RETRY_EXC_ERR.
 */
#include "mlx_hw.h"

void mlx_hw_loopback_xmit(struct mlx_hw_dev *src, struct mlx_hw_pkt *pkt,
			  struct mlx_hw_resp *resp)
{
	struct mlx_hw_dev *dev, *dst = NULL;
	struct mlx_hw_qp *qp = NULL;

	resp->kind = MLX_HW_RESP_NONE;
	/* A port without carrier sends nothing (RC retries, then fails). */
	if (!READ_ONCE(src->port_active))
		return;
	mlx_hw_count(src, MLX_HW_CNT_TX_PACKETS, 1);
	mlx_hw_count(src, MLX_HW_CNT_TX_BYTES, pkt->paylen);

	spin_lock(&mlx_hw_devices_lock);
	list_for_each_entry(dev, &mlx_hw_devices, list) {
		if (!READ_ONCE(dev->port_active) ||
		    !mlx_hw_dev_has_gid(dev, &pkt->dgid))
			continue;
		dst = dev;
		/* The QP reference keeps the device alive (destroy waits). */
		qp = mlx_hw_qp_get(dev, pkt->dest_qpn);
		break;
	}
	spin_unlock(&mlx_hw_devices_lock);
	if (!qp)
		return;

	mlx_hw_count(dst, MLX_HW_CNT_RX_PACKETS, 1);
	mlx_hw_count(dst, MLX_HW_CNT_RX_BYTES, pkt->paylen);
	mutex_lock(&qp->rq_lock);
	mlx_hw_responder(qp, pkt, resp);
	mutex_unlock(&qp->rq_lock);
	mlx_hw_qp_put(qp);
}
