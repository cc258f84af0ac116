#!/usr/bin/env python3
"""nl_hold.py DEV NQP - holds a context with one PD, CQ and MR and NQP UD
QPs on DEV (through pyverbs, so on whatever libibverbs is loaded), prints
"ready" and waits until stdin closes; then exits, freeing everything."""
import sys
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.qp import QP, QPCap, QPInitAttr
import pyverbs.enums as e

ctx = Context(name=sys.argv[1])
pd = PD(ctx)
cq = CQ(ctx, 16)
mr = MR(pd, 8192, e.IBV_ACCESS_LOCAL_WRITE)
cap = QPCap(max_send_wr=1, max_recv_wr=1, max_send_sge=1, max_recv_sge=1)
attr = QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq, cap=cap)
qps = [QP(pd, attr) for _ in range(int(sys.argv[2]))]
print("ready", " ".join(str(q.qp_num) for q in qps), flush=True)
sys.stdin.read()
