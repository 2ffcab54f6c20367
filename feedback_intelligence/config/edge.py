"""The edge: who is believed about a client's address, who may call what, how often, and how big."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from pydantic import ValidationInfo, ValidatorFunctionWrapHandler, field_validator

from feedback_intelligence.config.fields import Group, StringList, composition, variable
from feedback_intelligence.config.server import networks

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")  # as a Host header names them (IPv6 in brackets)


class EdgeSettings(Group):
    trusted_proxies: StringList = variable("FI_TRUSTED_PROXIES", default_factory=list)
    operator_token: str | None = variable("FI_OPERATOR_TOKEN", None)
    cors_origins: StringList = variable("FI_CORS_ORIGINS", default_factory=list)
    # Host names this service answers to (exact, or "*.example.org"); unset = the listen host and the
    # loopback names. A page on another name (DNS rebinding) gets 400 before any route.
    allowed_hosts: StringList = variable("FI_ALLOWED_HOSTS", default_factory=list, validate_default=True)
    rate_limit: str = variable("FI_RATE_LIMIT", "30/60seconds")
    audience_rate_limit: str = variable("FI_AUDIENCE_RATE_LIMIT", "600/60seconds")
    rate_limit_exempt_loopback: bool = variable("FI_RATE_LIMIT_EXEMPT_LOOPBACK", True)
    max_inflight_llm_per_client: int = variable("FI_MAX_INFLIGHT_LLM_PER_CLIENT", 1, ge=1, le=64)
    # LLM requests in flight from one address (IPv4) or prefix (IPv6), whatever keys it holds;
    # unset = half the gate's slots, at least one (no address holds the whole GPU; ADR 0032)
    max_inflight_llm_per_address: int = variable(
        "FI_MAX_INFLIGHT_LLM_PER_ADDRESS", None, ge=1, le=1024, validate_default=True
    )
    # how addresses aggregate for fair shares, limits and visitor keys: IPv6 by prefix (a host gets a
    # /64), IPv4 by address
    ipv6_prefix: int = variable("FI_IPV6_PREFIX", 64, ge=16, le=128)
    ipv4_prefix: int = variable("FI_IPV4_PREFIX", 32, ge=8, le=32)
    visitor_secret: str | None = variable("FI_VISITOR_SECRET", None)
    # new visitor keys one address (or IPv6 prefix) may be issued per window (limits' syntax)
    visitor_issue_limit: str = variable("FI_VISITOR_ISSUE_LIMIT", "200/hour")
    max_body_bytes: int = variable("FI_MAX_BODY_BYTES", 16_384, ge=1024, le=1_048_576)

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, value: list[str]) -> list[str]:
        return networks(value)

    @field_validator("cors_origins")
    @classmethod
    def _origins(cls, value: list[str]) -> list[str]:
        for origin in value:
            parsed = urlparse(origin)
            if parsed.scheme not in ("http", "https") or not parsed.netloc or parsed.path not in ("",):
                raise ValueError(f"'{origin}' must be an origin like https://shop.example (no path)")
        return value

    @field_validator("rate_limit", "audience_rate_limit", "visitor_issue_limit")
    @classmethod
    def _rate(cls, value: str) -> str:
        return rate(value)

    @field_validator("allowed_hosts")
    @classmethod
    def _hosts(cls, value: list[str], info: ValidationInfo) -> list[str]:
        for host in value:
            if (
                not host
                or "/" in host
                or (host != "*" and "*" in host[1:])
                or (host.startswith("*") and host != "*" and not host.startswith("*."))
            ):
                raise ValueError(f"'{host}' must be a host name, an address, '*.domain' or '*'")
        return [host.lower() for host in value] or _listen_and_loopback(composition(info).listen_host)

    @field_validator("max_inflight_llm_per_address", mode="wrap")
    @classmethod
    def _per_address(cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> int:
        if value is None:
            return max(1, composition(info).total_slots // 2)
        result: int = handler(value)
        return result


def _listen_and_loopback(host: str) -> list[str]:
    """The default of FI_ALLOWED_HOSTS: the listen host (unless a wildcard address) and the loopback names."""
    hosts = list(LOOPBACK_NAMES)
    if host not in ("0.0.0.0", "::", ""):
        listen = f"[{host.lower()}]" if ":" in host else host.lower()
        if listen not in hosts:
            hosts.append(listen)
    return hosts


def rate(value: str) -> str:
    """``value`` if it is a rate in limits' syntax (``30/60seconds``)."""
    from limits import parse

    try:
        parse(value)
    except ValueError as exc:
        raise ValueError(f"'{value}' is not a rate such as 30/60seconds") from exc
    return value
