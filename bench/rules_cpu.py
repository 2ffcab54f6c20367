"""The CPU of a batch row's rules and derivation outside the store: the text read once by every lexicon and
handed from the rules to the derivation (ADR 0075), against the old path that read it once per lexicon and
again in the derivation (``bench/legacy_rules.py``), side by side in one run.

Rows are made as a batch makes them (``IngestService.record_many``, then the derivation of each row, as
``insert_batch`` derives them), for two kinds: saved for later (the rules' proposal, its language detected
in parallel) and with a person's structure. Texts are the demo corpus's and the eval sets' (retail), each
made unique (a number appended), so no cache keyed by the text answers for a row; the per-word caches
(morphology, lemmas) are warmed first by one unmeasured pass, and what is alive then is frozen out of the
garbage collector's passes, as in a running service (``loop_pauses``: unfrozen, a full pass walked the
start-up heap for ~0.1 s on whichever path's row tipped the balance, ~0.1 ms a row of one path or the
other). The two paths alternate per chunk of rows; CPU is this process's (``time.process_time``). A later row's language
detection is done before the rows are timed and measured apart (lingua's parallel threads' CPU swings with
the machine's load), once per path: the old path asks lingua of every text, today's decides a text by its
words when they leave no doubt and asks lingua of the rest (ADR 0084); each path's is added to its rows.

Target: the new path's CPU per row (rules + derivation) at most ×0.4 of the old path's.

Run: .venv/bin/python -m bench.rules_cpu [--rows 1000] [--chunk 250]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

from bench import legacy_rules
from bench.common import pf, print_table, write_result
from bench.interpret_cpu import eval_texts
from bench.legacy_rules import LegacyIngestService, legacy_derive, lingua_alone
from feedback_intelligence.cli.loop_pauses import freeze_what_start_up_made
from feedback_intelligence.demo.corpus import load_corpus
from feedback_intelligence.derivation import derive
from feedback_intelligence.deterministic import prior
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.records import Derived, StoredFeedback, Structure
from feedback_intelligence.services.ingest import IngestCommand, IngestService
from feedback_intelligence.text import morphology
from feedback_intelligence.text.language import LanguageGuess, detect_languages

TARGET_RATIO = 0.4
KINDS = ("later", "accepted")
STRUCTURE = Structure("maito_kylma", "maito", "medium", "complaint", "fi")
TIMESTAMP = "2026-12-01T10:00:00+02:00"


def texts() -> list[str]:
    return [entry["text"] for entry in load_corpus()] + eval_texts("retail")


def commands(base: list[str], kind: str, tag: str) -> list[IngestCommand]:
    return [
        IngestCommand(
            "email",
            f"{text} (#{tag}{n})",
            TIMESTAMP,
            id=f"{tag}-{n}",
            structure_later=kind == "later",
            accepted_structure=STRUCTURE if kind == "accepted" else None,
        )
        for n, text in enumerate(base)
    ]


@dataclass
class Path:
    service: IngestService
    derive: Callable[[StoredFeedback, Domain], Derived]
    detection: Callable[[], AbstractContextManager[None]]  # how this path detects a language


class Detected:
    """A path's language detection done before its rows are timed: lingua's parallel call's threads' CPU
    varies with the machine's load far more than the rest of a row, so it is measured apart (``detect``) and
    the path looks its answers up."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.guesses: dict[str, LanguageGuess | None] = {}
        self.cpu = 0.0
        self.texts = 0
        self.by_words = 0

    def detect(self, texts: list[str], candidates: tuple[str, ...]) -> None:
        start = time.process_time()
        with self.path.detection():
            found = detect_languages(texts, candidates)
        self.cpu += time.process_time() - start
        self.texts += len(texts)
        self.by_words += sum(g is not None and g.by_words for g in found)
        self.guesses.update(zip(texts, found, strict=True))

    def __call__(self, texts: Sequence[str], candidates: tuple[str, ...]) -> list[LanguageGuess | None]:
        return [self.guesses[text] for text in texts]


def run(path: Path, batch: list[IngestCommand]) -> tuple[float, float, list[str]]:
    """CPU seconds of the rules and of the derivation over ``batch``, and each row as JSON."""
    with path.detection():  # the old wiring's derivation detects the language again (the theme guard)
        start = time.process_time()
        records = path.service.record_many(batch)
        ruled = time.process_time()
        derived = [path.derive(record, path.service.domain) for record in records]
        done = time.process_time()
    rows = [json.dumps([r.to_json(), repr(d)], ensure_ascii=False) for r, d in zip(records, derived, strict=True)]
    return ruled - start, done - ruled, rows


