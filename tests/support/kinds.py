"""The kinds every backing service comes in, listed once: tests that run on each take these params.

The second of each list needs a server of the test machine and carries its marker, so `make test-fast`
(``-m "not postgres and not redis"``) runs the embedded kind alone and `make test` runs both.
"""

from __future__ import annotations

import pytest

#: The channel databases: the embedded SQLite file, or PostgreSQL (127.0.0.1:5432).
DATABASE_KINDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
#: The gate's slot pool: in this process, or shared through Redis (127.0.0.1:6379).
POOL_KINDS = ["local", pytest.param("redis", marks=pytest.mark.redis)]
