"""Time from save to notification, over real HTTP: the desk saves an alert item, a webhook receiver
records when its notification arrives.

One ``feedctl serve`` process (SQLite, as a shop runs it) with one webhook route to a local HTTP
receiver, saving desk entries with the clerk's accepted structure (no model call). Each item is saved
and its notification awaited before the next, so the figure is latency, not throughput: from just
before ``POST /live/feedback`` to the receiver's arrival time. Two cases: the replica that saved the
item delivers it (the save wakes its worker), and a replica that did not save it (its worker only
polls, ``FI_NOTIFY_POLL_S``), measured with a second process whose desk takes no saves.

Run: .venv/bin/python -m bench.notify_latency [--items N]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.common import print_table, summary_ms, write_result
from feedback_intelligence.devtools.processes import app_server
from feedback_intelligence.devtools.receiver import Receiver

TEXT = "Asiakas liukastui märällä lattialla ja loukkaantui, ensiapu tuli paikalle. Erä {n}."
ACCEPTED = {
    "category": "tilat_siisteys",
    "theme": "märkä lattia",
    "severity": "critical",
    "type": "complaint",
    "language": "fi",
}


def measure(app_url: str, receiver: Receiver, prefix: str, items: int) -> list[float]:
    latencies: list[float] = []
    with httpx.Client(timeout=10) as http:
        for n in range(items):
            feedback_id = f"{prefix}-{n}"
            started = time.time()
            saved = http.post(
                app_url + "/live/feedback",
                json={"id": feedback_id, "source": "desk", "text": TEXT.format(n=n), "acceptedStructure": ACCEPTED},
            )
            assert saved.status_code == 201, saved.text
            receiver.wait_for(len(receiver.processed) + 1, 30)
            got = receiver.processed[f"live:{feedback_id}:duty:alert"]
            latencies.append((got.at - started) * 1000)
    return latencies


def run(items: int) -> dict[str, Any]:
    receiver = Receiver().start()
    channels = json.dumps([{"name": "duty", "kind": "webhook", "url": receiver.url, "secret": "whsec_" + "b" * 32}])
    env = {"FI_NOTIFY_CHANNELS": channels, "FI_LLM_BACKEND": "ollama", "FI_LLM_BASE_URL": "http://127.0.0.1:9"}
    try:
        with app_server(env) as app:
            for n in range(5):  # warm the connection pools
                measure(app.url, receiver, f"warm{n}", 1)
            same = measure(app.url, receiver, "same", items)
        shared = Path(tempfile.mkdtemp(prefix="fi-bench-notify-"))  # both processes on one SQLite pair
        with app_server({**env, "FI_NOTIFY_WORKER": "0"}, shared) as saver, app_server(env, shared) as deliverer:
            del deliverer  # only its worker runs: it learns of the saves by polling the shared database
            other = measure(saver.url, receiver, "other", max(10, items // 5))
    finally:
        receiver.stop()
    return {"items": items, "sameReplicaMs": summary_ms(same), "otherReplicaMs": summary_ms(other), "pollS": 1.0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100)
    args = parser.parse_args(argv)
    result = run(args.items)
    s, o = result["sameReplicaMs"], result["otherReplicaMs"]
    print_table(
        "save → notification (webhook over real HTTP)",
        [
            ("same replica p50 / p99", f"{s['p50']:.1f} / {s['p99']:.1f} ms (n={s['n']})", "—"),
            (
                "another replica p50 / p99",
                f"{o['p50']:.1f} / {o['p99']:.1f} ms (n={o['n']})",
                f"≈ the poll, {result['pollS']} s",
            ),
        ],
    )
    print(write_result("notify_latency", result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
