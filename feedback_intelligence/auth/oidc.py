"""OpenID Connect sign-in: authorization code with PKCE (S256) through Authlib.

Configured by ``FI_OIDC_ISSUER``, ``FI_OIDC_CLIENT_ID`` and ``FI_OIDC_CLIENT_SECRET``; the provider's
endpoints and keys come from its discovery document. The state, nonce and PKCE verifier of one sign-in
travel in a short-lived cookie signed with ``FI_SESSION_SECRET`` (itsdangerous), so any replica can
finish what another began. The ID token is verified against the provider's JWKS (signature,
``iss``, ``aud``, ``exp``, ``nonce``); a token that fails any check signs nobody in.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import httpx
from authlib.common.security import generate_token  # type: ignore[import-untyped]
from authlib.integrations.httpx_client import AsyncOAuth2Client  # type: ignore[import-untyped]
from authlib.oauth2.rfc7636 import create_s256_code_challenge  # type: ignore[import-untyped]
from itsdangerous import BadSignature, URLSafeTimedSerializer
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from feedback_intelligence.config import AuthSettings
from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock

FLOW_COOKIE = "fi_oidc"
FLOW_MAX_AGE_S = 600  # a sign-in at the provider must finish within ten minutes
DISCOVERY_CACHE_S = 3600
HTTP_TIMEOUT_S = 10.0
# Asymmetric signatures only: no "none", no HS256 keyed with a public key (algorithm confusion).
ID_TOKEN_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]


class OidcError(Exception):
    """A sign-in that cannot finish: the message is for the operator's log, not the person."""


@dataclass(frozen=True)
class Identity:
    subject: str  # iss|sub
    username: str
    display_name: str
    email: str | None
    claims: dict[str, Any]


class OidcClient:
    def __init__(self, settings: AuthSettings, secret: str, *, clock: Clock = SYSTEM_CLOCK) -> None:
        assert settings.oidc_issuer and settings.oidc_client_id and settings.oidc_client_secret
        self.settings = settings
        self.issuer = settings.oidc_issuer.rstrip("/")
        self.client_id = settings.oidc_client_id
        self.client_secret = settings.oidc_client_secret
        self._flows = URLSafeTimedSerializer(secret, salt="fi-oidc-flow")
        self._metadata: dict[str, Any] | None = None
        self._jwks: Any = None
        self._fetched_at = 0.0  # on ``clock``'s monotonic reading: how old the discovery is
        self._clock = clock

    async def metadata(self, *, refresh: bool = False) -> dict[str, Any]:
        if self._metadata is None or refresh or self._clock.monotonic() - self._fetched_at > DISCOVERY_CACHE_S:
            async with httpx.AsyncClient(timeout=HTTP_TIMEOUT_S) as http:
                try:
                    found = (await http.get(f"{self.issuer}/.well-known/openid-configuration")).raise_for_status()
                    metadata = found.json()
                    jwks = (await http.get(metadata["jwks_uri"])).raise_for_status().json()
                except (httpx.HTTPError, ValueError, KeyError) as exc:
                    raise OidcError(f"the provider's discovery at {self.issuer} failed: {exc}") from exc
            if metadata.get("issuer", "").rstrip("/") != self.issuer:
                raise OidcError(f"the discovery names issuer {metadata.get('issuer')!r}, not {self.issuer!r}")
            self._metadata, self._jwks, self._fetched_at = (
                metadata,
                KeySet.import_key_set(jwks),
                self._clock.monotonic(),
            )
        return self._metadata

    async def begin(self, redirect_uri: str, next_path: str) -> tuple[str, str]:
        """(the provider's authorization URL, the flow cookie's value)."""
        metadata = await self.metadata()
        verifier = generate_token(48)
        state, nonce = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        client = AsyncOAuth2Client(self.client_id, self.client_secret, scope=self.settings.oidc_scopes)
        url, _ = client.create_authorization_url(
            metadata["authorization_endpoint"],
            redirect_uri=redirect_uri,
            state=state,
            nonce=nonce,
            code_challenge=create_s256_code_challenge(verifier),
            code_challenge_method="S256",
        )
        flow = self._flows.dumps({"s": state, "n": nonce, "v": verifier, "r": redirect_uri, "next": next_path})
        return url, flow

    def read_flow(self, cookie: str | None) -> dict[str, str]:
        if not cookie:
            raise OidcError("no sign-in in progress in this browser (the flow cookie is missing)")
        try:
            flow = self._flows.loads(cookie, max_age=FLOW_MAX_AGE_S)
        except BadSignature as exc:
            raise OidcError("the sign-in's flow cookie is forged or expired") from exc
        return dict(flow)

    async def finish(self, flow: dict[str, str], code: str, state: str) -> Identity:
        if not secrets.compare_digest(state, flow["s"]):
            raise OidcError("the state the provider returned is not this browser's")
        metadata = await self.metadata()
        async with AsyncOAuth2Client(
            self.client_id, self.client_secret, timeout=HTTP_TIMEOUT_S, token_endpoint_auth_method="client_secret_basic"
        ) as client:
            try:
                token = await client.fetch_token(
                    metadata["token_endpoint"],
                    code=code,
                    redirect_uri=flow["r"],
                    code_verifier=flow["v"],
                    grant_type="authorization_code",
                )
            except Exception as exc:  # Authlib raises its OAuthError, httpx its own: both mean "refused"
                raise OidcError(f"the token endpoint refused the code: {exc}") from exc
        id_token = token.get("id_token")
        if not isinstance(id_token, str):
            raise OidcError("the token endpoint sent no ID token")
        return await self.verify_id_token(id_token, flow["n"])

    async def verify_id_token(self, id_token: str, nonce: str) -> Identity:
        await self.metadata()
        try:
            claims = self._decode(id_token, nonce)
        except (JoseError, ValueError):
            # the provider may have rotated its keys: refetch once, then refuse
            await self.metadata(refresh=True)
            try:
                claims = self._decode(id_token, nonce)
            except (JoseError, ValueError) as exc:
                raise OidcError(f"the ID token does not verify: {exc}") from exc
        sub = str(claims["sub"])
        username = str(claims.get("preferred_username") or claims.get("email") or sub)
        return Identity(
            subject=f"{claims['iss']}|{sub}",
            username=username,
            display_name=display_name(claims, self.settings.oidc_name_claim, username),
            email=str(claims["email"]) if claims.get("email") else None,
            claims=dict(claims),
        )

    def _decode(self, id_token: str, nonce: str) -> dict[str, Any]:
        token = jwt.decode(id_token, self._jwks, algorithms=ID_TOKEN_ALGORITHMS)
        jwt.JWTClaimsRegistry(
            leeway=30,
            iss={"essential": True, "values": [self.issuer, self.issuer + "/"]},
            aud={"essential": True, "value": self.client_id},
            sub={"essential": True},
            exp={"essential": True},
            nonce={"essential": True, "value": nonce},
        ).validate(token.claims)
        return dict(token.claims)


def display_name(claims: dict[str, Any], name_claim: str, username: str) -> str:
    """The name the pages show: the claim ``FI_OIDC_NAME_CLAIM`` names (default ``name``) when it holds
    text, else ``preferred_username``, else the user name."""
    for value in (claims.get(name_claim), claims.get("preferred_username")):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return username
