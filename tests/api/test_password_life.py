"""Passwords over their whole life, over the real app (FI_AUTH=local): a person changes their own, an
operator resets one, the password rule, look-alike names, grants of configured stores only, and the
sign-in's ``next`` (the shared table, tests/support/next_paths.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from feedback_intelligence.config import Settings
from tests.support.next_paths import NEXT_PATHS, decoded
from tests.support.people import (
    LOOPBACK,
    PASSWORD,
    STRANGER,
    add_user,
    client,
    csrf,
    people_settings,
    running_app,
    sign_in,
)

NEW_PASSWORD = "uusi-kassan-salasana-2"


def _settings(tmp_path: Path, **overrides: Any) -> Settings:
    return people_settings(tmp_path, rate_limit="10000/60seconds", audience_rate_limit="10000/60seconds", **overrides)


async def _signed_in(http: httpx.AsyncClient) -> bool:
    return bool((await http.get("/auth/me")).json()["signedIn"])


async def _audit(app: Any) -> list[dict[str, Any]]:
    async with client(app, LOOPBACK) as program:
        return list(reversed((await program.get("/audit", params={"limit": 100})).json()["entries"]))


def _codes(answer: httpx.Response) -> list[str]:
    return [c["code"] for c in answer.json()["codes"]]


async def test_changing_ones_own_password_ends_every_other_session_but_this_one(tmp_path: Path) -> None:
    async with running_app(_settings(tmp_path)) as app:
        kaisa = await add_user(app, "kaisa", ("clerk", "s1"))
        async with client(app) as here, client(app) as phone, client(app) as stolen:
            for http in (here, phone, stolen):
                assert (await sign_in(http, "kaisa")).status_code == 200
            changed = await here.post(
                "/auth/password",
                json={"currentPassword": PASSWORD, "newPassword": NEW_PASSWORD},
                headers=csrf(here),
            )
            assert changed.status_code == 200, changed.text
            assert changed.json() == {"username": "kaisa", "sessionsEnded": 2}
            assert await _signed_in(here)  # the session that made the change goes on
            assert (await here.get("/live/feedback")).status_code == 200
            assert not await _signed_in(phone) and not await _signed_in(stolen)
            assert (await stolen.get("/live/feedback")).status_code == 401
        async with client(app) as later:
            assert (await sign_in(later, "kaisa")).status_code == 401  # the old password is gone
            assert (await sign_in(later, "kaisa", NEW_PASSWORD)).status_code == 200
        rows = [e for e in await _audit(app) if e["action"] == "account.password_change"]
        assert [(r["actor"]["kind"], r["actor"]["id"], r["newValue"], r["reason"]) for r in rows] == [
            ("account", kaisa, "kaisa", "sessions ended: 2")
        ]
        assert PASSWORD not in json.dumps(rows) and NEW_PASSWORD not in json.dumps(rows)


async def test_a_wrong_current_password_is_refused_and_counts_as_a_failed_sign_in(tmp_path: Path) -> None:
    async with running_app(_settings(tmp_path, login_rate_limit="3/300seconds")) as app:
        await add_user(app, "kaisa", ("clerk", "s1"))
        async with client(app) as thief, client(app) as owner:
            await sign_in(thief, "kaisa")
            await sign_in(owner, "kaisa")
            for _ in range(3):
                wrong = await thief.post(
                    "/auth/password",
                    json={"currentPassword": "arvaus-123456", "newPassword": NEW_PASSWORD},
                    headers=csrf(thief),
                )
                assert wrong.status_code == 403 and wrong.json()["error"] == "current_password_wrong"
            throttled = await thief.post(
                "/auth/password", json={"currentPassword": PASSWORD, "newPassword": NEW_PASSWORD}, headers=csrf(thief)
            )
            assert throttled.status_code == 429 and throttled.json()["error"] == "signin_throttled"
            assert int(throttled.headers["Retry-After"]) >= 1
            assert await _signed_in(owner)  # nothing changed
        async with client(app) as same_address:
            assert (await sign_in(same_address, "kaisa")).status_code == 429  # the sign-in's (address, name) window
        assert not [e for e in await _audit(app) if e["action"] == "account.password_change"]


async def test_the_change_needs_a_session_the_csrf_token_and_local_accounts(tmp_path: Path) -> None:
    body = {"currentPassword": PASSWORD, "newPassword": NEW_PASSWORD}
    async with running_app(_settings(tmp_path)) as app:
        await add_user(app, "kaisa", ("clerk", "s1"))
        async with client(app) as anonymous:
            nobody = await anonymous.post("/auth/password", json=body)
            assert nobody.status_code == 401 and nobody.json()["error"] == "signin_required"
        async with client(app) as kaisa:
            await sign_in(kaisa, "kaisa")
            bare = await kaisa.post("/auth/password", json=body)
            assert bare.status_code == 403 and bare.json()["error"] == "csrf_required"
    async with running_app(_settings(tmp_path / "none", auth="none")) as app, client(app) as anyone:
        off = await anyone.post("/auth/password", json=body)
        assert off.status_code == 404 and _codes(off) == ["password_change_unavailable"]


@pytest.mark.parametrize(
    ("password", "code"),
    [
        ("lyhyt", "password_too_short"),
        ("          ", "password_blank"),
        ("aaaaaaaaaa", "password_repeated"),
        ("password1", "password_common"),
        ("salasana", "password_common"),
        ("Kaisa", "password_too_short"),
        ("kaisa-kassinen", "password_is_username"),
    ],
)
async def test_a_new_password_breaking_the_rule_is_refused_with_its_code(
    tmp_path: Path, password: str, code: str
) -> None:
    async with running_app(_settings(tmp_path)) as app:
        await add_user(app, "kaisa-kassinen", ("clerk", "s1"))
        async with client(app) as kaisa:
            await sign_in(kaisa, "kaisa-kassinen")
            refused = await kaisa.post(
                "/auth/password", json={"currentPassword": PASSWORD, "newPassword": password}, headers=csrf(kaisa)
            )
            assert refused.status_code == 400, refused.text
            assert _codes(refused) == [code]
            assert refused.json()["codes"][0]["field"] == "newPassword"
        async with client(app, LOOPBACK) as operator:
            reset = await operator.put("/admin/users/kaisa-kassinen/password", json={"password": password})
            assert reset.status_code == 400 and _codes(reset) == [code]
            added = await operator.post(
                "/admin/users",
                json={"username": "kaisa-kassinen", "password": password, "grants": [{"role": "clerk", "store": "s1"}]},
            )
            assert added.status_code == 400 and code in _codes(added)
        async with client(app) as later:
            assert (await sign_in(later, "kaisa-kassinen")).status_code == 200  # the password stayed


async def test_an_operator_reset_ends_every_session_of_the_account(tmp_path: Path) -> None:
    async with running_app(_settings(tmp_path)) as app:
        kaisa = await add_user(app, "kaisa", ("clerk", "s1"))
        async with client(app) as one, client(app) as two:
            await sign_in(one, "kaisa")
            await sign_in(two, "kaisa")
            async with client(app, STRANGER) as stranger:
                hidden = await stranger.put("/admin/users/kaisa/password", json={"password": NEW_PASSWORD})
                assert hidden.status_code == 404 and hidden.json() == {"error": "Not Found"}
            async with client(app, LOOPBACK) as operator:
                reset = await operator.put("/admin/users/KAISA/password", json={"password": NEW_PASSWORD})
                assert reset.status_code == 200, reset.text
                assert reset.json() == {"username": "kaisa", "sessionsEnded": 2}
                unknown = await operator.put("/admin/users/nobody/password", json={"password": NEW_PASSWORD})
                assert unknown.status_code == 404
            assert not await _signed_in(one) and not await _signed_in(two)
        async with client(app) as later:
            assert (await sign_in(later, "kaisa")).status_code == 401
            assert (await sign_in(later, "kaisa", NEW_PASSWORD)).status_code == 200
        rows = [e for e in await _audit(app) if e["action"] == "account.password_reset"]
        assert [(r["actor"]["kind"], r["field"], r["newValue"], r["reason"]) for r in rows] == [
            ("operator", kaisa, "kaisa", "sessions ended: 2")
        ]


async def test_a_single_sign_on_account_has_no_password_to_reset(tmp_path: Path) -> None:
    settings = _settings(tmp_path, auth="proxy", trusted_proxies=["10.0.0.9"])
    headers = {"X-Forwarded-User": "pia@example.test", "X-Forwarded-Groups": "manager", "X-Forwarded-Stores": "s1"}
    async with running_app(settings) as app:
        async with client(app, ("10.0.0.9", 5000)) as proxy:
            assert (await proxy.get("/auth/me", headers=headers)).json()["signedIn"]
        async with client(app, LOOPBACK) as operator:
            reset = await operator.put("/admin/users/pia@example.test/password", json={"password": NEW_PASSWORD})
            assert reset.status_code == 409 and reset.json()["error"] == "account_not_local"


async def test_a_look_alike_of_a_taken_name_is_that_name(tmp_path: Path) -> None:
    async with running_app(_settings(tmp_path)) as app:
        await add_user(app, "admin", ("operator", "*"))
        async with client(app, LOOPBACK) as operator:
            grants = [{"role": "operator", "store": "*"}]
            for look_alike in ("ａｄｍｉｎ", "ＡＤＭＩＮ", "Admin"):
                twin = await operator.post(
                    "/admin/users", json={"username": look_alike, "password": NEW_PASSWORD, "grants": grants}
                )
                assert twin.status_code == 409, (look_alike, twin.text)
                assert twin.json() == {"error": "username_taken", "username": "admin"}
            for hidden in ("ad\u200bmin", "admin\u2060", "ad\u00admin"):
                invisible = await operator.post(
                    "/admin/users", json={"username": hidden, "password": NEW_PASSWORD, "grants": grants}
                )
                assert invisible.status_code == 400 and _codes(invisible) == ["username_invalid"], hidden
            colon = await operator.post(
                "/admin/users", json={"username": "pia\uff1as1", "password": NEW_PASSWORD, "grants": grants}
            )
            assert colon.status_code == 400 and _codes(colon) == ["username_invalid"]  # a full-width colon is ':'
            created = await operator.post(
                "/admin/users",
                json={"username": "Ｐｉａ", "password": NEW_PASSWORD, "grants": [{"role": "clerk", "store": "s1"}]},
            )
            assert created.status_code == 201 and created.json()["username"] == "pia"
        async with client(app) as browser:
            assert (await sign_in(browser, "ＰＩＡ", NEW_PASSWORD)).status_code == 200  # the same name, typed wide


async def test_a_grant_names_a_configured_store_or_is_refused(tmp_path: Path) -> None:
    stores = json.dumps([{"id": "s1", "name": "Keskusta"}, {"id": "s2", "name": "Itäkeskus"}])
    async with running_app(_settings(tmp_path, stores=stores)) as app, client(app, LOOPBACK) as operator:
        unknown = await operator.post(
            "/admin/users",
            json={"username": "ville", "password": PASSWORD, "grants": [{"role": "clerk", "store": "s9"}]},
        )
        assert unknown.status_code == 400 and _codes(unknown) == ["store_unknown"]
        assert "FI_STORES" in unknown.json()["errors"][0]
        await add_user(app, "ville", ("clerk", "s1"))
        granted = await operator.post("/admin/users/ville/grants", json={"role": "manager", "store": "s9"})
        assert granted.status_code == 400 and _codes(granted) == ["store_unknown"]
        assert (await operator.post("/admin/users/ville/grants", json={"role": "manager", "store": "s2"})).is_success
        chain = await operator.post("/admin/users/ville/grants", json={"role": "manager", "store": "*"})
        assert {"role": "manager", "store": "*"} in chain.json()["grants"]
    async with running_app(_settings(tmp_path / "pattern")) as app, client(app, LOOPBACK) as operator:
        odd = await operator.post(
            "/admin/users",
            json={"username": "ville", "password": PASSWORD, "grants": [{"role": "clerk", "store": "s 1"}]},
        )
        assert odd.status_code == 400 and _codes(odd) == ["store_unknown"]
        assert "FI_STORE_PATTERN" in odd.json()["errors"][0]


async def test_the_sign_in_answers_where_the_page_may_go(tmp_path: Path) -> None:
    async with running_app(_settings(tmp_path, login_address_rate_limit="1000/300seconds")) as app:
        await add_user(app, "manu", ("manager", "*"))
        async with client(app) as browser:
            for raw, lands in NEXT_PATHS:
                answer = await browser.post(
                    "/auth/signin", json={"username": "manu", "password": PASSWORD, "next": decoded(raw)}
                )
                assert answer.status_code == 200 and answer.json()["next"] == lands, raw
            plain = await sign_in(browser, "manu")  # no next at all
            assert plain.json()["next"] == "/"


async def test_a_space_that_nfkc_makes_inside_a_name_is_refused_not_dropped(tmp_path: Path) -> None:
    async with running_app(_settings(tmp_path)) as app, client(app, LOOPBACK) as operator:
        grants = [{"role": "clerk", "store": "s1"}]
        for name in ("\u00b4pia", "pi\u00b4a", "pia\u00a8"):  # an acute or a diaeresis alone: a space and a mark
            answer = await operator.post(
                "/admin/users", json={"username": name, "password": NEW_PASSWORD, "grants": grants}
            )
            assert answer.status_code == 400 and _codes(answer) == ["username_invalid"], name
