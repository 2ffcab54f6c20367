"""How right the interpretations are: the retail evaluation set through the real ``POST /interpret`` path.

1. The app on its embedded default (the packaged SmolLM2 through llama.cpp), started as a real process;
   every item of ``domains/retail/eval/set.jsonl`` interpreted over HTTP by the ``feedctl eval`` library.
2. The same run through the ``openai`` backend against llama-cpp-python's own OpenAI-compatible server
   with the same GGUF: the harness does not care which backend answers.

Targets (ADR 0010), judged on the holdout part, which no rule was written against; the dev part is
shown beside it: category accuracy ≥ 0.6 and above the prior alone, sentiment ≥ 0.8, severity above
its majority baseline, language ≥ 0.95, alert recall ≥ 0.9 at precision ≥ 0.9 pooled over the warning
alert categories (injury/safety, payment, legal), no shown theme that a guard rejects, no sentiment
contradicting its type. Themes (ADR 0022): ≥ 0.9 of Finnish themes in base form, ≥ 0.85 naming a gold
topic word (``topics`` in the set), none in another language than the text's, no slug or fragment.
The keyword rules' precision per category is reported on the whole set.

Run: .venv/bin/python -m bench.quality [--skip-openai | --only-openai] [--limit N]
(``--only-openai`` runs part 2 alone and writes ``results/quality-openai.json``, so a long openai run
does not overwrite the embedded one.)
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import Any

from rich.console import Console

from bench.common import print_table, write_result
from feedback_intelligence.devtools.processes import app_server, llama_cpp_server
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.evaluation.dataset import load_set
from feedback_intelligence.evaluation.render import fmt, markdown, render
from feedback_intelligence.evaluation.run import evaluate

JUDGED_SPLIT = "holdout"
CONTEXT_TOKENS = 4096


def targets(card: dict[str, Any]) -> dict[str, tuple[str, str, bool]]:
    """name -> (measured, target, met) for one split's scorecard."""
    f = card["fields"]
    pooled = card["alerts"]["watchedPooled"]
    inv = card["invariants"]
    themes = card.get("themes", {})

    def at_least(value: float | None, bound: float) -> bool:
        return value is not None and value >= bound

    def above(value: float | None, other: float | None) -> bool:
        return value is not None and other is not None and value > other

    return {
        "category accuracy": (fmt(f["category"]["final"]), "≥ 0.60", at_least(f["category"]["final"], 0.6)),
        "category above the prior alone": (
            f"{fmt(f['category']['final'])} vs {fmt(f['category']['prior'])}",
            "> prior",
            above(f["category"]["final"], f["category"]["prior"]),
        ),
        "sentiment accuracy": (fmt(f["sentiment"]["final"]), "≥ 0.80", at_least(f["sentiment"]["final"], 0.8)),
        "severity above majority": (
            f"{fmt(f['severity']['final'])} vs {fmt(f['severity']['majority'])}",
            "> majority",
            above(f["severity"]["final"], f["severity"]["majority"]),
        ),
        "language accuracy": (fmt(f["language"]["final"]), "≥ 0.95", at_least(f["language"]["final"], 0.95)),
        "alert recall (pooled)": (fmt(pooled["recall"]), "≥ 0.90", at_least(pooled["recall"], 0.9)),
        "alert precision (pooled)": (fmt(pooled["precision"]), "≥ 0.90", at_least(pooled["precision"], 0.9)),
        "shown themes a guard rejects": (
            str(inv.get("rejectedThemesShown", "not measured")),
            "0",
            inv.get("rejectedThemesShown") == 0,
        ),
        "sentiment contradicting type": (
            str(inv["sentimentContradictsType"]),
            "0",
            inv["sentimentContradictsType"] == 0,
        ),
        # themes a manager can read (ADR 0022)
        "Finnish themes in base form": (fmt(themes.get("baseForm")), "≥ 0.90", at_least(themes.get("baseForm"), 0.9)),
        "themes naming a gold topic word": (
            fmt(themes.get("namesTopic")),
            "≥ 0.85",
            at_least(themes.get("namesTopic"), 0.85),
        ),
        "themes in another language than the text": (
            str(themes.get("otherLanguage", "not measured")),
            "0",
            themes.get("otherLanguage") == 0,
        ),
        "slug or sentence-fragment themes": (
            str(themes.get("slugOrFragment", "not measured")),
            "0",
            themes.get("slugOrFragment") == 0,
        ),
    }


