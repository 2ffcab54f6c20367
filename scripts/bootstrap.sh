#!/usr/bin/env bash
# Set up everything the project needs on a fresh machine. Idempotent; fast when already done.
#   scripts/bootstrap.sh run   -> the virtualenv with the service (embedded llama.cpp model included)
#   scripts/bootstrap.sh test  -> also the test tools, Debian's chromium and nginx, PostgreSQL and Redis up
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-run}"
PY="${PYTHON:-python3}"

lock="requirements/run.txt"
[ "$mode" = test ] && lock="requirements/test.txt"
stamp_of() { echo ".venv/.installed-$1-$(cat pyproject.toml "$2" scripts/engine-wheel.sh | sha256sum | cut -c1-16)"; }
stamp="$(stamp_of "$mode" "$lock")"
# The test lock holds the run lock: a virtualenv set up for the tests serves `make run` as it is.
if [ "$mode" = run ] && [ -f "$(stamp_of test requirements/test.txt)" ]; then
  stamp="$(stamp_of test requirements/test.txt)"
fi
if [ ! -f "$stamp" ]; then
  # A new virtualenv whenever the lock or the mode changed, so that it holds the lock and nothing else.
  rm -rf .venv
  "$PY" -m venv .venv
  # The engine first, from its portable wheel (built once, minutes; ADR 0019), so that installing the
  # lock finds llama-cpp-python satisfied and never compiles it natively.
  scripts/engine-wheel.sh .venv
  # Exactly the locked versions, each checked against its hash (scripts/lock.sh re-locks them).
  .venv/bin/pip install --quiet --require-hashes -r "$lock"
  .venv/bin/pip install --quiet --no-deps -e .
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
if [ "${#need[@]}" -gt 0 ]; then scripts/apt-install.sh "${need[@]}"; fi
if [ "$mode" = test ]; then
  scripts/services.sh
  # The OpenID Connect provider the sign-in tests start (npm oidc-provider, pinned by its lock file).
  if command -v npm >/dev/null 2>&1 && [ ! -d tests/oidc_provider/node_modules/oidc-provider ]; then
    (cd tests/oidc_provider && npm ci --no-audit --no-fund --prefer-offline >/dev/null)
  fi
fi
