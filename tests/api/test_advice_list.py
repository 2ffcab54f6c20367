"""The manager's list of disagreements (ADR 0045): ``/report/items?advice=true`` lists exactly the entries
where a rule disagrees with the value a person gave, with the person's value and the rule's choice and
words, over both channels and within the caller's stores; ``/report`` counts them. On SQLite and
PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

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

GARDEN_HOSE = "Tilasin puutarhaletkun kotiin, ja se tuli viikon myöhässä."
WEB_SHOP = {
    "category": "verkkokauppa_toimitus",
    "theme": "toimitus",
    "severity": "low",
    "type": "complaint",
    "language": "fi",
}
GARDEN = {**WEB_SHOP, "category": "piha_puutarha"}
ADVICE = {
    "field": "category",
    "value": "piha_puutarha",
    "valueLabel": "Piha & puutarha",
    "rule": "keyword_evidence",
    "words": ["puutarhaletkun"],
}
AT = (datetime.now(UTC) - timedelta(hours=1)).replace(microsecond=0).isoformat()


def entry(feedback_id: str, structure: dict[str, str], store: str) -> dict[str, Any]:
    return desk_entry(feedback_id, GARDEN_HOSE, acceptedStructure=structure, store=store, timestamp=AT)


async def advised(http: httpx.AsyncClient, **params: str) -> dict[str, Any]:
    answer = await http.get("/report/items", params={"advice": "true", "limit": "200", **params})
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


async def test_the_list_holds_exactly_the_disagreements_of_the_callers_stores(
    tmp_path: Path, databases: dict[str, str]
) -> None:
    settings = people_settings(
        tmp_path, rate_limit="10000/60seconds", audience_rate_limit="10000/60seconds", **databases
    )
    async with running_app(settings) as app:
        await add_user(app, "kaisa", ("clerk", "s1"))
        await add_user(app, "ville", ("clerk", "s2"))
        await add_user(app, "pia", ("manager", "s1"))
        await add_user(app, "ceo", ("manager", "*"))
        async with (
            client(app) as kaisa,
            client(app) as ville,
            client(app) as pia,
            client(app) as ceo,
            client(app, LOOPBACK) as program,
        ):
            for http, name in ((kaisa, "kaisa"), (ville, "ville"), (pia, "pia"), (ceo, "ceo")):
                assert (await sign_in(http, name)).status_code == 200
            saves = (
                (kaisa, "/live/feedback", entry("s1-web", WEB_SHOP, "s1")),  # the clerk against the rule
                (kaisa, "/live/feedback", entry("s1-garden", GARDEN, "s1")),  # the clerk agrees with it
                (ville, "/live/feedback", entry("s2-web", WEB_SHOP, "s2")),  # another store's disagreement
                (program, "/feedback", entry("c-s1-web", WEB_SHOP, "s1")),  # an import is a person's too
            )
            for http, path, body in saves:
                answer = await http.post(path, json=body, headers=csrf(http))
                assert answer.status_code == 201, answer.text

            # the store's manager: their store's disagreements, of both channels, and nothing else
            own = await advised(pia)
            assert {i["ref"] for i in own["items"]} == {"live:s1-web", "corpus:c-s1-web"}
            assert own["total"] == 2 and own["filters"] == {"store": "s1", "advice": "true"}
            for item in own["items"]:
                assert item["category"] == "verkkokauppa_toimitus"  # the person's value, as stored
                assert item["ruleAdvice"] == [ADVICE]  # beside it: the rule's choice and its words
            assert (await pia.get("/report")).json()["ruleAdviceCount"] == 2
            agreed = (await pia.get("/report/items", params={"advice": "false"})).json()
            assert [i["ref"] for i in agreed["items"]] == ["live:s1-garden"]
            assert agreed["items"][0]["ruleAdvice"] == []
            refused = await pia.get("/report/items", params={"advice": "true", "store": "s2"})
            assert refused.status_code == 403 and refused.json()["error"] == "store_forbidden"

            # the chain's manager: every store's
            chain = await advised(ceo)
            assert {i["ref"] for i in chain["items"]} == {"live:s1-web", "live:s2-web", "corpus:c-s1-web"}
            assert (await ceo.get("/report")).json()["ruleAdviceCount"] == 3
            assert (await ceo.get("/report", params={"store": "s2"})).json()["ruleAdviceCount"] == 1
            assert [i["ref"] for i in (await advised(ceo, store="s2"))["items"]] == ["live:s2-web"]

            # the clerk agrees with the rule after all: the entry leaves the list and the count
            fixed = await kaisa.patch("/live/feedback/s1-web", json={"category": "piha_puutarha"}, headers=csrf(kaisa))
            assert fixed.status_code == 200, fixed.text
            assert [i["ref"] for i in (await advised(pia))["items"]] == ["corpus:c-s1-web"]
            assert (await pia.get("/report")).json()["ruleAdviceCount"] == 1

            # a value that is not a yes or a no says so
            wrong = await pia.get("/report/items", params={"advice": "perhaps"})
            assert wrong.status_code == 400 and wrong.json()["codes"] == [{"code": "field_invalid", "field": "advice"}]
