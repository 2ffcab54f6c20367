"""A TCP forwarder that can be cut and restored: a dependency that "goes down" for one test only.

Stopping the shared PostgreSQL would break every other test running against it, so a test that
needs the database to disappear puts this proxy in between and cuts it: open connections are
reset and new ones are refused (the listening socket closes), which is what a client sees when
the server stops or the network to it fails. Restoring listens again on the same port.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import threading

from feedback_intelligence.devtools.processes import free_port


class TcpProxy:
    def __init__(self, target_host: str, target_port: int, port: int | None = None) -> None:
        self.target = (target_host, target_port)
        self.port = port or free_port()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="tcp-proxy", daemon=True)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._thread.start()

    def _call(self, coro) -> object:  # type: ignore[no-untyped-def]
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(10)

    # -- the public, blocking interface ------------------------------------------------------------

    def start(self) -> None:
        self._call(self._listen())

    def cut(self) -> None:
        """Refuse new connections and reset the open ones."""
        self._call(self._cut())

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._call(self._cut())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    # -- inside the proxy's loop -------------------------------------------------------------------

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port, reuse_address=True)

    async def _cut(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for writer in list(self._writers):
            sock = writer.get_extra_info("socket")
            if sock is not None:  # RST rather than FIN: the peer learns at once
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.close()
        self._writers.clear()

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
        except OSError:
            client_writer.close()
            return
        self._writers.update((client_writer, upstream_writer))
        await asyncio.gather(
            self._pipe(client_reader, upstream_writer),
            self._pipe(upstream_reader, client_writer),
            return_exceptions=True,
        )
        for writer in (client_writer, upstream_writer):
            self._writers.discard(writer)
            writer.close()

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        finally:
            with contextlib.suppress(OSError, RuntimeError):
                writer.close()
