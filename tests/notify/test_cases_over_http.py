"""Cases over HTTP on a real app process: opened with the alert's save, moved by the manager with
If-Match, every change in the audit log; an unacknowledged critical case escalates to its route."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from feedback_intelligence.devtools.receiver import Receiver

pytestmark = pytest.mark.process

ACCEPTED = {
    "category": "liha_kala",
    "theme": "jauheliha",
    "severity": "critical",
    "type": "complaint",
    "language": "fi",
}
TEXT = "Lapsi sai vatsataudin, kun söi meiltä ostettua jauhelihaa."


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    r = Receiver().start()
    yield r
    r.stop()


@pytest.fixture(scope="module")
def app(receiver: Receiver) -> Iterator[ServerProcess]:
    routes = [{"name": "boss", "kind": "webhook", "url": receiver.url, "escalation": True, "unsigned": True}]
    with (
        sim_ollama(parallel=2, service_ms=5) as sim,
        app_server(
            {
                "FI_LLM_BACKEND": "ollama",
                "FI_LLM_BASE_URL": sim.url,
                "FI_NOTIFY_CHANNELS": json.dumps(routes),
                "FI_CASE_ESCALATE_AFTER_S": "2",
                "FI_NOTIFY_POLL_S": "0.2",
            }
        ) as server,
    ):
        yield server


def save(app: ServerProcess, feedback_id: str, text: str = TEXT) -> None:
    body = {"id": feedback_id, "source": "desk", "text": text, "acceptedStructure": ACCEPTED}
    assert httpx.post(app.url + "/live/feedback", json=body, timeout=10).status_code == 201


def act(app: ServerProcess, ref: str, action: str, revision: int | None = None, **extra: str) -> httpx.Response:
    headers = {"If-Match": f'"{revision}"'} if revision is not None else {}
    return httpx.post(f"{app.url}/cases/{ref}/actions", json={"action": action, **extra}, headers=headers, timeout=10)


def test_an_alert_opens_a_case_that_is_acknowledged_then_handled_and_audited(app: ServerProcess) -> None:
    save(app, "case-1")
    save(app, "quiet-1", "Kiitos hyvästä palvelusta!")  # no alert, no case
    listed = httpx.get(app.url + "/cases", timeout=10).json()
    refs = [c["ref"] for c in listed["cases"]]
    assert "live:case-1" in refs and "live:quiet-1" not in refs
    case = next(c for c in listed["cases"] if c["ref"] == "live:case-1")
    assert case["state"] == "open" and case["revision"] == 1 and case["item"]["alertCategories"] == ["food_safety"]

    acked = act(app, "live:case-1", "acknowledge", 1, actorName="Maija M.")
    assert acked.status_code == 200 and acked.headers["ETag"] == '"2"'
    assert acked.json()["state"] == "acknowledged" and acked.json()["acknowledgedAt"]
    closure = {"rootCause": "cold_chain", "resolution": "Erä poistettiin myynnistä."}
    stale = act(app, "live:case-1", "handle", 1, actorName="Pekka", **closure)
    assert stale.status_code == 412 and stale.json()["codes"][0]["code"] == "revision_stale"
    invalid = act(app, "live:case-1", "acknowledge", 2)
    assert invalid.status_code == 409 and invalid.json()["codes"][0]["code"] == "case_transition_invalid"
    assert act(app, "live:case-1", "dismiss", 2).status_code == 400  # a dismissal needs its reason
    assert act(app, "live:case-1", "handle", 2).status_code == 400  # handled only with its root cause
    handled = act(app, "live:case-1", "handle", 2, actorName="Maija M.", **closure)
    assert handled.status_code == 200 and handled.json()["state"] == "handled" and handled.json()["closedAt"]

    owner = httpx.put(app.url + "/cases/live:case-1/owner", json={"name": "Maija M."}, timeout=10)
    assert owner.json()["owner"] == {"kind": "typed", "id": None, "name": "Maija M."}
    assert (
        httpx.post(app.url + "/cases/live:case-1/notes", json={"text": "Soitettu asiakkaalle."}, timeout=10).status_code
        == 201
    )
    detail = httpx.get(app.url + "/cases/live:case-1", timeout=10).json()
    assert [n["text"] for n in detail["notes"]] == ["Soitettu asiakkaalle."]
    actions = [(e["action"], e["actor"]["kind"], e["actor"]["name"]) for e in detail["audit"]]
    assert actions == [
        ("case.open", "system", None),
        ("case.acknowledge", "typed", "Maija M."),
        ("case.handle", "typed", "Maija M."),
        ("case.root_cause", "typed", "Maija M."),
        ("case.assign", "operator", None),
        ("case.note", "operator", None),
    ]
    reopened = act(app, "live:case-1", "reopen", reason="Asiakas soitti uudelleen")
    assert reopened.json()["state"] == "open" and reopened.json()["closedAt"] is None


def test_unknown_refs_are_404_and_bad_if_match_400(app: ServerProcess) -> None:
    assert httpx.get(app.url + "/cases/live:nope", timeout=10).status_code == 404
    assert httpx.get(app.url + "/cases/elsewhere:x", timeout=10).status_code == 404
    assert act(app, "live:nope", "acknowledge").status_code == 404
    save(app, "case-2")
    bad = httpx.post(
        app.url + "/cases/live:case-2/actions",
        json={"action": "acknowledge"},
        headers={"If-Match": "yesterday"},
        timeout=10,
    )
    assert bad.status_code == 400


def test_an_unacknowledged_critical_case_escalates_to_the_escalation_route(
    app: ServerProcess, receiver: Receiver
) -> None:
    save(app, "case-3")
    with receiver.arrived:  # only escalations go to this route; the save itself paged nobody there
        assert receiver.arrived.wait_for(lambda: "live:case-3:boss:escalation" in receiver.processed, timeout=30)
    assert all(i.endswith(":boss:escalation") for i in receiver.processed)
    body = receiver.processed["live:case-3:boss:escalation"].json()
    assert body["event"] == "escalation"
    detail = httpx.get(app.url + "/cases/live:case-3", timeout=10).json()
    assert detail["escalatedAt"] and "case.escalate" in [e["action"] for e in detail["audit"]]


def test_the_reports_alert_section_counts_its_cases_by_state(app: ServerProcess) -> None:
    save(app, "case-5")
    assert act(app, "live:case-5", "acknowledge").status_code == 200
    report = httpx.get(app.url + "/live/report", timeout=30).json()
    alerted = {a["feedbackId"] for a in report["alerts"]}
    cases = {c["id"]: c["state"] for c in httpx.get(app.url + "/cases", timeout=10).json()["cases"]}
    expected = {state: 0 for state in ("open", "acknowledged", "handled", "dismissed")}
    for feedback_id in alerted:
        expected[cases[feedback_id]] += 1
    assert report["alertCases"] == {**expected, "none": 0}
    assert report["alertCases"]["acknowledged"] >= 1
