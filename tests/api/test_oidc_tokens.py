"""The ID token from a real provider (npm oidc-provider): verified, and refused when tampered with."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from feedback_intelligence.auth.oidc import OidcClient, OidcError
from feedback_intelligence.devtools.processes import free_port
from tests.support.oidc import CLIENT_ID, CLIENT_SECRET, authorization_code, oidc_provider
from tests.support.people import people_settings

pytestmark = pytest.mark.process

REDIRECT = "http://127.0.0.1:9/auth/oidc/callback"  # never followed: the code is taken from the redirect


@pytest.fixture(scope="module")
def issuer() -> Iterator[str]:
    with oidc_provider(free_port(), REDIRECT) as url:
        yield url


def _client(tmp_path: Path, issuer: str) -> OidcClient:
    settings = people_settings(
        tmp_path, "oidc", oidc_issuer=issuer, oidc_client_id=CLIENT_ID, oidc_client_secret=CLIENT_SECRET
    )
    return OidcClient(settings.auth, "secret")


async def _id_token(client: OidcClient, login: str) -> tuple[str, str]:
    """A real ID token (and its nonce) through the authorization code flow with PKCE."""
    url, cookie = await client.begin(REDIRECT, "/")
    flow = client.read_flow(cookie)
    code, state = await authorization_code(url, REDIRECT, login)
    assert state == flow["s"]
    metadata = await client.metadata()
    async with httpx.AsyncClient(timeout=10) as http:
        answer = await http.post(
            metadata["token_endpoint"],
            auth=(CLIENT_ID, CLIENT_SECRET),
            data={
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": REDIRECT,
                "code_verifier": flow["v"],
            },
        )
    answer.raise_for_status()
    return answer.json()["id_token"], flow["n"]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


async def test_a_real_id_token_verifies_with_its_claims(tmp_path: Path, issuer: str) -> None:
    client = _client(tmp_path, issuer)
    token, nonce = await _id_token(client, "manu")
    identity = await client.verify_id_token(token, nonce)
    assert identity.subject == f"{issuer}|manu"
    assert identity.claims["roles"] == ["FI.Manager"] and identity.claims["stores"] == ["*"]


async def test_the_flow_without_pkce_verifier_is_refused_by_the_provider(tmp_path: Path, issuer: str) -> None:
    client = _client(tmp_path, issuer)
    url, cookie = await client.begin(REDIRECT, "/")
    flow = client.read_flow(cookie)
    code, state = await authorization_code(url, REDIRECT, "manu")
    with pytest.raises(OidcError):
        await client.finish({**flow, "v": "x" * 48}, code, state)


async def test_a_tampered_id_token_is_refused(tmp_path: Path, issuer: str) -> None:
    client = _client(tmp_path, issuer)
    token, nonce = await _id_token(client, "kaisa")
    header, payload, signature = token.split(".")
    claims = json.loads(_unb64(payload))
    claims["roles"] = ["operator"]  # a clerk making themselves an operator
    tampered = ".".join([header, _b64(json.dumps(claims).encode()), signature])
    with pytest.raises(OidcError):
        await client.verify_id_token(tampered, nonce)
    unsigned = ".".join([_b64(b'{"alg":"none","typ":"JWT"}'), _b64(json.dumps(claims).encode()), ""])
    with pytest.raises(OidcError):
        await client.verify_id_token(unsigned, nonce)
    with pytest.raises(OidcError):  # a replayed token with another sign-in's nonce
        await client.verify_id_token(token, "another-nonce")
    with pytest.raises(OidcError):
        await client.finish(client.read_flow((await client.begin(REDIRECT, "/"))[1]), "code", "forged-state")
