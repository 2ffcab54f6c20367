"""``FI_NOTIFY_CHANNELS``: the notify routes and who gets what (docs/adr/0029-alerts-outbox-cases.md).

A module of its own, below settings, so that settings can parse it.

A JSON list of ``{"name", "kind", "url", …}``: ``kind`` is ``webhook``, ``slack``, ``teams`` or
``smtp``; ``url`` is the receiver (``smtp://host:port`` for mail, ``smtps://`` for TLS from the first
byte). Routing keys, each optional: ``categories`` (alert category keys), ``minSeverity`` (a severity
key of the domain), ``stores`` (store ids; an item with no store matches only a route without
``stores``), ``escalation`` (true: this route gets escalations of unacknowledged critical cases only).
A route with none of them receives every operational alert. Kind-specific keys: ``secret`` and
``unsigned`` (webhook), ``from``, ``to``, ``username``, ``password``, ``starttls`` (default true),
``caFile`` (smtp). Pure parsing; the domain's keys are checked at start-up by :func:`check_against`.

What keeps a route's messages its own differs by kind (docs/adr/0038-notifications-carry-text.md): a
generic ``webhook`` is signed per Standard Webhooks under its ``secret`` (``whsec_`` and the base64 of
at least 24 random bytes), and one without a secret is refused unless it says ``"unsigned": true``;
a Slack or Teams incoming webhook's URL is its secret (whoever holds it can post), so it has no other;
``smtp`` signs nothing and logs in with ``username`` and ``password`` where the relay asks for them.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlparse

NotifyKind = Literal["webhook", "slack", "teams", "smtp"]
KINDS: tuple[str, ...] = ("webhook", "slack", "teams", "smtp")
NAME_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,64}")
SECRET_PREFIX = "whsec_"
SECRET_MIN_BYTES = 24  # the Standard Webhooks spec: secrets of 24 to 64 random bytes
MAKE_A_SECRET = "whsec_$(openssl rand -base64 32)"
_COMMON = {"name", "kind", "url", "categories", "minSeverity", "stores", "escalation"}
_BY_KIND: dict[str, set[str]] = {
    "webhook": {"secret", "unsigned"},
    "slack": set(),
    "teams": set(),
    "smtp": {"from", "to", "username", "password", "starttls", "caFile"},
}


@dataclass(frozen=True, slots=True)
class NotifyRoute:
    name: str
    kind: NotifyKind
    url: str
    categories: tuple[str, ...] | None = None
    min_severity: str | None = None
    stores: tuple[str, ...] | None = None
    escalation: bool = False
    secret: str | None = None  # webhook: the Standard Webhooks secret "whsec_…"; None only when configured unsigned
    mail_from: str | None = None
    mail_to: tuple[str, ...] = ()
    username: str | None = None
    password: str | None = None
    starttls: bool = True
    ca_file: str | None = None

    def __repr__(self) -> str:  # never print a secret or a password into a log
        return f"NotifyRoute(name={self.name!r}, kind={self.kind!r})"

    def takes(
        self,
        *,
        event_escalation: bool,
        categories: Collection[str],
        severity_rank: int,
        store: str | None,
        rank_of: Callable[[str], int],
    ) -> bool:
        """Does this route receive an event about an item with these alert ``categories``?"""
        if self.escalation != event_escalation:
            return False
        if self.categories is not None and not set(self.categories) & set(categories):
            return False
        if self.min_severity is not None and severity_rank < rank_of(self.min_severity):
            return False
        return self.stores is None or (store is not None and store in self.stores)


def _strings(where: str, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"{where}: {key} must be a non-empty list of strings")
    return tuple(v.strip() for v in value)


def _webhook_secret(where: str, item: dict[str, Any]) -> str | None:
    """The route's Standard Webhooks secret, or None for a route that says ``"unsigned": true``."""
    secret, unsigned = item.get("secret"), item.get("unsigned", False)
    if not isinstance(unsigned, bool):
        raise ValueError(f"{where}: unsigned must be true or false")
    if unsigned:
        if secret is not None:
            raise ValueError(f'{where}: a route with a secret is signed; drop "unsigned": true or the secret')
        return None
    if secret is None:
        raise ValueError(
            f'{where}: a webhook is signed, so it needs a secret ("secret": "whsec_…", made with '
            f'{MAKE_A_SECRET}); a receiver that checks no signature needs "unsigned": true'
        )
    if not isinstance(secret, str) or not secret.startswith(SECRET_PREFIX):
        raise ValueError(f"{where}: secret must be a Standard Webhooks secret 'whsec_…' (made with {MAKE_A_SECRET})")
    encoded = secret.removeprefix(SECRET_PREFIX)
    try:
        key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
    except binascii.Error:
        raise ValueError(f"{where}: secret after 'whsec_' must be base64 (made with {MAKE_A_SECRET})") from None
    if len(key) < SECRET_MIN_BYTES:
        raise ValueError(f"{where}: secret must hold at least {SECRET_MIN_BYTES} bytes (made with {MAKE_A_SECRET})")
    return secret


