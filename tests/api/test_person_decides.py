"""The person decides, the rules advise (ADR 0045; docs/rules.md, "A person decides"), over the real app:
the clerk's category is stored with its correction, the rule's disagreement is said before the save
(/interpret/proposal) and kept on the row; a correction re-reads it; a restructure leaves it alone."""

from __future__ import annotations

from pathlib import Path

from feedback_intelligence.services.channels import LIVE
from tests.support.clock import stamp
from tests.support.people import add_user, client, csrf, people_settings, running_app, sign_in

GARDEN_HOSE = "Tilasin puutarhaletkun kotiin, ja se tuli viikon myöhässä."
ADVICE = {"field": "category", "value": "piha_puutarha", "rule": "keyword_evidence", "words": ["puutarhaletkun"]}
WEB_SHOP = {
    "category": "verkkokauppa_toimitus",
    "theme": "toimitus",
    "severity": "low",
    "type": "complaint",
    "language": "fi",
}


async def test_the_clerks_category_is_stored_the_rule_said_before_and_kept_beside_it(tmp_path: Path) -> None:
    async with running_app(people_settings(tmp_path, rate_limit="1000/60seconds")) as app:
        await add_user(app, "kaisa", ("clerk", "s1"))
        async with client(app) as clerk:
            await sign_in(clerk, "kaisa")
            proposal = await clerk.post("/interpret/proposal", json={"text": GARDEN_HOSE}, headers=csrf(clerk))
            assert proposal.status_code == 200, proposal.text
            # before the save: choosing the web shop, the keyword rule would choose the garden
            assert proposal.json()["categoryAdvice"]["verkkokauppa_toimitus"] == ADVICE
            assert "piha_puutarha" not in proposal.json()["categoryAdvice"]

            correction = {"field": "category", "modelValue": "piha_puutarha", "humanValue": "verkkokauppa_toimitus"}
            saved = await clerk.post(
                "/live/feedback",
                json={
                    "id": "desk-hose",
                    "source": "desk",
                    "text": GARDEN_HOSE,
                    "timestamp": stamp(hours=24),
                    "acceptedStructure": WEB_SHOP,
                    "corrections": [correction],
                },
                headers=csrf(clerk),
            )
            assert saved.status_code == 201, saved.text
            assert saved.json()["structure"]["category"] == "verkkokauppa_toimitus"
            assert saved.json()["ruleAdvice"] == [ADVICE]
            item = (await clerk.get("/live/feedback/desk-hose")).json()
            assert item["structure"]["category"] == "verkkokauppa_toimitus"
            assert item["corrections"] == [correction]
            assert item["ruleAdvice"] == [ADVICE]

            # the operator's restructure pass re-applies the rules to model rows, never to a person's
            async with client(app, ("127.0.0.1", 4301)) as operator:
                assert (await operator.post("/live/restructure")).status_code == 200
            assert (await clerk.get("/live/feedback/desk-hose")).json()["structure"]["category"] == (
                "verkkokauppa_toimitus"
            )

            # the clerk agrees with the rule after all: the advice goes with the disagreement
            fixed = await clerk.patch(
                "/live/feedback/desk-hose", json={"category": "piha_puutarha"}, headers=csrf(clerk)
            )
            assert fixed.status_code == 200, fixed.text
            assert fixed.json()["ruleAdvice"] == []
            # and back: the advice is read again from the corrected row
            back = await clerk.patch(
                "/live/feedback/desk-hose", json={"category": "verkkokauppa_toimitus"}, headers=csrf(clerk)
            )
            assert back.json()["ruleAdvice"] == [ADVICE]
            stored = await app.state.runtime.channels[LIVE].store.get("desk-hose")
            assert stored is not None and stored.rule_advice[0].value == "piha_puutarha"
