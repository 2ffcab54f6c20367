"""The route surface: the ONE table that says which routes the public may reach (docs/invariants.md, invariant 7).

Anything the table does not list as public is operator-only: a route added without an entry here is
hidden from the public until someone decides otherwise (fail closed). Operator routes answer only to
a direct loopback caller (see :mod:`feedback_intelligence.edge.identity`) or to a request carrying
``FI_OPERATOR_TOKEN``; to anyone else they answer the same 404 as a path that does not exist, so the
surface is not advertised. The operator entries are listed too, so that a test can walk the real
app's routes and fail on any route nobody has classified.

Decisions recorded here:

- ``/openapi.json``, ``/docs`` and ``/redoc`` are operator-only: FastAPI's document lists every
  route, operator ones included, so publishing it would advertise exactly what this table hides.
- ``GET /report?snapshot=true`` writes the saved snapshot, so it is an operator write even though
  ``GET /report`` is public. Any ``snapshot`` value that is not plainly false counts (fail closed).
- Static assets live under one prefix (``STATIC_PREFIX``), served to the public as a whole.

With ``FI_AUTH`` other than ``none`` (ADR 0030) the ``roles`` column decides who reaches a public
route: the signed-in roles listed there (``ANYONE`` = also an anonymous caller; only routes that return
no customer text), and always an operator (the role, loopback or the token). A public route whose row
names no roles is reached by operators only (fail closed). An anonymous caller gets 401 (a page: a
redirect to the sign-in page), a signed-in one without the role 403; operator routes stay a 404 to
everyone but operators. A browser on the loopback address signs in like anyone: with FI_AUTH on,
only a loopback *program* (no ``Sec-Fetch-*`` header, as browsers send) is the loopback operator.
"""

from __future__ import annotations

import enum
import hmac
import re
from dataclasses import dataclass, field
from typing import cast
from urllib.parse import parse_qsl, quote

from starlette.types import ASGIApp, Receive, Scope, Send

from feedback_intelligence.edge.asgi import header, send_json
from feedback_intelligence.edge.identity import identity_of


class Access(enum.Enum):
    PUBLIC = "public"
    OPERATOR = "operator"


class Kind(enum.Enum):
    API = "api"  # JSON (or text) for programs
    PAGE = "page"  # an HTML page with scripts from 'self'
    ASSET = "asset"  # static files the pages load
    SNAPSHOT_HTML = "snapshot_html"  # the saved, script-free report page (inline style)
    DOCS = "docs"  # the API's interactive docs and their assets (operator-only)


@dataclass(frozen=True)
class RouteRule:
    """One row of the surface table.

    ``path`` is written exactly as the route declares it (``/live/feedback/{feedback_id}``), or, with
    ``prefix=True``, a prefix ending in ``/`` that covers a mounted tree.
    """

    methods: frozenset[str]
    path: str
    access: Access
    kind: Kind = Kind.API
    llm: bool = False  # may call the LLM: one in-flight request per client (POST only)
    visitor: bool = False  # its response issues the signed visitor key when the caller has none
    operator_query: str | None = None  # a query flag that turns the request into an operator write
    prefix: bool = False
    #: With FI_AUTH on: the signed-in roles that reach it (ANYONE: anonymous too); operators always.
    roles: frozenset[str] | None = frozenset()
    bulk: bool = False  # a bulk import: its body may reach FI_BATCH_MAX_BODY_BYTES instead of FI_MAX_BODY_BYTES
    _regex: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        pattern = re.escape(self.path)
        pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", pattern)
        object.__setattr__(self, "_regex", re.compile(pattern + (".*" if self.prefix else "")))

    def matches(self, method: str, path: str) -> bool:
        return method in self.methods and self._regex.fullmatch(path) is not None

    def matches_path(self, path: str) -> bool:
        return self._regex.fullmatch(path) is not None


def _rule(
    methods: str,
    path: str,
    access: Access,
    *,
    kind: Kind = Kind.API,
    llm: bool = False,
    visitor: bool = False,
    operator_query: str | None = None,
    prefix: bool = False,
    roles: frozenset[str] | None = frozenset(),
    bulk: bool = False,
) -> RouteRule:
    return RouteRule(
        frozenset(methods.split()),
        path,
        access,
        kind=kind,
        llm=llm,
        visitor=visitor,
        operator_query=operator_query,
        prefix=prefix,
        roles=roles,
        bulk=bulk,
    )


PUBLIC, OPERATOR = Access.PUBLIC, Access.OPERATOR
STATIC_PREFIX = "/static/"
ANYONE: frozenset[str] | None = None  # no customer text: an anonymous caller too
DESK = frozenset({"clerk", "manager"})  # the desk: clerks write, managers handle their store's entries
MANAGERS = frozenset({"manager"})  # the report and the management view

