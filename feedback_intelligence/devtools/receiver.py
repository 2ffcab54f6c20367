"""A real HTTP receiver for notification tests and bench/notify_latency.py: records every request,
dedupes by delivery id, can be taken down and brought back on the same port, and can hold its
answers (a send in flight)."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from feedback_intelligence.devtools.processes import free_port


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float = field(default_factory=time.time)  # when it arrived (epoch seconds)

    @property
    def delivery_id(self) -> str | None:
        return self.headers.get("x-fi-delivery")

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    port: int = field(default_factory=free_port)
    status: int = 200
    received: list[Received] = field(default_factory=list)
    processed: dict[str, Received] = field(default_factory=dict)  # first request per delivery id
    hold: threading.Event = field(default_factory=threading.Event)  # set = answer; clear = hold the answer
    arrived: threading.Condition = field(default_factory=threading.Condition)
    _server: ThreadingHTTPServer | None = None

    def __post_init__(self) -> None:
        self.hold.set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def start(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                got = Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                with receiver.arrived:
                    receiver.received.append(got)
                    if got.delivery_id is not None:
                        receiver.processed.setdefault(got.delivery_id, got)
                    receiver.arrived.notify_all()
                receiver.hold.wait(60)
                try:
                    self.send_response(receiver.status)
                    self.send_header("Content-Length", "2")
                    self.end_headers()
                    self.wfile.write(b"ok")
                except OSError:  # the sender died while we held its answer
                    pass

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def wait_for(self, count: int, timeout_s: float = 30.0, *, distinct: bool = True) -> None:
        """Until ``count`` distinct delivery ids (or requests) arrived; fails after ``timeout_s``."""
        with self.arrived:
            ok = self.arrived.wait_for(
                lambda: (len(self.processed) if distinct else len(self.received)) >= count, timeout=timeout_s
            )
        assert ok, f"the receiver got {len(self.processed)} distinct of {count} within {timeout_s} s"
