"""FI_AUTH=proxy: a trusted proxy's identity headers name the person; disabling them takes effect here at
once, and on every other replica within the identity cache's five seconds."""

from __future__ import annotations

from pathlib import Path

from feedback_intelligence.instants.clock import ManualClock
from tests.support.people import LOOPBACK, client, people_settings, running_app

DOCUMENTED_BOUND_S = 5.0  # docs/operations/people.md: a disabled person is refused on every replica within 5 s
PROXY = ("10.0.0.9", 5000)
PIA = {"X-Forwarded-For": "198.51.100.4", "X-Forwarded-User": "pia@example.test", "X-Forwarded-Groups": "manager"}


async def test_a_disabled_proxy_identity_is_refused_at_once_on_the_replica_that_disabled_it(tmp_path: Path) -> None:
    settings = people_settings(tmp_path, auth="proxy", trusted_proxies=[PROXY[0]])
    async with running_app(settings) as app, client(app, PROXY) as proxy, client(app, LOOPBACK) as operator:
        assert (await proxy.get("/auth/me", headers=PIA)).json()["signedIn"] is True
        disabled = await operator.put("/admin/users/pia@example.test/disabled", json={"disabled": True})
        assert disabled.status_code == 200 and disabled.json()["disabled"] is True
        assert (await proxy.get("/auth/me", headers=PIA)).json()["signedIn"] is False
        assert (await proxy.get("/live/feedback", headers=PIA)).status_code == 401


async def test_another_replica_refuses_a_disabled_identity_once_its_cache_runs_out(tmp_path: Path) -> None:
    settings = people_settings(tmp_path, auth="proxy", trusted_proxies=[PROXY[0]])
    clock = ManualClock()  # the replicas' one clock, which the test moves
    async with (
        running_app(settings, clock=clock) as first,  # two replicas, one database
        running_app(settings, clock=clock) as second,
        client(first, LOOPBACK) as operator,
        client(second, PROXY) as proxy,
    ):
        assert (await proxy.get("/auth/me", headers=PIA)).json()["signedIn"] is True
        assert (await operator.put("/admin/users/pia@example.test/disabled", json={"disabled": True})).is_success
        clock.advance(DOCUMENTED_BOUND_S + 0.1)
        assert (await proxy.get("/auth/me", headers=PIA)).json()["signedIn"] is False
