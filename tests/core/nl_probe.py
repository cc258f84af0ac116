#!/usr/bin/env python3
"""nl_probe.py DEV | --count-qp-dump INDEX - raw NETLINK_RDMA checks of the RDMA_NL_NLDEV answers.

Asserts what GET, GET_CHARDEV and SYS_GET return for device DEV (its index
from sysfs), and that malformed or unsupported requests get the errno
ib_core gives (the socket still answers afterwards).  Prints one line per
check; exits 1 if any failed.
"""
import errno
import os
import socket
import struct
import sys

NETLINK_RDMA = 20
RDMA_NL_NLDEV = 5
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 1, 4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
# enum rdma_nldev_command
CMD_GET, CMD_SYS_GET, CMD_RES_QP_GET, CMD_GET_CHARDEV = 1, 6, 10, 15
# enum rdma_nldev_attr
A_DEV_INDEX, A_DEV_NAME, A_PORT_INDEX = 1, 2, 3
A_NODE_GUID, A_DEV_NODE_TYPE = 6, 14
A_NETNS_MODE, A_DEV_PROTOCOL = 66, 67
A_CHARDEV_TYPE, A_CHARDEV_NAME, A_CHARDEV_ABI, A_CHARDEV = 69, 70, 71, 72
A_COPY_ON_FORK = 93
A_RES_QP = 19

failed = 0


def check(cond, what):
    global failed
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failed += 1


def attr(atype, payload):
    n = 4 + len(payload)
    return struct.pack("=HH", n, atype) + payload + b"\0" * ((4 - n % 4) % 4)


def u32(atype, v):
    return attr(atype, struct.pack("=I", v))


def string(atype, s):
    return attr(atype, s.encode() + b"\0")


class Nl:
    def __init__(self):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_RDMA)
        self.s.bind((0, 0))
        self.s.settimeout(10)
        self.seq = 100

    def send_raw(self, data):
        self.s.sendto(data, (0, 0))

    def request(self, cmd, attrs=b"", flags=NLM_F_REQUEST | NLM_F_ACK,
                client=RDMA_NL_NLDEV):
        self.seq += 1
        hdr = struct.pack("=IHHII", 16 + len(attrs), (client << 10) + cmd,
                          flags, self.seq, 0)
        self.send_raw(hdr + attrs)
        return self.replies()

    def replies(self):
        """Messages of the current seq up to the ack/DONE: (msgs, errno)."""
        msgs = []
        while True:
            data = self.s.recv(65536)
            off = 0
            while off + 16 <= len(data):
                ln, typ, flags, seq, _ = struct.unpack_from("=IHHII", data, off)
                body = data[off + 16:off + ln]
                off += (ln + 3) & ~3
                if seq != self.seq:
                    continue
                if typ == NLMSG_ERROR:
                    return msgs, -struct.unpack_from("=i", body)[0]
                if typ == NLMSG_DONE:	# carries the dump's errno
                    return msgs, -struct.unpack_from("=i", body)[0]
                msgs.append(parse(body))


def parse(body):
    out, off = {}, 0
    while off + 4 <= len(body):
        ln, typ = struct.unpack_from("=HH", body, off)
        if ln < 4:
            break
        out[typ & 0x3fff] = body[off + 4:off + ln]
        off += (ln + 3) & ~3
    return out


def get_u(a, t, fmt):
    return struct.unpack("=" + fmt, a[t])[0] if t in a else None


def get_s(a, t):
    return a[t].split(b"\0")[0].decode() if t in a else None


def count_qp_dump(index):
    """RES_QP_GET dump of one device: prints messages and QP entries."""
    nl = Nl()
    msgs, err = nl.request(CMD_RES_QP_GET, u32(A_DEV_INDEX, index),
                           flags=NLM_F_REQUEST | NLM_F_DUMP)
    entries = 0
    for m in msgs:
        table, off = m.get(A_RES_QP, b""), 0
        while off + 4 <= len(table):
            ln = struct.unpack_from("=H", table, off)[0]
            entries += 1
            off += (ln + 3) & ~3
    print(f"err {err} messages {len(msgs)} entries {entries}")
    return 1 if err else 0


