"""The simulator's ASGI plumbing: reading a body, answering JSON or text, and hang-up cancellation.

The simulator is a plain ASGI app rather than a framework one so that it owns ``receive``: racing the
work against ``http.disconnect`` is how a client that hangs up cancels its request (Ollama's 499) and
frees its slot.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable, Coroutine, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
Handler = Callable[[Scope, Receive, Send], Awaitable[None]]

_JSON = b"application/json; charset=utf-8"


async def read_body(receive: Receive) -> bytes | None:
    """The whole request body, or ``None`` if the client disconnected first."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _wait_for_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def cancel_on_disconnect(receive: Receive, work: Coroutine[Any, Any, None]) -> None:
    """Run ``work`` until it ends or the client hangs up, whichever comes first; a hang-up cancels it,
    which frees its queue place or slot at once. Servers report ``http.disconnect`` only once the body
    has been read, so this runs after :func:`read_body`."""
    task = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(_wait_for_disconnect(receive))
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not task.done():
            task.cancel()
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        with contextlib.suppress(asyncio.CancelledError):
            await task
    if not task.cancelled():
        task.result()  # the work's own failure, if any, surfaces as the server's 500


def ndjson_line(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


async def send_json(send: Send, status: int, payload: Any, *, head: bool = False) -> None:
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    await _send(send, status, _JSON, body, head)


async def send_text(send: Send, status: int, text: str, *, head: bool = False) -> None:
    await _send(send, status, b"text/plain; charset=utf-8", text.encode(), head)


async def _send(send: Send, status: int, content_type: bytes, body: bytes, head: bool) -> None:
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else body})
