"""A case carried to its end over HTTP, with accounts (ADR 0058): its owner is one of the managers granted its
store, it collects notes, it is closed as handled only with a root cause of the domain's list and what was
done, the audit log records both, and the closed case keeps its text, its cause and the incident's time."""

from __future__ import annotations

from pathlib import Path

from tests.support.clock import stamp, utc_minute
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
HAPPENED = stamp(hours=3)  # the incident; the case opens when the entry is saved, later


async def test_a_case_is_owned_noted_and_closed_with_its_root_cause(tmp_path: Path) -> None:
    settings = people_settings(tmp_path, rate_limit="1000/60seconds")
    async with running_app(settings) as app:
        pia = await add_user(app, "pia", ("manager", "s1"))
        maija = await add_user(app, "maija", ("manager", "*"))
        olli = await add_user(app, "olli", ("manager", "s2"))
        kaisa = await add_user(app, "kaisa", ("clerk", "s1"))
        async with client(app) as clerk, client(app) as manager:
            await sign_in(clerk, "kaisa")
            await sign_in(manager, "pia")
            entry = desk_entry("fall-9", FALL, timestamp=HAPPENED, store="s1")
            saved = await clerk.post("/live/feedback", json=entry, headers=csrf(clerk))
            assert saved.status_code == 201, saved.text
            ref = "live:fall-9"

            # the owners offered: the managers granted s1 (or the chain), no clerk, no other store's manager
            owners = await manager.get(f"/cases/{ref}/owners")
            assert owners.status_code == 200, owners.text
            offered = {p["id"] for p in owners.json()["people"]}
            assert offered == {pia, maija}
            assert olli not in offered and kaisa not in offered
            refused = await manager.put(f"/cases/{ref}/owner", json={"accountId": olli}, headers=csrf(manager))
            assert refused.status_code == 400, refused.text
            assert refused.json()["codes"][0]["code"] == "owner_not_granted"
            given = await manager.put(f"/cases/{ref}/owner", json={"accountId": maija}, headers=csrf(manager))
            assert given.status_code == 200, given.text
            assert given.json()["owner"] == {"kind": "account", "id": maija, "name": "maija"}

            noted = await manager.post(
                f"/cases/{ref}/notes", json={"text": "Lattia pestiin klo 10, kyltti puuttui."}, headers=csrf(manager)
            )
            assert noted.status_code == 201, noted.text
            ack = await manager.post(f"/cases/{ref}/actions", json={"action": "acknowledge"}, headers=csrf(manager))
            assert ack.status_code == 200, ack.text

            async def handle(**fields: str) -> dict:
                answer = await manager.post(
                    f"/cases/{ref}/actions", json={"action": "handle", **fields}, headers=csrf(manager)
                )
                return {"status": answer.status_code, **answer.json()}

            done = "Varoituskyltit pesun ajaksi, ohje päivitetty."
            assert (await handle(resolution=done))["codes"][0]["code"] == "root_cause_required"
            assert (await handle(rootCause="weather", resolution=done))["codes"][0]["code"] == "root_cause_unknown"
            assert (await handle(rootCause="other", resolution=done))["codes"][0]["code"] == "root_cause_text_required"
            assert (await handle(rootCause="staff", resolution="  "))["codes"][0]["code"] == "resolution_required"
            still = (await manager.get(f"/cases/{ref}")).json()
            assert still["state"] == "acknowledged"  # every refusal left the case as it was

            closed = await handle(rootCause="staff", rootCauseText="Pesuohje ei kertonut kyltistä.", resolution=done)
            assert closed["status"] == 200, closed
            assert closed["rootCause"] == "staff" and closed["resolution"] == done

            # the audit log records the closure: what was done on the handle row, why on its root-cause row
            log = (await manager.get(f"/cases/{ref}")).json()
            handled = [e for e in log["audit"] if e["action"] == "case.handle"]
            cause = [e for e in log["audit"] if e["action"] == "case.root_cause"]
            assert handled and handled[0]["reason"] == done and handled[0]["actor"]["id"] == pia
            assert cause and cause[0]["newValue"] == "staff" and cause[0]["changeId"] == handled[0]["changeId"]
            assert cause[0]["reason"] == "Pesuohje ei kertonut kyltistä."
            assert [n["text"] for n in log["notes"]] == ["Lattia pestiin klo 10, kyltti puuttui."]

            # the closed case in the list keeps its text, its cause and when it happened
            (listed,) = [c for c in (await manager.get("/cases")).json()["cases"] if c["ref"] == ref]
            assert listed["state"] == "handled" and listed["item"]["text"] == FALL
            assert listed["rootCause"] == "staff" and listed["resolution"] == done
            assert listed["item"]["timestamp"].startswith(utc_minute(HAPPENED))
            assert listed["openedAt"] > listed["item"]["timestamp"]

            # reopened, the case starts without the old closure; the log keeps it
            again = await manager.post(f"/cases/{ref}/actions", json={"action": "reopen"}, headers=csrf(manager))
            assert again.status_code == 200 and again.json()["rootCause"] is None


async def test_the_schema_names_the_root_causes_in_three_languages(tmp_path: Path) -> None:
    async with running_app(people_settings(tmp_path, auth="none")) as app, client(app) as http:
        causes = (await http.get("/schema")).json()["caseRootCauses"]
    assert "other" in causes and "cold_chain" in causes
    assert all(set(labels) == {"fi", "sv", "en"} for labels in causes.values())


async def test_without_accounts_no_owner_is_offered_and_a_typed_name_owns_the_case(tmp_path: Path) -> None:
    async with running_app(people_settings(tmp_path, auth="none")) as app, client(app) as http:
        saved = await http.post("/live/feedback", json=desk_entry("fall-10", FALL))
        assert saved.status_code == 201, saved.text
        async with client(app, LOOPBACK) as operator:
            owners = await operator.get("/cases/live:fall-10/owners")
            assert owners.status_code == 200 and owners.json() == {"people": []}
            typed = await operator.put("/cases/live:fall-10/owner", json={"name": "Maija M."})
            assert typed.status_code == 200 and typed.json()["owner"]["kind"] == "typed"
