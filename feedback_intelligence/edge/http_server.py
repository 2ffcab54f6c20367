"""The HTTP server's own bounds, set by ``feedctl serve``: what a client can make the process hold
before any route runs.

- **Header size** (``FI_MAX_HEADER_BYTES``, 16 KiB): the h11 parser refuses a request whose head
  (request line and headers) grows past it with ``431``/``400`` and closes the connection, so a
  never-finished 40 MB header costs 16 KiB, not 40 MB. (uvicorn's httptools parser has no such
  bound, so the server runs h11.)
- **Header timeout** (``FI_REQUEST_HEADER_TIMEOUT_S``, 5 s): a connection must deliver a whole request
  head within this time of connecting (or of the first byte of its next request); a silent socket or
  a slowloris that trickles header bytes is closed, freeing its place.
- **Read timeout** (``FI_REQUEST_READ_TIMEOUT_S``, 10 s): the same for the whole request, head and
  body. uvicorn has neither timer, so :class:`ReadTimeoutH11Protocol` adds them.
- **Idle keep-alive** (``FI_KEEP_ALIVE_TIMEOUT_S``, 5 s) between requests on one connection.
- **Concurrency** (``FI_MAX_CONNECTIONS``, 256): connections plus running requests; beyond it
  uvicorn answers ``503`` at once instead of taking on more.
- **Per-address share** (``FI_MAX_CONNECTIONS_PER_ADDRESS``, 64): one peer's part of that cap, so one
  address cannot take it all (:mod:`feedback_intelligence.edge.connection_share`).
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from feedback_intelligence.config import Settings
from feedback_intelligence.edge.connection_share import REFUSAL, ConnectionShare


class ReadTimeoutH11Protocol(H11Protocol):
    """uvicorn's h11 protocol plus a deadline for each request's head and whole, and a per-peer share."""

    read_timeout_s: float = 10.0
    header_timeout_s: float = 5.0
    share: ConnectionShare | None = None  # one per server (the class is made per server)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._read_deadline: asyncio.TimerHandle | None = None
        self._header_deadline: asyncio.TimerHandle | None = None
        self._share_key: str | None = None
        self._refused = False
        if not self._take_share(transport):
            return
        super().connection_made(transport)
        self._arm_deadlines()  # a connection that never sends a byte is closed too

    def _take_share(self, transport: asyncio.Transport) -> bool:
        """Count this connection under its peer's share; past the share, refuse it before any other work."""
        peer = transport.get_extra_info("peername")
        if self.share is None or not peer:
            return True
        key = self.share.counted_key(str(peer[0]))
        if key is None:
            return True
        if not self.share.take(key):
            self._refused = True
            self.logger.info("refusing a connection from %s: its share of connections is taken", key)
            transport.write(REFUSAL)
            transport.close()
            return False
        self._share_key = key
        return True

    def data_received(self, data: bytes) -> None:
        if self._refused or self.transport.is_closing():
            return
        if self._read_deadline is None and self.conn.their_state is h11.IDLE:
            self._arm_deadlines()  # the first byte of the next request on a kept-alive connection
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm("_header_deadline")  # the head is in (or the parser gave up on it)
        if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR):
            self._disarm("_read_deadline")  # the whole request is in (or the parser gave up on it)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._refused:
            return  # never became a connection: nothing of uvicorn's to tear down
        self._disarm("_header_deadline")
        self._disarm("_read_deadline")
        if self.share is not None and self._share_key is not None:
            self.share.release(self._share_key)
            self._share_key = None
        super().connection_lost(exc)

    def _arm_deadlines(self) -> None:
        self._disarm("_header_deadline")
        self._disarm("_read_deadline")
        self._header_deadline = self.loop.call_later(self.header_timeout_s, self._timed_out, "header")
        self._read_deadline = self.loop.call_later(self.read_timeout_s, self._timed_out, "request")

    def _disarm(self, name: str) -> None:
        timer: asyncio.TimerHandle | None = getattr(self, name, None)
        if timer is not None:
            timer.cancel()
            setattr(self, name, None)

    def _timed_out(self, what: str) -> None:
        self._disarm("_header_deadline")
        self._disarm("_read_deadline")
        if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED):
            return
        timeout = self.header_timeout_s if what == "header" else self.read_timeout_s
        self.logger.info("closing a connection that did not deliver its %s within %g s", what, timeout)
        self.transport.close()  # a running route sees the disconnect, as with any client that left


def bounded_protocol(
    read_timeout_s: float, header_timeout_s: float, share: ConnectionShare | None = None
) -> type[ReadTimeoutH11Protocol]:
    """A protocol class for one server: its timeouts and its own per-peer counts."""
    attributes = {"read_timeout_s": read_timeout_s, "header_timeout_s": header_timeout_s, "share": share}
    return type("BoundedH11Protocol", (ReadTimeoutH11Protocol,), attributes)


def uvicorn_limits(settings: Settings) -> dict[str, Any]:
    """The keyword arguments of ``uvicorn.run`` that bound what one client can make the server hold."""
    server = settings.server
    return {
        "http": bounded_protocol(
            server.request_read_timeout_s,
            server.request_header_timeout_s,
            ConnectionShare(
                server.max_connections_per_address,
                [*server.connection_share_exempt, *settings.edge.trusted_proxies],
            ),
        ),
        "h11_max_incomplete_event_size": server.max_header_bytes,
        "limit_concurrency": server.max_connections,
        "timeout_keep_alive": server.keep_alive_timeout_s,
    }
