"""``python -m feedback_intelligence.sim``: the simulated Ollama as a process (flags mirror ``feedctl sim-ollama``)."""

from __future__ import annotations

import argparse

from feedback_intelligence.sim.batching import BatchingConfig
from feedback_intelligence.sim.config import SimConfig
from feedback_intelligence.sim.ollama_sim import serve_sim
from feedback_intelligence.sim.script import read_script


def build_parser() -> argparse.ArgumentParser:
    d = SimConfig()
    p = argparse.ArgumentParser(prog="python -m feedback_intelligence.sim", description=__doc__)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=11434)
    p.add_argument("--parallel", type=int, default=d.parallel, help="OLLAMA_NUM_PARALLEL (default %(default)s)")
    p.add_argument(
        "--max-queue", type=int, default=d.max_queue,
        help="OLLAMA_MAX_QUEUE: pending requests for a cold or loading model; batching: OpenAI calls waiting"
        " (default %(default)s)",
    )  # fmt: skip
    p.add_argument("--service-ms", type=int, default=d.service_ms, help="slot hold time per completion")
    p.add_argument("--probe-ms", type=int, default=None, help="slot hold time when num_predict is 1")
    p.add_argument("--load-ms", type=int, default=d.load_ms, help="cold model load time")
    p.add_argument("--keep-alive-s", type=float, default=d.keep_alive_s, help="OLLAMA_KEEP_ALIVE; negative = forever")
    p.add_argument("--model", default=d.model)
    p.add_argument("--tokens-per-reply", type=int, default=d.tokens_per_reply)
    p.add_argument("--strict-models", action="store_true", help="404 for any model name but --model")
    b = BatchingConfig()
    p.add_argument("--batching", action="store_true", help="a GPU that batches (sim/batching.py) instead of slots")
    p.add_argument("--step-ms", type=float, default=b.step_ms, help="batching: one decode step alone")
    p.add_argument("--per-seq-ms", type=float, default=b.per_seq_ms, help="batching: added per running sequence")
    p.add_argument("--knee-seqs", type=int, default=b.knee_seqs, help="batching: sequences the memory holds")
    p.add_argument("--past-knee-ms", type=float, default=b.past_knee_ms, help="batching: added per sequence past it")
    p.add_argument(
        "--prefill-ms-per-1k", type=float, default=b.prefill_ms_per_1k, help="batching: per 1000 prompt tokens"
    )
    p.add_argument(
        "--replies", default=None, metavar="FILE",
        help='JSONL of scripted replies: {"match": "substring", "reply": "..."} or {"reply": "..."} (in order)',
    )  # fmt: skip
    return p


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    config = SimConfig(
        parallel=args.parallel,
        max_queue=args.max_queue,
        service_ms=args.service_ms,
        probe_ms=args.probe_ms,
        load_ms=args.load_ms,
        keep_alive_s=args.keep_alive_s,
        model=args.model,
        tokens_per_reply=args.tokens_per_reply,
        accept_any_model=not args.strict_models,
        batching=BatchingConfig(
            step_ms=args.step_ms,
            per_seq_ms=args.per_seq_ms,
            knee_seqs=args.knee_seqs,
            past_knee_ms=args.past_knee_ms,
            prefill_ms_per_1k=args.prefill_ms_per_1k,
            max_seqs=args.parallel,
        )
        if args.batching
        else None,
    )
    try:
        config.validate()
        replies = read_script(args.replies) if args.replies else None
    except ValueError as exc:  # ScriptError included
        build_parser().error(str(exc))
    serve_sim(config, host=args.host, port=args.port, replies=replies)


if __name__ == "__main__":
    main()
