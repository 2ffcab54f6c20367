"""People and permissions (ADR 0030): who is signed in and how, sessions, sign-in limits, single sign-on's
allow-lists and a trusted proxy's identity headers."""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal, Self

from pydantic import BeforeValidator, field_validator, model_validator

from feedback_intelligence.config.edge import rate
from feedback_intelligence.config.fields import Group, blank_is_none, variable


def _role_map(value: Any) -> Any:
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except json.JSONDecodeError as exc:
            raise ValueError('must be a JSON object, e.g. {"FI.Manager": "manager"}') from exc
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and v in ("clerk", "manager", "operator") for k, v in value.items()
    ):
        raise ValueError("must map the provider's role names to clerk, manager or operator")
    return value


class AuthSettings(Group):
    # none = today's open desk, stated at boot and in /health
    mode: Literal["none", "local", "oidc", "proxy"] = variable("FI_AUTH", "none")
    session_secret: str | None = variable("FI_SESSION_SECRET", None)  # signs CSRF tokens; unset = kept_secrets
    session_max_age_s: int = variable("FI_SESSION_MAX_AGE_S", 12 * 3600, ge=300, le=30 * 86_400)
    # failed sign-ins at one name from one address (IPv6: its /64)
    login_rate_limit: str = variable("FI_LOGIN_RATE_LIMIT", "5/300seconds")
    # failed sign-ins at one name from anywhere; past it only addresses the account signed in from may try
    login_name_rate_limit: str = variable("FI_LOGIN_NAME_RATE_LIMIT", "100/3600seconds")
    login_address_rate_limit: str = variable("FI_LOGIN_ADDRESS_RATE_LIMIT", "30/300seconds")  # attempts per address
    password_check_slots: int = variable("FI_PASSWORD_CHECK_SLOTS", 1, ge=1, le=64)  # Argon2 off the event loop
    correction_window_s: int = variable("FI_CORRECTION_WINDOW_S", 15 * 60, ge=0, le=30 * 86_400)  # own entries
    oidc_issuer: str | None = variable("FI_OIDC_ISSUER", None)  # https://login.microsoftonline.com/<tenant>/v2.0
    oidc_client_id: str | None = variable("FI_OIDC_CLIENT_ID", None)
    oidc_client_secret: str | None = variable("FI_OIDC_CLIENT_SECRET", None)
    oidc_scopes: str = variable("FI_OIDC_SCOPES", "openid profile email")
    oidc_roles_claim: str = variable("FI_OIDC_ROLES_CLAIM", "roles")  # a list (or space-separated string) of roles
    oidc_stores_claim: str = variable("FI_OIDC_STORES_CLAIM", "stores")  # a list of store ids, or "*"
    # the provider's role names → ours, e.g. {"FI.Manager": "manager"}; once set, an allow-list: an unmapped
    # claim value grants nothing (unset: our own names map to themselves)
    oidc_role_map: Annotated[dict[str, str], BeforeValidator(_role_map)] = variable(
        "FI_OIDC_ROLE_MAP", default_factory=dict
    )
    oidc_name_claim: str = variable("FI_OIDC_NAME_CLAIM", "name", min_length=1, max_length=100)  # the shown name
    # the stores-claim value that grants the whole chain (e.g. "*"); unset = no claim value does
    oidc_chain_value: str | None = variable("FI_OIDC_CHAIN_VALUE", None, max_length=100)
    oidc_redirect_url: str | None = variable("FI_OIDC_REDIRECT_URL", None)  # unset = /auth/oidc/callback as called
    proxy_user_header: str = variable("FI_PROXY_USER_HEADER", "x-forwarded-user")
    proxy_name_header: str = variable("FI_PROXY_NAME_HEADER", "x-forwarded-preferred-username")
    proxy_roles_header: str = variable("FI_PROXY_ROLES_HEADER", "x-forwarded-groups")
    proxy_stores_header: str = variable("FI_PROXY_STORES_HEADER", "x-forwarded-stores")

    @property
    def enabled(self) -> bool:
        return self.mode != "none"

    @field_validator("login_rate_limit", "login_name_rate_limit", "login_address_rate_limit")
    @classmethod
    def _rate(cls, value: str) -> str:
        return rate(value)

    @field_validator("proxy_user_header", "proxy_name_header", "proxy_roles_header", "proxy_stores_header")
    @classmethod
    def _header_name(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9-]{1,64}", value):
            raise ValueError("must be an HTTP header name")
        return value.lower()

    @field_validator("oidc_chain_value")
    @classmethod
    def _blank_is_none(cls, value: str | None) -> str | None:
        return blank_is_none(value)

    @model_validator(mode="after")
    def _oidc_complete(self) -> Self:
        if self.mode == "oidc" and not (self.oidc_issuer and self.oidc_client_id and self.oidc_client_secret):
            raise ValueError("FI_AUTH: oidc needs FI_OIDC_ISSUER, FI_OIDC_CLIENT_ID and FI_OIDC_CLIENT_SECRET")
        return self
