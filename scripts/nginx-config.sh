#!/usr/bin/env bash
# Rewrite the nginx sites shipped in deploy/nginx from the app's route table (feedback_intelligence/edge/surface.py),
# with the settings' defaults. tests/deploy/test_nginx_generated.py fails until they are rewritten after a route change.
# An operator writes their own with `feedctl nginx-config --upstream host:port ...` (docs/operations/nginx.md, "Behind nginx").
set -euo pipefail
cd "$(dirname "$0")/.."
env -u PYTHONPATH PYTHONPATH="$PWD" "${PYTHON:-.venv/bin/python}" -m feedback_intelligence.edge.nginx_site
