"""A page a signed-in person's roles do not open sends them to the page they may open, never a raw JSON 403:
a clerk at the management view (``/``) lands on the desk (ADR 0047)."""

from __future__ import annotations

from pathlib import Path

from tests.support.people import add_user, client, people_settings, running_app, sign_in


async def test_a_clerk_at_the_management_view_is_sent_to_the_desk_and_a_manager_stays(tmp_path: Path) -> None:
    settings = people_settings(tmp_path, rate_limit="10000/60seconds", audience_rate_limit="10000/60seconds")
    async with running_app(settings) as app:
        await add_user(app, "clerk", ("clerk", "s1"))
        await add_user(app, "manager", ("manager", "s1"))
        async with client(app) as clerk, client(app) as manager:
            assert (await sign_in(clerk, "clerk")).status_code == 200
            assert (await sign_in(manager, "manager")).status_code == 200
            for path in ("/", "/index.html"):
                answer = await clerk.get(path)
                assert answer.status_code == 303, answer.text
                assert answer.headers["location"] == "/desk"
                assert answer.headers["cache-control"] == "no-store"
            assert (await clerk.get("/desk")).status_code == 200
            assert (await manager.get("/")).status_code == 200
            # an API read stays an API answer: the JSON 403 a script can read
            refused = await clerk.get("/report")
            assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
