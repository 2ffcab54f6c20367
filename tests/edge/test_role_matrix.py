"""Every route of the surface table × every role and none (FI_AUTH=local, and proxy): only the table's
allowed pairs answer; state-changing requests without the CSRF token, or from another site, are refused;
every read of the desk and the managers goes through the store scope, and another store is 403; every
write of one item or case goes through it too, and over clerks of one and two stores, store managers, the
chain's manager, an operator and nobody, only the write table's pairs succeed (moves between stores,
items without a store, both channels, case actions, saves), no refusal changes anything or carries the
customer's text, and lists and exports keep an item without a store to the chain (ADR 0041)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, iter_route_contexts

from feedback_intelligence.api.scope import desk_reach, manager_reach, manager_scope
from feedback_intelligence.edge.surface import (
    ANYONE,
    HOME_PAGES,
    ROUTES,
    STATIC_PREFIX,
    Access,
    Kind,
    RouteRule,
    classify,
    role_verdict,
)
from feedback_intelligence.instants.timestamps import format_instant
from tests.support.people import LOOPBACK, add_user, client, csrf, desk_entry, people_settings, running_app, sign_in

ROLES = {"clerk": ("clerk", "s1"), "manager": ("manager", "s1"), "operator": ("operator", "*")}
EDGE_REFUSALS = (
    {"error": "signin_required"},
    {"error": "forbidden"},
    {"error": "Not Found"},
    {"error": "csrf_required"},
)


def _targets() -> list[tuple[str, str, RouteRule]]:
    targets = []
    for rule in ROUTES:
        path = (
            STATIC_PREFIX + "css/app.css"
            if rule.prefix
            else rule.path.replace("{feedback_id}", "m-1").replace("{name}", "swagger-ui.css")
        )
        for method in sorted(rule.methods):
            targets.append((method, path, rule))
    return targets


def _refused_by_edge(answer: httpx.Response) -> bool:
    location = answer.headers.get("location", "")
    if answer.status_code == 303 and (location.startswith("/signin") or location in HOME_PAGES):
        return True  # a page: to the sign-in, or to the page the person's roles open
    if answer.status_code not in (401, 403, 404):
        return False
    try:
        body = answer.json()
    except ValueError:
        return False
    return isinstance(body, dict) and {"error": body.get("error")} in EDGE_REFUSALS and len(body) <= 2


async def _walk(app, people: dict[str, httpx.AsyncClient | None], make_anonymous) -> list[str]:
    wrong = []
    for method, path, _rule in _targets():
        if path == "/auth/signout":
            continue  # it ends the session the walk signs in with; its own test covers it
        if path == "/favicon.ico":
            continue  # listed for browsers that ask, but the app serves none (the pages link /static/favicon.svg)
        route = classify(method, path)
        for role, http in people.items():
            roles = frozenset({role}) if role != "none" else None
            allowed = role_verdict(route, roles) == 200
            async with make_anonymous() as anonymous:
                caller = http or anonymous
                headers = {"Sec-Fetch-Mode": "cors", "Sec-Fetch-Site": "same-origin", **(csrf(caller) if http else {})}
                kwargs = {"json": {}} if method in ("POST", "PATCH") else {}
                answer = await caller.request(method, path, headers=headers, **kwargs)
            if _refused_by_edge(answer) == allowed:
                wrong.append(f"{method} {path} as {role}: {answer.status_code} {answer.text[:80]} (allowed={allowed})")
    return wrong


async def test_only_the_tables_pairs_answer_with_local_accounts(tmp_path: Path) -> None:
    settings = people_settings(tmp_path, rate_limit="10000/60seconds", audience_rate_limit="10000/60seconds")
    async with running_app(settings) as app:
        people: dict[str, httpx.AsyncClient | None] = {"none": None}
        for role, grant in ROLES.items():
            await add_user(app, role, grant)
            people[role] = client(app)
            assert (await sign_in(people[role], role)).status_code == 200
        try:
            wrong = await _walk(app, people, lambda: client(app))
        finally:
            for http in people.values():
                if http is not None:
                    await http.aclose()
        assert not wrong, "\n".join(wrong)


async def test_writes_without_the_csrf_token_or_from_another_site_are_refused(tmp_path: Path) -> None:
    async with running_app(people_settings(tmp_path, rate_limit="10000/60seconds")) as app:
        await add_user(app, "operator", ("operator", "*"))
        async with client(app) as http:
            await sign_in(http, "operator")  # reaches every route: only CSRF and the origin can refuse
            for method, path, _ in _targets():
                if method in ("GET", "HEAD") or path == "/auth/signin":
                    continue
                bare = await http.request(method, path, json={})
                assert bare.status_code == 403 and bare.json()["error"] == "csrf_required", (method, path)
                cross = await http.request(
                    method, path, json={}, headers={**csrf(http), "Origin": "https://evil.example"}
                )
                assert cross.status_code == 403 and cross.json()["error"] == "cross_site_request", (method, path)
                fetch_site = await http.request(
                    method, path, json={}, headers={**csrf(http), "Sec-Fetch-Site": "cross-site"}
                )
                assert fetch_site.status_code == 403, (method, path)


def test_every_public_route_names_its_roles_or_anyone() -> None:
    # a public route without roles is reached by operators only: a fail-closed default, listed here on purpose
    unnamed = [rule.path for rule in ROUTES if rule.access is Access.PUBLIC and rule.roles == frozenset()]
    assert unnamed == []


PROXY = ("10.0.0.9", 5000)


@pytest.mark.parametrize("peer", [PROXY, ("203.0.113.77", 5001)])
async def test_a_proxy_identity_header_counts_only_from_a_trusted_proxy(tmp_path: Path, peer: tuple[str, int]) -> None:
    settings = people_settings(tmp_path, "proxy", trusted_proxies=[PROXY[0]])
    headers = {
        "X-Forwarded-For": "198.51.100.4",
        "X-Forwarded-User": "pia@example.test",
        "X-Forwarded-Preferred-Username": "Pia",
        "X-Forwarded-Groups": "manager",
        "X-Forwarded-Stores": "s1",
    }
    async with running_app(settings) as app, client(app, peer) as http:
        me = (await http.get("/auth/me", headers=headers)).json()
        report = await http.get("/report", headers=headers)
        if peer == PROXY:
            assert me["signedIn"] and me["grants"] == [{"role": "manager", "store": "s1"}]
            assert report.status_code == 200
            assert (await http.get("/report", headers={"X-Forwarded-For": "198.51.100.4"})).status_code == 401
        else:
            assert me["signedIn"] is False and report.status_code == 401


# ── store scope (ADR 0035): every read of customer text is narrowed to the caller's stores ─────────
SCOPES = {manager_scope, desk_reach, manager_reach}
#: Reads of the desk and the managers without a store scope, and why they need none.
UNSCOPED = {
    "/live/version": "a change counter, no customer text",
    "/live/desk-store": "the desk's configured store and its name",
    "/auth/me/mail": "the signed-in manager's own address and brief-by-mail choice, no store's data",
}


def _dependencies(dependant: Dependant) -> set[Any]:
    found = set()
    for sub in dependant.dependencies:
        found.add(sub.call)
        found |= _dependencies(sub)
    return found


def _scoped_reads(app: FastAPI) -> list[tuple[str, APIRoute, bool]]:
    """Each GET API route reached by clerks or managers: path, route, whether it takes ``store=``."""
    reads = []
    for context in iter_route_contexts(app.routes):  # included routers flattened, as in test_real_app
        route = context.original_route
        if not isinstance(route, APIRoute) or "GET" not in route.methods:
            continue
        rule = classify("GET", route.path).rule
        if rule is None or rule.roles is ANYONE or not rule.roles or rule.kind not in (Kind.API, Kind.SNAPSHOT_HTML):
            continue
        takes_store = any(param.name == "store" for param in route.dependant.query_params) or any(
            param.name == "store" for sub in route.dependant.dependencies for param in sub.query_params
        )
        reads.append((route.path, route, takes_store))
    return reads


async def test_every_read_of_the_desk_and_the_managers_goes_through_the_store_scope(tmp_path: Path) -> None:
    async with running_app(people_settings(tmp_path)) as app:
        reads = _scoped_reads(app)
        assert len(reads) >= 10
        missing = [
            path for path, route, _ in reads if path not in UNSCOPED and not SCOPES & _dependencies(route.dependant)
        ]
        assert missing == []


async def test_a_store_manager_or_clerk_asking_for_another_store_is_refused_on_every_read(tmp_path: Path) -> None:
    settings = people_settings(tmp_path, rate_limit="10000/60seconds", audience_rate_limit="10000/60seconds")
    async with running_app(settings) as app:
        await add_user(app, "manager", ("manager", "s1"))
        await add_user(app, "clerk", ("clerk", "s1"))
        wrong = []
        async with client(app) as manager, client(app) as clerk:
            await sign_in(manager, "manager")
            await sign_in(clerk, "clerk")
            for path, _route, takes_store in _scoped_reads(app):
                if not takes_store or path in UNSCOPED:
                    continue
                for role, http in (("manager", manager), ("clerk", clerk)):
                    if role_verdict(classify("GET", path), frozenset({role})) != 200:
                        continue
                    other = await http.get(path, params={"store": "s2"})
                    own = await http.get(path, params={"store": "s1"})
                    if other.status_code != 403 or other.json().get("error") != "store_forbidden":
                        wrong.append(f"{path} as {role} for s2: {other.status_code} {other.text[:80]}")
                    if own.status_code not in (200, 204):
                        wrong.append(f"{path} as {role} for s1: {own.status_code} {own.text[:80]}")
        assert not wrong, "\n".join(wrong)


# ── writes (ADR 0041): every write of one item or case follows the reads' stores, moves are saves ──────
WRITES = {
    ("PATCH", "/live/feedback/{feedback_id}"),
    ("DELETE", "/live/feedback/{feedback_id}"),
    ("PATCH", "/feedback/{feedback_id}"),
    ("DELETE", "/feedback/{feedback_id}"),
    ("POST", "/live/feedback"),
    ("POST", "/cases/{ref}/actions"),
    ("PUT", "/cases/{ref}/owner"),
    ("POST", "/cases/{ref}/notes"),
}


async def test_every_write_of_an_item_or_a_case_goes_through_the_store_scope(tmp_path: Path) -> None:
    async with running_app(people_settings(tmp_path)) as app:
        found = set()
        for context in iter_route_contexts(app.routes):
            route = context.original_route
            if not isinstance(route, APIRoute):
                continue
            for method in route.methods & {"POST", "PUT", "PATCH", "DELETE"}:
                if (method, route.path) in WRITES:
                    found.add((method, route.path))
                    assert SCOPES & _dependencies(route.dependant), (method, route.path)
        assert found == WRITES


STORES_S1_S2 = '[{"id": "s1", "name": "Yksi"}, {"id": "s2", "name": "Kaksi"}]'
SECRET_WORD = "Virtanen"  # every seeded text names the customer: no refusal may carry it
FALL_TEXT = "Asiakas Virtanen liukastui märällä lattialla ja löi päänsä, ambulanssi haettiin."
PEOPLE = {
    "clerk1": (("clerk", "s1"),),
    "clerk2": (("clerk", "s2"),),
    "roamer": (("clerk", "s1"), ("clerk", "s2")),
    "manager1": (("manager", "s1"),),
    "manager2": (("manager", "s2"),),
    "chain": (("manager", "*"),),
    "operator": (("operator", "*"),),
}
EVERYONE = frozenset({*PEOPLE, "none"})


@dataclass(frozen=True)
class Write:
    """One request on a fresh item (``channel``, ``store``, saved by ``author``) and who may make it."""

    method: str
    path: str  # {id}: the item's id, {ref}: its case's ref
    allowed: frozenset[str]
    channel: str | None = "live"  # None: a save, no item beforehand
    store: str | None = "s1"
    author: str | None = "clerk1"
    body: dict[str, Any] | None = None
    moved_to: str | None = None  # a move that succeeds leaves the item here


def _who(*names: str) -> frozenset[str]:
    return frozenset(names)


THEME = {"theme": "märkä lattia"}
ACK = {"action": "acknowledge"}
# fmt: off
WRITE_TABLE: dict[str, Write] = {
    "read-s1": Write("GET", "/live/feedback/{id}", _who("clerk1", "roamer", "manager1", "chain", "operator")),
    "read-storeless": Write("GET", "/live/feedback/{id}", _who("chain", "operator"), store=None, author="roamer"),
    "patch-s1": Write("PATCH", "/live/feedback/{id}", _who("clerk1", "manager1", "chain", "operator"), body=THEME),
    "move-own-to-s2": Write("PATCH", "/live/feedback/{id}", _who("chain", "operator"), body={"store": "s2"},
                            moved_to="s2"),
    "move-roamers-to-s2": Write("PATCH", "/live/feedback/{id}", _who("roamer", "chain", "operator"), author="roamer",
                                body={"store": "s2"}, moved_to="s2"),
    "move-to-nowhere": Write("PATCH", "/live/feedback/{id}", _who(), body={"store": "nowhere"}),
    "patch-storeless": Write("PATCH", "/live/feedback/{id}", _who("chain", "operator"), store=None, author="roamer",
                             body=THEME),
    "claim-storeless": Write("PATCH", "/live/feedback/{id}", _who("chain", "operator"), store=None, author="roamer",
                             body={"store": "s1"}, moved_to="s1"),
    "erase-s1": Write("DELETE", "/live/feedback/{id}", _who("clerk1", "manager1", "chain", "operator")),
    "erase-storeless": Write("DELETE", "/live/feedback/{id}", _who("chain", "operator"), store=None, author="roamer"),
    "patch-corpus": Write("PATCH", "/feedback/{id}", _who("operator"), channel="corpus", author=None, body=THEME),
    "move-corpus-to-nowhere": Write("PATCH", "/feedback/{id}", _who(), channel="corpus", author=None,
                                    body={"store": "nowhere"}),
    "erase-corpus-storeless": Write("DELETE", "/feedback/{id}", _who("operator"), channel="corpus", store=None,
                                    author=None),
    "act-on-s1-case": Write("POST", "/cases/{ref}/actions", _who("manager1", "chain", "operator"), body=ACK),
    "read-storeless-case": Write("GET", "/cases/{ref}", _who("chain", "operator"), store=None, author="roamer"),
    "act-on-storeless-case": Write("POST", "/cases/{ref}/actions", _who("chain", "operator"), store=None,
                                   author="roamer", body=ACK),
    "own-storeless-case": Write("PUT", "/cases/{ref}/owner", _who("chain", "operator"), store=None, author="roamer",
                                body={"name": "Pia"}),
    "note-storeless-case": Write("POST", "/cases/{ref}/notes", _who("chain", "operator"), store=None,
                                 author="roamer", body={"text": "Soitettu."}),
    "act-on-storeless-corpus-case": Write("POST", "/cases/{ref}/actions", _who("chain", "operator"),
                                          channel="corpus", store=None, author=None, body=ACK),
    "save-naming-no-store": Write("POST", "/live/feedback",
                                  _who("clerk1", "clerk2", "manager1", "manager2", "chain", "operator"), channel=None),
    "save-for-s2": Write("POST", "/live/feedback", _who("clerk2", "roamer", "manager2", "chain", "operator"),
                         channel=None, body={"store": "s2"}),
    "save-for-nowhere": Write("POST", "/live/feedback", _who(), channel=None, body={"store": "nowhere"}),
}
# fmt: on
#: Where a save naming no store lands: the person's only store; the chain's people save without one.
UNNAMED_SAVE_STORE = {
    "clerk1": "s1",
    "clerk2": "s2",
    "manager1": "s1",
    "manager2": "s2",
    "chain": None,
    "operator": None,
}


def _carries_text(answer: httpx.Response) -> bool:
    return SECRET_WORD in answer.text or "liukastui" in answer.text


async def _seed(app: FastAPI, accounts: dict[str, str], feedback_id: str, write: Write) -> None:
    """The item as the loopback program saves it (an operator: any store, or none), then its author."""
    body: dict[str, Any] = {**desk_entry(feedback_id, FALL_TEXT, timestamp=_now()), "store": write.store}
    async with client(app, LOOPBACK) as program:
        saved = await program.post("/live/feedback" if write.channel == "live" else "/feedback", json=body)
    assert saved.status_code == 201, saved.text
    if write.author is not None:  # an entry of before accounts' stores, or a colleague's: set as the column is
        store = app.state.runtime.channels[write.channel].store
        author = {"author": f"account:{accounts[write.author]}"}
        await store.correct(feedback_id, author, expected_revision=None, entries=[])


def _now() -> str:
    return format_instant(datetime.now(UTC))


async def test_only_the_tables_pairs_write_and_no_refusal_carries_customer_text(tmp_path: Path) -> None:
    settings = people_settings(
        tmp_path,
        rate_limit="100000/60seconds",
        audience_rate_limit="100000/60seconds",
        stores=STORES_S1_S2,
        case_incident_window_h=0,  # each row's item its own case, not one incident of the store (ADR 0060)
    )
    async with running_app(settings) as app:
        accounts = {name: await add_user(app, name, *grants) for name, grants in PEOPLE.items()}
        people: dict[str, httpx.AsyncClient] = {name: client(app) for name in EVERYONE}
        runtime = app.state.runtime
        wrong: list[str] = []
        try:
            for name in PEOPLE:
                assert (await sign_in(people[name], name)).status_code == 200
            for row, write in WRITE_TABLE.items():
                for who in sorted(EVERYONE):
                    feedback_id = f"{row}-{who}"
                    http = people[who]
                    if write.channel is not None:
                        await _seed(app, accounts, feedback_id, write)
                    store = runtime.channels[write.channel or "live"].store
                    before = await store.get(feedback_id)
                    revision = await store.revision(feedback_id)
                    path = write.path.replace("{id}", feedback_id).replace("{ref}", f"{write.channel}:{feedback_id}")
                    body = write.body
                    if write.channel is None:  # a save: the entry is the body
                        body = {**desk_entry(feedback_id, FALL_TEXT, timestamp=_now()), **(write.body or {})}
                    headers = csrf(http) if who != "none" else {}
                    answer = await http.request(write.method, path, json=body, headers=headers)
                    after = await store.get(feedback_id)
                    said = f"{row} as {who}: {answer.status_code} {answer.text[:100]}"
                    if who in write.allowed:
                        if not 200 <= answer.status_code < 300:
                            wrong.append(f"{said} (should succeed)")
                        elif write.method == "DELETE" and after is not None:
                            wrong.append(f"{said}: not erased")
                        elif write.moved_to is not None and (after is None or after.store != write.moved_to):
                            wrong.append(f"{said}: not moved to {write.moved_to}")
                        elif write.channel is None and (after is None or after.store != _saved_store(write, who)):
                            wrong.append(f"{said}: saved for {after.store if after else None}")
                        continue
                    if answer.status_code < 400 or answer.status_code >= 500:
                        wrong.append(f"{said} (should be refused)")
                    if _carries_text(answer):
                        wrong.append(f"{said}: the refusal carries the customer's text")
                    if after != before or await store.revision(feedback_id) != revision:
                        wrong.append(f"{said}: the refused write changed the item")
                    if "{ref}" in write.path:
                        view, notes, _ = await runtime.cases.detail(f"{write.channel}:{feedback_id}")
                        if view.case.revision != 1 or notes:
                            wrong.append(f"{said}: the refused write changed the case")
        finally:
            for http in people.values():
                await http.aclose()
        assert not wrong, "\n".join(wrong)


def _saved_store(write: Write, who: str) -> str | None:
    return (write.body or {}).get("store") or UNNAMED_SAVE_STORE[who]


async def test_lists_and_exports_hold_an_item_without_a_store_to_the_chain(tmp_path: Path) -> None:
    settings = people_settings(
        tmp_path, rate_limit="10000/60seconds", audience_rate_limit="10000/60seconds", stores=STORES_S1_S2
    )
    async with running_app(settings) as app:
        accounts = {name: await add_user(app, name, *grants) for name, grants in PEOPLE.items()}
        for feedback_id, store in (("in-s1", "s1"), ("in-s2", "s2"), ("storeless", None)):
            await _seed(app, accounts, feedback_id, Write("GET", "", _who(), store=store, author="roamer"))
        reads = {
            "/live/feedback": {"store": "s1"},
            "/report/items": {"store": "s1"},
            "/report/items.csv": {"store": "s1"},
            "/cases": {"store": "s1"},
        }
        async with client(app) as manager1, client(app) as chain, client(app) as roamer:
            for http, name in ((manager1, "manager1"), (chain, "chain"), (roamer, "roamer")):
                assert (await sign_in(http, name)).status_code == 200
            for path, params in reads.items():
                own = await manager1.get(path, params=params)
                assert own.status_code == 200 and "in-s1" in own.text, path
                assert "storeless" not in own.text and "in-s2" not in own.text, path
                everything = await chain.get(path, params={k: v for k, v in params.items() if k != "store"})
                assert everything.status_code == 200 and "storeless" in everything.text, path
            # one's own entries of any store, but only those one still reaches: not the one without a store
            mine = await roamer.get("/live/feedback", params={"mine": "true"})
            assert mine.status_code == 200 and {item["id"] for item in mine.json()} == {"in-s1", "in-s2"}
            async with client(app, LOOPBACK) as program:  # the roamer no longer works in s2
                assert (await program.delete("/admin/users/roamer/grants/clerk/s2")).status_code == 200
            mine = await roamer.get("/live/feedback", params={"mine": "true"})
            assert mine.status_code == 200 and {item["id"] for item in mine.json()} == {"in-s1"}
            assert SECRET_WORD not in (await roamer.get("/live/feedback/in-s2")).text
