"""A scripted OpenAI-compatible chat server for tests: ``http.server`` in a thread on
127.0.0.1 with a random port. Each POST is logged (path, headers, JSON body) and answered by a
``script(body, index) -> Reply``: status, body, delay, content type, extra headers, and the
faults of tests/hostile/servers: a trickled reply (one byte per ``trickle`` seconds, headers
included unless ``trickle_body_only``), a connection reset, raw non-HTTP bytes. Every loop is
bounded (``MAX_REPLY_SECONDS``, the reply's length) and stops when the client hangs up or the
server is closed."""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

MAX_REPLY_SECONDS = 20.0           # no reply is sent for longer than this


@dataclass
class Reply:
    """What the server sends back for one request."""

    status: int = 200
    body: Any = None               # dict -> JSON; str/bytes -> as is
    delay: float = 0.0
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    trickle: float = 0.0           # > 0: send one byte, then wait this long, ...
    trickle_body_only: bool = False
    reset: bool = False            # close the connection with a TCP reset, sending nothing
    raw: bytes | None = None       # send these bytes instead of an HTTP response, then close


def chat_body(text: str, model: str = "fake", prompt_tokens: int = 7,
              completion_tokens: int = 3, cost: float | None = None,
              finish: str = "stop") -> dict[str, Any]:
    """A well-formed chat-completion body."""
    usage: dict[str, Any] = {"prompt_tokens": prompt_tokens,
                             "completion_tokens": completion_tokens,
                             "total_tokens": prompt_tokens + completion_tokens}
    if cost is not None:
        usage["cost"] = cost
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": 1, "model": model,
            "choices": [{"index": 0, "finish_reason": finish,
                         "message": {"role": "assistant", "content": text}}],
            "usage": usage}


@dataclass
class Logged:
    """One request the server received."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    time: float


class FakeOpenAIServer:
    """Context manager: ``with FakeOpenAIServer(script) as srv: srv.url ...``."""

    def __init__(self, script: Callable[[dict[str, Any], int], Reply]) -> None:
        self.script = script
        self.requests: list[Logged] = []
        # GET /models lists these (model id -> extra fields, e.g. {"root": "rev"}); GETs are
        # not logged in ``requests``
        self.served: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def handle(self) -> None:
                try:
                    super().handle()
                except (BrokenPipeError, ConnectionResetError):
                    pass                   # the client hung up (cancelled, timed out)

            def do_GET(self) -> None:
                if not self.path.rstrip("/").endswith("/models"):
                    self._send(Reply(404, {"error": "not found"}))
                    return
                self._send(Reply(200, {"object": "list", "data": [
                    {"id": k, "object": "model", **v} for k, v in server.served.items()]}))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    index = len(server.requests)
                    server.requests.append(Logged(self.path, {k.lower(): v for k, v in
                                                              self.headers.items()},
                                                  body, time.time()))
                reply = server.script(body, index)
                if reply.delay:
                    server._stop.wait(reply.delay)
                try:
                    self._send(reply)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True   # the client gave up (timeout, size cap)

            def _send(self, reply: Reply) -> None:
                if reply.reset:
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                               struct.pack("ii", 1, 0))
                    self.close_connection = True
                    self.connection.close()
                    return
                if reply.raw is not None:
                    self.close_connection = True
                    self.wfile.write(reply.raw)
                    return
                data = reply.body
                if isinstance(data, (dict, list)):
                    data = json.dumps(data)
                if isinstance(data, str):
                    data = data.encode()
                data = data or b""
                head = [f"HTTP/1.1 {reply.status} {HTTPStatus(reply.status).phrase}",
                        f"Content-Type: {reply.content_type}", f"Content-Length: {len(data)}",
                        *(f"{k}: {v}" for k, v in reply.headers.items())]
                head_bytes = ("\r\n".join(head) + "\r\n\r\n").encode()
                if not reply.trickle:
                    self.wfile.write(head_bytes)
                    view = memoryview(data)
                    for i in range(0, len(view), 1 << 16):   # big bodies in chunks
                        if server._stop.is_set():
                            return
                        self.wfile.write(view[i:i + (1 << 16)])
                    return
                payload = data if reply.trickle_body_only else head_bytes + data
                if reply.trickle_body_only:
                    self.wfile.write(head_bytes)
                end = time.monotonic() + MAX_REPLY_SECONDS
                for i in range(len(payload)):
                    if server._stop.is_set() or time.monotonic() > end:
                        self.close_connection = True
                        return
                    self.wfile.write(payload[i:i + 1])
                    self.wfile.flush()
                    server._stop.wait(reply.trickle)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def url(self) -> str:
        """The base URL (``http://127.0.0.1:PORT/v1``)."""
        return f"http://127.0.0.1:{self._httpd.server_port}/v1"

    def bodies(self) -> list[dict[str, Any]]:
        """The JSON bodies received so far."""
        with self._lock:
            return [r.body for r in self.requests]

    def __enter__(self) -> "FakeOpenAIServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()
