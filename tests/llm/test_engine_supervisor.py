"""The engine's restart rules and how its exits are read (pure; no process)."""

from __future__ import annotations

import signal

import pytest

from feedback_intelligence.llm.engine.supervisor import RestartPolicy, describe_exit, exit_cause, likely_cause


def test_the_restart_delay_doubles_with_each_consecutive_failure_up_to_its_cap() -> None:
    policy = RestartPolicy(first_delay_s=0.5, max_delay_s=4.0, crash_loop_after=3)
    assert [policy.delay_s(n) for n in range(7)] == [0.0, 0.5, 1.0, 2.0, 4.0, 4.0, 4.0]


def test_a_crash_loop_is_named_from_the_configured_run_of_failures_on() -> None:
    policy = RestartPolicy(crash_loop_after=3)
    assert [policy.crash_loop(n) for n in range(5)] == [False, False, False, True, True]


@pytest.mark.parametrize(
    ("returncode", "described", "cause"),
    [
        (-signal.SIGSEGV, "killed by SIGSEGV", "SIGSEGV"),
        (-signal.SIGKILL, "killed by SIGKILL", "SIGKILL"),
        (3, "exited with status 3", "exit"),
        (None, "did not start", "start"),
    ],
)
def test_exits_are_told_apart_by_signal_and_status(returncode: int | None, described: str, cause: str) -> None:
    assert describe_exit(returncode) == described
    assert exit_cause(returncode) == cause


def test_a_native_crash_points_the_operator_at_the_portable_build() -> None:
    at_first = likely_cause(-signal.SIGSEGV, None, before_ready=True)
    assert "at its first completion" in at_first and "scripts/engine-wheel.sh" in at_first
    assert "during a call" in likely_cause(-signal.SIGILL, None, before_ready=False)


def test_a_kill_points_at_the_kernel_s_out_of_memory_killer_and_a_load_failure_at_the_model_file() -> None:
    assert "out of memory" in likely_cause(-signal.SIGKILL, None, before_ready=False)
    loading = likely_cause(3, "ValueError: Failed to load model from file: /x.gguf", before_ready=True)
    assert "Failed to load model" in loading and "FI_LLM_MODEL" in loading
