"""The HTTP server's own bounds, set by ``feedctl serve``: what a client can make the process hold
before any route runs.

- **Header size** (``FI_MAX_HEADER_BYTES``, 16 KiB): the h11 parser refuses a request whose head
  (request line and headers) grows past it with ``431``/``400`` and closes the connection, so a
  never-finished 40 MB header costs 16 KiB, not 40 MB. (uvicorn's httptools parser has no such
  bound, so the server runs h11.)
- **Read timeout** (``FI_REQUEST_READ_TIMEOUT_S``, 10 s): a connection must deliver a whole request,
  head and body, within this time of its first byte (or of connecting); a slowloris that trickles
  a byte at a time is closed. uvicorn has no such timer, so :class:`ReadTimeoutH11Protocol` adds it.
- **Idle keep-alive** (``FI_KEEP_ALIVE_TIMEOUT_S``, 5 s) between requests on one connection.
- **Concurrency** (``FI_MAX_CONNECTIONS``, 256): connections plus running requests; beyond it
  uvicorn answers ``503`` at once instead of taking on more.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from feedback_intelligence.settings import Settings


class ReadTimeoutH11Protocol(H11Protocol):
    """uvicorn's h11 protocol plus a deadline for receiving each request."""

    read_timeout_s: float = 10.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._read_deadline: asyncio.TimerHandle | None = None
        self._arm_read_deadline()  # a connection that never sends a byte is closed too

    def data_received(self, data: bytes) -> None:
        if self._read_deadline is None and self.conn.their_state is h11.IDLE:
            self._arm_read_deadline()  # the first byte of the next request on a kept-alive connection
        super().data_received(data)
        if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR):
            self._disarm_read_deadline()  # the whole request is in (or the parser gave up on it)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_read_deadline()
        super().connection_lost(exc)

    def _arm_read_deadline(self) -> None:
        self._disarm_read_deadline()
        self._read_deadline = self.loop.call_later(self.read_timeout_s, self._read_timed_out)

    def _disarm_read_deadline(self) -> None:
        if getattr(self, "_read_deadline", None) is not None:
            self._read_deadline.cancel()  # type: ignore[union-attr]
            self._read_deadline = None

    def _read_timed_out(self) -> None:
        self._read_deadline = None
        if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED):
            return
        self.logger.info("closing a connection that did not deliver its request within %g s", self.read_timeout_s)
        self.transport.close()  # a running route sees the disconnect, as with any client that left


def protocol_with_read_timeout(read_timeout_s: float) -> type[ReadTimeoutH11Protocol]:
    return type("BoundedH11Protocol", (ReadTimeoutH11Protocol,), {"read_timeout_s": read_timeout_s})


def uvicorn_limits(settings: Settings) -> dict[str, Any]:
    """The keyword arguments of ``uvicorn.run`` that bound what one client can make the server hold."""
    return {
        "http": protocol_with_read_timeout(settings.request_read_timeout_s),
        "h11_max_incomplete_event_size": settings.max_header_bytes,
        "limit_concurrency": settings.max_connections,
        "timeout_keep_alive": settings.keep_alive_timeout_s,
    }
