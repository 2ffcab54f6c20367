"""A broken input rule as the API reports it: an English message for API users and logs, plus a
stable code with its parameters, so that a page can say the same thing in its own language.

``Problem`` is a ``str`` (the message), so rule checks that build lists of messages keep working;
the ``400 {"errors": [...], "codes": [...]}`` body carries both, in the same order.
"""

from __future__ import annotations

from typing import Any


class Problem(str):
    code: str
    params: dict[str, str | int]

    def __new__(cls, message: str, code: str, **params: str | int) -> Problem:
        problem = super().__new__(cls, message)
        problem.code = code
        problem.params = params
        return problem

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, **self.params}


def codes_of(errors: list[str]) -> list[dict[str, Any]]:
    """The codes of a list of messages; a plain message (no code) is ``invalid``."""
    return [e.to_json() if isinstance(e, Problem) else {"code": "invalid"} for e in errors]
