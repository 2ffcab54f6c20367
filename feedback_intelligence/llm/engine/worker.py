"""An engine child's entry point: ``python -m feedback_intelligence.llm.engine.worker --model PATH …``.

Loads the GGUF, answers one one-token completion (so a build or a file that crashes llama.cpp crashes
here, in the child, before the service counts on it), says ``ready``, then serves one call at a time.
It never outlives the service: the kernel kills it when its parent dies (Linux), and a closed stdin
(the parent gone or stopping) ends it on every platform.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import queue
import signal
import sys
import threading
import time
from pathlib import Path
from typing import BinaryIO

from pydantic import ValidationError

from feedback_intelligence.llm.engine.llama_engine import LlamaEngine, system_info
from feedback_intelligence.llm.engine.protocol import (
    REQUESTS,
    Cancel,
    Complete,
    Done,
    Failed,
    Fatal,
    Message,
    Ready,
    Started,
    encode,
)

_PR_SET_PDEATHSIG = 1


class _Channel:
    """The protocol's write end; one writer at a time (the serving loop and the reader both reply)."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def send(self, message: Message) -> None:
        with self._lock:
            self._stream.write(encode(message))
            self._stream.flush()


def _die_with_parent(parent_pid: int) -> None:
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before the request above took effect
        os._exit(0)


def _read_requests(calls: queue.Queue[Complete], cancelled: set[int], lock: threading.Lock) -> None:
    for line in sys.stdin.buffer:
        try:
            request = REQUESTS.validate_json(line)
        except ValidationError as exc:
            print(f"engine worker: ignoring a malformed request: {exc}", file=sys.stderr, flush=True)
            continue
        if isinstance(request, Cancel):
            with lock:
                cancelled.add(request.id)
        else:
            calls.put(request)
    os._exit(0)  # stdin closed: the service is gone or stopping us


def serve(engine: LlamaEngine, channel: _Channel) -> None:
    calls: queue.Queue[Complete] = queue.Queue()
    cancelled: set[int] = set()
    lock = threading.Lock()
    threading.Thread(target=_read_requests, args=(calls, cancelled, lock), daemon=True).start()
    while True:
        call = calls.get()

        def stop_wanted(call_id: int = call.id) -> bool:
            with lock:
                return call_id in cancelled

        def first_token(count: int, call_id: int = call.id) -> None:
            if count == 1:
                channel.send(Started(id=call_id))

        try:
            made = engine.generate(
                call.messages,
                max_tokens=call.max_tokens,
                temperature=call.temperature,
                json_schema=call.json_schema,
                cancelled=stop_wanted,
                on_token=first_token,
            )
        except Exception as exc:  # a Python-level failure of one call; the engine still serves
            channel.send(Failed(id=call.id, message=f"{type(exc).__name__}: {exc}"))
        else:
            channel.send(
                Done(id=call.id, text=made.text, completion_tokens=made.completion_tokens, cancelled=made.cancelled)
            )
        with lock:
            cancelled.discard(call.id)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="feedback-intelligence-engine")
    parser.add_argument("--model", required=True, type=Path)
    parser.add_argument("--context-tokens", type=int, default=2048)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--parent-pid", type=int, default=os.getppid())
    args = parser.parse_args(argv)

    # The protocol keeps the original stdout; fd 1 becomes stderr, for whatever native code prints.
    channel = _Channel(os.fdopen(os.dup(1), "wb"))
    os.dup2(2, 1)
    _die_with_parent(args.parent_pid)

    started = time.perf_counter()
    try:
        engine = LlamaEngine(args.model, context_tokens=args.context_tokens, threads=args.threads)
        engine.generate(
            [{"role": "user", "content": "ping"}],
            max_tokens=1,
            temperature=0.0,
            json_schema=None,
            cancelled=lambda: False,
        )
    except Exception as exc:
        channel.send(Fatal(message=f"{type(exc).__name__}: {exc}"))
        return 3
    channel.send(Ready(pid=os.getpid(), system_info=system_info(), load_seconds=time.perf_counter() - started))
    serve(engine, channel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