def main():
    if sys.argv[1] == "--count-qp-dump":
        return count_qp_dump(int(sys.argv[2]))
    dev = sys.argv[1]
    uv = [d for d in os.listdir("/sys/class/infiniband_verbs")
          if d.startswith("uverbs") and
          open(f"/sys/class/infiniband_verbs/{d}/ibdev").read().strip() == dev]
    check(len(uv) == 1, f"{dev} has one uverbs device: {uv}")
    index = int(uv[0][len("uverbs"):])
    nl = Nl()

    # GET dump lists the device with its sysfs identity.
    msgs, err = nl.request(CMD_GET, flags=NLM_F_REQUEST | NLM_F_DUMP)
    mine = [m for m in msgs if get_s(m, A_DEV_NAME) == dev]
    check(err == 0 and len(mine) == 1, f"GET dump lists {dev} once (err {err})")
    m = mine[0] if mine else {}
    guid = open(f"/sys/class/infiniband/{dev}/node_guid").read().strip()
    check(get_u(m, A_DEV_INDEX, "I") == index, "GET: index is the uverbs N")
    check(get_u(m, A_PORT_INDEX, "I") == 1, "GET: one port")
    check(get_u(m, A_NODE_GUID, "Q") == int(guid.replace(":", ""), 16),
          f"GET: node guid {guid} in host order")
    check(get_u(m, A_DEV_NODE_TYPE, "B") == 1, "GET: node type CA")
    check(get_s(m, A_DEV_PROTOCOL) == "roce", "GET: protocol roce")

    msgs, err = nl.request(CMD_GET, u32(A_DEV_INDEX, index))
    check(err == 0 and len(msgs) == 1 and get_s(msgs[0], A_DEV_NAME) == dev,
          "GET doit by index")
    check(nl.request(CMD_GET, u32(A_DEV_INDEX, 9999))[1] == errno.EINVAL,
          "GET of an unknown index: EINVAL")

    # GET_CHARDEV "uverbs": the device node rdma-core would open.
    msgs, err = nl.request(CMD_GET_CHARDEV, u32(A_DEV_INDEX, index) +
                           string(A_CHARDEV_TYPE, "uverbs"))
    check(err == 0 and len(msgs) == 1, f"GET_CHARDEV uverbs (err {err})")
    m = msgs[0] if msgs else {}
    rdev = os.stat(f"/dev/infiniband/uverbs{index}").st_rdev
    enc = get_u(m, A_CHARDEV, "Q") or 0
    # huge_encode_dev(): minor low byte, major, then the minor's high bits.
    major, minor = (enc & 0xfff00) >> 8, (enc & 0xff) | ((enc >> 12) & 0xfff00)
    check((major, minor) == (os.major(rdev), os.minor(rdev)),
          f"GET_CHARDEV: dev_t {major}:{minor} is /dev/infiniband/uverbs{index}")
    check(get_s(m, A_CHARDEV_NAME) == f"uverbs{index}", "GET_CHARDEV: name")
    abi = int(open(f"/sys/class/infiniband_verbs/uverbs{index}/abi_version").read())
    check(get_u(m, A_CHARDEV_ABI, "Q") == abi, f"GET_CHARDEV: abi {abi} as sysfs")

    e = nl.request(CMD_GET_CHARDEV, string(A_CHARDEV_TYPE, "no_such_abi"))[1]
    check(e == errno.EOPNOTSUPP, f"GET_CHARDEV of an unknown name: EOPNOTSUPP ({e})")
    e = nl.request(CMD_GET_CHARDEV, string(A_CHARDEV_TYPE, "uverbs"))[1]
    check(e == errno.EOPNOTSUPP, f"GET_CHARDEV uverbs with no device: EOPNOTSUPP ({e})")
    e = nl.request(CMD_GET_CHARDEV, u32(A_DEV_INDEX, index))[1]
    check(e == errno.EINVAL, f"GET_CHARDEV without a type: EINVAL ({e})")
    e = nl.request(CMD_GET_CHARDEV, u32(A_DEV_INDEX, index) +
                   string(A_CHARDEV_TYPE, "uverbs") + u32(A_PORT_INDEX, 1))[1]
    check(e == errno.EINVAL, f"GET_CHARDEV uverbs with a port: EINVAL ({e})")

    msgs, err = nl.request(CMD_SYS_GET)
    m = msgs[0] if msgs else {}
    check(err == 0 and get_u(m, A_NETNS_MODE, "B") == 1 and
          get_u(m, A_COPY_ON_FORK, "B") == 1, "SYS_GET: netns shared, copy-on-fork")

    # Malformed and unsupported requests.
    for what, attrs in [
            
            ("DEV_NAME without NUL", attr(A_DEV_NAME, b"mlx_")),
            ("DEV_NAME too long", string(A_DEV_NAME, "x" * 200)),
            ("attribute longer than the message",
             struct.pack("=HH", 200, A_DEV_INDEX) + b"\0" * 4)]:
        e = nl.request(CMD_GET, attrs)[1]
        check(e == errno.EINVAL, f"GET with {what}: EINVAL ({e})")
    e = nl.request(CMD_GET, attr(A_DEV_INDEX, b"\1\0"))[1]
    check(e == errno.ERANGE, f"GET with a 2-byte DEV_INDEX: ERANGE ({e})")
    e = nl.request(0, b"", client=1)[1]
    check(e == errno.EINVAL, f"client RDMA_NL_IWCM: EINVAL ({e})")
    e = nl.request(8)[1]
    check(e == errno.EINVAL, f"NLDEV op 8 (unused): EINVAL ({e})")
    e = nl.request(1000 & 0x3ff)[1]
    check(e == errno.EINVAL, f"NLDEV op 1000: EINVAL ({e})")
    e = nl.request(CMD_RES_QP_GET, u32(A_DEV_INDEX, index))[1]
    check(e == errno.EINVAL, f"RES_QP_GET without NLM_F_DUMP: EINVAL ({e})")
    e = nl.request(CMD_RES_QP_GET, flags=NLM_F_REQUEST | NLM_F_DUMP)[1]
    check(e == errno.EINVAL, f"RES_QP_GET dump without a device: EINVAL ({e})")

    # Truncated headers are dropped without an answer; the socket lives on.
    nl.send_raw(b"\x08\x00\x00\x00\x01\x14")
    nl.send_raw(struct.pack("=IHHII", 64, (RDMA_NL_NLDEV << 10) + CMD_GET,
                            NLM_F_REQUEST | NLM_F_ACK, 1, 0))
    msgs, err = nl.request(CMD_GET, u32(A_DEV_INDEX, index))
    check(err == 0 and len(msgs) == 1, "after truncated messages GET still answers")
    # Many dumps back to back (each a full device walk).
    ok = all(nl.request(CMD_GET, flags=NLM_F_REQUEST | NLM_F_DUMP)[1] == 0
             for _ in range(200))
    check(ok, "200 GET dumps in a row")

    print(f"nl_probe: {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
