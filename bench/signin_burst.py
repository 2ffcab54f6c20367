"""A signed-in clerk's list while wrong sign-ins pour in from twenty addresses (``FI_AUTH=local``).

One server, two phases side by side:

1. quiet: the clerk lists their entries (``GET /live/feedback?mine=true``) with nothing else going on;
2. burst: the same requests while twenty clients, each from an address of its own (127.0.1.1–20, every
   limit set wide so none of them is throttled), send wrong passwords back to back, twenty at once.

Password checks run in ``FI_PASSWORD_CHECK_SLOTS`` low-priority threads and a check that finds no free
slot within the wait is shed with ``503`` and ``Retry-After``. Targets: the clerk's p95 in the burst
is at most 2× the quiet p95, every answer of the burst is 401 or a shed 503 with ``Retry-After``, and
no 5xx else. (With the checks on the event loop, the clerk's list took 4–6 s under ten such clients.)

Run: .venv/bin/python -m bench.signin_burst [--requests 200] [--attackers 20]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import threading
import time
from collections import Counter
from typing import Any

import httpx

from bench.common import pct, pf, print_table, summary_ms, write_result
from feedback_intelligence.devtools.processes import ServerProcess, app_server

CLERK_SOURCE = "127.0.0.3"
PASSWORD = "kassan-oma-salasana-7"
TARGET_RATIO = 2.0
WIDE = "100000/60seconds"  # no attacker is ever throttled: the burst is all password checks
ENV = {
    "FI_LLM_BACKEND": "ollama",
    "FI_LLM_BASE_URL": "http://127.0.0.1:9",
    "FI_STRUCTURE_WORKER": "false",
    "FI_WARM_AT_START": "false",
    "FI_AUTH": "local",
    "FI_SESSION_SECRET": "signin-burst-bench",
    "FI_LOGIN_RATE_LIMIT": WIDE,
    "FI_LOGIN_NAME_RATE_LIMIT": WIDE,
    "FI_LOGIN_ADDRESS_RATE_LIMIT": WIDE,
    "FI_RATE_LIMIT": WIDE,
    "FI_AUDIENCE_RATE_LIMIT": WIDE,
}


def _client(source: str) -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=30)


def _clerk(app: ServerProcess) -> httpx.Client:
    with httpx.Client(timeout=30) as operator:  # 127.0.0.1: the host's own operator, as feedctl user add
        added = operator.post(
            app.url + "/admin/users",
            json={"username": "kaisa", "password": PASSWORD, "grants": [{"role": "clerk", "store": "s1"}]},
        )
        added.raise_for_status()
    clerk = _client(CLERK_SOURCE)
    clerk.post(app.url + "/auth/signin", json={"username": "kaisa", "password": PASSWORD}).raise_for_status()
    csrf = {"X-CSRF-Token": clerk.cookies.get("fi_csrf") or ""}
    for n in range(20):
        entry = {
            "id": f"burst-{n}",
            "source": "desk",
            "text": f"Kassajono oli pitkä, asiakas {n} odotti.",
            "store": "s1",
        }
        clerk.post(app.url + "/live/feedback", json=entry, headers=csrf).raise_for_status()
    return clerk


def _list_times(app: ServerProcess, clerk: httpx.Client, count: int) -> list[float]:
    times: list[float] = []
    for _ in range(count):
        started = time.perf_counter()
        clerk.get(app.url + "/live/feedback", params={"mine": "true"}).raise_for_status()
        times.append((time.perf_counter() - started) * 1000)
        time.sleep(0.01)
    return times


def _attack(url: str, source: str, stop: threading.Event, answers: Counter[str]) -> None:
    with _client(source) as attacker:
        n = 0
        while not stop.is_set():
            n += 1
            answer = attacker.post(url + "/auth/signin", json={"username": "kaisa", "password": f"arvaus-{n}"})
            shed = answer.status_code == 503 and answer.headers.get("Retry-After", "").isdigit()
            answers["401" if answer.status_code == 401 else "503 shed" if shed else str(answer.status_code)] += 1


def _crowd(url: str, attackers: int, stop: Any, results: Any) -> None:
    """The attackers, in a process of their own: the clerk's timings never wait for their interpreter lock.

    At the lowest priority: a real crowd's clients run on its own machines, not on the service's cores."""
    os.nice(19)
    answers: Counter[str] = Counter()
    done = threading.Event()
    threads = [
        threading.Thread(target=_attack, args=(url, f"127.0.1.{i + 1}", done, answers), daemon=True)
        for i in range(attackers)
    ]
    for thread in threads:
        thread.start()
    stop.wait()
    done.set()
    for thread in threads:
        thread.join(timeout=30)
    results.put(dict(answers))


def run(requests: int, attackers: int) -> dict[str, Any]:
    with app_server(ENV) as app:
        clerk = _clerk(app)
        _list_times(app, clerk, 20)  # warm the route and the connection
        quiet = _list_times(app, clerk, requests)
        spawn = multiprocessing.get_context("spawn")
        stop, results = spawn.Event(), spawn.Queue()
        crowd = spawn.Process(target=_crowd, args=(app.url, attackers, stop, results), daemon=True)
        crowd.start()
        time.sleep(2.0)  # the burst is under way before the first measured request
        burst = _list_times(app, clerk, requests)
        stop.set()
        answers = results.get(timeout=60)
        crowd.join(timeout=30)
        clerk.close()
    ratio = pct(burst, 0.95) / pct(quiet, 0.95)
    return {
        "quietMs": summary_ms(quiet) | {"p95": round(pct(quiet, 0.95), 3)},
        "burstMs": summary_ms(burst) | {"p95": round(pct(burst, 0.95), 3)},
        "p95Ratio": round(ratio, 2),
        "burstAnswers": dict(answers),
        "ok": ratio <= TARGET_RATIO and set(answers) <= {"401", "503 shed"},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--attackers", type=int, default=20)
    args = parser.parse_args()
    result = run(args.requests, args.attackers)
    write_result("signin_burst", result)
    print_table(
        "A clerk's list during a burst of wrong sign-ins",
        [
            ("clerk p95, quiet", f"{result['quietMs']['p95']:.1f} ms", ""),
            ("clerk p95, burst", f"{result['burstMs']['p95']:.1f} ms", ""),
            ("ratio", f"×{result['p95Ratio']}", f"≤ ×{TARGET_RATIO} {pf(result['p95Ratio'] <= TARGET_RATIO)}"),
            ("burst answers", str(result["burstAnswers"]), "401 or shed 503"),
        ],
    )
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
