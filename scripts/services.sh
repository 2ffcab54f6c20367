#!/usr/bin/env bash
# Start the local PostgreSQL and Redis that the tests use, if they are down. Prints what it did.
set -uo pipefail

if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  echo "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
  for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 0.5; done
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
  for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 0.5; done
fi
pg_isready -h 127.0.0.1 -p 5432 -q && echo "PostgreSQL ready" || echo "PostgreSQL NOT ready"
redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && echo "Redis ready" || echo "Redis NOT ready"
