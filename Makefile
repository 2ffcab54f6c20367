# The two commands of the README. Everything else is a convenience.
BENCHES := gate_overhead ingest bulk_import report crowd crowd_later crowd_background crowd_gpus crowd_fair gate_redis quality language_detection chain chain_sweep engine slowloris backlog_bound chain_scale signin_burst batch_stall search_scale adaptive_limit interpret_cpu rules_cpu
.PHONY: run test test-fast lint bench $(BENCHES)

run:  ## set up and run the service on its embedded defaults (SQLite, llama.cpp, one process)
	scripts/bootstrap.sh run
	.venv/bin/feedctl serve

test:  ## set up and run the whole test suite (unit, API over real servers, browser, PostgreSQL, Redis, nginx)
	scripts/bootstrap.sh test
	.venv/bin/ruff check feedback_intelligence tests bench
	.venv/bin/ruff format --check feedback_intelligence tests bench
	.venv/bin/mypy
	.venv/bin/python -m pytest -q -rs -p no:cacheprovider

# test-fast keeps Python's bytecode (PYTHONDONTWRITEBYTECODE emptied): the edit loop then compiles and
# assertion-rewrites only the modules that changed since the last run. It spreads the tests over the
# machine's cores (pytest-xdist, -n auto), runs a fifth of the hypothesis examples (profile `fast`,
# tests/conftest.py), the edge fuzz without schemathesis' coverage phase, and Argon2id at its lowest cost;
# `make test` runs in one process, with every example, the coverage phase and the product's Argon2
# parameters. About a minute on this 2-core machine when idle, up to two when its host is busy
# (docs/benchmarks.md, "The test suites").
test-fast:  ## the unit tests: no processes (marker `process`), no minute-long outages (`slow`), no PostgreSQL or Redis, 1–2 min on 2 cores; `make test` runs all
	PYTHONDONTWRITEBYTECODE= .venv/bin/python -m pytest -q -p no:cacheprovider -n auto --hypothesis-profile=fast -m "not process and not slow and not postgres and not redis"

lint:
	.venv/bin/ruff check feedback_intelligence tests bench
	.venv/bin/ruff format --check feedback_intelligence tests bench

bench: $(BENCHES)  ## every benchmark; each prints a table, writes bench/results/<name>.json, exits 1 on a FAIL

$(BENCHES):
	.venv/bin/python -m bench.$@
