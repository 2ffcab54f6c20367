"""Security headers. Every response gets nosniff, a referrer policy and frame denial; the content
security policy depends on what the surface table says the route serves:

- pages and their assets: scripts and styles from 'self' only (no inline script), nothing framed;
- the saved snapshot page: no script at all, its one inline ``<style>`` allowed (it is self-contained
  by design, so it still reads when saved to disk);
- JSON and everything else: ``default-src 'none'`` (nothing in an API answer should ever run);
- the operator-only docs (Swagger UI, ReDoc): scripts from 'self' only, as the pages; inline styles
  allowed (both inject them at run time) and blob: workers (ReDoc's search).

A header the route set itself is left alone.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from feedback_intelligence.edge.surface import Kind, classify_scope

PAGE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SNAPSHOT_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
API_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
DOCS_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)

CSP_BY_KIND: dict[Kind, str | None] = {
    Kind.PAGE: PAGE_CSP,
    Kind.ASSET: PAGE_CSP,
    Kind.SNAPSHOT_HTML: SNAPSHOT_CSP,
    Kind.API: API_CSP,
    Kind.DOCS: DOCS_CSP,
}

COMMON = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        csp = CSP_BY_KIND[classify_scope(scope).kind]
        extra = list(COMMON)
        if csp is not None:
            extra.append((b"content-security-policy", csp.encode()))

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in extra if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
