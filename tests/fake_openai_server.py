"""A scripted OpenAI-compatible chat server for tests: ``http.server`` in a thread on
127.0.0.1 with a random port. Each POST is logged (path, headers, JSON body) and answered by a
``script(body, index) -> Reply``: status, body, delay, content type."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass
class Reply:
    """What the server sends back for one request."""

    status: int = 200
    body: Any = None               # dict -> JSON; str/bytes -> as is
    delay: float = 0.0
    content_type: str = "application/json"


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
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

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
                    time.sleep(reply.delay)
                data = reply.body
                if isinstance(data, (dict, list)):
                    data = json.dumps(data)
                if isinstance(data, str):
                    data = data.encode()
                data = data or b""
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.content_type)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass               # the client gave up (timeout test)

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
        self._httpd.shutdown()
        self._httpd.server_close()
