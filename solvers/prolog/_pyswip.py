"""The pyswip transport: calls ``scir_bridge:invoke/3`` through libswipl's foreign interface.

The embedded SWI-Prolog is started as ``import pyswip`` starts it (libswipl, initialised with
pyswip's arguments), directly when libswipl can be located (:func:`swipl_location`), else by
importing pyswip; we then use the C functions of the library (our own ctypes prototypes, so
pyswip's are untouched) to build the argument
terms from wire data, open one query on the fixed predicate and read the answer back.
Wire data is built from ``str`` (-> atom, as janus does), ``int``, ``float`` and ``list``.

Not thread-safe by itself: SWI-Prolog embedded through pyswip runs one query at a time, so
every call holds a process-wide lock (and attaches a Prolog engine to a new Python thread).
"""

from __future__ import annotations

import ctypes
import sys
import threading
from pathlib import Path
from typing import Any

from solvers.errors import ConfigError, SolverError

_PL_ATOM, _PL_INTEGER, _PL_FLOAT, _PL_STRING, _PL_NIL, _PL_LIST_PAIR = 2, 3, 5, 6, 8, 10
_REP_UTF8 = 0x00100000
_CVT_ATOM, _CVT_STRING = 0x1, 0x2
_PL_Q_NODEBUG, _PL_Q_CATCH_EXCEPTION = 0x04, 0x08

_term = ctypes.c_size_t
_ptr = ctypes.c_void_p
_PROTOTYPES: dict[str, tuple[Any, list[Any]]] = {
    "PL_open_foreign_frame": (ctypes.c_size_t, []),
    "PL_discard_foreign_frame": (None, [ctypes.c_size_t]),
    "PL_new_term_ref": (_term, []),
    "PL_new_term_refs": (_term, [ctypes.c_int]),
    "PL_copy_term_ref": (_term, [_term]),
    "PL_put_chars": (ctypes.c_int, [_term, ctypes.c_int, ctypes.c_size_t, ctypes.c_char_p]),
    "PL_put_int64": (ctypes.c_int, [_term, ctypes.c_int64]),
    "PL_put_float": (ctypes.c_int, [_term, ctypes.c_double]),
    "PL_put_nil": (ctypes.c_int, [_term]),
    "PL_cons_list": (ctypes.c_int, [_term, _term, _term]),
    "PL_predicate": (_ptr, [ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]),
    "PL_open_query": (_ptr, [_ptr, ctypes.c_int, _ptr, _term]),
    "PL_next_solution": (ctypes.c_int, [_ptr]),
    "PL_cut_query": (ctypes.c_int, [_ptr]),
    "PL_exception": (_term, [_ptr]),
    "PL_term_type": (ctypes.c_int, [_term]),
    "PL_get_nchars": (
        ctypes.c_int,
        [_term, ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_char_p), ctypes.c_uint],
    ),
    "PL_get_int64": (ctypes.c_int, [_term, ctypes.POINTER(ctypes.c_int64)]),
    "PL_get_float": (ctypes.c_int, [_term, ctypes.POINTER(ctypes.c_double)]),
    "PL_get_list": (ctypes.c_int, [_term, _term, _term]),
    "PL_get_nil": (ctypes.c_int, [_term]),
    "PL_thread_self": (ctypes.c_int, []),
    "PL_thread_attach_engine": (ctypes.c_int, [_ptr]),
    "PL_thread_destroy_engine": (ctypes.c_int, []),
}

_LOCK = threading.RLock()


def _libswipl() -> Any:
    """libswipl, loaded and initialised: pyswip's when pyswip is imported already, else
    started directly (:func:`_start_directly`; importing pyswip costs 50-70 ms, most of a
    short ILP run's start-up), else by importing pyswip (which initialises Prolog)."""
    if "pyswip" not in sys.modules:
        lib = _start_directly()
        if lib is not None:
            return lib
    try:
        from pyswip import core
    except Exception as exc:  # ImportError, or pyswip failing to find libswipl
        raise ConfigError(f"pyswip is not usable: {exc}") from exc
    return core._lib


