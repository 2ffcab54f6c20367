"""FI_AUTH=local over the real app: sign-in, roles, CSRF, throttling, fixation, sign-out."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from feedback_intelligence.auth import people as people_module
from feedback_intelligence.store.accounts import AccountStore
from tests.support.people import (
    LOOPBACK,
    PASSWORD,
    STRANGER,
    add_user,
    client,
    csrf,
    desk_entry,
    people_settings,
    running_app,
    sign_in,
)


async def test_anonymous_callers_reach_no_customer_text(tmp_path: Path) -> None:
    async with running_app(people_settings(tmp_path)) as app, client(app, STRANGER) as anonymous:
        for path in ("/live/feedback", "/live/feedback/x", "/report", "/live/report", "/report/snapshot"):
            answer = await anonymous.get(path)
            assert answer.status_code == 401, path
            assert answer.json()["error"] == "signin_required"
        page = await anonymous.get("/desk")
        assert page.status_code == 303 and page.headers["location"] == "/signin?next=/desk"
        health = await anonymous.get("/health")
        assert health.json()["auth"] == "local"
        assert (await anonymous.get("/signin")).status_code == 200
        assert (await anonymous.get("/auth/me")).json() == {
            "auth": "local",
            "signedIn": False,
            "username": None,
            "displayName": None,
            "grants": [],
            "passwordRule": {"minLength": 8, "recommendedLength": 15, "maxLength": 1024},
        }
        # a browser on the host itself is not the loopback operator: it signs in like anyone
        async with client(app, LOOPBACK) as local_browser:
            answer = await local_browser.get(
                "/live/feedback", headers={"Sec-Fetch-Mode": "cors", "Sec-Fetch-Site": "same-origin"}
            )
            assert answer.status_code == 401


async def test_a_clerk_signs_in_writes_with_csrf_and_cannot_read_the_report(tmp_path: Path) -> None:
    async with running_app(people_settings(tmp_path)) as app:
        await add_user(app, "Kaisa", ("clerk", "s1"))
        async with client(app) as clerk:
            signed = await sign_in(clerk, "kaisa")
            assert signed.status_code == 200, signed.text
            assert signed.json()["grants"] == [{"role": "clerk", "store": "s1"}]
            cookie = next(c for c in signed.headers.get_list("set-cookie") if c.startswith("fi_session="))
            assert "HttpOnly" in cookie and "SameSite=lax" in cookie
            assert (await clerk.get("/live/feedback")).status_code == 200
            assert (await clerk.get("/report")).status_code == 403
            assert (await clerk.get("/metrics")).status_code == 404  # operator routes stay hidden

            no_token = await clerk.post("/live/feedback", json=desk_entry("desk-csrf-1"))
            assert no_token.status_code == 403 and no_token.json()["error"] == "csrf_required"
            wrong = await clerk.post(
                "/live/feedback", json=desk_entry("desk-csrf-1"), headers={"X-CSRF-Token": "0" * 64}
            )
            assert wrong.status_code == 403
            saved = await clerk.post("/live/feedback", json=desk_entry("desk-csrf-1"), headers=csrf(clerk))
            assert saved.status_code == 201, saved.text
            cross_site = await clerk.post(
                "/live/feedback",
                json=desk_entry("desk-csrf-2"),
                headers={**csrf(clerk), "Origin": "https://evil.example"},
            )
            assert cross_site.status_code == 403 and cross_site.json()["error"] == "cross_site_request"

            out = await clerk.post("/auth/signout", headers=csrf(clerk))
            assert out.status_code == 200
            assert (await clerk.get("/live/feedback")).status_code == 401


async def test_a_wrong_password_and_an_unknown_name_answer_alike(tmp_path: Path) -> None:
    async with running_app(people_settings(tmp_path)) as app:
        await add_user(app, "manu", ("manager", "*"))
        async with client(app) as http:
            wrong = await sign_in(http, "manu", "väärä-salasana")
            unknown = await sign_in(http, "nobody", "väärä-salasana")
            assert (wrong.status_code, wrong.json()) == (unknown.status_code, unknown.json())
            assert wrong.status_code == 401 and "fi_session" not in http.cookies


async def test_guesses_from_one_address_are_throttled_at_that_name_even_with_the_right_password(
    tmp_path: Path,
) -> None:
    settings = people_settings(tmp_path, login_rate_limit="3/300seconds")
    async with running_app(settings) as app:
        await add_user(app, "manu", ("manager", "*"))
        async with client(app) as attacker:
            for _ in range(3):
                assert (await sign_in(attacker, "manu", "arvaus-123456")).status_code == 401
            throttled = await sign_in(attacker, "manu", PASSWORD)
            assert throttled.status_code == 429 and throttled.json()["error"] == "signin_throttled"
            assert int(throttled.headers["Retry-After"]) >= 1


async def test_an_ipv6_client_counts_by_its_64_like_every_other_limit(tmp_path: Path) -> None:
    settings = people_settings(tmp_path, login_rate_limit="3/300seconds")
    async with running_app(settings) as app:
        await add_user(app, "manu", ("manager", "*"))
        for host in range(1, 4):  # three addresses of one /64: one client rotating its address
            async with client(app, (f"2001:db8:5:6::{host}", 1)) as rotating:
                assert (await sign_in(rotating, "manu", "arvaus-123456")).status_code == 401
        async with client(app, ("2001:db8:5:6::99", 1)) as rotating:
            assert (await sign_in(rotating, "manu", PASSWORD)).status_code == 429
        async with client(app, ("2001:db8:5:7::1", 1)) as next_prefix:  # another /64 is another client
            assert (await sign_in(next_prefix, "manu", PASSWORD)).status_code == 200


async def test_failures_elsewhere_never_lock_the_owner_out_from_their_own_address(tmp_path: Path) -> None:
    settings = people_settings(tmp_path, login_rate_limit="3/300seconds", login_name_rate_limit="10/3600seconds")
    owner_address = ("198.51.100.20", 1)
    async with running_app(settings) as app:
        await add_user(app, "manu", ("manager", "*"))
        async with client(app, owner_address) as owner:
            assert (await sign_in(owner, "manu")).status_code == 200  # this address is now the owner's
        for n in range(20):  # twenty failures at the name, each from an address of its own
            async with client(app, (f"203.0.113.{n + 1}", 1)) as guesser:
                answer = await sign_in(guesser, "manu", f"arvaus-{n:06d}")
                assert answer.status_code in (401, 429)
        async with client(app, owner_address) as owner:
            assert (await sign_in(owner, "manu")).status_code == 200
        # the name is under attack: an address it never signed in from waits, right password or not
        async with client(app, ("192.0.2.77", 1)) as unknown:
            refused = await sign_in(unknown, "manu")
            assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1


async def test_a_fixated_session_is_refused(tmp_path: Path) -> None:
    async with running_app(people_settings(tmp_path)) as app:
        await add_user(app, "kaisa", ("clerk", "s1"))
        planted = "attacker-chosen-token-value"
        async with client(app) as victim:
            victim.cookies.set("fi_session", planted, domain="fi.test")
            assert (await victim.get("/auth/me")).json()["signedIn"] is False  # an unknown token is nobody
            assert (await sign_in(victim, "kaisa")).status_code == 200
            issued = victim.cookies.get("fi_session")
            assert issued and issued != planted
        async with client(app) as attacker:
            attacker.cookies.set("fi_session", planted, domain="fi.test")
            assert (await attacker.get("/live/feedback")).status_code == 401
        # and the session before a new sign-in ends with it
        async with client(app) as browser:
            await sign_in(browser, "kaisa")
            first = browser.cookies.get("fi_session")
            await sign_in(browser, "kaisa")
            assert browser.cookies.get("fi_session") != first
        async with client(app) as replay:
            replay.cookies.set("fi_session", first or "", domain="fi.test")
            assert (await replay.get("/live/feedback")).status_code == 401


async def test_user_add_is_an_operator_route_and_checks_its_input(tmp_path: Path) -> None:
    async with running_app(people_settings(tmp_path)) as app:
        async with client(app, STRANGER) as stranger:
            refused = await stranger.post("/admin/users", json={"username": "x", "password": PASSWORD, "grants": []})
            assert refused.status_code == 404
        async with client(app, LOOPBACK) as operator:
            short = await operator.post(
                "/admin/users",
                json={"username": "x", "password": "short", "grants": [{"role": "clerk", "store": "s1"}]},
            )
            assert short.status_code == 400 and short.json()["codes"][0]["code"] == "password_too_short"
            role = await operator.post(
                "/admin/users", json={"username": "x", "password": PASSWORD, "grants": [{"role": "king", "store": "*"}]}
            )
            assert role.status_code == 400
        await add_user(app, "dup", ("clerk", "s1"))
        async with client(app, LOOPBACK) as operator:
            again = await operator.post(
                "/admin/users",
                json={"username": "DUP", "password": PASSWORD, "grants": [{"role": "clerk", "store": "s1"}]},
            )
            assert again.status_code == 409


async def test_a_disabled_account_is_signed_out_at_once_and_cannot_sign_in_until_enabled(tmp_path: Path) -> None:
    async with running_app(people_settings(tmp_path)) as app:
        await add_user(app, "Leena", ("clerk", "s1"))
        async with client(app) as clerk:
            assert (await sign_in(clerk, "leena")).status_code == 200
            assert (await clerk.get("/live/feedback")).status_code == 200
            async with client(app, STRANGER) as stranger:  # an operator route: hidden from anyone else
                hidden = await stranger.put("/admin/users/leena/disabled", json={"disabled": True})
                assert hidden.status_code == 404
            async with client(app, LOOPBACK) as operator:
                off = await operator.put("/admin/users/LEENA/disabled", json={"disabled": True})
                assert off.status_code == 200, off.text
                assert off.json() == {"username": "leena", "disabled": True, "sessionsEnded": 1}
                again = await operator.put("/admin/users/leena/disabled", json={"disabled": True})
                assert again.json() == {"username": "leena", "disabled": True, "sessionsEnded": 0}
                nobody = await operator.put("/admin/users/nobody/disabled", json={"disabled": True})
                assert nobody.status_code == 404
                bad = await operator.put("/admin/users/leena/disabled", json={"disabled": "yes please"})
                assert bad.status_code == 400
            assert (await clerk.get("/live/feedback")).status_code == 401  # the live session ended with it
            assert (await sign_in(clerk, "leena")).status_code == 401
            async with client(app, LOOPBACK) as operator:
                on = await operator.put("/admin/users/leena/disabled", json={"disabled": False})
                assert on.json() == {"username": "leena", "disabled": False, "sessionsEnded": 0}
            assert (await sign_in(clerk, "leena")).status_code == 200
            assert (await clerk.get("/live/feedback")).status_code == 200


async def test_a_password_check_never_holds_the_loop_and_a_burst_past_its_slots_is_shed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checking, release = threading.Event(), threading.Event()

    def held_check(password_hash: str | None, password: str) -> bool:
        checking.set()
        release.wait(30)
        return False

    async with running_app(people_settings(tmp_path, password_check_slots=1)) as app:
        await add_user(app, "kaisa", ("clerk", "s1"))
        async with client(app, ("198.51.100.30", 1)) as clerk:
            assert (await sign_in(clerk, "kaisa")).status_code == 200
            monkeypatch.setattr(people_module, "verify_password", held_check)
            async with client(app, ("203.0.113.1", 1)) as first, client(app, ("203.0.113.2", 1)) as second:
                held = asyncio.create_task(sign_in(first, "kaisa", "arvaus-000001"))
                assert await asyncio.to_thread(checking.wait, 30)
                # the clerk's desk answers while the check runs, in its thread
                assert (await clerk.get("/live/feedback", params={"mine": "true"})).status_code == 200
                assert not held.done()
                shed = await sign_in(second, "kaisa", "arvaus-000002")  # no slot frees within the wait
                assert shed.status_code == 503 and int(shed.headers["Retry-After"]) >= 1
                assert shed.json()["error"] == "busy" and shed.json()["reason"] == "password_checks"
                release.set()
                assert (await held).status_code == 401


async def test_an_audit_log_too_busy_to_write_leaves_a_refusal_a_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def locked(self: object, username: str, reason: str) -> None:
        raise OperationalError("INSERT INTO audit_log …", {}, sqlite3.OperationalError("database is locked"))

    async with running_app(people_settings(tmp_path, login_rate_limit="1/300seconds")) as app:
        await add_user(app, "manu", ("manager", "*"))
        monkeypatch.setattr(AccountStore, "record_refused", locked)
        async with client(app) as guesser:
            assert (await sign_in(guesser, "manu", "arvaus-000001")).status_code == 401
            assert (await sign_in(guesser, "manu", "arvaus-000002")).status_code == 429


async def test_a_burst_of_refusals_on_sqlite_is_answered_401_never_500(tmp_path: Path) -> None:
    async with running_app(people_settings(tmp_path, password_check_slots=8)) as app:
        await add_user(app, "manu", ("manager", "*"))

        async def guess(n: int) -> tuple[int, str]:
            async with client(app, (f"203.0.113.{n + 1}", 1)) as guesser:
                answer = await sign_in(guesser, "manu" if n % 2 else f"nobody-{n}", f"arvaus-{n:06d}")
                return answer.status_code, answer.json().get("reason", "")

        answers = await asyncio.gather(*(guess(n) for n in range(60)))
        assert {status for status, _ in answers} <= {401, 503}
        assert all(reason == "password_checks" for status, reason in answers if status == 503)
        assert sum(status == 401 for status, _ in answers) >= 8  # a refusal is written, whatever the others do