def _route(index: int, item: Any) -> NotifyRoute:
    where = f"channel {index + 1}"
    if not isinstance(item, dict):
        raise ValueError(f"{where} must be an object with name, kind, url")
    name = item.get("name")
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise ValueError(f"{where}: name must be 1-64 letters, digits, '_', '.' or '-'")
    where = f"channel '{name}'"
    kind = item.get("kind")
    if kind not in KINDS:
        raise ValueError(f"{where}: kind must be one of {', '.join(KINDS)}")
    unknown = sorted(set(item) - _COMMON - _BY_KIND[kind])
    if unknown:
        raise ValueError(f"{where}: unknown field '{unknown[0]}' for kind {kind}")
    raw_url = item.get("url")
    url = raw_url if isinstance(raw_url, str) else ""
    parsed = urlparse(url) if url else None
    schemes = ("smtp", "smtps") if kind == "smtp" else ("http", "https")
    if parsed is None or parsed.scheme not in schemes or not parsed.hostname:
        shown = "smtp://host:port or smtps://host:port" if kind == "smtp" else "an absolute http(s) URL"
        raise ValueError(f"{where}: url must be {shown}")
    escalation = item.get("escalation", False)
    if not isinstance(escalation, bool):
        raise ValueError(f"{where}: escalation must be true or false")
    min_severity = item.get("minSeverity")
    if min_severity is not None and (not isinstance(min_severity, str) or not min_severity.strip()):
        raise ValueError(f"{where}: minSeverity must be a severity key")
    extra: dict[str, Any] = {}
    if kind == "webhook":
        extra["secret"] = _webhook_secret(where, item)
    if kind == "smtp":
        sender, to = item.get("from"), item.get("to")
        if not isinstance(sender, str) or "@" not in sender:
            raise ValueError(f"{where}: from must be an e-mail address")
        recipients = _strings(where, "to", [to] if isinstance(to, str) else to)
        if not all("@" in r for r in recipients):
            raise ValueError(f"{where}: to must list e-mail addresses")
        for key in ("username", "password", "caFile"):
            if item.get(key) is not None and not isinstance(item[key], str):
                raise ValueError(f"{where}: {key} must be a string")
        if not isinstance(item.get("starttls", True), bool):
            raise ValueError(f"{where}: starttls must be true or false")
        extra.update(
            mail_from=sender,
            mail_to=recipients,
            username=item.get("username"),
            password=item.get("password"),
            starttls=item.get("starttls", True),
            ca_file=item.get("caFile"),
        )
    return NotifyRoute(
        name=name,
        kind=kind,
        url=url.rstrip("/") if kind != "smtp" else url,
        categories=_strings(where, "categories", item["categories"]) if "categories" in item else None,
        min_severity=min_severity,
        stores=_strings(where, "stores", item["stores"]) if "stores" in item else None,
        escalation=escalation,
        **extra,
    )


def parse_routes(value: Any) -> list[NotifyRoute]:
    """``FI_NOTIFY_CHANNELS`` → validated routes (empty or unset = no notifications)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return []
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise ValueError(
                'must be a JSON list such as [{"name": "duty", "kind": "webhook", "url": "https://hooks.example/fi"}]'
            ) from None
    if not isinstance(value, list):
        raise ValueError("must be a JSON list of channels")
    routes = [item if isinstance(item, NotifyRoute) else _route(i, item) for i, item in enumerate(value)]
    names = [r.name for r in routes]
    for name in names:
        if names.count(name) > 1:
            raise ValueError(f"channel name '{name}' is used twice; names must be unique")
    return routes


def check_against(
    routes: Sequence[NotifyRoute], alert_categories: Collection[str], severities: Collection[str]
) -> None:
    """Raise ValueError naming the first routing key the domain does not declare."""
    for route in routes:
        for category in route.categories or ():
            if category not in alert_categories:
                raise ValueError(f"channel '{route.name}': unknown alert category '{category}'")
        if route.min_severity is not None and route.min_severity not in severities:
            raise ValueError(f"channel '{route.name}': unknown severity '{route.min_severity}'")
