"""Read the parent's environment (its API keys): /proc/<pid>/environ of every process in
view, this process's own environment, and the parent's through /proc/self/../."""
import os
SECRET = "{SECRET}"
if SECRET in repr(dict(os.environ)):
    print("ESCAPED: the secret is in the environment")
for pid in [p for p in os.listdir("/proc") if p.isdigit()] + [str(os.getppid()), "{HOST_PID}"]:
    for name in ("environ", "cmdline"):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as fh:
                if SECRET.encode() in fh.read():
                    print(f"ESCAPED: the secret in /proc/{pid}/{name}")
        except OSError:
            pass
