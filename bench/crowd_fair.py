"""Fair shares: one visitor retrying as fast as it is allowed beside ordinary clerks, fair order vs first come.

One run starts sim-ollama (2 parallel, 1.5 s per call) and, one after the other, four app processes in
front of it (2 slots, 500 ms acquire timeout, ``FI_TRUSTED_PROXIES=127.0.0.1`` so that each simulated
client is its own visitor through ``X-Forwarded-For``, with the default per-client rate limit and one
LLM request in flight per client):

(a) ``FI_GATE_ORDER=fair``, 10 ordinary clerks alone;      (b) the same with the greedy visitor;
(c) ``FI_GATE_ORDER=fifo``, 10 ordinary clerks alone;      (d) the same with the greedy visitor.

An ordinary clerk presses "Tulkitse" after a think time of 1-6 s and follows the desk's 503 policy
(two jittered retries, then "busy"). The greedy visitor presses again the moment an answer comes back,
whatever it was, and waits only when the edge says 429 (its ``Retry-After``): as fast as it is allowed.
Every phase uses the same seed. Figures: the ordinary clerks' admitted share (presses that ended with
an interpretation) and admitted p99 with vs without the greedy visitor, and Jain's fairness index of
served presses across the ten ordinary clerks (judged) and across all eleven clients (shown beside).

Run: .venv/bin/python -m bench.crowd_fair [--duration 45]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from bench.common import pf, print_table, summary_ms, write_result
from feedback_intelligence.cli.crowd import SAMPLE_TEXTS, retry_delay_s
from feedback_intelligence.devtools.processes import app_server, sim_ollama

PARALLEL = 2
SERVICE_MS = 1500
ACQUIRE_MS = 500
CLERKS = 10
GREEDY = "greedy"
ROTATING_KEYS = 40  # the hostile probe's greedy client: 40 keys minted by GET /desk, used in turn...
ROTATING_AT_ONCE = 6  # ...6 presses at a time
THINK_S = (1.0, 6.0)
TARGETS = {"shareRatioMax": 1.2, "p99RatioMax": 1.2, "jainMin": 0.95}


def jain(values: list[float]) -> float | None:
    """Jain's fairness index: 1 when all are equal, 1/n when one takes everything."""
    total = sum(values)
    squares = sum(v * v for v in values)
    return None if not values or squares == 0 else round(total * total / (len(values) * squares), 4)


@dataclass
class Client:
    name: str
    address: str
    presses: int = 0
    served: int = 0  # presses that ended with an interpretation
    busy: int = 0
    attempts: int = 0
    limited: int = 0  # 429s from the edge
    limited_by: dict[str, int] = field(default_factory=dict)  # ...by reason (client, audience, too_many_inflight)
    admitted_ms: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)


async def _attempt(
    http: httpx.AsyncClient, client: Client, rng: random.Random, cookie: str | None = None
) -> httpx.Response | None:
    client.attempts += 1
    started = time.perf_counter()
    headers = {"X-Forwarded-For": client.address}
    if cookie is not None:
        headers["Cookie"] = f"fi_visitor={cookie}"
    try:
        response = await http.post("/interpret", json={"text": rng.choice(SAMPLE_TEXTS)}, headers=headers)
    except httpx.HTTPError as exc:
        client.errors[type(exc).__name__] = client.errors.get(type(exc).__name__, 0) + 1
        return None
    if response.status_code == 200:
        client.admitted_ms.append((time.perf_counter() - started) * 1000)
    elif response.status_code == 429:
        client.limited += 1
        answer = response.json()
        reason = str(answer.get("reason") or answer.get("error") or "?")
        client.limited_by[reason] = client.limited_by.get(reason, 0) + 1
    elif response.status_code != 503:
        client.errors[str(response.status_code)] = client.errors.get(str(response.status_code), 0) + 1
    return response


async def _think(seconds: float, deadline: float) -> None:
    await asyncio.sleep(max(0.0, min(seconds, deadline - time.monotonic())))


