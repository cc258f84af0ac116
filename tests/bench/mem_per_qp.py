#!/usr/bin/env python3
# mem_per_qp.py DEVICE [COUNT] - what an RC QP and its CQ cost the system,
# for scripts/bench: COUNT (default 2000) CQs of 256 CQEs are created, then
# one RC QP (128 send + 128 receive WRs, 2 SGEs) on each, and the system's
# memory is read before, between and after.  Prints "metric value" lines in
# KiB per object:
#   mem_per_rc_qp_KiB      MemFree drop per QP and its CQ, all included
#   mem_{cq,qp}_total_KiB  MemFree drop per CQ, per QP
#   mem_{cq,qp}_rings_KiB  the object's mappings of the uverbs device
#                          (rings and doorbell pages the library mmaps)
#   mem_{cq,qp}_vmalloc_KiB VmallocUsed (the rings' kernel side, other
#                          vmalloc'd state)
#   mem_{cq,qp}_slab_KiB   Slab (the kernel's objects: driver and core)
#   mem_{cq,qp}_user_KiB   the process's anonymous memory (the library's
#                          and provider's own structures, pyverbs' objects)
#   mem_{cq,qp}_pt_KiB     page tables
# Fewer objects measure the per-CPU page caches instead (100 gave anything
# from 0 to 90 KiB for the same stack), hence thousands; caches are dropped
# before each reading.
import os
import sys

from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr
import pyverbs.enums as e


def reading():
    with open('/proc/sys/vm/drop_caches', 'w') as f:
        f.write('3\n')
    r = {}
    for line in open('/proc/meminfo'):
        k, v = line.split(':')
        if k in ('MemFree', 'Slab', 'VmallocUsed', 'PageTables'):
            r[k] = int(v.split()[0])
    for line in open('/proc/self/status'):
        if line.startswith('RssAnon:'):
            r['user'] = int(line.split()[1])
    # Mappings of the uverbs command fd: the rings and doorbell pages.
    r['rings'] = 0
    size = None
    for line in open('/proc/self/smaps'):
        f = line.split()
        if '-' in f[0] and len(f) >= 5 and ':' not in f[0]:
            size = 'uverbs' in line
        elif f[0] == 'Size:' and size:
            r['rings'] += int(f[1])
    return r


def report(kind, before, after, n):
    # MemFree falls as memory is used; the others grow.
    print('mem_%s_total_KiB %.2f' % (kind, (before['MemFree'] - after['MemFree']) / n))
    for key, name in (('rings', 'rings'), ('VmallocUsed', 'vmalloc'),
                      ('Slab', 'slab'), ('user', 'user'), ('PageTables', 'pt')):
        print('mem_%s_%s_KiB %.2f' % (kind, name, (after[key] - before[key]) / n))


def main():
    dev = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    ctx = Context(name=dev)
    pd = PD(ctx)
    cap = QPCap(max_send_wr=128, max_recv_wr=128, max_send_sge=2, max_recv_sge=2)
    r0 = reading()
    cqs = [CQ(ctx, 256) for _ in range(n)]
    r1 = reading()
    qps = [QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap))
           for cq in cqs]
    r2 = reading()
    print('mem_per_rc_qp_KiB %.2f' % ((r0['MemFree'] - r2['MemFree']) / n))
    report('cq', r0, r1, n)
    report('qp', r1, r2, n)
    del qps, cqs
    sys.stdout.flush()
    os._exit(0)


main()
