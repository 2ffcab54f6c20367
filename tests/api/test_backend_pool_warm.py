"""``/admin/warm`` loads the model of every backend of the pool, shown over real HTTP with two sims."""

from __future__ import annotations

import httpx
import pytest

from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from tests.api.test_backend_pool_over_http import pool_env, stats

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)


def warm(app: ServerProcess) -> httpx.Response:
    return httpx.post(app.url + "/admin/warm", timeout=60)


def test_warm_loads_every_backends_model_at_once() -> None:
    with (
        sim_ollama(parallel=2, service_ms=200, load_ms=1500) as one,
        sim_ollama(parallel=2, service_ms=200, load_ms=1500) as two,
        app_server(pool_env(one, two)) as app,
    ):
        assert [stats(sim)["loaded"] for sim in (one, two)] == [False, False]  # both GPUs start cold
        response = warm(app)
        assert response.status_code == 200
        body = response.json()
        assert (body["readiness"], body["degraded"]) == ("ready", False)
        assert [(row["name"], row["readiness"]) for row in body["backends"]] == [("gpu1", "ready"), ("gpu2", "ready")]
        for sim in (one, two):
            state = stats(sim)
            assert (state["loaded"], state["loads"], state["requestsSeen"]) == (True, 1, 0)  # loaded, no completion
        assert "127.0.0.1" not in str(body["backends"])  # backends by name; addresses only in `detail`


def test_warm_with_one_backend_down_says_which_and_still_warms_the_other() -> None:
    with sim_ollama(parallel=2, service_ms=200, load_ms=200) as one:
        two_cm = sim_ollama(parallel=2, service_ms=200)
        two = two_cm.__enter__()
        try:
            with app_server(pool_env(one, two)) as app:
                two.kill()
                response = warm(app)
                assert response.status_code == 200
                body = response.json()
                assert (body["readiness"], body["degraded"]) == ("ready", True)  # the pool serves on gpu1
                rows = {row["name"]: row for row in body["backends"]}
                assert rows["gpu1"]["readiness"] == "ready" and rows["gpu1"]["detail"] == ""
                assert rows["gpu2"]["readiness"] == "down" and rows["gpu2"]["detail"]
                assert stats(one)["loaded"] is True
        finally:
            two_cm.__exit__(None, None, None)