async def clerk(http: httpx.AsyncClient, client: Client, deadline: float, rng: random.Random) -> None:
    await _think(rng.uniform(0, THINK_S[1]), deadline)
    while time.monotonic() < deadline:
        client.presses += 1
        for attempt in range(3):
            response = await _attempt(http, client, rng)
            if response is not None and response.status_code == 200:
                client.served += 1
                break
            if attempt == 2:
                client.busy += 1
                break
            retry_after = response.headers.get("retry-after") if response is not None else None
            await asyncio.sleep(retry_delay_s(attempt, retry_after, rng))
        await _think(rng.uniform(*THINK_S), deadline)


async def greedy(http: httpx.AsyncClient, client: Client, deadline: float, rng: random.Random) -> None:
    while time.monotonic() < deadline:
        client.presses += 1
        response = await _attempt(http, client, rng)
        if response is not None and response.status_code == 200:
            client.served += 1
        elif response is not None and response.status_code == 429:
            await _think(float(response.headers.get("retry-after", "1")), deadline)


async def mint_keys(http: httpx.AsyncClient, client: Client, wanted: int) -> list[str]:
    """As many visitor keys as the desk page will hand ``client``'s address (issuance is limited)."""
    keys: list[str] = []
    for _ in range(wanted):
        http.cookies.clear()  # as a rotating client does: present no key, so a new one is offered
        page = await http.get("/desk", headers={"X-Forwarded-For": client.address})
        cookie = page.cookies.get("fi_visitor")
        if cookie:
            keys.append(cookie)
    http.cookies.clear()  # the clerks sharing this HTTP client must not carry the greedy visitor's key
    return keys


async def greedy_keys(
    http: httpx.AsyncClient, client: Client, deadline: float, rng: random.Random, keys: list[str]
) -> None:
    """The greedy visitor with many keys, ``ROTATING_AT_ONCE`` presses at a time, each with the next
    key in turn (the hostile probe's rotation); with no key issued it presses as its address."""
    turn = 0

    async def presser() -> None:
        nonlocal turn
        while time.monotonic() < deadline:
            key = keys[turn % len(keys)] if keys else None
            turn += 1
            client.presses += 1
            response = await _attempt(http, client, rng, key)
            if response is not None and response.status_code == 200:
                client.served += 1
            elif response is not None and response.status_code == 429:
                await _think(float(response.headers.get("retry-after", "1")), deadline)

    await asyncio.gather(*(presser() for _ in range(ROTATING_AT_ONCE)))


async def phase(
    app_url: str, *, with_greedy: bool, duration_s: float, seed: int, rotating_keys: int = 0
) -> dict[str, Any]:
    rng = random.Random(seed)
    clients = [Client(f"clerk-{n}", f"198.51.100.{n + 1}") for n in range(CLERKS)]
    pusher = Client(GREEDY, "203.0.113.66")
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    async with httpx.AsyncClient(base_url=app_url, timeout=60, limits=limits) as http:
        keys = await mint_keys(http, pusher, rotating_keys) if rotating_keys else []
        deadline = time.monotonic() + duration_s
        runs = [clerk(http, c, deadline, random.Random(rng.random())) for c in clients]
        if with_greedy and rotating_keys:
            runs.append(greedy_keys(http, pusher, deadline, random.Random(rng.random()), keys))
        elif with_greedy:
            runs.append(greedy(http, pusher, deadline, random.Random(rng.random())))
        await asyncio.gather(*runs)
        in_use = (await http.get("/admin/status")).json()["gate"]["inUse"]
    ordinary_admitted = [ms for c in clients for ms in c.admitted_ms]
    presses = sum(c.presses for c in clients)
    served = [float(c.served) for c in clients]
    everyone = [*served, float(pusher.served)] if with_greedy else served
    return {
        "ordinary": {
            "presses": presses,
            "served": int(sum(served)),
            "busy": sum(c.busy for c in clients),
            "admittedShare": round(sum(served) / presses, 4) if presses else None,
            "admittedMs": summary_ms(ordinary_admitted) if ordinary_admitted else None,
            "servedPerClerk": [c.served for c in clients],
            "limited": sum(c.limited for c in clients),
        },
        "greedy": (
            {
                "presses": pusher.presses,
                "served": pusher.served,
                "attempts": pusher.attempts,
                "limited": pusher.limited,
                "keysIssued": len(keys),
                "limitedBy": pusher.limited_by,
            }
            if with_greedy
            else None
        ),
        "jainAll": jain(everyone),
        "jainOrdinary": jain(served),
        "errors": {c.name: c.errors for c in [*clients, pusher] if c.errors},
        "gateInUseAfter": in_use,
    }


def ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else round(a / b, 3)


def compare(alone: dict[str, Any], crowded: dict[str, Any]) -> dict[str, Any]:
    """The ordinary clerks with the greedy visitor beside them, against without it (ratios ≥ 1 = worse)."""
    alone_p99 = alone["ordinary"]["admittedMs"]["p99"] if alone["ordinary"]["admittedMs"] else None
    crowded_p99 = crowded["ordinary"]["admittedMs"]["p99"] if crowded["ordinary"]["admittedMs"] else None
    return {
        "shareRatio": ratio(alone["ordinary"]["admittedShare"], crowded["ordinary"]["admittedShare"]),
        "p99Ratio": ratio(crowded_p99, alone_p99),
        "jainOrdinary": crowded["jainOrdinary"],
        "jainAll": crowded["jainAll"],
    }


def evaluate(phases: dict[str, Any], targets: dict[str, float] = TARGETS) -> dict[str, bool | None]:
    """PASS/FAIL of each target, judged on the fair order; first come is measured beside it, not judged."""
    fair = compare(phases["fairAlone"], phases["fairGreedy"])
    keyed = compare(phases["fairAlone"], phases["fairGreedyKeys"])
    return {
        "shareWithin": None if fair["shareRatio"] is None else fair["shareRatio"] <= targets["shareRatioMax"],
        "shareWithinKeys": None if keyed["shareRatio"] is None else keyed["shareRatio"] <= targets["shareRatioMax"],
        "p99Within": None if fair["p99Ratio"] is None else fair["p99Ratio"] <= targets["p99RatioMax"],
        # across the ten ordinary clerks, as the issue names them; all eleven is shown beside it
        "jain": None if fair["jainOrdinary"] is None else fair["jainOrdinary"] >= targets["jainMin"],
        "noSlotLeaked": all(p["gateInUseAfter"] == 0 for p in phases.values()),
        "noOtherErrors": not any(p["errors"] for p in phases.values()),
    }