def _start_directly() -> Any:
    """libswipl loaded with ctypes and initialised as pyswip does (``-q --nosignals
    --home=...``), or None when it cannot be located (:func:`swipl_location`) or started.
    pyswip imported later in the process finds Prolog initialised and uses it."""
    located = swipl_location()
    if located is None:
        return None
    library, home = located
    try:
        lib = ctypes.CDLL(library, mode=ctypes.RTLD_GLOBAL)
        args = [b"./", b"-q", b"--nosignals", f"--home={home}".encode()]
        argv = (ctypes.c_char_p * len(args))(*args)
        lib.PL_initialise.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        lib.PL_initialise.restype = ctypes.c_int
        if not lib.PL_initialise(len(args), argv):
            return None
    except (OSError, AttributeError):
        return None
    return lib


def swipl_location() -> tuple[str, str] | None:
    """(path of libswipl, SWI-Prolog's home) as pyswip finds them: from ``LIBSWIPL_PATH``
    and ``SWI_HOME_DIR`` when both are set, else from ``swipl --dump-runtime-variables``
    (PLLIBSWIPL, PLBASE), whose answer is cached per swipl executable (path, size and
    modification time) in the toolkit's cache folder (``swipl.json``); None when swipl is
    not on PATH or does not say."""
    import json
    import os
    import shutil
    import subprocess

    from solvers import resources

    library, home = os.environ.get("LIBSWIPL_PATH"), os.environ.get("SWI_HOME_DIR")
    if library and home:
        return library, home
    found = shutil.which("swipl")
    if found is None:
        return None
    try:
        executable = os.path.realpath(found)
        info = os.stat(executable)
    except OSError:
        return None
    key = f"{executable}:{info.st_size}:{info.st_mtime_ns}"
    cache = resources.cache_dir("prolog") / "swipl.json"
    try:
        cached = json.loads(cache.read_text(encoding="utf-8"))
        if cached.get("key") == key and os.path.exists(cached["library"]):
            return cached["library"], cached["home"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    try:
        out = subprocess.run(
            [executable, "--dump-runtime-variables"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    values = {}
    for line in out.splitlines():
        name, sep, value = line.partition("=")
        if sep:
            values[name.strip()] = value.strip().rstrip(";").strip('"')
    library, home = values.get("PLLIBSWIPL"), values.get("PLBASE")
    if not library or not home or not os.path.exists(library):
        return None
    try:  # best effort: a read-only home only costs the subprocess next time
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"key": key, "library": library, "home": home}), encoding="utf-8")
        os.replace(tmp, cache)
    except OSError:
        pass
    return library, home


