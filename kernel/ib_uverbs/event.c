// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * event.c - async events and completion channels (stubs).
 */
#include <linux/module.h>
#include "ibx_core.h"

void ibx_cq_completion(struct ibx_cq *cq)
{
}
EXPORT_SYMBOL_GPL(ibx_cq_completion);

void ibx_cq_event(struct ibx_cq *cq, enum ibx_event_type type)
{
}
EXPORT_SYMBOL_GPL(ibx_cq_event);

void ibx_qp_event(struct ibx_qp *qp, enum ibx_event_type type)
{
}
EXPORT_SYMBOL_GPL(ibx_qp_event);

void ibx_srq_event(struct ibx_srq *srq, enum ibx_event_type type)
{
}
EXPORT_SYMBOL_GPL(ibx_srq_event);

void ibx_port_event(struct ibx_device *dev, u32 port, enum ibx_event_type type)
{
}
EXPORT_SYMBOL_GPL(ibx_port_event);
