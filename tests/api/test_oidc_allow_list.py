"""Single sign-on through a real provider (npm oidc-provider, tests/oidc_provider) into the real app: the
role map is an allow-list once set, a ``*`` store grants the chain only through FI_OIDC_CHAIN_VALUE, the
shown name comes from FI_OIDC_NAME_CLAIM, and the return path obeys the one ``next`` rule."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from feedback_intelligence.devtools.processes import free_port
from tests.support.next_paths import NEXT_PATHS
from tests.support.oidc import CLIENT_ID, CLIENT_SECRET, authorization_code, oidc_provider
from tests.support.people import client, people_settings, running_app

pytestmark = pytest.mark.process

REDIRECT = "http://fi.test/auth/oidc/callback"  # the app's own callback, as the ASGI client calls it
ROLE_MAP = json.dumps({"FI.Clerk": "clerk", "FI.Manager": "manager"})
STORES = json.dumps([{"id": "s1", "name": "Keskusta"}])


@pytest.fixture(scope="module")
def issuer() -> Iterator[str]:
    with oidc_provider(free_port(), REDIRECT) as url:
        yield url


async def _sign_in(tmp_path: Path, issuer: str, login: str, next_raw: str = "/", **overrides: Any) -> dict[str, Any]:
    """The whole sign-in as a browser makes it; /auth/me afterwards, with where the callback sent it."""
    settings = people_settings(
        tmp_path,
        "oidc",
        oidc_issuer=issuer,
        oidc_client_id=CLIENT_ID,
        oidc_client_secret=CLIENT_SECRET,
        **overrides,
    )
    async with running_app(settings) as app, client(app) as browser:
        begun = await browser.get(f"/auth/oidc/login?next={next_raw}")
        assert begun.status_code == 303 and begun.headers["location"].startswith(issuer), begun.text
        code, state = await authorization_code(begun.headers["location"], REDIRECT, login)
        back = await browser.get("/auth/oidc/callback", params={"code": code, "state": state})
        assert back.status_code == 303, back.text
        me = (await browser.get("/auth/me")).json()
        return {**me, "location": back.headers["location"]}


async def test_with_the_role_map_set_a_raw_operator_role_grants_nothing(tmp_path: Path, issuer: str) -> None:
    me = await _sign_in(tmp_path, issuer, "mallory", oidc_role_map=ROLE_MAP, stores=STORES)
    assert me["signedIn"]
    # "operator" is not a key of the map; "*" needs FI_OIDC_CHAIN_VALUE; s9 is not a store here
    assert me["grants"] == [{"role": "clerk", "store": "s1"}]
    assert me["displayName"] == "mallory"  # an empty name claim: preferred_username


async def test_without_a_map_our_own_names_still_map_to_themselves(tmp_path: Path, issuer: str) -> None:
    me = await _sign_in(tmp_path, issuer, "mallory", stores=STORES)
    assert {"role": "operator", "store": "*"} in me["grants"]  # the documented no-map behaviour, unchanged


async def test_a_star_store_grants_the_chain_only_with_the_chain_value(tmp_path: Path, issuer: str) -> None:
    without = await _sign_in(tmp_path / "without", issuer, "manu", oidc_role_map=ROLE_MAP)
    assert without["signedIn"] and without["grants"] == []
    with_value = await _sign_in(tmp_path / "with", issuer, "manu", oidc_role_map=ROLE_MAP, oidc_chain_value="*")
    assert with_value["grants"] == [{"role": "manager", "store": "*"}]
    assert with_value["displayName"] == "Manu Manageri"  # FI_OIDC_NAME_CLAIM's default: name


async def test_the_shown_name_comes_from_the_configured_claim(tmp_path: Path, issuer: str) -> None:
    me = await _sign_in(tmp_path, issuer, "kaisa", oidc_role_map=ROLE_MAP, oidc_name_claim="email")
    assert me["displayName"] == "kaisa@example.test" and me["grants"] == [{"role": "clerk", "store": "s1"}]
    fallback = await _sign_in(tmp_path / "absent", issuer, "kaisa", oidc_role_map=ROLE_MAP, oidc_name_claim="nick")
    assert fallback["displayName"] == "kaisa"  # no such claim: preferred_username


@pytest.mark.parametrize(("raw", "lands"), [row for row in NEXT_PATHS if row[0] in ("/desk", "/%09/evil.example")])
async def test_the_return_path_obeys_the_next_rule(tmp_path: Path, issuer: str, raw: str, lands: str) -> None:
    me = await _sign_in(tmp_path, issuer, "kaisa", quote(raw, safe="/%"), oidc_role_map=ROLE_MAP)
    assert me["location"] == lands
