#!/usr/bin/env python3
"""nl_netns.py INDEX visible|hidden MODE - raw NETLINK_RDMA answers about
device INDEX from this process's network namespace: visible, every command
names it; hidden (another namespace's, exclusive mode), every one answers
EINVAL as for an unknown index, and a dump leaves it out.  Then SET and
SYS_SET with bad input get upstream's errnos (MODE: the netns mode now,
shared or exclusive).  One line per check; exits 1 if any failed."""
import errno
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "core"))
from nl_probe import (Nl, check, u32, attr, string, get_u, NLM_F_REQUEST,  # noqa: E402
                      NLM_F_DUMP, A_DEV_INDEX, A_PORT_INDEX, A_CHARDEV_TYPE)
import nl_probe  # noqa: E402

CMD_GET, CMD_SET, CMD_PORT_GET, CMD_SYS_SET, CMD_RES_GET = 1, 2, 5, 7, 9
CMD_GET_CHARDEV = 15
A_NETNS_MODE, A_NET_NS_FD = 66, 68


def main():
    index, want, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    nl = Nl()
    e = 0 if want == "visible" else errno.EINVAL
    name = errno.errorcode.get(e, "0")
    dev = u32(A_DEV_INDEX, index)
    for what, cmd, attrs in (
            ("GET", CMD_GET, dev),
            ("PORT_GET", CMD_PORT_GET, dev + u32(A_PORT_INDEX, 1)),
            ("RES_GET", CMD_RES_GET, dev),
            ("GET_CHARDEV uverbs", CMD_GET_CHARDEV,
             dev + string(A_CHARDEV_TYPE, "uverbs"))):
        _, err = nl.request(cmd, attrs)
        check(err == e, f"{what} of index {index}: {err} (want {name})")
    msgs, err = nl.request(CMD_GET, flags=NLM_F_REQUEST | NLM_F_DUMP)
    listed = [get_u(m, A_DEV_INDEX, "I") for m in msgs]
    check(err == 0 and (index in listed) == (want == "visible"),
          f"GET dump {'lists' if want == 'visible' else 'leaves out'} index {index}: {listed}")

    # SET: a bad fd is EBADF, a file that is no namespace EINVAL (once the
    # device is found); a hidden device EINVAL first.
    null = os.open("/dev/null", os.O_RDONLY)
    for what, fd, ok_err in (("a closed fd", 1000, errno.EBADF),
                             ("/dev/null", null, errno.EINVAL)):
        _, err = nl.request(CMD_SET, dev + u32(A_NET_NS_FD, fd))
        w = ok_err if want == "visible" else errno.EINVAL
        check(err == w, f"SET netns {what}: {err} (want {errno.errorcode[w]})")
    os.close(null)
    _, err = nl.request(CMD_SET, dev)
    w = errno.EOPNOTSUPP if want == "visible" else errno.EINVAL
    check(err == w, f"SET without an attribute it knows: {err} (want {errno.errorcode[w]})")

    # SYS_SET: a mode other than 0 and 1, or none, is EINVAL; setting the
    # current mode again is fine.
    _, err = nl.request(CMD_SYS_SET, attr(A_NETNS_MODE, b"\x02"))
    check(err == errno.EINVAL, f"SYS_SET netns mode 2: {err}")
    _, err = nl.request(CMD_SYS_SET, b"")
    check(err == errno.EINVAL, f"SYS_SET without the mode: {err}")
    cur = b"\x01" if mode == "shared" else b"\x00"
    _, err = nl.request(CMD_SYS_SET, attr(A_NETNS_MODE, cur))
    check(err == 0, f"SYS_SET to the mode it is in ({mode}): {err}")
    return 1 if nl_probe.failed else 0


if __name__ == "__main__":
    sys.exit(main())
