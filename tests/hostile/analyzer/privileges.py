"""Gain privileges: become root, make a new user namespace (ctypes unshare), mount, read the
kernel's keyrings."""
import os
try:
    os.setuid(0)
    print("ESCAPED: setuid(0)")
except OSError:
    pass
if os.getuid() == 0 or os.geteuid() == 0:
    print("ESCAPED: running as root")
try:
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x10000000) == 0:                  # CLONE_NEWUSER
        print("ESCAPED: a new user namespace")
    if libc.mount(b"none", b"/tmp", b"tmpfs", 0, None) == 0:
        print("ESCAPED: mounted")
except (OSError, AttributeError):
    pass
try:
    with open("/proc/self/status") as fh:
        caps = [l.split()[1] for l in fh if l.startswith(("CapEff", "CapPrm"))]
    if any(int(c, 16) for c in caps):
        print("ESCAPED: capabilities", caps)
except OSError:
    pass
