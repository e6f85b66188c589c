"""Write outside the working folder: the run folder, the checkout, through readline's history
functions (C code), and by renaming a file out of the folder."""
import os
for path in ("{CANARY}/pwned", "{CHECKOUT}/pwned", "/usr/pwned", "/pwned"):
    try:
        with open(path, "w") as fh:
            fh.write("x")
        if path.startswith(("{CANARY}", "{CHECKOUT}")):
            print("ESCAPED: wrote", path)
    except OSError:
        pass
try:
    import readline
    readline.add_history("x")
    readline.write_history_file("{CANARY}/history")
    print("ESCAPED: readline wrote into the run folder")
except (OSError, ImportError):
    pass
try:
    open("moved", "w").write("x")
    os.rename("moved", "{CANARY}/moved")
    print("ESCAPED: renamed a file into the run folder")
except OSError:
    pass