# ── The table ────────────────────────────────────────────────────────────────────────────────────
ROUTES: tuple[RouteRule, ...] = (
    # public: what the desk page and the management view need, and the probes
    _rule("GET", "/health", PUBLIC, roles=ANYONE),
    _rule("GET", "/livez", PUBLIC, roles=ANYONE),
    _rule("GET", "/schema", PUBLIC, visitor=True, roles=ANYONE),  # the taxonomy: no customer text
    _rule("POST", "/interpret", PUBLIC, llm=True, roles=DESK),
    _rule("POST", "/interpret/proposal", PUBLIC, roles=DESK),  # the rules alone: no LLM, no in-flight place
    _rule("POST", "/live/feedback", PUBLIC, llm=True, roles=DESK),
    _rule("GET", "/live/feedback", PUBLIC, roles=DESK),
    _rule("GET", "/live/feedback/{feedback_id}", PUBLIC, roles=DESK),
    # correct and erase: who may touch which entry is the route's own rule (own entry in the window,
    # a manager's store); under FI_AUTH=none the window alone (services/corrections.py)
    _rule("PATCH DELETE", "/live/feedback/{feedback_id}", PUBLIC, roles=DESK),
    _rule("GET", "/live/report", PUBLIC, roles=MANAGERS),
    _rule("GET", "/live/version", PUBLIC, roles=DESK),
    _rule("GET", "/live/desk-store", PUBLIC, roles=DESK),  # the desk's store and its name: no customer text
    _rule("GET", "/report", PUBLIC, operator_query="snapshot", roles=MANAGERS),
    _rule("GET", "/report/snapshot", PUBLIC, roles=MANAGERS),
    _rule("GET", "/report/items", PUBLIC, roles=MANAGERS),  # the drill-in: the report's items, filtered
    _rule("GET", "/report/items.csv", PUBLIC, roles=MANAGERS),
    _rule("GET", "/report/stores", PUBLIC, roles=MANAGERS),  # the chain view: counts only, as the report shows them
    _rule("GET", "/report/brief", PUBLIC, roles=MANAGERS),  # the week per store: counts only, as the report shows them
    _rule("GET", "/report/corrections", PUBLIC, roles=MANAGERS),  # correction rates per field: counts only
    _rule("GET", "/report/refined", PUBLIC, roles=MANAGERS),  # how many themes the model refined: a count
    _rule("GET", "/report/snapshot.html", PUBLIC, kind=Kind.SNAPSHOT_HTML, roles=MANAGERS),
    _rule("GET", "/", PUBLIC, kind=Kind.PAGE, visitor=True, roles=MANAGERS),
    _rule("GET", "/index.html", PUBLIC, kind=Kind.PAGE, visitor=True, roles=MANAGERS),
    _rule("GET", "/desk", PUBLIC, kind=Kind.PAGE, visitor=True, roles=DESK),
    _rule("GET", "/desk.html", PUBLIC, kind=Kind.PAGE, visitor=True, roles=DESK),
    _rule("GET", STATIC_PREFIX, PUBLIC, kind=Kind.ASSET, prefix=True, roles=ANYONE),
    _rule("GET", "/favicon.ico", PUBLIC, kind=Kind.ASSET, roles=ANYONE),
    # signing in and out (ADR 0030): reached by anyone, they return no customer text
    # the sign-in page hands out the visitor key too: a shop's clerks behind one NAT address sign in each
    # on a bucket of their own, not on the address's one (ADR 0053)
    _rule("GET", "/signin", PUBLIC, kind=Kind.PAGE, visitor=True, roles=ANYONE),
    _rule("POST", "/auth/signin", PUBLIC, roles=ANYONE),
    _rule("POST", "/auth/signout", PUBLIC, roles=ANYONE),
    _rule("GET", "/auth/me", PUBLIC, roles=ANYONE),
    _rule("POST", "/auth/password", PUBLIC, roles=ANYONE),  # one's own password; the route needs a session
    _rule("GET PATCH", "/auth/me/mail", PUBLIC, roles=MANAGERS),  # a manager's own address and brief by mail
    _rule("GET", "/account", PUBLIC, kind=Kind.PAGE, roles=ANYONE),  # one's own account: name, roles, password
    _rule("GET", "/auth/oidc/login", PUBLIC, kind=Kind.PAGE, roles=ANYONE),
    _rule("GET", "/auth/oidc/callback", PUBLIC, kind=Kind.PAGE, roles=ANYONE),
    # operator: corpus channel, maintenance, telemetry, metrics, the operator board, the docs
    _rule("POST", "/feedback", OPERATOR, llm=True),
    _rule("GET", "/feedback", OPERATOR),
    # bulk import (no LLM): operator-only on both channels, a history import is not a clerk's
    _rule("POST", "/feedback/batch", OPERATOR, bulk=True),
    _rule("POST", "/live/feedback/batch", OPERATOR, bulk=True),
    _rule("GET PATCH DELETE", "/feedback/{feedback_id}", OPERATOR),
    _rule("POST", "/live/restructure", OPERATOR),
    _rule("GET", "/telemetry/corrections", OPERATOR),
    _rule("GET", "/metrics", OPERATOR),
    _rule("GET", "/admin/status", OPERATOR),
    _rule("POST", "/admin/warm", OPERATOR),
    _rule("POST", "/admin/notify/test", OPERATOR),
    # cases and the audit log (ADR 0029): the managers', as the report is (ADR 0030)
    _rule("GET", "/cases", PUBLIC, roles=MANAGERS),
    _rule("GET", "/cases/{ref}", PUBLIC, roles=MANAGERS),
    _rule("POST", "/cases/{ref}/actions", PUBLIC, roles=MANAGERS),
    _rule("GET", "/cases/{ref}/owners", PUBLIC, roles=MANAGERS),  # who may own it: names, no customer text
    _rule("PUT", "/cases/{ref}/owner", PUBLIC, roles=MANAGERS),
    _rule("POST", "/cases/{ref}/notes", PUBLIC, roles=MANAGERS),
    _rule("GET", "/audit", PUBLIC, roles=MANAGERS),
    # the management page's import (ADR 0063): a manager of the chain's, a batch's body cap
    _rule("POST", "/imports/preview", PUBLIC, roles=MANAGERS, bulk=True),
    _rule("POST", "/imports/run", PUBLIC, roles=MANAGERS, bulk=True),
    _rule("POST", "/admin/users", OPERATOR),  # feedctl user add
    _rule("POST", "/admin/users/{username}/grants", OPERATOR),  # feedctl user grant
    _rule("DELETE", "/admin/users/{username}/grants/{role}/{store}", OPERATOR),  # feedctl user revoke
    _rule("PUT", "/admin/users/{username}/disabled", OPERATOR),  # feedctl user disable | enable
    _rule("PUT", "/admin/users/{username}/password", OPERATOR),  # feedctl user password
    _rule("PATCH", "/admin/users/{username}/mail", OPERATOR),  # feedctl user mail
    _rule("GET", "/openapi.json", OPERATOR, kind=Kind.DOCS),
    _rule("GET", "/docs", OPERATOR, kind=Kind.DOCS),
    _rule("GET", "/docs/assets/{name}", OPERATOR, kind=Kind.DOCS),
    _rule("GET", "/redoc", OPERATOR, kind=Kind.DOCS),
)
# ─────────────────────────────────────────────────────────────────────────────────────────────────

