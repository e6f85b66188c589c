"""A total deadline and a size cap for one HTTP attempt, enforced at the socket.

The ``openai`` client's timeouts (httpx) apply to each read, so a server sending one byte every
two seconds keeps a call alive forever. Here every socket read and write of an attempt gets at
most the time left until the attempt's deadline (connect, request, headers and body alike), and
the bytes received are counted against a cap; the limits are per thread (the sync client does
its I/O in the calling thread), set with :func:`attempt_limits` around one request.

Going over the deadline raises the HTTP library's ``ReadTimeout`` (the client reports an
``APITimeoutError``); going over the cap raises :class:`ResponseTooLarge`, which no layer retries.
The client asks for uncompressed responses (``Accept-Encoding: identity``) and refuses a
compressed one (:class:`ResponseRefused`), so the cap on received bytes is also a cap on the
body: a few kilobytes of gzip could otherwise decode to gigabytes.

Reads wait in slices of ``POLL`` seconds, so :func:`cancel_calls` (Ctrl-C in ``scir solve``)
ends every call in flight, in every thread, within about ``POLL`` seconds with
:class:`CallCancelled`; :func:`cancellable_sleep` is the waiting between retries that it also
ends.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

try:  # the openai client >= 3 is built on httpx2
    import httpcore2 as httpcore
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older openai clients: httpx
    import httpcore  # type: ignore[no-redef]
    import httpx  # type: ignore[no-redef]

__all__ = [
    "CallCancelled",
    "ResponseRefused",
    "ResponseTooLarge",
    "allow_calls",
    "attempt_limits",
    "cancel_calls",
    "cancellable_sleep",
    "guarded_client",
    "httpx",
]

POLL = 0.1  # seconds between two looks at the cancel flag in a read
_CANCEL = threading.Event()


class CallCancelled(Exception):
    """Every call in flight was cancelled (:func:`cancel_calls`, e.g. on Ctrl-C)."""

    def __init__(self) -> None:
        super().__init__("the call was cancelled")


def cancel_calls() -> None:
    """End every HTTP call in flight (and every wait between retries) in every thread."""
    _CANCEL.set()


def allow_calls() -> None:
    """Let calls run again after :func:`cancel_calls`."""
    _CANCEL.clear()


def cancellable_sleep(seconds: float) -> None:
    """Sleep, unless the calls are cancelled first (then CallCancelled)."""
    if _CANCEL.wait(max(0.0, seconds)):
        raise CallCancelled()


class ResponseRefused(Exception):
    """A response this client does not read (too large, compressed)."""


class ResponseTooLarge(ResponseRefused):
    """The server sent more bytes than the attempt's cap."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"response larger than {limit} bytes")
        self.limit = limit


def _refuse_compressed(response: Any) -> None:
    """Response hook: no decoding of bodies whose decoded size the byte cap cannot bound."""
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        raise ResponseRefused(
            f"the server sent a {encoding}-compressed body although asked for none"
        )


class _Limits(threading.local):
    deadline: float | None = None
    max_bytes: int | None = None
    received: int = 0


_LIMITS = _Limits()


@contextmanager
def attempt_limits(seconds: float, max_bytes: int) -> Iterator[None]:
    """Within the block, this thread's HTTP I/O ends ``seconds`` from now at the latest and
    receives at most ``max_bytes`` bytes."""
    _LIMITS.deadline = time.monotonic() + seconds
    _LIMITS.max_bytes = max_bytes
    _LIMITS.received = 0
    try:
        yield
    finally:
        _LIMITS.deadline = None
        _LIMITS.max_bytes = None
        _LIMITS.received = 0


def _remaining(
    timeout: float | None, error: type[Exception], until: float | None = None
) -> float | None:
    """The socket timeout to use now: the library's (or the time left until ``until``),
    clamped to the attempt's deadline; raises ``error`` when none is left."""
    now = time.monotonic()
    ends = [t for t in (_LIMITS.deadline, until) if t is not None]
    if timeout is not None:
        ends.append(now + timeout)
    if not ends:
        return None
    left = min(ends) - now
    if left <= 0:
        raise error("the attempt's total deadline has passed")
    return left


class _GuardedStream(httpcore.NetworkStream):
    """A network stream whose reads and writes respect the thread's attempt limits."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        until = None if timeout is None else time.monotonic() + timeout
        while True:
            if _CANCEL.is_set():
                raise CallCancelled()
            left = _remaining(None, httpcore.ReadTimeout, until)
            step = POLL if left is None else min(left, POLL)
            try:
                data = self._inner.read(max_bytes, step)
                break
            except httpcore.ReadTimeout:
                if left is not None and left <= POLL:
                    raise  # the deadline or the library's timeout: real
        if _LIMITS.max_bytes is not None:
            _LIMITS.received += len(data)
            if _LIMITS.received > _LIMITS.max_bytes:
                raise ResponseTooLarge(_LIMITS.max_bytes)
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _remaining(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> _GuardedStream:
        return _GuardedStream(
            self._inner.start_tls(
                ssl_context, server_hostname, _remaining(timeout, httpcore.ConnectTimeout)
            )
        )

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _GuardedBackend(httpcore.NetworkBackend):
    """Opens connections under the attempt's deadline and hands out guarded streams."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> Any:
        return _GuardedStream(
            self._inner.connect_tcp(
                host,
                port,
                _remaining(timeout, httpcore.ConnectTimeout),
                local_address,
                socket_options,
            )
        )

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> Any:  # pragma: no cover
        return _GuardedStream(
            self._inner.connect_unix_socket(
                path, _remaining(timeout, httpcore.ConnectTimeout), socket_options
            )
        )

    def sleep(self, seconds: float) -> None:  # pragma: no cover - used by httpcore's retries
        self._inner.sleep(seconds)


def _guard(transport: Any) -> None:
    """Wrap the network backend of an httpx transport's connection pool (httpx builds the
    pool privately; a transport without one, e.g. a mock, is refused)."""
    pool = getattr(transport, "_pool", None)
    if pool is None or not hasattr(pool, "_network_backend"):
        raise RuntimeError(
            f"cannot bound the calls of this HTTP transport: {type(transport).__name__}"
        )
    if not isinstance(pool._network_backend, _GuardedBackend):
        pool._network_backend = _GuardedBackend(pool._network_backend)


def guarded_client(timeout: float) -> Any:
    """An HTTP client for the ``openai`` client (``http_client=``) whose connections obey
    :func:`attempt_limits`; ``timeout`` is also the library's own per-operation timeout.
    Proxies from the environment are honoured and guarded the same way."""
    client = httpx.Client(
        timeout=httpx.Timeout(timeout),
        follow_redirects=True,
        headers={"Accept-Encoding": "identity"},
        event_hooks={"response": [_refuse_compressed]},
    )
    _guard(client._transport)  # httpx keeps its transports privately
    for mounted in client._mounts.values():  # proxy transports (HTTP(S)_PROXY)
        if mounted is not None:
            _guard(mounted)
    return client
