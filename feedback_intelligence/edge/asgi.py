"""Small helpers for the pure-ASGI edge middleware (no BaseHTTPMiddleware: it breaks the routes'
client-disconnect detection)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, cast

from starlette.types import Scope, Send


def header(scope: Scope, name: bytes) -> bytes | None:
    """The first value of a request header (names are lower-case in ASGI)."""
    for key, value in scope.get("headers", ()):
        if key == name:
            return cast(bytes, value)
    return None


async def send_json(send: Send, status: int, body: dict[str, Any], headers: Iterable[tuple[str, str]] = ()) -> None:
    payload = json.dumps(body, separators=(",", ":")).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
    raw += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": payload})