def run_against(env: dict[str, str], items: list, label: str) -> dict[str, Any]:
    domain = load_domain("retail")
    console = Console(width=140)
    with app_server(env) as app:
        started = time.perf_counter()
        done = 0

        def progress(_observation: Any) -> None:
            nonlocal done
            done += 1
            if done % 10 == 0 or done == len(items):
                console.print(f"  {label}: {done}/{len(items)} items, {time.perf_counter() - started:.0f} s")

        result = asyncio.run(evaluate(app.url, domain, "all", on_done=progress, items=items))
    result["elapsedS"] = round(time.perf_counter() - started, 1)
    result["label"] = label
    return result


def judged(result: dict[str, Any]) -> dict[str, Any]:
    split = JUDGED_SPLIT if JUDGED_SPLIT in result["splits"] else "all"
    checks = targets(result["splits"][split])
    return {"split": split, "checks": {k: {"measured": m, "target": t, "met": ok} for k, (m, t, ok) in checks.items()}}


def show(result: dict[str, Any], verdict: dict[str, Any]) -> None:
    Console(width=140).print(render(result))
    print(markdown(result))
    rows = [
        (name, c["measured"], f"{c['target']}  {'ok' if c['met'] else 'FAIL'}") for name, c in verdict["checks"].items()
    ]
    print_table(f"quality targets · {result['label']} · judged on {verdict['split']}", rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    runs_wanted = parser.add_mutually_exclusive_group()
    runs_wanted.add_argument("--skip-openai", action="store_true", help="Only the embedded run.")
    runs_wanted.add_argument("--only-openai", action="store_true", help="Only the openai backend run.")
    parser.add_argument("--limit", type=int, default=None, help="Only the first N items (a quick look).")
    args = parser.parse_args(argv)
    items = load_set(load_domain("retail"))[: args.limit]
    runs: dict[str, Any] = {}
    if not args.only_openai:
        embedded = run_against({}, items, "embedded (SmolLM2-135M, llama.cpp in process)")
        runs["embedded"] = {"result": embedded, "targets": judged(embedded)}
        show(embedded, runs["embedded"]["targets"])
    if not args.skip_openai:
        with llama_cpp_server(CONTEXT_TOKENS) as url:
            env = {
                "FI_LLM_BACKEND": "openai",
                "FI_LLM_BASE_URL": url + "/v1",
                "FI_LLM_MODEL": "smollm2",
                "FI_LLM_SLOTS": "1",
            }  # llama-cpp-python's server runs one request at a time
            openai = run_against(env, items, "openai backend → llama_cpp.server (same GGUF)")
        runs["openai"] = {"result": openai, "targets": judged(openai)}
        show(openai, runs["openai"]["targets"])
    name = "quality-openai" if args.only_openai else "quality"
    path = write_result(name, {run_name: _compact(run) for run_name, run in runs.items()})
    print(f"results: {path}")
    met = all(c["met"] for c in runs["openai" if args.only_openai else "embedded"]["targets"]["checks"].values())
    return 0 if met else 1


def _compact(run: dict[str, Any]) -> dict[str, Any]:
    """The result file keeps every figure and each answer (what a person would have been shown)."""
    result = dict(run["result"])
    return {"targets": run["targets"], **result}


if __name__ == "__main__":
    sys.exit(main())
