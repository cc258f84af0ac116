// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * trace.c - which QP the dynamic-debug trace of the engine's state
 * machines shows (mlx_hw_qp_dbg(), docs/prm.md 13).  Every layer traces,
 * so the knob is a leaf of its own.
 */
#include <linux/moduleparam.h>
#include "mlx_hw.h"

unsigned int mlx_hw_trace_qpn;
module_param_named(trace_qpn, mlx_hw_trace_qpn, uint, 0644);
MODULE_PARM_DESC(trace_qpn, "QP number the engine's debug trace shows (0: all)");
