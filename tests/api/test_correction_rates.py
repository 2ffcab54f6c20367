"""Quality from the field over the real app (ADR 0065): the interpretation names its backend and model, the
desk's save echoes it, and the correction rates per field come back from the management route (scoped to
the person's stores) and from /metrics, from what was stored."""

from __future__ import annotations

import json
import re
from pathlib import Path

from feedback_intelligence.api.app import create_app
from feedback_intelligence.llm.testing import FakeBackend
from tests.support.people import (
    LOOPBACK,
    add_user,
    client,
    csrf,
    desk_entry,
    people_settings,
    sign_in,
)

MILK = "Maito oli hapanta, sain vatsakivun."
REPLY = {"category": "maito_kylma", "theme": "maito", "severity": "high", "type": "complaint", "language": "fi"}


def metric(body: str, name: str, **labels: str) -> float | None:
    """One sample's value from the Prometheus text, or None when there is no such sample."""
    for line in body.splitlines():
        if line.startswith(name + "{"):
            found = dict(re.findall(r'(\w+)="([^"]*)"', line.split("}")[0]))
            if found == labels:
                return float(line.rsplit(" ", 1)[1])
    return None


async def test_the_rates_count_what_the_clerk_corrected_per_field_backend_and_store(tmp_path: Path) -> None:
    settings = people_settings(tmp_path, rate_limit="1000/60seconds")
    app = create_app(settings, backend=FakeBackend(reply=json.dumps(REPLY)))
    async with app.router.lifespan_context(app):
        await add_user(app, "kaisa", ("clerk", "s1"))
        await add_user(app, "maija", ("manager", "s1"))
        await add_user(app, "pekka", ("manager", "s2"))
        async with client(app) as clerk:
            await sign_in(clerk, "kaisa")
            answer = await clerk.post("/interpret", json={"text": MILK}, headers=csrf(clerk))
            assert answer.status_code == 200, answer.text
            proposed = answer.json()["proposedBy"]
            assert proposed == {"backend": "ollama", "model": "held"}
            changed = {**REPLY, "category": "kassa_palvelu", "theme": "kassa"}
            corrections = [
                {"field": "category", "modelValue": "maito_kylma", "humanValue": "kassa_palvelu"},
                {"field": "theme", "modelValue": "maito", "humanValue": "kassa"},
            ]
            saves = [
                desk_entry("e1", acceptedStructure=changed, corrections=corrections, proposedBy=proposed),
                desk_entry("e2", acceptedStructure=REPLY, proposedBy=proposed),
                desk_entry("e3", acceptedStructure=REPLY, proposedBy=proposed),
                desk_entry("e4", acceptedStructure=REPLY, proposedBy={"backend": "nowhere"}),  # not of the pool
                desk_entry("e5", modelInterpretationFailed=True),  # typed by hand: nothing proposed
            ]
            for body in saves:
                saved = await clerk.post("/live/feedback", json={**body, "timestamp": None}, headers=csrf(clerk))
                assert saved.status_code == 201, saved.text

        async with client(app) as manager:
            await sign_in(manager, "maija")
            rates = await manager.get("/report/corrections")
            assert rates.status_code == 200, rates.text
            week = rates.json()["thisWeek"]
            assert week["saved"] == 4
            by_field = {f["field"]: (f["corrected"], f["rate"]) for f in week["fields"]}
            assert by_field["category"] == (1, 0.25) and by_field["theme"] == (1, 0.25)
            assert by_field["severity"] == (0, 0.0)
            backends = {(b["backend"], b["model"]): b["saved"] for b in rates.json()["byBackend"]}
            assert backends == {("ollama", "held"): 3, ("unknown", "unknown"): 1}
            assert (await manager.get("/report/corrections?store=s2")).status_code == 403
            assert (await manager.get("/report/corrections?weeks=0")).status_code == 400
            weekly = (await manager.get("/report/corrections?weeks=4")).json()
            assert len(weekly["weekly"]) == 1 and weekly["weekly"][0]["saved"] == 4  # only this week has entries

        async with client(app) as other:
            await sign_in(other, "pekka")
            assert (await other.get("/report/corrections")).json()["thisWeek"]["saved"] == 0

        async with client(app, LOOPBACK) as operator:
            body = (await operator.get("/metrics")).text
        labels = {"store": "s1", "backend": "ollama", "model": "held"}
        assert metric(body, "fi_field_proposals_saved_total", **labels) == 3
        assert metric(body, "fi_field_corrections_total", **labels, field="category") == 1
        assert metric(body, "fi_field_corrections_total", **labels, field="theme") == 1
        assert metric(body, "fi_field_corrections_total", **labels, field="severity") is None
