"""The rules of an account's name and a new password as the API states and reports them: one place for
the add, change and reset routes (a 400's ``codes`` name each rule for the pages to translate)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from feedback_intelligence.api.problems import Problem
from feedback_intelligence.auth.password_policy import MIN_LENGTH, RECOMMENDED_LENGTH, password_problem
from feedback_intelligence.auth.passwords import MAX_LENGTH
from feedback_intelligence.store.accounts import fold_username
from feedback_intelligence.text.invisible import FILLERS, has_not_text

USERNAME_MAX_CHARS = 100


def password_field(what: str) -> Any:
    """A new password in a request body. The schema states the minimum; the route's own check words the
    refusal (password_problem), with a code for each rule."""
    return Field(
        min_length=1,
        max_length=MAX_LENGTH,
        description=f"{what}: at least {MIN_LENGTH} characters ({RECOMMENDED_LENGTH} or more recommended), any "
        "characters; not one of the commonest passwords, spaces only, one character repeated or the user name.",
        json_schema_extra={"minLength": MIN_LENGTH},
    )


def password_problems(password: str, username: str | None, field: str = "password") -> list[str]:
    """The new password's broken rule as the API's 400 reports it (code ``password_too_short`` …)."""
    problem = password_problem(password, username)
    return [] if problem is None else [Problem(problem.message, problem.code, field=field, **problem.params)]


def username_problems(username: str) -> list[str]:
    """A new account's name, as it will be stored and compared (fold_username: NFKC, case folded): a
    compatibility spelling becomes its plain twin, so a look-alike of a taken name is that name (409).
    Invisible characters (format, controls, fillers) are refused: ``ad\u200bmin`` would be a second admin."""
    folded = fold_username(username)
    if (
        not folded
        or len(folded) > USERNAME_MAX_CHARS
        or ":" in folded
        or any(ch.isspace() or ch in FILLERS for ch in folded)
        or has_not_text(folded)
    ):
        return [
            Problem(
                "username must be 1-100 visible characters without spaces or colons (after Unicode NFKC).",
                "username_invalid",
                field="username",
            )
        ]
    return []
