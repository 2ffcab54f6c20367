"""Every way a person can get feedctl wrong, or find the service down, ends in one line and a
documented exit code (0 ok, 1 degraded or failed items, 2 unreachable or bad input), never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from feedback_intelligence.devtools.processes import REPO, ServerProcess, app_server, free_port

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)

UNREACHABLE = 2
BAD_INPUT = 2
DEGRADED = 1


def feedctl(
    url: str, *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "FEEDCTL_URL": url, "PYTHONPATH": str(REPO), "COLUMNS": "200", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "feedback_intelligence", *args],
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=env.get("CWD") if env else None,
    )


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    """The error output is exactly one non-blank line, without a traceback."""
    assert "Traceback" not in result.stderr + result.stdout
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.fixture(scope="module")
def nobody() -> str:
    """A loopback address where no service listens."""
    return f"http://127.0.0.1:{free_port()}"


@pytest.mark.parametrize(
    "args",
    [
        ("status",),
        ("warm", "--wait-s", "5"),
        ("interpret", "Maito oli hapanta."),
        ("report",),
        ("restructure",),
        ("verify",),
        ("crowd", "--clerks", "1", "--duration", "1"),
    ],
    ids=lambda args: args[0],
)
def test_a_service_that_is_down_is_one_line_and_exit_2(nobody: str, args: tuple[str, ...]) -> None:
    result = feedctl(nobody, *args)
    assert result.returncode == UNREACHABLE
    line = one_line_error(result)
    assert line.startswith("error: cannot reach the service at " + nobody)


def test_load_while_the_service_is_down_says_so_before_sending(nobody: str, tmp_path: Path) -> None:
    corpus = tmp_path / "ok.jsonl"
    corpus.write_text('{"source": "email", "text": "Hyvä palvelu."}\n', encoding="utf-8")
    result = feedctl(nobody, "load", str(corpus))
    assert result.returncode == UNREACHABLE
    line = one_line_error(result)
    assert line.startswith("error: cannot reach the service at " + nobody)


def test_status_watch_keeps_going_while_the_service_is_down(nobody: str) -> None:
    result = feedctl(nobody, "status", "--watch", "--interval", "0.1", "--count", "2")
    assert result.returncode == UNREACHABLE
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 2 and all("api=down" in line for line in lines), result.stdout


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"source": "email", "text": "a"}\n{"source": "email" "text": "b"}\n', ":2: not valid JSON"),
        ('\n\n["a list"]\n', ":3: expected a JSON object"),
        ('{"text": "no source"}\n', ":1: missing field source (each line needs source and text)"),
        ('{"source": "email"}\n', ":1: missing field text"),
        ('{"id": "x"}\n', ":1: missing fields source, text"),
        ('{"source": "email", "text": 42}\n', ":1: text must be a string"),
        ("\n  \n", ": no items"),
    ],
    ids=["bad-json", "not-an-object", "no-source", "no-text", "no-fields", "text-not-a-string", "empty"],
)
def test_load_checks_every_line_first_and_names_the_bad_one(
    nobody: str, tmp_path: Path, content: str, expected: str
) -> None:
    corpus = tmp_path / "items.jsonl"
    corpus.write_text(content, encoding="utf-8")
    result = feedctl(nobody, "load", str(corpus))  # the service is down: the file is judged before any request
    assert result.returncode == BAD_INPUT
    line = one_line_error(result)
    assert line.startswith(f"error: {corpus}") and expected in line, line


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("load", "/no/such.jsonl"), "error: /no/such.jsonl: no such file"),
        (("verify", "--report", "/no/such.json"), "error: /no/such.json: no such file"),
        (("verify", "--ground-truth", "/no/such.json"), "/no/such.json: cannot read"),
    ],
)
def test_a_missing_file_is_one_line_and_exit_2(nobody: str, args: tuple[str, ...], expected: str) -> None:
    result = feedctl(nobody, *args)
    assert result.returncode == BAD_INPUT
    assert expected in one_line_error(result)


def test_a_report_file_that_is_not_json_is_one_line(nobody: str, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    report.write_text("{not json", encoding="utf-8")
    result = feedctl(nobody, "verify", "--report", str(report))
    assert result.returncode == BAD_INPUT
    assert "not valid JSON" in one_line_error(result)


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("load", "--channel", "foo"), "--channel"),
        (("report", "--days", "x"), "--days"),
        (("report", "--days", "500"), "--days"),
        (("status", "--watch", "--interval", "0"), "--interval"),
        (("crowd", "--clerks", "0"), "--clerks"),
        (("serve", "--log-level", "loud"), "--log-level"),
    ],
)
def test_a_bad_flag_value_is_refused_with_its_name(nobody: str, args: tuple[str, ...], option: str) -> None:
    result = feedctl(nobody, *args)
    assert result.returncode == BAD_INPUT
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and option in errors[0], result.stderr


def test_crowd_think_times_must_be_in_order(nobody: str) -> None:
    result = feedctl(nobody, "crowd", "--think-min", "5", "--think-max", "1")
    assert result.returncode == BAD_INPUT
    assert "--think-min (5) must not exceed --think-max (1)" in one_line_error(result)


def test_flags_are_shown_as_flags_in_help(nobody: str) -> None:
    result = feedctl(nobody, "status", "--help")
    assert result.returncode == 0
    assert "--watch " in result.stdout and "<bool>" not in result.stdout
    assert "<bool>" not in feedctl(nobody, "report", "--help").stdout


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("FI_TRUSTED_PROXIES", "10.0.0.1,not-an-ip"),
        ("FI_PORT", "eighty"),
        ("FI_LLM_MODEL", "/no/such.gguf"),
        ("FI_DOMAIN", "nope"),
    ],
)
def test_serve_with_a_bad_setting_prints_one_line_and_exits_2(
    nobody: str, tmp_path: Path, variable: str, value: str
) -> None:
    env = {name: "" for name in os.environ if name.startswith("FI_")}
    env.update({variable: value, "CWD": str(tmp_path)})
    result = feedctl(nobody, "serve", env=env)
    assert result.returncode == BAD_INPUT
    assert one_line_error(result).startswith(f"invalid configuration: {variable}: ")


# ----------------------------------------------------------------------- a service whose LLM is down


@pytest.fixture(scope="module")
def llm_down(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The API answers; its Ollama does not (nothing listens at the backend URL)."""
    with app_server(
        {
            "FI_LLM_BACKEND": "ollama",
            "FI_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}",
            "FI_LLM_MODEL": "llama3.2:1b",
            "FI_HEALTH_TIMEOUT_S": "2",
        },
        data_dir=tmp_path_factory.mktemp("llm-down"),
    ) as app:
        yield app


