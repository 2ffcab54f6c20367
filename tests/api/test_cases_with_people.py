"""With accounts, cases are the managers' (the route table's roles) and their actions are the
signed-in person's, in the case and in the audit log (ADR 0030; ADR 0029's "the owner and actor are
people")."""

from __future__ import annotations

from pathlib import Path

from tests.support.people import add_user, client, csrf, desk_entry, people_settings, running_app, sign_in

FALL = "Asiakas liukastui märällä lattialla ja löi päänsä, ambulanssi haettiin."


async def test_a_signed_in_manager_takes_and_acknowledges_a_case_as_themselves(tmp_path: Path) -> None:
    settings = people_settings(tmp_path, rate_limit="1000/60seconds")
    async with running_app(settings) as app:
        manager_id = await add_user(app, "pia", ("manager", "*"))
        await add_user(app, "kaisa", ("clerk", "s1"))
        async with client(app) as clerk, client(app) as manager, client(app) as stranger:
            await sign_in(clerk, "kaisa")
            await sign_in(manager, "pia")
            saved = await clerk.post("/live/feedback", json=desk_entry("fall-1", FALL), headers=csrf(clerk))
            assert saved.status_code == 201, saved.text

            assert (await stranger.get("/cases")).status_code == 401  # anonymous: no customer text
            assert (await clerk.get("/cases")).status_code == 403  # a clerk is not a case handler
            listed = await manager.get("/cases")
            assert listed.status_code == 200
            (case,) = [c for c in listed.json()["cases"] if c["ref"] == "live:fall-1"]

            # typing one's own user name takes the case as oneself; a typed actor name is not asked for
            owner = await manager.put(f"/cases/{case['ref']}/owner", json={"name": "pia"}, headers=csrf(manager))
            assert owner.status_code == 200, owner.text
            assert owner.json()["owner"]["kind"] == "account" and owner.json()["owner"]["id"] == manager_id
            acted = await manager.post(
                f"/cases/{case['ref']}/actions",
                json={"action": "acknowledge", "actorName": "someone else"},
                headers=csrf(manager),
            )
            assert acted.status_code == 200, acted.text

            log = (await manager.get("/audit")).json()["entries"]
            mine = [e for e in log if e["action"] in ("case.assign", "case.acknowledge")]
            assert {e["action"] for e in mine} == {"case.assign", "case.acknowledge"}
            assert all(e["actor"]["kind"] == "account" and e["actor"]["id"] == manager_id for e in mine)
