#!/usr/bin/env bash
# Install Debian packages: scripts/apt-install.sh PACKAGE...  (as root, or through sudo)
# Another apt (an unattended upgrade, a second bootstrap) may hold the package locks: wait for them, up to
# APT_LOCK_WAIT_S (default 300 s), rather than fail. apt's own DPkg::Lock::Timeout waits for dpkg's lock;
# `apt-get update` ignores it for the lists lock, so that one is retried here.
set -euo pipefail
lock_wait="${APT_LOCK_WAIT_S:-300}"
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

deadline=$((SECONDS + lock_wait))
until out="$(as_root apt-get -o DPkg::Lock::Timeout="$lock_wait" update -qq 2>&1)"; do
  if ! grep -q "Could not get lock" <<<"$out" || [ "$SECONDS" -ge "$deadline" ]; then
    printf '%s\n' "$out" >&2
    echo "apt-install: apt-get update failed (the package lock is waited for up to ${lock_wait} s; APT_LOCK_WAIT_S sets it)" >&2
    exit 1
  fi
  echo "apt-install: another apt holds the package lists; waiting" >&2
  sleep 2
done
as_root env DEBIAN_FRONTEND=noninteractive \
  apt-get -o DPkg::Lock::Timeout="$lock_wait" install -y -qq "$@" >/dev/null
