"""The people layer (FI_AUTH other than ``none``; ADR 0030): who is signed in, and CSRF.

- ``local`` and ``oidc``: the ``fi_session`` cookie's token, looked up by its SHA-256.
- ``proxy``: the identity headers (``FI_PROXY_USER_HEADER`` …), believed only when the TCP peer is
  one of ``FI_TRUSTED_PROXIES``; from anyone else they are ignored.

The person goes on ``scope["state"]["principal"]`` for the rate limits (they key on the person), the
route surface (the roles column) and the routes. A state-changing request that carries a person's
browser credentials must also carry ``X-CSRF-Token``, the token the pages read from the ``fi_csrf``
cookie; without it the request is refused 403 ``csrf_required`` before anything runs. The sign-in
itself is exempt (it has no session yet; the cross-site guard and its JSON body protect it). Pages
answered to a signed-in person carry a fresh ``fi_csrf`` cookie when the browser's is missing or stale.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from feedback_intelligence.auth.people import People
from feedback_intelligence.auth.principal import STATE_KEY, Principal
from feedback_intelligence.auth.tokens import CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE
from feedback_intelligence.edge.asgi import header, send_json
from feedback_intelligence.edge.identity import TrustedProxies, identity_of, parse_ip
from feedback_intelligence.edge.origin import SAFE_METHODS
from feedback_intelligence.edge.visitor import cookie_value

CSRF_EXEMPT = frozenset({"/auth/signin"})
CSRF_BODY = {
    "error": "csrf_required",
    "message": "This change needs the page's X-CSRF-Token header; reload the page and try again.",
}


class PeopleMiddleware:
    def __init__(self, app: ASGIApp, people: People, trusted: TrustedProxies) -> None:
        self.app = app
        self.people = people
        self.trusted = trusted

    async def _principal(self, scope: Scope) -> Principal | None:
        if self.people.mode == "proxy":
            peer = identity_of(scope).peer_ip
            settings = self.people.settings
            user = header(scope, settings.proxy_user_header.encode())
            if user is None or parse_ip(peer or "") not in self.trusted:
                return None
            text = user.decode("latin-1").strip()
            if not text or len(text) > 255:
                return None

            def value(name: str) -> str:
                raw = header(scope, name.encode())
                return raw.decode("latin-1")[:2000] if raw else ""

            return await self.people.from_proxy(
                text,
                value(settings.proxy_name_header),
                value(settings.proxy_roles_header),
                value(settings.proxy_stores_header),
            )
        return await self.people.from_session_token(cookie_value(scope, SESSION_COOKIE))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.people.enabled:
            await self.app(scope, receive, send)
            return
        principal = await self._principal(scope)
        state = scope.setdefault("state", {})
        state[STATE_KEY] = principal
        if principal is None:
            await self.app(scope, receive, send)
            return
        expected = self.people.csrf.for_key(principal.session_key)
        unsafe = scope["method"] not in SAFE_METHODS and scope["path"] not in CSRF_EXEMPT
        if unsafe and not self.people.csrf.valid(principal.session_key, header(scope, CSRF_HEADER)):
            await send_json(send, 403, CSRF_BODY)
            return
        if cookie_value(scope, CSRF_COOKIE) == expected or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        secure = "; Secure" if identity_of(scope).scheme == "https" else ""
        cookie = f"{CSRF_COOKIE}={expected}; Path=/; SameSite=Strict{secure}".encode("latin-1")

        async def send_with_csrf(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie)]}
            await send(message)

        await self.app(scope, receive, send_with_csrf)
