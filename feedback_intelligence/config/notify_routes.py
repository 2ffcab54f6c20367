"""``FI_NOTIFY_CHANNELS``: the notify routes and who gets what (docs/adr/0029-alerts-outbox-cases.md).

A JSON list of ``{"name", "kind", "url", …}``: ``kind`` is ``webhook``, ``slack``, ``teams`` or
``smtp``; ``url`` is the receiver (``smtp://host:port`` for mail, ``smtps://`` for TLS from the first
byte). Routing keys, each optional: ``categories`` (alert category keys), ``minSeverity`` (a severity
key of the domain), ``stores`` (store ids; an item with no store matches only a route without
``stores``), ``escalation`` (true: this route gets escalations of unacknowledged critical cases only).
A route with none of them receives every operational alert. Kind-specific keys: ``secret`` and
``unsigned`` (webhook), ``from``, ``to``, ``username``, ``password``, ``starttls`` (default true),
``caFile`` (smtp). Parsed by pydantic (:class:`NotifyRoute`); the domain's keys are checked at start-up
by :func:`check_against`.

What keeps a route's messages its own differs by kind (docs/adr/0038-notifications-carry-text.md): a
generic ``webhook`` is signed per Standard Webhooks under its ``secret`` (``whsec_`` and the base64 of
at least 24 random bytes), and one without a secret is refused unless it says ``"unsigned": true``;
a Slack or Teams incoming webhook's URL is its secret (whoever holds it can post), so it has no other;
``smtp`` signs nothing and logs in with ``username`` and ``password`` where the relay asks for them.
A route's ``repr`` shows none of its URL, secret or credentials.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Collection, Sequence
from typing import Annotated, Any, Literal, Self
from urllib.parse import urlparse

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    TypeAdapter,
    ValidationInfo,
    field_validator,
    model_validator,
)

from feedback_intelligence.config.json_lists import json_list_text, named_entries, unique

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
EXAMPLE = '[{"name": "duty", "kind": "webhook", "url": "https://hooks.example/fi"}]'


def _strings(value: Any) -> Any:
    if value is not None and (
        not isinstance(value, list | tuple) or not value or not all(isinstance(v, str) and v.strip() for v in value)
    ):
        raise ValueError("must be a non-empty list of strings")
    return None if value is None else tuple(v.strip() for v in value)


Strings = Annotated[tuple[str, ...] | None, BeforeValidator(_strings)]
Recipients = Annotated[tuple[str, ...], BeforeValidator(_strings)]


class NotifyRoute(BaseModel):
    """One route of ``FI_NOTIFY_CHANNELS``, as written (the JSON keys are the aliases)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    kind: NotifyKind
    url: str = Field(repr=False)  # a Slack or Teams URL is its secret
    categories: Strings = None
    min_severity: str | None = Field(None, alias="minSeverity")
    stores: Strings = None
    escalation: StrictBool = False
    # webhook: the Standard Webhooks secret "whsec_…"; None only when configured unsigned
    secret: str | None = Field(None, repr=False)
    unsigned: StrictBool = False
    mail_from: str | None = Field(None, alias="from")
    mail_to: Recipients = Field((), alias="to")
    username: str | None = Field(None, repr=False)
    password: str | None = Field(None, repr=False)
    starttls: StrictBool = True
    ca_file: str | None = Field(None, alias="caFile")

    @model_validator(mode="before")
    @classmethod
    def _keys_of_its_kind(cls, item: Any) -> Any:
        if isinstance(item, dict) and item.get("kind") in _BY_KIND:
            unknown = sorted(set(item) - _COMMON - _BY_KIND[item["kind"]])
            if unknown:
                raise ValueError(f"unknown field '{unknown[0]}' for kind {item['kind']}")
            if isinstance(item.get("to"), str):
                item = {**item, "to": [item["to"]]}
        return item

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not NAME_PATTERN.fullmatch(value):
            raise ValueError("must be 1-64 letters, digits, '_', '.' or '-'")
        return value

    @field_validator("url")
    @classmethod
    def _url(cls, value: str, info: ValidationInfo) -> str:
        kind = info.data.get("kind")
        if kind is None:  # the kind's own error says what is wrong
            return value
        parsed = urlparse(value)
        schemes = ("smtp", "smtps") if kind == "smtp" else ("http", "https")
        if parsed.scheme not in schemes or not parsed.hostname:
            raise ValueError(
                "must be smtp://host:port or smtps://host:port" if kind == "smtp" else "must be an absolute http(s) URL"
            )
        return value if kind == "smtp" else value.rstrip("/")

    @field_validator("min_severity")
    @classmethod
    def _severity(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("must be a severity key")
        return value

    @model_validator(mode="after")
    def _kind_rules(self) -> Self:
        if self.kind == "webhook":
            _check_webhook_secret(self.secret, self.unsigned)
        if self.kind == "smtp":
            if self.mail_from is None or "@" not in self.mail_from:
                raise ValueError("from must be an e-mail address")
            if not self.mail_to:
                raise ValueError("to must be a non-empty list of strings")
            if not all("@" in r for r in self.mail_to):
                raise ValueError("to must list e-mail addresses")
        return self

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


def _check_webhook_secret(secret: str | None, unsigned: bool) -> None:
    """A signed webhook's secret is of Standard Webhooks' form; a route without one says it is unsigned."""
    if unsigned:
        if secret is not None:
            raise ValueError('a route with a secret is signed; drop "unsigned": true or the secret')
        return
    if secret is None:
        raise ValueError(
            f'a webhook is signed, so it needs a secret ("secret": "whsec_…", made with '
            f'{MAKE_A_SECRET}); a receiver that checks no signature needs "unsigned": true'
        )
    if not secret.startswith(SECRET_PREFIX):
        raise ValueError(f"secret must be a Standard Webhooks secret 'whsec_…' (made with {MAKE_A_SECRET})")
    encoded = secret.removeprefix(SECRET_PREFIX)
    try:
        key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
    except binascii.Error:
        raise ValueError(f"secret after 'whsec_' must be base64 (made with {MAKE_A_SECRET})") from None
    if len(key) < SECRET_MIN_BYTES:
        raise ValueError(f"secret must hold at least {SECRET_MIN_BYTES} bytes (made with {MAKE_A_SECRET})")


def _routes_text(value: Any) -> Any:
    parsed = json_list_text(value, example=EXAMPLE)
    if parsed is None:
        return ()
    if not isinstance(parsed, list | tuple):
        raise ValueError("must be a JSON list of channels")
    return parsed


#: The type of ``FI_NOTIFY_CHANNELS``: empty or unset = no notifications.
NotifyRoutes = Annotated[
    tuple[NotifyRoute, ...],
    named_entries("channel", "name", NotifyRoute),
    BeforeValidator(_routes_text),
    AfterValidator(unique("channel", "name")),
]
_ROUTES: TypeAdapter[tuple[NotifyRoute, ...]] = TypeAdapter(NotifyRoutes)


def parse_routes(value: Any) -> tuple[NotifyRoute, ...]:
    """``FI_NOTIFY_CHANNELS``'s text (or its decoded list) → validated routes."""
    return _ROUTES.validate_python(value)


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