def run(duration_s: float, seed: int) -> dict[str, Any]:
    common = {
        "FI_LLM_BACKEND": "ollama",
        "FI_LLM_MODEL": "sim-model",
        "FI_LLM_SLOTS": str(PARALLEL),
        "FI_LLM_ACQUIRE_TIMEOUT_MS": str(ACQUIRE_MS),
        "FI_LLM_CALL_TIMEOUT_S": "120",
        "FI_TRUSTED_PROXIES": "127.0.0.1",
    }
    phases: dict[str, Any] = {}
    with sim_ollama(parallel=PARALLEL, max_queue=8, service_ms=SERVICE_MS) as sim:
        for order in ("fair", "fifo"):
            for with_greedy in (False, True):
                name = f"{order}{'Greedy' if with_greedy else 'Alone'}"
                with app_server({**common, "FI_LLM_BASE_URL": sim.url, "FI_GATE_ORDER": order}) as app:
                    phases[name] = asyncio.run(
                        phase(app.url, with_greedy=with_greedy, duration_s=duration_s, seed=seed)
                    )
        with app_server({**common, "FI_LLM_BASE_URL": sim.url, "FI_GATE_ORDER": "fair"}) as app:
            phases["fairGreedyKeys"] = asyncio.run(
                phase(app.url, with_greedy=True, duration_s=duration_s, seed=seed, rotating_keys=ROTATING_KEYS)
            )
    return phases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.crowd_fair", description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=45.0, help="seconds each phase's clients press")
    parser.add_argument("--seed", type=int, default=11, help="same clerks in every phase")
    args = parser.parse_args(argv)

    phases = run(args.duration, args.seed)
    verdicts = evaluate(phases)
    fair = compare(phases["fairAlone"], phases["fairGreedy"])
    fifo = compare(phases["fifoAlone"], phases["fifoGreedy"])
    keyed = compare(phases["fairAlone"], phases["fairGreedyKeys"])
    result = {
        "durationS": args.duration,
        "seed": args.seed,
        "clerks": CLERKS,
        "parallel": PARALLEL,
        "serviceMs": SERVICE_MS,
        "acquireTimeoutMs": ACQUIRE_MS,
        "targets": TARGETS,
        "verdicts": verdicts,
        "fair": fair,
        "fifo": fifo,
        "fairKeys": keyed,
        **phases,
    }
    path = write_result("crowd_fair", result)

    def figures(name: str) -> str:
        p = phases[name]["ordinary"]
        p99 = p["admittedMs"]["p99"] if p["admittedMs"] else None
        greedy_served = phases[name]["greedy"]["served"] if phases[name]["greedy"] else "-"
        return f"share {p['admittedShare']}, p99 {p99} ms, served {p['served']}, greedy served {greedy_served}"

    print_table(
        f"crowd_fair: {CLERKS} clerks ± 1 greedy visitor, {args.duration:g} s per phase, sim {PARALLEL} x "
        f"{SERVICE_MS} ms; shared 2-core machine",
        [
            ("fair, clerks alone", figures("fairAlone"), ""),
            ("fair, with the greedy visitor", figures("fairGreedy"), ""),
            (
                "fair: share ratio alone/with; p99 ratio with/alone",
                f"×{fair['shareRatio']}; ×{fair['p99Ratio']}",
                f"≤ 1.2  {pf(verdicts['shareWithin'])}; {pf(verdicts['p99Within'])}",
            ),
            (
                "fair: Jain's index, 10 ordinary (alone) / all 11",
                f"{fair['jainOrdinary']} ({phases['fairAlone']['jainOrdinary']}) / {fair['jainAll']}",
                f"10 ≥ 0.95  {pf(verdicts['jain'])}",
            ),
            (
                f"fair, greedy with {ROTATING_KEYS} keys asked, {ROTATING_AT_ONCE} at a time",
                figures("fairGreedyKeys") + f", keys issued {phases['fairGreedyKeys']['greedy']['keysIssued']}",
                "",
            ),
            (
                "fair, keys: share ratio alone/with; p99 ratio with/alone",
                f"×{keyed['shareRatio']}; ×{keyed['p99Ratio']}",
                f"≤ 1.2  {pf(verdicts['shareWithinKeys'])}",
            ),
            ("fifo, clerks alone", figures("fifoAlone"), ""),
            ("fifo, with the greedy visitor", figures("fifoGreedy"), ""),
            (
                "fifo: share ratio alone/with; p99 ratio with/alone",
                f"×{fifo['shareRatio']}; ×{fifo['p99Ratio']}",
                "(beside)",
            ),
            (
                "fifo: Jain's index, 10 ordinary (alone) / all 11",
                f"{fifo['jainOrdinary']} ({phases['fifoAlone']['jainOrdinary']}) / {fifo['jainAll']}",
                "(beside)",
            ),
            (
                "slots held after each phase; other errors",
                f"{[p['gateInUseAfter'] for p in phases.values()]}",
                f"{pf(verdicts['noSlotLeaked'])}; {pf(verdicts['noOtherErrors'])}",
            ),
        ],
    )
    print(f"written: {path}")
    return 0 if all(v is not False for v in verdicts.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
