"""The manager's week over HTTP (GET /report/brief, ADR 0047): each store's week counted as its own report
counts it, only the planted significant rise listed, cases with the most serious alert first, and the store
table's trend the window against the one before — on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.api.test_hardening import client
from tests.api.test_stores import app_with
from tests.edge.test_real_app import LOOPBACK
from tests.support.monday_data import RISE_CATEGORY, RISE_STORE, SAFETY_ID, STORES, fortnight
from tests.support.people import add_user, people_settings, running_app, sign_in
from tests.support.people import client as people_client


def _planted(
    prefix: str, store: str, text: str, structure: dict[str, str], counts: dict[int, int], now: datetime
) -> list[dict[str, object]]:
    """``counts[week]`` items of one story in ``store`` (week 0 this week, 1 the week before), spread over
    each week's days, every one with a person's structure."""
    return [
        {
            "id": f"{prefix}-{week}-{n}",
            "source": "email",
            "text": text.format(n=f"{week}-{n}"),
            "timestamp": (now - timedelta(days=0.4 + 7 * week + n * 0.2)).isoformat(),
            "store": store,
            "acceptedStructure": structure,
        }
        for week, count in counts.items()
        for n in range(count)
    ]


async def test_the_brief_counts_each_stores_week_and_lists_only_the_planted_rise(
    tmp_path: Path, databases: dict[str, str]
) -> None:
    async for app in app_with(tmp_path, databases, stores=json.dumps(STORES)):
        now = datetime.now(UTC)
        data = fortnight(now)
        async with client(app, LOOPBACK) as operator, client(app) as visitor:
            imported = await operator.post("/feedback/batch", json={"items": data.items})
            assert imported.status_code == 200 and imported.json()["created"] == len(data.items), imported.text
            brief = (await visitor.get("/report/brief", params={"to": now.isoformat()})).json()
            assert [row["name"] for row in brief["stores"]] == [store["name"] for store in STORES]
            week = {"from": brief["windowFrom"], "to": brief["windowTo"]}
            for row in brief["stores"]:
                own = (await visitor.get("/report", params={**week, "store": row["store"]})).json()
                assert row["items"] == own["totalItems"] == data.this_week[row["store"]]
                assert row["previousItems"] == data.week_before[row["store"]]
                rises = [(rise["key"], rise["current"], rise["previous"]) for rise in row["rises"]]
                # the mouldy bread is one rise: its problem (ADR 0055), naming the department it made rise
                planted = [("issue:freshness_quality", 24, 3)]
                assert rises == (planted if row["store"] == RISE_STORE else [])
                if row["store"] == RISE_STORE:
                    department = next(line for line in own["series"]["lines"] if line["key"] == RISE_CATEGORY)
                    assert row["rises"][0]["label"].endswith(f"({department['label']})"), row["rises"][0]
            assert brief["totals"]["items"] == sum(data.this_week.values())
            # no accounts: who manages a store is not known (not "no one"); no routes: the digest goes nowhere
            assert {row["managers"] for row in brief["stores"]} == {None}
            assert brief["digest"] == {"categories": ["payment"], "hour": 7, "routes": []}
            assert brief["totals"]["previousItems"] == sum(data.week_before.values())
            one = (await visitor.get("/report/brief", params={"to": now.isoformat(), "store": RISE_STORE})).json()
            assert [row["store"] for row in one["stores"]] == [RISE_STORE]
            assert (await visitor.get("/report/brief", params={"store": "nowhere-1"})).status_code == 400

            cases = (await visitor.get("/cases")).json()["cases"]
            assert cases[0]["id"] == SAFETY_ID  # the newest case, first by its tier (food safety)
            assert cases[0]["tier"] > max(case["tier"] for case in cases[1:])

            chain = (await visitor.get("/report/stores", params=week)).json()
            directions = {row["store"]: row["direction"] for row in chain["stores"]}
            assert directions[RISE_STORE] == "growing"  # against the week before, not the window's halves
            assert {directions[store["id"]] for store in STORES if store["id"] != RISE_STORE} == {"stable"}


async def test_the_catch_all_department_and_problem_never_rise_on_the_brief(
    tmp_path: Path, databases: dict[str, str]
) -> None:
    """'Muu' growing says nothing a manager can act on: the brief lists no rise for it (the charts still
    count it), even when it grows as sharply as the planted rise."""
    async for app in app_with(tmp_path, databases, stores=json.dumps(STORES)):
        now = datetime.now(UTC)
        data = fortnight(now)
        quiet = STORES[-1]["id"]
        unnamed = {"category": "muu", "theme": "muu", "severity": "low", "type": "other", "language": "fi"}
        extra = _planted("other", quiet, "Asiakas kertoi jotakin sekalaista ({n}).", unnamed, {0: 24, 1: 3}, now)
        async with client(app, LOOPBACK) as operator, client(app) as visitor:
            imported = await operator.post("/feedback/batch", json={"items": data.items + extra})
            assert imported.status_code == 200 and imported.json()["created"] == len(data.items) + len(extra)
            brief = (await visitor.get("/report/brief", params={"to": now.isoformat()})).json()
            row = next(row for row in brief["stores"] if row["store"] == quiet)
            assert row["items"] == data.this_week[quiet] + 24  # counted
            assert row["rises"] == []  # but not listed as a rise
            week = {"from": brief["windowFrom"], "to": brief["windowTo"], "store": quiet}
            own = (await visitor.get("/report", params=week)).json()
            other = next(line for line in own["series"]["lines"] if line["key"] == "muu")
            assert other["currentTotal"] == 24 and other["significant"]  # the chart shows it rising


async def test_a_rise_of_alerts_that_is_one_problem_rising_is_told_once(
    tmp_path: Path, databases: dict[str, str]
) -> None:
    """Payment alerts rising in a store are its payment problem rising: the brief lists that problem once and
    says how many alerts it raised, not a second line "Alerts" beside it."""
    async for app in app_with(tmp_path, databases, stores=json.dumps(STORES)):
        now = datetime.now(UTC)
        data = fortnight(now, rise_now=3)  # no bread rise: the payment story is the only one
        store = STORES[3]["id"]
        payment = {
            "category": "kassa_palvelu",
            "theme": "kortti",
            "severity": "high",
            "type": "complaint",
            "language": "fi",
        }
        text = "Korttimaksu ei mennyt läpi ja kortilta veloitettiin kahdesti ({n})."
        extra = _planted("pay", store, text, payment, {0: 16}, now)
        async with client(app, LOOPBACK) as operator, client(app) as visitor:
            imported = await operator.post("/feedback/batch", json={"items": data.items + extra})
            assert imported.status_code == 200 and imported.json()["created"] == len(data.items) + len(extra)
            brief = (await visitor.get("/report/brief", params={"to": now.isoformat()})).json()
            row = next(row for row in brief["stores"] if row["store"] == store)
            assert [rise["key"] for rise in row["rises"]] == ["issue:payment_technology"], row["rises"]
            week = {"from": brief["windowFrom"], "to": brief["windowTo"], "store": store}
            own = (await visitor.get("/report", params=week)).json()
            alerts = next(line for line in own["series"]["lines"] if line["key"] == "alert")
            assert alerts["significant"] and alerts["change"] > 0  # the alert line did rise: it is told inside
            assert row["rises"][0]["alerts"] == alerts["currentTotal"], row["rises"][0]  # told with the problem
            assert row["alertItems"] == alerts["currentTotal"]  # and counted in the store's week
            assert row["rises"][0]["clear"]  # the week's alerts tell it: not a rise chance could give
            assert not row["rises"][0]["good"]
            issues = [alert["issue"] for alert in own["alerts"]]
            assert issues.count("payment_technology") > len(issues) / 2, issues


async def test_a_rise_of_praise_is_good_news(tmp_path: Path, databases: dict[str, str]) -> None:
    """More thanks than the week before is a rise too, but not a problem: the brief marks it good news."""
    async for app in app_with(tmp_path, databases, stores=json.dumps(STORES)):
        now = datetime.now(UTC)
        data = fortnight(now, rise_now=3)
        store = STORES[4]["id"]
        praise = {"category": "leipa", "theme": "leipä", "severity": "low", "type": "praise", "language": "fi"}
        text = "Kiitos, tuore leipä oli tosi hyvää ({n})."
        extra = _planted("thanks", store, text, praise, {0: 14, 1: 2}, now)
        async with client(app, LOOPBACK) as operator, client(app) as visitor:
            imported = await operator.post("/feedback/batch", json={"items": data.items + extra})
            assert imported.status_code == 200 and imported.json()["created"] == len(data.items) + len(extra)
            brief = (await visitor.get("/report/brief", params={"to": now.isoformat()})).json()
            row = next(row for row in brief["stores"] if row["store"] == store)
            good = [rise for rise in row["rises"] if rise["good"]]
            assert [rise["key"] for rise in good] == ["issue:praise"], row["rises"]
            assert all(not rise["good"] for rise in row["rises"] if rise["key"] != "issue:praise")


async def test_a_rise_chance_could_give_is_listed_after_the_clear_ones_and_says_so(
    tmp_path: Path, databases: dict[str, str]
) -> None:
    """The brief asks many stores' many lines a week: a rise just past the report's rule (5 → 12, z 1.7) is
    one that noise gives now and then, so it comes after a clear one (2 → 18) and is marked as such."""
    async for app in app_with(tmp_path, databases, stores=json.dumps(STORES)):
        now = datetime.now(UTC)
        data = fortnight(now, rise_now=3)  # no bread rise
        store = STORES[2]["id"]
        complaint = {"severity": "low", "type": "complaint", "language": "fi"}
        queue = {"category": "kassa_palvelu", "theme": "jono", **complaint}
        floor = {"category": "tilat_siisteys", "theme": "lattia", **complaint}
        extra = _planted("queue", store, "Kassajono oli taas tosi pitkä ({n}).", queue, {0: 18, 1: 2}, now)
        extra += _planted("floor", store, "Lattia oli likainen ja tahmea ({n}).", floor, {0: 12, 1: 5}, now)
        async with client(app, LOOPBACK) as operator, client(app) as visitor:
            imported = await operator.post("/feedback/batch", json={"items": data.items + extra})
            assert imported.status_code == 200 and imported.json()["created"] == len(data.items) + len(extra)
            brief = (await visitor.get("/report/brief", params={"to": now.isoformat()})).json()
            row = next(row for row in brief["stores"] if row["store"] == store)
            rises = [(rise["key"], rise["current"], rise["previous"], rise["clear"]) for rise in row["rises"]]
            assert rises == [("issue:queue_waiting", 18, 2, True), ("issue:cleanliness", 12, 5, False)], rises


async def test_the_brief_names_each_stores_managers_and_where_the_mornings_digest_goes(tmp_path: Path) -> None:
    """With accounts, a store's line names the people granted `manager` of it (a chain-wide manager is no one
    store's; a clerk manages nothing); the week's payment alerts are counted apart, as the morning digest's,
    which goes to the routes that take payment alerts (not the food-safety one, not the escalations'); the
    alerts that open a case are told to the routes that take them."""
    hook = {"kind": "webhook", "url": "https://hooks.example/fi", "unsigned": True}
    routes = [
        {"name": "kassat", **hook, "categories": ["payment"]},
        {"name": "turva", **hook, "categories": ["food_safety"]},
        {"name": "paivystys", **hook, "escalation": True},
        {
            "name": "posti",
            "kind": "smtp",
            "url": "smtp://mail.example:25",
            "from": "fi@example.fi",
            "to": "a@example.fi",
        },
    ]
    settings = people_settings(
        tmp_path,
        stores=json.dumps(STORES),
        notify_channels=json.dumps(routes),
        notify_digest_hour=6,
        notify_worker=False,  # nothing is delivered here: the brief only says where it would go
    )
    first, second = STORES[0]["id"], STORES[1]["id"]
    async with running_app(settings) as app:
        await add_user(app, "pia", ("manager", first))
        await add_user(app, "olli", ("manager", first), ("manager", second))
        await add_user(app, "maija", ("manager", "*"))
        await add_user(app, "kalle", ("clerk", second))
        now = datetime.now(UTC)
        data = fortnight(now)
        async with people_client(app, LOOPBACK) as operator, people_client(app) as manager:
            imported = await operator.post("/feedback/batch", json={"items": data.items})
            assert imported.status_code == 200, imported.text
            assert (await sign_in(manager, "maija")).status_code == 200
            brief = (await manager.get("/report/brief", params={"to": now.isoformat()})).json()
            cases = (await manager.get("/cases")).json()["cases"]
    managers = {row["store"]: row["managers"] for row in brief["stores"]}
    assert managers == {first: ["olli", "pia"], second: ["olli"]} | {s["id"]: [] for s in STORES[2:]}
    assert brief["digest"] == {
        "categories": ["payment"],
        "hour": 6,
        "routes": [{"name": "kassat", "kind": "webhook"}, {"name": "posti", "kind": "smtp"}],
    }
    # told at once of an alert that opens a case: the food-safety route and the one that takes everything, not
    # the payment route (a digest category only) nor the escalations' (told only when a case escalates)
    assert brief["urgentRoutes"] == [{"name": "turva", "kind": "webhook"}, {"name": "posti", "kind": "smtp"}]
    # every store's three card charges of the week are the digest's; its other alerts page (a case each)
    for row in brief["stores"]:
        assert row["digestAlertItems"] == 3, row
    assert brief["totals"]["digestAlertItems"] == 3 * len(STORES)
    urgent = brief["totals"]["alertItems"] - brief["totals"]["digestAlertItems"]
    assert urgent > 0 and urgent == len(
        {case["id"] for case in cases if case["item"]["timestamp"] >= brief["windowFrom"]}
    )


async def test_every_digest_alert_of_the_week_is_counted_past_the_alert_lists_cap(
    tmp_path: Path, databases: dict[str, str]
) -> None:
    """A store with more of the morning digest's alerts in a week than the report lists (FI_REPORT_MAX_ITEMS)
    has every one counted; a card charge that also tells of a fall pages a person and is not the digest's."""
    async for app in app_with(tmp_path, databases, stores=json.dumps(STORES), report_max_items=3):
        now = datetime.now(UTC)
        data = fortnight(now, rise_now=3)  # three card charges a store and week: the digest's
        store = STORES[1]["id"]
        payment = {"category": "kassa_palvelu", "theme": "kortti", "severity": "high", "type": "complaint"}
        charged = "Kortilta veloitettiin kahteen kertaan ({n})."
        fell = "Kortilta veloitettiin kahteen kertaan ja asiakas liukastui märällä lattialla ({n})."
        extra = _planted("card", store, charged, {**payment, "language": "fi"}, {0: 6}, now)
        extra += _planted("fall", store, fell, {**payment, "language": "fi"}, {0: 2}, now)
        async with client(app, LOOPBACK) as operator, client(app) as visitor:
            imported = await operator.post("/feedback/batch", json={"items": data.items + extra})
            assert imported.status_code == 200 and imported.json()["created"] == len(data.items) + len(extra)
            brief = (await visitor.get("/report/brief", params={"to": now.isoformat()})).json()
            week = {"from": brief["windowFrom"], "to": brief["windowTo"], "store": store}
            own = (await visitor.get("/report", params=week)).json()
            chain = (await visitor.get("/report/stores", params={"from": week["from"], "to": week["to"]})).json()
    assert len(own["alerts"]) == 3  # the list stops at its cap: the report leaves the digest's count unsaid
    assert own["digestAlertItems"] is None  # (it would read every alert item of any window), the brief counts it
    alert_line = next(line for line in own["series"]["lines"] if line["key"] == "alert")
    shown = next(row for row in chain["stores"] if row["store"] == store)
    assert shown["alertItems"] == alert_line["currentTotal"] >= 3 + 6 + 2
    digest = {row["store"]: row["digestAlertItems"] for row in brief["stores"]}
    assert digest == {s["id"]: 3 for s in STORES} | {store: 3 + 6}
    assert brief["totals"]["digestAlertItems"] == 3 * len(STORES) + 6
    row = next(row for row in brief["stores"] if row["store"] == store)
    assert row["alertItems"] - row["digestAlertItems"] >= 2  # the two falls page
