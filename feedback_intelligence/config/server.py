"""The process itself: where it listens, the HTTP server's bounds a client cannot stretch, how it logs."""

from __future__ import annotations

import ipaddress
from typing import Literal

from pydantic import field_validator

from feedback_intelligence.config.fields import Group, StringList, variable


class ServerSettings(Group):
    host: str = variable("FI_HOST", "127.0.0.1")
    port: int = variable("FI_PORT", 8080, ge=1, le=65535)
    # the HTTP server itself (feedctl serve)
    max_header_bytes: int = variable("FI_MAX_HEADER_BYTES", 16_384, ge=4096, le=1_048_576)
    max_connections: int = variable("FI_MAX_CONNECTIONS", 256, ge=8, le=100_000)
    request_read_timeout_s: float = variable("FI_REQUEST_READ_TIMEOUT_S", 10, gt=0, le=600)
    keep_alive_timeout_s: float = variable("FI_KEEP_ALIVE_TIMEOUT_S", 5, gt=0, le=600)
    request_header_timeout_s: float = variable("FI_REQUEST_HEADER_TIMEOUT_S", 5, gt=0, le=600)
    # one peer's share of max_connections (IPv6 by /64); the host's own tools and trusted proxies are exempt
    max_connections_per_address: int = variable("FI_MAX_CONNECTIONS_PER_ADDRESS", 64, ge=1, le=100_000)
    connection_share_exempt: StringList = variable(
        "FI_CONNECTION_SHARE_EXEMPT", default_factory=lambda: ["127.0.0.1", "::1"]
    )
    # text: lines for people; json: one JSON object per line (time, level, logger, message, extra fields)
    log_format: Literal["text", "json"] = variable("FI_LOG_FORMAT", "text")

    @field_validator("connection_share_exempt")
    @classmethod
    def _networks(cls, value: list[str]) -> list[str]:
        return networks(value)


def networks(value: list[str]) -> list[str]:
    """``value`` if every entry is an IP address or CIDR."""
    for entry in value:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError as exc:
            raise ValueError(f"'{entry}' is not an IP address or CIDR") from exc
    return value
