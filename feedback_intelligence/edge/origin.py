"""Refuse cross-site state changes: a page on another site must not drive this service through a
visitor's (or the loopback operator's) browser.

Only requests that change state are judged (any method but GET, HEAD and OPTIONS). A browser says
where such a request comes from: ``Origin`` on every cross-origin and same-origin POST, and
``Sec-Fetch-Site`` in current browsers. The request is refused ``403 cross_site_request`` when

- ``Origin`` is present and is neither this service's own host (compared by host name: the scheme
  and port may differ behind a TLS proxy) nor one of ``FI_CORS_ORIGINS``; ``Origin: null``
  (sandboxed frames, some redirects) is refused too;
- ``Origin`` is absent and ``Sec-Fetch-Site`` says ``cross-site`` or ``same-site``.

Programs (``feedctl``, ``curl``, the crowd benchmark) send neither header and pass. Together with
the allowed-hosts check (a page reached through a rebound DNS name is refused before it gets
here) this closes DNS rebinding and cross-site POSTs against the loopback operator.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from feedback_intelligence.edge.asgi import header, send_json

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
REFUSED_FETCH_SITES = frozenset({b"cross-site", b"same-site"})
CROSS_SITE_BODY = {
    "error": "cross_site_request",
    "message": "A page on another site may not change data here; use the service's own pages.",
}


def _host_name(netloc: str) -> str:
    """The host name of ``host[:port]`` or ``[v6]:port``, lower-case."""
    return (urlsplit(f"//{netloc}").hostname or "").lower()


class CrossSiteGuardMiddleware:
    def __init__(self, app: ASGIApp, cors_origins: list[str] | tuple[str, ...] = ()) -> None:
        self.app = app
        self.cors_origins = frozenset(origin.rstrip("/").lower() for origin in cors_origins)

    def refused(self, scope: Scope) -> bool:
        if scope["method"] in SAFE_METHODS:
            return False
        origin = header(scope, b"origin")
        if origin is not None:
            text = origin.decode("latin-1").strip().rstrip("/").lower()
            if text in self.cors_origins:
                return False
            host = header(scope, b"host")
            own = _host_name(host.decode("latin-1")) if host else ""
            return text == "null" or not own or _host_name(urlsplit(text).netloc) != own
        fetch_site = header(scope, b"sec-fetch-site")
        return fetch_site is not None and fetch_site.strip().lower() in REFUSED_FETCH_SITES

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.refused(scope):
            await send_json(send, 403, CROSS_SITE_BODY)
            return
        await self.app(scope, receive, send)