_FALSE = frozenset({"", "0", "false", "f", "no", "n", "off"})


@dataclass(frozen=True)
class Classified:
    access: Access
    rule: RouteRule | None  # None: a path the table does not know (operator, i.e. hidden)

    @property
    def kind(self) -> Kind:
        return self.rule.kind if self.rule else Kind.API

    @property
    def public(self) -> bool:
        return self.access is Access.PUBLIC


def classify(
    method: str, path: str, query_string: bytes | str = b"", routes: tuple[RouteRule, ...] = ROUTES
) -> Classified:
    """Public or operator, and the rule that says so. HEAD is GET; OPTIONS goes with the path."""
    method = "GET" if method == "HEAD" else method
    for rule in routes:
        if method == "OPTIONS":
            if not rule.matches_path(path):
                continue
        elif not rule.matches(method, path):
            continue
        if rule.access is Access.PUBLIC and rule.operator_query and _flag_set(query_string, rule.operator_query):
            return Classified(Access.OPERATOR, rule)
        return Classified(rule.access, rule)
    return Classified(Access.OPERATOR, None)


def _flag_set(query_string: bytes | str, name: str) -> bool:
    text = query_string.decode("latin-1") if isinstance(query_string, bytes) else query_string
    return any(
        key == name and value.strip().lower() not in _FALSE for key, value in parse_qsl(text, keep_blank_values=True)
    )