def test_status_exits_1_when_health_is_503(llm_down: ServerProcess) -> None:
    result = feedctl(llm_down.url, "status")
    assert result.returncode == DEGRADED, result.stdout + result.stderr
    assert "503 llm_unavailable" in result.stdout
    as_json = json.loads(feedctl(llm_down.url, "status", "--json").stdout)
    assert as_json["health"]["httpStatus"] == 503


def test_warm_stops_at_once_when_the_backend_is_down(llm_down: ServerProcess) -> None:
    result = feedctl(llm_down.url, "warm", "--wait-s", "600", "--json", timeout=120)
    assert result.returncode == DEGRADED, result.stdout + result.stderr
    outcome = json.loads(result.stdout)
    assert outcome["ready"] is False and outcome["readiness"] == "down"
    # It did not sit out --wait-s: a down backend is not going to get ready by waiting.
    assert outcome["seconds"] < 600


def test_interpret_exits_1_when_the_model_cannot_answer(llm_down: ServerProcess) -> None:
    result = feedctl(llm_down.url, "interpret", "Maito oli hapanta.")
    assert result.returncode == DEGRADED
    assert "Traceback" not in result.stderr


def test_interpret_refused_text_is_bad_input(llm_down: ServerProcess) -> None:
    result = feedctl(llm_down.url, "interpret", "x" * 801)
    assert result.returncode == BAD_INPUT
    assert "800-character" in one_line_error(result)


def test_verify_without_a_snapshot_is_one_line(llm_down: ServerProcess) -> None:
    result = feedctl(llm_down.url, "verify")
    assert result.returncode == BAD_INPUT
    assert "no saved snapshot yet" in one_line_error(result)
