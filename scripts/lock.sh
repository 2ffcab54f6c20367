#!/usr/bin/env bash
# Re-lock every dependency, with hashes, from pyproject.toml (docs/operations.md, "Upgrading dependencies").
#   scripts/lock.sh            -> requirements/run.txt (the service) and requirements/test.txt (+ the test tools)
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
echo "locked: $(grep -c '==' requirements/run.txt) packages to run, $(grep -c '==' requirements/test.txt) to test"
