"""How an engine child is restarted, and how its exits are read: pure rules, no processes.

A child that exits is restarted after a delay that doubles with each consecutive failure (a failure is
an exit, or a start that never became ready, with no answered call since the last one), up to a cap.
From ``crash_loop_after`` consecutive failures on, the engine is in a crash loop: still retried, at the
cap, and reported (``/health``, ``fi_engine_state``, the log with the likely cause) rather than spun.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RestartPolicy:
    first_delay_s: float = 0.5
    max_delay_s: float = 30.0
    crash_loop_after: int = 3

    def delay_s(self, consecutive_failures: int) -> float:
        if consecutive_failures <= 0:
            return 0.0
        return min(self.max_delay_s, self.first_delay_s * 2.0 ** (consecutive_failures - 1))

    def crash_loop(self, consecutive_failures: int) -> bool:
        return consecutive_failures >= self.crash_loop_after


def describe_exit(returncode: int | None) -> str:
    """``exited with status 3``, ``killed by SIGSEGV``: the words the log, the metric and /health use."""
    if returncode is None:
        return "did not start"
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exited with status {returncode}"


def exit_cause(returncode: int | None) -> str:
    """A short label for the restart counter: the signal's name, ``exit``, or ``start``."""
    if returncode is None:
        return "start"
    if returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"signal{-returncode}"
    return "exit"


def likely_cause(returncode: int | None, fatal: str | None, *, before_ready: bool) -> str:
    """What an operator should look at first, from how the child ended."""
    if fatal:
        return f"the engine could not start: {fatal} (is FI_LLM_MODEL a valid GGUF file?)"
    signal_number = -returncode if returncode is not None and returncode < 0 else None
    if signal_number in (signal.SIGSEGV, signal.SIGILL, signal.SIGBUS, signal.SIGFPE):
        where = "at its first completion" if before_ready else "during a call"
        return (
            f"llama.cpp crashed {where} ({describe_exit(returncode)}): most likely a build that uses CPU "
            "features this machine cannot run, or a corrupt GGUF; rebuild the portable engine with "
            "scripts/engine-wheel.sh (docs/operations/running.md, 'The embedded engine')"
        )
    if signal_number == signal.SIGKILL:
        return "the engine was killed (SIGKILL): an operator, or the kernel out of memory (see dmesg)"
    return f"the engine {describe_exit(returncode)}"
