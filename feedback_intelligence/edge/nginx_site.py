"""The nginx site for the public edge, written from the route-surface table (:mod:`.surface`).

nginx forwards only what the table calls public, so its allow-list is a second copy of the table; a copy
kept by hand drifted (the desk's store, the drill-in, the cases and signing in were left out). Here it
is written from ``ROUTES``: one location per public path, with the methods the table gives that path,
and a path parameter (``{ref}``) as one segment, as the app matches it. ``feedctl nginx-config``
prints it for an operator's upstreams; ``python -m feedback_intelligence.edge.nginx_site`` rewrites the
files shipped in ``deploy/nginx`` (``scripts/nginx-config.sh``), and tests/deploy fails when they drift.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import jinja2

from feedback_intelligence.edge.surface import ROUTES, Access, RouteRule

REPO = Path(__file__).resolve().parents[2]
_TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("feedback_intelligence.edge", "templates"),
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
    autoescape=False,  # nginx configuration, not HTML
)
_PARAMETER = re.compile(r"\{[^/{}]+\}")
# The answer to a request the LLM may still be working on must outlast the app's own call deadline.
READ_TIMEOUT_MARGIN_S = 30


@dataclass(frozen=True)
class Location:
    """One nginx ``location``: its match (``= /schema``, ``^~ /static/``, ``~ ^/cases/[^/]+$``) and methods."""

    match: str
    methods: tuple[str, ...]
    operator_query: str | None = None
    # A prefix location proxied as ``/static/`` would answer ``/static`` with nginx's own 301 to it; the app
    # answers 404, and so does nginx for this path.
    bare_prefix: str | None = None
    bulk: bool = False  # an upload (the page's import): the batch cap, streamed to the app unbuffered


@dataclass(frozen=True)
class Limits:
    """The app's settings the site must agree with."""

    body_bytes: int  # FI_MAX_BODY_BYTES
    call_timeout_s: int  # FI_LLM_CALL_TIMEOUT_S, whole seconds
    bulk_body_bytes: int = 8_388_608  # FI_BATCH_MAX_BODY_BYTES: a public bulk route's (the page's import)

    @classmethod
    def defaults(cls) -> Limits:
        from feedback_intelligence.config import ChainSettings, EdgeSettings, GateSettings

        body = EdgeSettings.model_fields["max_body_bytes"].default
        bulk = ChainSettings.model_fields["batch_max_body_bytes"].default
        return cls(int(body), int(GateSettings.model_fields["call_timeout_s"].default), int(bulk))


def _match(rule: RouteRule) -> str:
    if rule.prefix:
        return f"^~ {rule.path}"  # a mounted tree; wins over the regular expressions below it
    if _PARAMETER.search(rule.path) is None:
        return f"= {rule.path}"
    pieces = _PARAMETER.split(rule.path)
    return "~ ^" + "[^/]+".join(re.escape(piece) for piece in pieces) + "$"


def _methods(methods: Iterable[str]) -> tuple[str, ...]:
    """The table's methods as nginx sees them: HEAD goes with GET, and OPTIONS (a preflight) with the path."""
    chosen = set(methods) | {"OPTIONS"}
    if "GET" in chosen:
        chosen.add("HEAD")
    order = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
    return tuple(method for method in order if method in chosen)


def public_locations(routes: Sequence[RouteRule] = ROUTES) -> list[Location]:
    """The public rows, one location per path (the table's order), methods merged across its rows."""
    methods: dict[str, set[str]] = {}
    first: dict[str, RouteRule] = {}
    queries: dict[str, str | None] = {}
    for rule in routes:
        if rule.access is not Access.PUBLIC:
            continue
        first.setdefault(rule.path, rule)
        methods.setdefault(rule.path, set()).update(rule.methods)
        queries[rule.path] = queries.get(rule.path) or rule.operator_query
    return [
        Location(
            _match(rule), _methods(methods[path]), queries[path], path.rstrip("/") if rule.prefix else None, rule.bulk
        )
        for path, rule in first.items()
    ]


def render_site(
    upstreams: Sequence[str],
    *,
    listen: str = "80",
    server_name: str = "_",
    limits: Limits | None = None,
    routes: Sequence[RouteRule] = ROUTES,
) -> str:
    """The whole site file: one upstream server (``proxy_next_upstream off``) or replicas (the next one
    takes a request that could not be sent)."""
    if not upstreams:
        raise ValueError("at least one upstream (host:port of a replica)")
    limits = limits or Limits.defaults()
    return _TEMPLATES.get_template("nginx-site.conf.j2").render(
        upstreams=list(upstreams),
        listen=listen,
        server_name=server_name,
        body_bytes=limits.body_bytes,
        bulk_body_bytes=limits.bulk_body_bytes,
        call_timeout_s=limits.call_timeout_s,
        read_timeout_s=limits.call_timeout_s + READ_TIMEOUT_MARGIN_S,
        locations=public_locations(routes),
    )


@dataclass(frozen=True)
class ShippedSite:
    path: str  # in the repository
    upstreams: tuple[str, ...]


# What deploy/nginx ships, written with the settings' defaults: one host (feedctl serve on :8080), and the
# compose chain's two replicas (deploy/docker-compose.chain.yml names them api-1 and api-2).
SHIPPED = (
    ShippedSite("deploy/nginx/feedback-intelligence.conf", ("127.0.0.1:8080",)),
    ShippedSite("deploy/nginx/feedback-intelligence-replicas.conf", ("api-1:8080", "api-2:8080")),
)


def shipped_text(site: ShippedSite) -> str:
    return render_site(site.upstreams, limits=Limits.defaults())


def write_shipped(root: Path = REPO) -> list[Path]:
    written = []
    for site in SHIPPED:
        target = root / site.path
        target.write_text(shipped_text(site))
        written.append(target)
    return written


if __name__ == "__main__":  # scripts/nginx-config.sh
    for path in write_shipped():
        print(f"wrote {path.relative_to(REPO)}", file=sys.stdout)
