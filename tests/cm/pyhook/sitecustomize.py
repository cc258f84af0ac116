# Loaded by Python at start-up when this directory is on PYTHONPATH (see
# tests/cm/pyverbs-rdmacm.vmtest).  rdma-core's RDMA-CM tests run each side
# in a forked child and treat a child killed by a signal (negative exit
# code) as a pass, so this records, in the file named by IBX_CHILD_LOG,
# every child started ("start PID TEST") and every exit status the parent
# collects ("exit PID CODE TEST").  The vmtest fails unless each started
# child has an "exit ... 0" line.
#
# The one "bad flow" test (multicast traffic after leaving the group must
# not arrive) passes when its children are still waiting after 0.6 s and the
# parent terminates them: on a slow guest they have not even joined by
# then.  So a child also records "left PID" once it has left the group, and
# the parent's terminate() waits for that (and one second more for a
# datagram that must not come) before it sends SIGTERM ("term PID TEST").
import os
import time

_log = os.environ.get('IBX_CHILD_LOG')


def _test_id():
    # The unittest.TestCase whose method is starting or joining the child.
    import sys
    import unittest
    f = sys._getframe(1)
    while f is not None:
        s = f.f_locals.get('self')
        if isinstance(s, unittest.TestCase):
            return s.id()
        f = f.f_back
    return '?'


def _write(line):
    fd = os.open(_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (line + '\n').encode())
    finally:
        os.close(fd)


def _wrap_leave():
    # Inherited by the children forked after this: tests.rdmacm_utils is
    # imported by the test module before any child starts.
    import sys
    m = sys.modules.get('tests.rdmacm_utils')
    if m is None or getattr(m, '_ibx_wrapped', False):
        return
    m._ibx_wrapped = True
    for cls in list(vars(m).values()):
        if isinstance(cls, type) and 'leave_multicast' in vars(cls):
            cls.leave_multicast = _recording_leave(cls.leave_multicast)


def _recording_leave(leave):
    def hooked_leave(self, *a, **kw):
        r = leave(self, *a, **kw)
        _write('left %d' % os.getpid())
        return r
    return hooked_leave


def _wait_left(pid, seconds=30):
    want = 'left %d\n' % pid
    for _ in range(seconds * 10):
        with open(_log) as f:
            if want in f.read():
                return True
        time.sleep(0.1)
    return False


def _install():
    import multiprocessing.process as mpp
    import multiprocessing.popen_fork as pf

    start = mpp.BaseProcess.start
    poll = pf.Popen.poll

    terminate = mpp.BaseProcess.terminate

    def hooked_start(self):
        _wrap_leave()
        start(self)
        _write('start %d %s' % (self.pid, _test_id()))

    def hooked_poll(self, flag=os.WNOHANG):
        before = self.returncode
        rc = poll(self, flag)
        if before is None and rc is not None:
            _write('exit %d %d %s' % (self.pid, rc, _test_id()))
        return rc

    def hooked_terminate(self):
        if self.is_alive() and _wait_left(self.pid):
            time.sleep(1)
        if self.is_alive():
            _write('term %d %s' % (self.pid, _test_id()))
        terminate(self)

    mpp.BaseProcess.start = hooked_start
    mpp.BaseProcess.terminate = hooked_terminate
    pf.Popen.poll = hooked_poll


if _log:
    _install()