def measure(rows: int = 1000, chunk: int = 250) -> dict[str, Any]:
    domain = load_domain("retail")
    morphology.warm()
    paths = {
        # no model; a clock that stands still, so the rows compare
        "old": Path(LegacyIngestService(domain, None, clock=ManualClock()), legacy_derive, lingua_alone),  # type: ignore[arg-type]
        "new": Path(IngestService(domain, None, clock=ManualClock()), derive, nullcontext),  # type: ignore[arg-type]
    }
    base = texts()
    out: dict[str, Any] = {"rows": rows, "chunk": chunk}
    detected = {name: Detected(path) for name, path in paths.items()}
    legacy_rules.detect_languages = detected["old"]  # type: ignore[assignment]
    prior.detect_languages = detected["new"]  # type: ignore[assignment]
    differing = 0
    for kind in KINDS:
        for name, path in paths.items():  # warm the per-word caches and the lexicons, unmeasured
            batch = commands(base, kind, f"warm-{name}")
            detected[name].detect([c.text for c in batch], domain.detection_languages)
            run(path, batch)
        freeze_what_start_up_made()  # as the service does once started: the warm heap is not walked again
        for found in detected.values():
            found.cpu, found.texts, found.by_words = 0.0, 0, 0
        cpu = {name: [0.0, 0.0] for name in paths}
        made = 0
        for at in range(0, rows, chunk):
            pool = [base[(at + i) % len(base)] for i in range(min(chunk, rows - at))]
            order = list(paths) if (at // chunk) % 2 == 0 else list(reversed(paths))
            answers = {}
            for name in order:
                # the same texts for both, made unique per path: neither finds the other's reading
                batch = commands(pool, kind, f"{name}{at}")
                if kind == "later":
                    detected[name].detect([c.text for c in batch], domain.detection_languages)
                rules, derivation, answers[name] = run(paths[name], batch)
                cpu[name][0] += rules
                cpu[name][1] += derivation
            made += len(pool)
            old_rows = [a.replace(f"old{at}", "*") for a in answers["old"]]
            new_rows = [a.replace(f"new{at}", "*") for a in answers["new"]]
            differing += sum(o != n for o, n in zip(old_rows, new_rows, strict=True))
        per_row = {name: [round(s * 1e6 / made, 1) for s in parts] for name, parts in cpu.items()}
        language = {n: round(d.cpu * 1e6 / d.texts, 1) if d.texts else 0.0 for n, d in detected.items()}
        old_total, new_total = sum(per_row["old"]), sum(per_row["new"])
        out[kind] = {
            "old": {"rules": per_row["old"][0], "derive": per_row["old"][1], "total": round(old_total, 1)},
            "new": {"rules": per_row["new"][0], "derive": per_row["new"][1], "total": round(new_total, 1)},
            "language": language,  # each path's language detection, CPU a row (a later row only)
            "decidedByWords": detected["new"].by_words,  # of today's path's texts, not asked of lingua
            "detected": detected["new"].texts,
            "ratioOutsideLanguage": round(new_total / old_total, 3),
            "ratio": round((new_total + language["new"]) / (old_total + language["old"]), 3),
        }
    out["differingRows"] = differing
    old_all = sum(out[k]["old"]["total"] + out[k]["language"]["old"] for k in KINDS)
    out["ratio"] = round(sum(out[k]["new"]["total"] + out[k]["language"]["new"] for k in KINDS) / old_all, 3)
    old_outside = sum(out[k]["old"]["total"] for k in KINDS)
    out["ratioOutsideLanguage"] = round(sum(out[k]["new"]["total"] for k in KINDS) / old_outside, 3)
    out["targetRatio"] = TARGET_RATIO
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.rules_cpu", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1000, help="measured rows of each kind, per path")
    parser.add_argument("--chunk", type=int, default=250, help="rows a batch, the paths alternating per batch")
    args = parser.parse_args(argv)
    result = measure(args.rows, args.chunk)
    table = []
    for kind in KINDS:
        o, n = result[kind]["old"], result[kind]["new"]
        table.append(
            (
                f"{kind}: CPU per row outside language detection, old → new: rules + derivation = total",
                f"{o['rules']} → {n['rules']} + {o['derive']} → {n['derive']} = {o['total']} → {n['total']} µs",
                f"×{result[kind]['ratioOutsideLanguage']}",
            )
        )
        language = result[kind]["language"]
        if language["old"]:
            table.append(
                (
                    f"{kind}: + language detection, CPU per row, old (lingua) → new (decided by the words in "
                    f"{result[kind]['decidedByWords']} of {result[kind]['detected']}); new ÷ old with it",
                    f"{language['old']} → {language['new']} µs",
                    f"×{result[kind]['ratio']}",
                )
            )
    ok = result["ratio"] <= TARGET_RATIO and result["differingRows"] == 0
    table.append(("rows answered otherwise than the old path", str(result["differingRows"]), "0"))
    table.append(("new ÷ old, both kinds' rows, outside language detection", f"×{result['ratioOutsideLanguage']}", ""))
    table.append(("new ÷ old, CPU of both kinds' rows", f"×{result['ratio']}", f"≤ ×{TARGET_RATIO}  {pf(ok)}"))
    result["targetPass"] = ok
    print_table("A batch row's rules and derivation: the text read once vs the old path", table)
    print(f"wrote {write_result('rules_cpu', result)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
