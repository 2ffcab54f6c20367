"""FI_AUTH=local over the real app: sign-in, roles, CSRF, throttling, fixation, sign-out."""

from __future__ import annotations

from pathlib import Path

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


async def test_brute_force_is_throttled_even_with_the_right_password_after(tmp_path: Path) -> None:
    settings = people_settings(tmp_path, login_rate_limit="3/300seconds")
    async with running_app(settings) as app:
        await add_user(app, "manu", ("manager", "*"))
        async with client(app) as attacker:
            for _ in range(3):
                assert (await sign_in(attacker, "manu", "arvaus-123456")).status_code == 401
            throttled = await sign_in(attacker, "manu", PASSWORD)
            assert throttled.status_code == 429 and throttled.json()["error"] == "signin_throttled"
            assert int(throttled.headers["Retry-After"]) >= 1
        # the name is throttled whatever address the guesses come from
        async with client(app, ("198.51.100.9", 1)) as elsewhere:
            assert (await sign_in(elsewhere, "manu", PASSWORD)).status_code == 429


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
