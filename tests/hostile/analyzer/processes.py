"""Start a process in its own session that outlives the analysis (the sandbox must end it
with the analysis), through a module loaded under another name
(_posixsubprocess as x._posixsubprocess) and through os.fork."""
import os
import sys
argv = [sys.executable, "-c", "import time; time.sleep(60)", "{TOKEN}"]
try:
    import importlib.machinery
    import importlib.util
    spec = importlib.util.find_spec("_posixsubprocess")
    if spec is not None and spec.origin and spec.origin not in ("built-in", "frozen"):
        loader = importlib.machinery.ExtensionFileLoader("x._posixsubprocess", spec.origin)
        mod = loader.create_module(importlib.machinery.ModuleSpec("x._posixsubprocess", loader,
                                                                  origin=spec.origin))
    else:
        import _posixsubprocess as mod
    print("loaded", mod)
except Exception as exc:  # noqa: BLE001 - any failure is the sandbox working
    print("no _posixsubprocess:", type(exc).__name__)
try:
    pid = os.fork()
    if pid == 0:
        os.setsid()
        os.execv(sys.executable, argv)
    print("forked", pid)
except OSError as exc:
    print("no fork:", exc)
