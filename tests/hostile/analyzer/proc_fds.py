"""Find the run store through /proc/<pid>/fd of any process in view (the parent holds it
open), then open it by that path."""
import os
for pid in [p for p in os.listdir("/proc") if p.isdigit()] + ["{HOST_PID}"]:
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            if "sqlite" in target or "{CANARY}" in target:
                print("ESCAPED: found", target)
    except OSError:
        pass
try:
    open("{STORE}", "rb").read(16)
    print("ESCAPED: read the run store")
except OSError:
    pass
