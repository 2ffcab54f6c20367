"""People and permissions (ADR 0030) over the real app with real sign-ins (FI_AUTH=local): every save path writes the
entry's author from the credentials, "my entries" lists the caller's own, the change rule answers
with its codes, and every read is narrowed to the caller's stores (403 for another store)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI

from feedback_intelligence.api.authorship import visitor_hash
from tests.support.clock import stamp
from tests.support.people import (
    LOOPBACK,
    add_user,
    client,
    csrf,
    desk_entry,
    people_settings,
    running_app,
    sign_in,
)

FALL = "Asiakas liukastui märällä lattialla ja löi päänsä, ambulanssi haettiin."


def _fast(tmp_path: Path, **overrides: Any) -> Any:
    return people_settings(tmp_path, rate_limit="10000/60seconds", audience_rate_limit="10000/60seconds", **overrides)


async def _author(app: FastAPI, feedback_id: str) -> str | None:
    item = await app.state.runtime.channels["live"].store.get(feedback_id)
    assert item is not None
    return item.author


async def _save(http: httpx.AsyncClient, feedback_id: str, text: str = FALL, **extra: Any) -> httpx.Response:
    answer = await http.post("/live/feedback", json=desk_entry(feedback_id, text, **extra), headers=csrf(http))
    assert answer.status_code in (201, 202), answer.text
    return answer


def _no_author_anywhere(body: Any) -> None:
    assert "author" not in str(body), body  # no id of who saved it reaches a page


async def test_every_save_path_writes_the_author_from_the_credentials_never_from_the_body(tmp_path: Path) -> None:
    async with running_app(_fast(tmp_path)) as app:
        kaisa = await add_user(app, "kaisa", ("clerk", "s1"))
        admin = await add_user(app, "admin", ("operator", "*"))
        async with client(app) as clerk, client(app) as operator, client(app, LOOPBACK) as program:
            await sign_in(clerk, "kaisa")
            await sign_in(operator, "admin")
            saved = await _save(clerk, "own-1", store="s1", author="account:someone-else")
            _no_author_anywhere(saved.json())
            assert await _author(app, "own-1") == f"account:{kaisa}"

            # saved now, structured later: the worker's write keeps the author
            await _save(clerk, "later-1", store="s1", acceptedStructure=None, structureLater=True)
            assert await app.state.runtime.worker.drain_once() is None  # it settled one row
            settled = await app.state.runtime.channels["live"].store.get("later-1")
            assert settled is not None and not settled.pending and settled.author == f"account:{kaisa}"

            batch = {"items": [{**desk_entry("batch-1"), "author": "account:forged"}]}
            signed = await operator.post("/live/feedback/batch", json=batch, headers=csrf(operator))
            assert signed.status_code == 200 and signed.json()["created"] == 1, signed.text
            assert await _author(app, "batch-1") == f"account:{admin}"
            by_program = await program.post("/live/feedback/batch", json={"items": [desk_entry("batch-2")]})
            assert by_program.json()["created"] == 1
            assert await _author(app, "batch-2") is None  # a program on the host is nobody's

            listed = await clerk.get("/live/feedback", params={"store": "s1"})
            _no_author_anywhere(listed.json())
            _no_author_anywhere((await clerk.get("/live/feedback/own-1")).json())


async def test_without_accounts_the_author_is_the_browsers_visitor_key_hashed(tmp_path: Path) -> None:
    async with (
        running_app(_fast(tmp_path, auth="none")) as app,
        client(app) as desk,
        client(app) as other_desk,
        client(app) as program,
    ):
        for browser in (desk, other_desk):
            assert (await browser.get("/desk")).status_code == 200  # the page hands out the visitor key
        await _save(desk, "v-1")
        await _save(other_desk, "v-2")
        key = app.state.edge.visitors.verify(desk.cookies["fi_visitor"], "203.0.113.0")
        author = await _author(app, "v-1")
        assert author is not None and author.startswith("visitor:") and len(author) == len("visitor:") + 16
        if key is not None:  # the key as the edge reads it: only its hash is kept
            assert author == f"visitor:{visitor_hash(key)}"
        assert key is None or key not in str(await _author(app, "v-1"))

        mine = (await desk.get("/live/feedback", params={"mine": "true"})).json()
        assert [i["id"] for i in mine] == ["v-1"] and mine[0]["changeable"] is True
        colleague = await desk.patch("/live/feedback/v-2", json={"theme": "maito"})
        assert colleague.status_code == 403 and colleague.json()["error"] == "correction_not_yours"
        assert (await desk.patch("/live/feedback/v-1", json={"theme": "maito"})).status_code == 200
        nobody = await program.get("/live/feedback", params={"mine": "true"})
        assert nobody.status_code == 403 and nobody.json()["codes"][0]["code"] == "mine_unknown"


async def test_my_entries_are_my_own_newest_first_with_how_long_they_stay_mine(tmp_path: Path) -> None:
    async with running_app(_fast(tmp_path)) as app:
        await add_user(app, "kaisa", ("clerk", "s1"))
        await add_user(app, "ville", ("clerk", "s1"))
        async with client(app) as kaisa, client(app) as ville:
            await sign_in(kaisa, "kaisa")
            await sign_in(ville, "ville")
            await _save(kaisa, "k-old", store="s1", timestamp=stamp(hours=26))
            await _save(ville, "v-1", store="s1", timestamp=stamp(hours=25))
            await _save(kaisa, "k-new", store="s1", timestamp=stamp(hours=24))

            mine = await kaisa.get("/live/feedback", params={"mine": "true"})
            assert mine.status_code == 200
            assert [i["id"] for i in mine.json()] == ["k-new", "k-old"]
            assert all(i["changeable"] is True and i["changeableUntil"] for i in mine.json())
            assert [i["alerts"] != [] for i in mine.json()] == [True, True]  # with their alerts
            everyone = (await kaisa.get("/live/feedback")).json()  # the store's entries, nobody's ids
            assert {i["id"] for i in everyone} == {"k-new", "k-old", "v-1"}
            assert all(i["changeable"] is None for i in everyone)
            _no_author_anywhere(everyone)


async def test_a_clerk_changes_their_own_entry_for_a_while_and_a_managers_reach_is_their_store(
    tmp_path: Path,
) -> None:
    async with running_app(_fast(tmp_path, correction_window_s=600)) as app:
        await add_user(app, "kaisa", ("clerk", "s1"))
        await add_user(app, "ville", ("clerk", "s1"))
        await add_user(app, "pia", ("manager", "s1"))
        await add_user(app, "olli", ("manager", "s2"))
        await add_user(app, "ceo", ("manager", "*"))
        people = {name: client(app) for name in ("kaisa", "ville", "pia", "olli", "ceo")}
        try:
            for name, http in people.items():
                assert (await sign_in(http, name)).status_code == 200
            kaisa, ville = people["kaisa"], people["ville"]
            await _save(kaisa, "k-1", store="s1")
            await _save(kaisa, "k-old", store="s1")
            await _save(ville, "v-1", store="s1")
            live = app.state.runtime.channels["live"].store
            await live.correct(
                "k-old", {"created_at": "2026-11-01T08:00:00.0000000+00:00"}, expected_revision=None, entries=[]
            )

            async def patch(who: str, feedback_id: str) -> httpx.Response:
                http = people[who]
                return await http.patch(f"/live/feedback/{feedback_id}", json={"theme": "maito"}, headers=csrf(http))

            assert (await patch("kaisa", "k-1")).status_code == 200
            refused = {
                ("kaisa", "v-1"): "correction_not_yours",
                ("kaisa", "k-old"): "correction_window_passed",
                ("olli", "k-old"): "store_forbidden",  # another store's: out of reach, as for a read
            }
            for (who, feedback_id), code in refused.items():
                answer = await patch(who, feedback_id)
                assert answer.status_code == 403 and answer.json()["error"] == code, (who, feedback_id, answer.text)
            assert (await patch("pia", "k-old")).status_code == 200  # their store's, whoever, whenever
            assert (await patch("ceo", "v-1")).status_code == 200  # the chain's manager
            mine = {i["id"]: i for i in (await kaisa.get("/live/feedback", params={"mine": "true"})).json()}
            assert mine["k-1"]["changeable"] is True and mine["k-old"]["changeable"] is False
            gone = await ville.delete("/live/feedback/k-1", headers=csrf(ville))
            assert gone.status_code == 403 and gone.json()["error"] == "correction_not_yours"
            assert (await kaisa.delete("/live/feedback/k-1", headers=csrf(kaisa))).status_code == 204
        finally:
            for http in people.values():
                await http.aclose()


async def test_a_store_manager_reads_only_their_store_and_another_store_is_403(tmp_path: Path) -> None:
    async with running_app(_fast(tmp_path)) as app:
        await add_user(app, "kaisa", ("clerk", "s1"))
        await add_user(app, "pia", ("manager", "s1"))
        await add_user(app, "ceo", ("manager", "*"))
        await add_user(app, "duo", ("manager", "s1"), ("manager", "s2"))
        async with (
            client(app) as clerk,
            client(app) as pia,
            client(app) as ceo,
            client(app) as duo,
            client(app, LOOPBACK) as program,
        ):
            for http, name in ((clerk, "kaisa"), (pia, "pia"), (ceo, "ceo"), (duo, "duo")):
                assert (await sign_in(http, name)).status_code == 200
            await _save(clerk, "s1-fall", store="s1")
            for feedback_id, store in (("s2-fall", "s2"), ("c-1", "s1"), ("c-2", "s2")):
                body = {**desk_entry(feedback_id, FALL), "store": store}
                channel = "/live/feedback" if feedback_id.endswith("fall") else "/feedback"
                assert (await program.post(channel, json=body)).status_code == 201

            def forbidden(answer: httpx.Response) -> bool:
                return answer.status_code == 403 and answer.json()["error"] == "store_forbidden"

            # asking for another store: 403 on every read; asking for none reads their own
            for path in ("/report", "/report/items.csv", "/live/report", "/live/feedback", "/cases"):
                assert forbidden(await pia.get(path, params={"store": "s2"})), path
                assert (await pia.get(path, params={"store": "s1"})).status_code == 200, path
                assert (await ceo.get(path, params={"store": "s2"})).status_code == 200, path
            # the inbox: s1's desk entry and its corpus item, of both channels
            assert (await pia.get("/report")).json()["totalItems"] == 2
            own_csv, chain_csv = (await pia.get("/report/items.csv")).text, (await ceo.get("/report/items.csv")).text
            assert own_csv.count(FALL) == 2 and chain_csv.count(FALL) == 4
            assert (await ceo.get("/report")).json()["totalItems"] == 4
            assert {i["store"] for i in (await pia.get("/live/feedback")).json()} == {"s1"}
            assert forbidden(await clerk.get("/live/feedback", params={"store": "s2"}))
            assert forbidden(await pia.get("/live/feedback/s2-fall"))
            assert (await pia.get("/live/feedback/s1-fall")).status_code == 200

            stores = (await pia.get("/report/stores")).json()
            assert [row["store"] for row in stores["stores"]] == ["s1"]
            assert {row["store"] for row in (await ceo.get("/report/stores")).json()["stores"]} == {"s1", "s2"}

            cases = (await pia.get("/cases")).json()
            assert {c["ref"] for c in cases["cases"]} == {"live:s1-fall", "corpus:c-1"}
            assert cases["counts"]["open"] == 2
            assert len((await ceo.get("/cases")).json()["cases"]) == 4
            assert forbidden(await pia.get("/cases/live:s2-fall"))
            acted = await pia.post("/cases/live:s2-fall/actions", json={"action": "acknowledge"}, headers=csrf(pia))
            assert forbidden(acted)
            assert (await ceo.get("/cases/live:s2-fall")).status_code == 200

            for chain_wide in ("/audit", "/report/snapshot"):
                assert forbidden(await pia.get(chain_wide)), chain_wide
                assert (await ceo.get(chain_wide)).status_code in (200, 204), chain_wide

            several = await duo.get("/report")
            assert several.status_code == 400 and several.json()["codes"][0]["code"] == "store_required"
            assert (await duo.get("/report", params={"store": "s2"})).status_code == 200


async def test_accounts_and_sessions_leave_audit_rows_without_a_password_or_a_token(tmp_path: Path) -> None:
    async with running_app(_fast(tmp_path)) as app:
        kaisa = await add_user(app, "kaisa", ("clerk", "s1"))
        async with client(app) as browser, client(app) as guesser, client(app, LOOPBACK) as program:
            assert (await sign_in(guesser, "kaisa", "väärä-salasana-9")).status_code == 401
            assert (await sign_in(guesser, "kassa-salasana-1")).status_code == 401  # a password in the name field
            assert (await sign_in(browser, "kaisa")).status_code == 200
            token = browser.cookies["fi_session"]
            granted = await program.post("/admin/users/kaisa/grants", json={"role": "manager", "store": "s1"})
            assert granted.status_code == 200, granted.text
            assert {"role": "manager", "store": "s1"} in granted.json()["grants"]
            revoked = await program.delete("/admin/users/kaisa/grants/clerk/s1")
            assert revoked.json()["grants"] == [{"role": "manager", "store": "s1"}]
            assert (await program.delete("/admin/users/nobody/grants/clerk/s1")).status_code == 404
            assert (await browser.post("/auth/signout", headers=csrf(browser))).status_code == 200

            entries = (await program.get("/audit", params={"limit": 100})).json()["entries"]
        rows = [(e["action"], e["actor"]["kind"], e["actor"]["id"], e["oldValue"], e["newValue"]) for e in entries]
        rows.reverse()  # oldest first
        assert rows == [
            ("account.add", "operator", None, None, "kaisa"),
            ("account.grant", "operator", None, None, "clerk:s1"),
            ("session.refused", "account", kaisa, None, None),
            ("session.refused", "visitor", None, None, None),  # an unknown name: nobody, and not the name typed
            ("session.signin", "account", kaisa, None, "local"),
            ("account.grant", "operator", None, None, "manager:s1"),
            ("account.revoke", "operator", None, "clerk:s1", None),
            ("session.signout", "account", kaisa, None, None),
        ]
        reasons = [e["reason"] for e in reversed(entries) if e["action"] == "session.refused"]
        assert reasons == ["wrong_password", "unknown_name"]
        everything = str(entries)
        for secret in ("väärä-salasana-9", "kassa-salasana-1", token):
            assert secret not in everything


async def test_a_clerk_of_one_store_saves_for_it_and_not_for_another(tmp_path: Path) -> None:
    async with running_app(_fast(tmp_path)) as app:
        await add_user(app, "kaisa", ("clerk", "s1"))
        await add_user(app, "roamer", ("clerk", "s1"), ("clerk", "s2"))
        async with client(app) as kaisa, client(app) as roamer:
            await sign_in(kaisa, "kaisa")
            await sign_in(roamer, "roamer")
            await _save(kaisa, "no-store")  # the desk names no store: the clerk's own
            assert (await app.state.runtime.channels["live"].store.get("no-store")).store == "s1"
            elsewhere = await kaisa.post("/live/feedback", json=desk_entry("s2-try", store="s2"), headers=csrf(kaisa))
            assert elsewhere.status_code == 403 and elsewhere.json()["error"] == "store_forbidden"
            assert not await app.state.runtime.channels["live"].store.exists("s2-try")
            await _save(roamer, "r-1", store="s2")
            # several stores and none named: name one, as for a read (an entry without a store is the chain's)
            unnamed = await roamer.post("/live/feedback", json=desk_entry("r-0"), headers=csrf(roamer))
            assert unnamed.status_code == 400 and unnamed.json()["codes"][0]["code"] == "store_required"
            assert not await app.state.runtime.channels["live"].store.exists("r-0")
            unknown = await roamer.post("/live/feedback", json=desk_entry("r-9", store="s 9"), headers=csrf(roamer))
            assert unknown.status_code == 400 and unknown.json()["codes"][0]["code"] == "store_unknown"
            await _save(roamer, "r-2", store="s1")
            mine = await roamer.get("/live/feedback", params={"mine": "true"})  # no store to name for one's own
            assert {i["id"] for i in mine.json()} == {"r-1", "r-2"}
            several = await roamer.get("/live/feedback")
            assert several.status_code == 400 and several.json()["codes"][0]["code"] == "store_required"


async def test_a_proxy_identity_is_added_and_its_header_grants_changes_are_audited(tmp_path: Path) -> None:
    proxy = ("10.0.0.9", 5000)
    settings = _fast(tmp_path, auth="proxy", trusted_proxies=[proxy[0]])
    base = {"X-Forwarded-For": "198.51.100.4", "X-Forwarded-User": "pia@example.test", "X-Forwarded-Groups": "manager"}
    async with running_app(settings) as app, client(app, proxy) as http, client(app, LOOPBACK) as program:
        assert (await http.get("/auth/me", headers={**base, "X-Forwarded-Stores": "s1"})).json()["signedIn"]
        assert (await http.get("/auth/me", headers={**base, "X-Forwarded-Stores": "s2"})).json()["signedIn"]
        entries = (await program.get("/audit")).json()["entries"]
    rows = [(e["action"], e["actor"]["kind"], e["actor"]["id"], e["oldValue"], e["newValue"]) for e in entries]
    assert list(reversed(rows)) == [
        ("account.add", "system", "proxy", None, "pia@example.test"),
        ("account.grant", "system", "proxy", None, "manager:s1"),
        ("account.grant", "system", "proxy", None, "manager:s2"),
        ("account.revoke", "system", "proxy", "manager:s1", None),
    ]
