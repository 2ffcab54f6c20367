"""Request body cap, enforced before anything parses the body (pure ASGI, no buffering beyond the cap).

A route the surface table marks ``bulk`` (the batch imports) has the larger cap ``bulk_max_bytes``.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from feedback_intelligence.edge.asgi import header, send_json
from feedback_intelligence.edge.surface import classify_scope


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, max_bytes: int, bulk_max_bytes: int | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.bulk_max_bytes = bulk_max_bytes or max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rule = classify_scope(scope).rule
        cap = self.bulk_max_bytes if rule is not None and rule.bulk else self.max_bytes
        declared = _content_length(scope)
        if declared is not None and declared > cap:
            await self._reject(send, cap)
            return
        # Read the body up to the cap, then replay it; the original receive stays in place after the
        # body so that a later client disconnect is still seen by the route.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                chunks = []
                replay: list[Message] = [message]
                break
            body = message.get("body", b"")
            size += len(body)
            if size > cap:
                await self._reject(send, cap)
                return
            chunks.append(body)
            if not message.get("more_body", False):
                replay = [{"type": "http.request", "body": b"".join(chunks), "more_body": False}]
                break

        async def replaying_receive() -> Message:
            if replay:
                return replay.pop(0)
            return await receive()

        await self.app(scope, replaying_receive, send)

    async def _reject(self, send: Send, cap: int) -> None:
        await send_json(
            send,
            413,
            {
                "errors": [f"request body exceeds the {cap}-byte cap"],
                "codes": [{"code": "body_too_large", "limit": cap}],
            },
        )


def _content_length(scope: Scope) -> int | None:
    value = header(scope, b"content-length")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None