class PyswipTransport:
    """Runs bridge operations in the SWI-Prolog that pyswip embeds in this process."""

    name = "pyswip"

    def __init__(self, bridge_file: Path) -> None:
        lib = _libswipl()
        self._f: dict[str, Any] = {}
        for fname, (restype, argtypes) in _PROTOTYPES.items():
            fn = lib[fname]  # a fresh function object: pyswip's stay as they are
            fn.restype, fn.argtypes = restype, argtypes
            self._f[fname] = fn
        with _LOCK:
            attached = self._attach()
            use_module = self._f["PL_predicate"](b"use_module", 1, b"system")
            self._invoke_pred = self._f["PL_predicate"](b"invoke", 3, b"scir_bridge")
            try:
                if not self._call(use_module, [str(bridge_file)], want_result=False):
                    raise ConfigError(f"could not load {bridge_file} into SWI-Prolog (pyswip)")
            finally:
                self._detach(attached)

    def _attach(self) -> bool:
        """Give this thread a Prolog engine if it has none; True if one was attached."""
        if self._f["PL_thread_self"]() != -1:
            return False
        if self._f["PL_thread_attach_engine"](None) < 0:
            raise SolverError("could not attach a Prolog engine to this thread")
        return True

    def _detach(self, attached: bool) -> None:
        """Release an engine attached for one call (threads may end without telling us)."""
        if attached:
            self._f["PL_thread_destroy_engine"]()

    def invoke(self, op: str, args: list) -> Any:
        """Call ``scir_bridge:invoke(op, args, Result)``; return ``Result`` as Python data."""
        with _LOCK:
            attached = self._attach()
            try:
                result = self._call(self._invoke_pred, [op, args], want_result=True)
            finally:
                self._detach(attached)
        if result is None:
            raise SolverError(f"Prolog bridge operation {op!r} failed unexpectedly")
        return result

    def _call(self, pred: Any, args: list, *, want_result: bool) -> Any:
        f = self._f
        fid = f["PL_open_foreign_frame"]()
        try:
            n = len(args) + (1 if want_result else 0)
            t0 = f["PL_new_term_refs"](n)
            for k, value in enumerate(args):
                self._put(t0 + k, value)
            qid = f["PL_open_query"](None, _PL_Q_NODEBUG | _PL_Q_CATCH_EXCEPTION, pred, t0)
            try:
                if not f["PL_next_solution"](qid):
                    if f["PL_exception"](qid):
                        raise SolverError("uncaught Prolog exception in the bridge")
                    return None
                return self._get(t0 + n - 1) if want_result else True
            finally:
                f["PL_cut_query"](qid)
        finally:
            f["PL_discard_foreign_frame"](fid)

    def _put(self, t: int, value: Any) -> None:
        f = self._f
        if isinstance(value, bool) or value is None:
            raise SolverError(f"cannot send {value!r} over the bridge")
        if isinstance(value, str):
            data = value.encode("utf-8")
            ok = f["PL_put_chars"](t, _PL_ATOM | _REP_UTF8, len(data), data)
        elif isinstance(value, int):
            ok = f["PL_put_int64"](t, value)
        elif isinstance(value, float):
            ok = f["PL_put_float"](t, value)
        elif isinstance(value, (list, tuple)):
            ok = f["PL_put_nil"](t)
            head = f["PL_new_term_ref"]()
            for item in reversed(value):
                self._put(head, item)
                ok = ok and f["PL_cons_list"](t, head, t)
        else:
            raise SolverError(f"cannot send a {type(value).__name__} over the bridge")
        if not ok:
            raise SolverError("SWI-Prolog could not build an argument (out of memory?)")

    def _get(self, t: int) -> Any:
        f = self._f
        kind = f["PL_term_type"](t)
        if kind in (_PL_ATOM, _PL_STRING):
            size = ctypes.c_size_t()
            chars = ctypes.c_char_p()
            if not f["PL_get_nchars"](
                t, ctypes.byref(size), ctypes.byref(chars), _CVT_ATOM | _CVT_STRING | _REP_UTF8
            ):
                raise SolverError("could not read text from Prolog")
            return ctypes.string_at(chars, size.value).decode("utf-8")
        if kind == _PL_INTEGER:
            value = ctypes.c_int64()
            if not f["PL_get_int64"](t, ctypes.byref(value)):
                raise SolverError("integer from Prolog does not fit in 64 bits")
            return value.value
        if kind == _PL_FLOAT:
            real = ctypes.c_double()
            if not f["PL_get_float"](t, ctypes.byref(real)):
                raise SolverError("could not read a float from Prolog")
            return real.value
        if kind == _PL_NIL:
            return []
        if kind == _PL_LIST_PAIR:
            items = []
            rest = f["PL_copy_term_ref"](t)
            head = f["PL_new_term_ref"]()
            while f["PL_get_list"](rest, head, rest):
                items.append(self._get(head))
            if not f["PL_get_nil"](rest):
                raise SolverError("partial list in bridge data")
            return items
        raise SolverError(f"unexpected Prolog data (type {kind}) from the bridge")
