"""Read files outside the task's data: a gold answer in the run folder, the checkout, the
home folder, the system's password files."""
for path in ("{CANARY}/gold.txt", "{CHECKOUT}/README.md", "{CHECKOUT}/pyproject.toml",
             "/root/.bashrc", "/etc/shadow", "/etc/passwd", "/etc/hostname"):
    try:
        with open(path, "rb") as fh:
            fh.read(1)
        print("ESCAPED: read", path)
    except OSError:
        pass
import os
# folders made to hold the runtime's mount points may be listed; their real content may not
for folder, real in (("{CANARY}", "gold.txt"), ("{CHECKOUT}", "README.md"), ("/root", ".bashrc"),
                     ("/etc", "hostname"), ("/home", None), ("/var", None)):
    try:
        names = os.listdir(folder)
    except OSError:
        continue
    if real is None or real in names:
        print("ESCAPED: listed", folder, names[:5])