def route_path(scope: Scope) -> str:
    """The path the router matches on (without the root path, as Starlette does)."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :] or "/"
    return path


def classify_scope(scope: Scope) -> Classified:
    """Classify once per request; kept on ``scope["state"]`` for the layers further in."""
    state = scope.setdefault("state", {})
    cached = state.get("edge_route")
    if cached is None:
        cached = classify(scope["method"], route_path(scope), scope.get("query_string", b""))
        state["edge_route"] = cached
    return cast(Classified, cached)


class OperatorAuth:
    """Direct loopback, or the operator token (``Authorization: Bearer`` or ``X-Operator-Token``).

    With ``loopback_programs_only`` (FI_AUTH on) a loopback caller that says it is a browser
    (``Sec-Fetch-Mode``/``Sec-Fetch-Site``) is not the operator: it signs in like anyone."""

    def __init__(self, token: str | None, *, loopback_programs_only: bool = False) -> None:
        self._token = token.encode() if token else None
        self.loopback_programs_only = loopback_programs_only

    def token_ok(self, scope: Scope) -> bool:
        if self._token is None:
            return False
        offered: list[bytes] = []
        bearer = header(scope, b"authorization")
        if bearer is not None:
            scheme, _, credentials = bearer.partition(b" ")
            if scheme.lower() == b"bearer":
                offered.append(credentials.strip())
        explicit = header(scope, b"x-operator-token")
        if explicit is not None:
            offered.append(explicit.strip())
        # compare every offer in constant time; no early exit on the first match either
        return any([hmac.compare_digest(candidate, self._token) for candidate in offered])

    def _loopback_operator(self, scope: Scope) -> bool:
        if not identity_of(scope).is_direct_loopback:
            return False
        if not self.loopback_programs_only:
            return True
        return header(scope, b"sec-fetch-mode") is None and header(scope, b"sec-fetch-site") is None

    def is_operator(self, scope: Scope) -> bool:
        state = scope.setdefault("state", {})
        if "is_operator" not in state:
            state["is_operator"] = self._loopback_operator(scope) or self.token_ok(scope)
        return bool(state["is_operator"])


NOT_FOUND_BODY = {"error": "Not Found"}  # the body the app answers for a path it does not have
SIGNIN_REQUIRED_BODY = {"error": "signin_required", "message": "Sign in first (/signin)."}
FORBIDDEN_BODY = {"error": "forbidden", "message": "Your account's roles do not reach this."}
SIGNIN_PAGE = "/signin"
#: The pages a signed-in person may be sent to when a page refuses them, in this order: a clerk opening
#: the management view lands on the desk, never on a JSON 403 (ADR 0047).
HOME_PAGES: tuple[str, ...] = ("/desk", "/")


def home_page(roles: frozenset[str]) -> str | None:
    """The first of :data:`HOME_PAGES` the roles open; None when none does."""
    return next((path for path in HOME_PAGES if role_verdict(classify("GET", path), roles) == 200), None)


def role_verdict(route: Classified, roles: frozenset[str] | None) -> int:
    """With FI_AUTH on and the caller not an operator: 200 (pass), 401, 403 or 404 by the table.

    ``roles`` is the signed-in person's roles, None for an anonymous caller."""
    if roles is not None and "operator" in roles:
        return 200
    if route.rule is None or not route.public:
        return 404
    allowed = route.rule.roles
    if allowed is None:  # ANYONE
        return 200
    if roles is None:
        return 401
    return 200 if roles & allowed else 403


class RouteSurfaceMiddleware:
    """Public routes pass; operator routes pass for operators; everything else is an ordinary 404.

    With ``auth_enabled`` the roles column decides too (see the module's docstring)."""

    def __init__(self, app: ASGIApp, auth: OperatorAuth, auth_enabled: bool = False) -> None:
        self.app = app
        self.auth = auth
        self.auth_enabled = auth_enabled

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        route = classify_scope(scope)
        if self.auth.is_operator(scope) or (not self.auth_enabled and route.public):
            await self.app(scope, receive, send)
            return
        if not self.auth_enabled:
            await send_json(send, 404, NOT_FOUND_BODY)
            return
        principal = scope["state"].get("principal")
        verdict = role_verdict(route, principal.roles if principal is not None else None)
        page_get = route.kind is Kind.PAGE and scope["method"] in ("GET", "HEAD")
        home = home_page(principal.roles) if verdict == 403 and page_get and principal is not None else None
        if verdict == 200:
            await self.app(scope, receive, send)
        elif verdict == 401 and page_get:
            await _see_other(send, f"{SIGNIN_PAGE}?next={quote(route_path(scope), safe='/')}")
        elif home is not None:  # a page the person's roles do not open: the page they may, not a JSON 403
            await _see_other(send, home)
        elif verdict == 401:
            await send_json(send, 401, SIGNIN_REQUIRED_BODY)
        elif verdict == 403:
            await send_json(send, 403, FORBIDDEN_BODY)
        else:
            await send_json(send, 404, NOT_FOUND_BODY)


async def _see_other(send: Send, location: str) -> None:
    """A 303 to ``location`` with no body (never cached: it depends on who asks)."""
    headers = [(b"location", location.encode()), (b"content-length", b"0"), (b"cache-control", b"no-store")]
    await send({"type": "http.response.start", "status": 303, "headers": headers})
    await send({"type": "http.response.body", "body": b""})
