"""The portable engine build against a native one (docs/adr/0019-engine-out-of-process.md).

Each build generates in a subprocess of its own interpreter (the project's ``.venv`` and a second
virtualenv holding a native build), alternated A B A B, over the same eval-set texts with the
structuring prompt's length; each subprocess reports its own generation time, so interpreter start and
model load are left out. Make the native side once with
``python3 -m venv /tmp/native-venv && /tmp/native-venv/bin/pip install numpy diskcache jinja2 typing-extensions``
then ``FI_ENGINE_CMAKE_ARGS="-DGGML_NATIVE=ON" scripts/engine-wheel.sh /tmp/native-venv``.

Run: .venv/bin/python -m bench.engine_build --native-python /tmp/native-venv/bin/python [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from bench.common import print_table, write_result
from feedback_intelligence.llm.engine.model_file import packaged_model_path

REPO = Path(__file__).resolve().parents[1]

# Runs inside the interpreter under test; imports only llama_cpp and our llama_engine (stdlib only).
PROBE = """
import json, sys, time
from pathlib import Path
from feedback_intelligence.llm.engine.llama_engine import LlamaEngine, system_info
args = json.loads(sys.argv[1])
engine = LlamaEngine(Path(args["model"]), context_tokens=2048, threads=args["threads"])
engine._llama.set_cache(None)  # every prompt evaluated in full: the build's speed, not the cache's
started = time.perf_counter()
tokens = 0
for text in args["texts"]:
    made = engine.generate([{"role": "user", "content": args["preamble"] + text}], max_tokens=48,
                           temperature=0.0, json_schema=None, cancelled=lambda: False)
    tokens += made.completion_tokens
print(json.dumps({"seconds": time.perf_counter() - started, "tokens": tokens, "system": system_info()}))
"""

PREAMBLE = (
    "Luokittele asiakaspalaute. Vastaa JSON-oliona, jossa on kentät category, theme, severity, type, "
    "sentiment ja language. Palaute: "
)


def run(python: str, texts: list[str], threads: int) -> dict[str, object]:
    args = {"model": str(packaged_model_path()), "threads": threads, "texts": texts, "preamble": PREAMBLE}
    done = subprocess.run(
        [python, "-c", PROBE, json.dumps(args)],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="portable vs native llama.cpp build")
    parser.add_argument("--native-python", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--texts", type=int, default=6)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    from feedback_intelligence.domain.loader import load_domain
    from feedback_intelligence.evaluation.dataset import load_set

    texts = [item.text for item in load_set(load_domain("retail")) if item.split == "dev"][: args.texts]
    sides = {"portable": sys.executable, "native": args.native_python}
    seconds: dict[str, list[float]] = {name: [] for name in sides}
    systems: dict[str, str] = {}
    ratios = []
    for index in range(args.rounds):
        order = list(sides) if index % 2 == 0 else list(reversed(sides))
        this_round = {}
        for name in order:
            result = run(sides[name], texts, args.threads)
            this_round[name] = float(result["seconds"])  # type: ignore[arg-type]
            systems[name] = str(result["system"])
            seconds[name].append(this_round[name])
        ratios.append(this_round["portable"] / this_round["native"])
    ratio = statistics.median(ratios)
    rows = [
        (
            "generation time, portable / native (median of rounds)",
            f"×{ratio:.3f} (min ×{min(ratios):.3f}, max ×{max(ratios):.3f}); "
            f"{statistics.median(seconds['portable']):.2f} vs {statistics.median(seconds['native']):.2f} s",
            "recorded",
        ),
        ("portable build", systems["portable"], ""),
        ("native build", systems["native"], ""),
    ]
    print_table(f"bench.engine_build ({args.rounds} rounds × {len(texts)} texts, {args.threads} thread(s))", rows)
    write_result("engine_build", {"ratio": ratio, "ratios": ratios, "seconds": seconds, "systemInfo": systems})
    return 0


if __name__ == "__main__":
    sys.exit(main())
