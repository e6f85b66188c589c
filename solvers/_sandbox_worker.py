"""The sandbox worker process: ``python -m solvers._sandbox_worker --memory-mb N``.

Speaks length-prefixed JSON over its original stdin/stdout (4-byte big-endian length, then
UTF-8 JSON); file descriptors 0 and 1 are then pointed at /dev/null and stderr, so nothing
Prolog or Python prints can corrupt the protocol. Limits: RLIMIT_AS (address space) and no
core files, set before SWI-Prolog starts; Prolog's stack limit; per request the time,
inference and answer-size limits of the bridge's run operation.

Requests: ``{"op": "run", "declared": [[name, arity], ...], "clauses": [wire, ...],
"goal": text, "bindings": [[name, wire], ...], "options": [[key, value], ...]}``.
Replies: ``{"ok": true, "answers": [[[name, wire], ...], ...], "inferences": n,
"seconds": s}`` or ``{"ok": false, "error": ClassName, "message": text, "line": n|null,
"column": n|null}``. The first frame the worker sends is ``{"ready": true, ...}``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import struct
import sys
from typing import Any

HEADER = struct.Struct(">I")
MAX_REQUEST_BYTES = 64 << 20


def encode_frame(obj: Any) -> bytes:
    """One protocol frame: length header plus UTF-8 JSON."""
    data = json.dumps(obj, ensure_ascii=False).encode("utf-8")
    return HEADER.pack(len(data)) + data


def _read_exact(fd: int, n: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def read_frame(fd: int) -> Any:
    """Read one frame (blocking); ``None`` at end of input."""
    header = _read_exact(fd, HEADER.size)
    if header is None:
        return None
    (size,) = HEADER.unpack(header)
    if size > MAX_REQUEST_BYTES:
        raise ValueError(f"request of {size} bytes exceeds {MAX_REQUEST_BYTES}")
    data = _read_exact(fd, size)
    if data is None:
        return None
    return json.loads(data.decode("utf-8"))


def write_frame(fd: int, obj: Any) -> None:
    """Write one frame."""
    data = encode_frame(obj)
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _set_limits(memory_mb: int) -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    limit = memory_mb << 20
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _error_reply(exc: Exception) -> dict[str, Any]:
    from solvers.errors import ScirError

    if isinstance(exc, ScirError):
        return {
            "ok": False,
            "error": type(exc).__name__,
            "message": exc.message,
            "line": exc.line,
            "column": exc.column,
        }
    if isinstance(exc, MemoryError):
        return {
            "ok": False,
            "error": "SolverResourceLimit",
            "message": "the worker ran out of memory",
            "line": None,
            "column": None,
        }
    return {
        "ok": False,
        "error": "SolverError",
        "message": f"{type(exc).__name__}: {exc}",
        "line": None,
        "column": None,
    }


def _run(engine: Any, request: dict[str, Any], max_reply_bytes: int) -> dict[str, Any]:
    with engine.module("scir_sandbox_") as module:
        engine.invoke("sandbox_load", [module.name, request["declared"], request["clauses"]])
        answers, inferences, seconds = module.run_wire(
            request["goal"], request["bindings"], request["options"]
        )
    reply = {"ok": True, "answers": answers, "inferences": inferences, "seconds": seconds}
    size = len(json.dumps(reply, ensure_ascii=False).encode("utf-8"))
    if size > max_reply_bytes:
        return {
            "ok": False,
            "error": "SolverResourceLimit",
            "message": f"answers too large: {size} bytes of JSON (limit {max_reply_bytes})",
            "line": None,
            "column": None,
        }
    return reply


def main(argv: list[str] | None = None) -> int:
    """Serve requests until stdin closes."""
    parser = argparse.ArgumentParser(prog="python -m solvers._sandbox_worker")
    parser.add_argument("--memory-mb", type=int, required=True)
    parser.add_argument("--stack-mb", type=int, required=True)
    parser.add_argument("--max-reply-bytes", type=int, default=32 << 20)
    args = parser.parse_args(argv)

    proto_in, proto_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    _set_limits(args.memory_mb)

    from solvers.prolog import Engine

    try:
        engine = Engine()
        engine.load_support("sandbox.pl")
        engine.invoke("sandbox_setup", [args.stack_mb << 20])
    except Exception as exc:  # reported to the parent, which raises a ConfigError
        write_frame(proto_out, {"ready": False, "message": f"{type(exc).__name__}: {exc}"})
        return 1
    write_frame(
        proto_out,
        {
            "ready": True,
            "bridge": engine.bridge,
            "pid": os.getpid(),
            "swi_version": list(engine.swi_version),
        },
    )
    while True:
        request = read_frame(proto_in)
        if request is None:
            return 0
        try:
            if request.get("op") != "run":
                raise ValueError(f"unknown request {request.get('op')!r}")
            reply = _run(engine, request, args.max_reply_bytes)
        except Exception as exc:  # every failure goes back to the parent as a typed reply
            reply = _error_reply(exc)
        write_frame(proto_out, reply)


if __name__ == "__main__":
    sys.exit(main())
