"""Signal the parent: os.kill, a pidfd (os.pidfd_open + signal.pidfd_send_signal, which raise
no checked audit event) and kill(-1). Signal 0 only tests permission, so a failed sandbox
does not take the test run down with it."""
import os
import signal
host = {HOST_PID}
try:
    os.kill(host, 0)
    if os.path.exists(f"/proc/{host}") and b"python" in open(f"/proc/{host}/cmdline", "rb").read():
        print("ESCAPED: os.kill reaches the parent")
except OSError:
    pass
try:
    fd = os.pidfd_open(host)
    signal.pidfd_send_signal(fd, 0)
    if b"python" in open(f"/proc/{host}/cmdline", "rb").read():
        print("ESCAPED: a pidfd of the parent")
except OSError:
    pass
try:
    os.kill(os.getppid(), 0)
    if os.getppid() == host:
        print("ESCAPED: the parent is our parent")
except OSError:
    pass
