"""What the gate costs, measured side by side in one run against sim-ollama.

1. Median added latency of an admitted /interpret through the app versus the same chat call made
   straight to the sim (target: at most 5 ms at p50).
2. Saturated /health latency versus an idle probe's (the probe cache is off here,
   FI_HEALTH_CACHE_S=0, so every idle /health runs its probe).
3. Wall time of two concurrent interprets divided by one's (target: at most 1.2 with 2 sim slots).

Run: .venv/bin/python -m bench.gate_overhead
"""

from __future__ import annotations

import asyncio
import time

import httpx

from bench.common import print_table, summary_ms, write_result
from feedback_intelligence.devtools.processes import app_server, sim_ollama
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.structuring.prompt import StructuringPrompt
from feedback_intelligence.structuring.schema import structure_json_schema

TEXT = "Maito oli hapanta vaikka päiväys oli vasta huomenna."
ROUNDS = 200


def same_chat_request_as_the_app(text: str) -> dict:
    """The very chat request the app's structuring sends for ``text`` (prompt, schema, options)."""
    domain = load_domain("retail")
    return {
        "model": "sim-model",
        "stream": False,
        "think": False,
        "keep_alive": "30m",
        "messages": [{"role": "user", "content": StructuringPrompt.for_domain(domain).render(text)}],
        "options": {"num_predict": 512, "temperature": 0.0},
        "format": structure_json_schema(domain),
    }


async def timed(call) -> float:
    started = time.perf_counter()
    response = await call()
    assert response.status_code == 200, response.text
    return (time.perf_counter() - started) * 1000


async def measure(sim_url: str, app_url: str) -> dict:
    async with (
        httpx.AsyncClient(base_url=app_url, timeout=60) as app,
        httpx.AsyncClient(base_url=sim_url, timeout=60) as sim,
    ):
        await app.post("/interpret", json={"text": TEXT})  # warm both paths
        direct_payload = same_chat_request_as_the_app(TEXT)
        through, direct = [], []
        for _ in range(ROUNDS):  # interleaved so both see the same machine state
            through.append(await timed(lambda: app.post("/interpret", json={"text": TEXT})))
            direct.append(await timed(lambda: sim.post("/api/chat", json=direct_payload)))

        idle_health = [await timed(lambda: app.get("/health")) for _ in range(30)]

        await sim.post("/sim/config", json={"service_ms": 3000})
        holders = [asyncio.create_task(app.post("/interpret", json={"text": TEXT})) for _ in range(2)]
        while (await sim.get("/sim/stats")).json()["inFlight"] < 2:
            await asyncio.sleep(0.01)
        saturated_health = [await timed(lambda: app.get("/health")) for _ in range(30)]
        await asyncio.gather(*holders)

        await sim.post("/sim/config", json={"service_ms": 1000})
        one = await timed(lambda: app.post("/interpret", json={"text": TEXT}))
        started = time.perf_counter()
        await asyncio.gather(*(app.post("/interpret", json={"text": TEXT}) for _ in range(2)))
        two = (time.perf_counter() - started) * 1000
    return {
        "interpretThroughAppMs": summary_ms(through),
        "chatStraightToSimMs": summary_ms(direct),
        "addedLatencyP50Ms": round(summary_ms(through)["p50"] - summary_ms(direct)["p50"], 3),
        "idleHealthMs": summary_ms(idle_health),
        "saturatedHealthMs": summary_ms(saturated_health),
        "saturatedOverIdleHealthP50": round(summary_ms(saturated_health)["p50"] / summary_ms(idle_health)["p50"], 3),
        "oneCallMs": round(one, 1),
        "twoConcurrentMs": round(two, 1),
        "twoOverOne": round(two / one, 3),
    }


def main() -> None:
    with (
        sim_ollama(parallel=2, max_queue=8, service_ms=5) as sim,
        app_server(
            {
                "FI_LLM_BACKEND": "ollama",
                "FI_LLM_BASE_URL": sim.url,
                "FI_LLM_MODEL": "sim-model",
                "FI_LLM_SLOTS": "2",
                "FI_HEALTH_CACHE_S": "0",
            }
        ) as app,
    ):
        result = asyncio.run(measure(sim.url, app.url))
    path = write_result("gate_overhead", result)
    print_table(
        "gate overhead (sim-ollama, 2 slots)",
        [
            ("added latency of /interpret, p50", f"{result['addedLatencyP50Ms']} ms", "≤ 5 ms"),
            (
                "  through the app p50 / direct p50",
                f"{result['interpretThroughAppMs']['p50']} / {result['chatStraightToSimMs']['p50']} ms",
                "",
            ),
            (
                "saturated /health p50 vs idle probe p50",
                f"{result['saturatedHealthMs']['p50']} vs "
                f"{result['idleHealthMs']['p50']} ms "
                f"(×{result['saturatedOverIdleHealthP50']})",
                "saturated ≪ idle",
            ),
            ("two concurrent / one call (1 s service)", f"{result['twoOverOne']}", "≤ 1.2"),
        ],
    )
    print(f"written: {path}")


if __name__ == "__main__":
    main()
