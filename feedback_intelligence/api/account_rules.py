"""The rules of an account's name, its e-mail address and a new password as the API states and reports them:
one place for the add, change and reset routes (a 400's ``codes`` name each rule for the pages to translate)."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, Field

from feedback_intelligence.api.problems import Problem
from feedback_intelligence.auth.password_policy import MIN_LENGTH, RECOMMENDED_LENGTH, password_problem
from feedback_intelligence.auth.passwords import MAX_LENGTH
from feedback_intelligence.store.accounts import fold_characters
from feedback_intelligence.text.invisible import FILLERS, is_not_text
from feedback_intelligence.text.normalize import TextRuleError

USERNAME_MAX_CHARS = 100
#: A new password is not one character repeated (the schema's half of password_repeated; the app's own
#: check also folds case and width). ``[\s\S]``: any character, line breaks included.
NOT_ONE_CHARACTER_REPEATED = r"^(?!([\s\S])\1*$)"


# One address, as a relay takes it in RCPT TO: local part, @, a dotted domain; nothing that could end a header.
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_ADDRESS = rf"[A-Za-z0-9.!#$%&'*+/=?^_`{{|}}~-]{{1,64}}@{_LABEL}(?:\.{_LABEL})+"
ADDRESS = re.compile(_ADDRESS)
EMAIL_MAX_CHARS = 254


ADDRESS_RULE = "email must be one e-mail address (name@example.fi)."


def _address(value: str) -> str:
    if not ADDRESS.fullmatch(value):
        raise TextRuleError(ADDRESS_RULE, "email_invalid")
    return value


def _address_or_blank(value: str) -> str:
    if value.strip(" \t"):
        _address(value.strip(" \t"))
    return value


#: An address (400 ``email_invalid`` otherwise); and one where spaces alone clear it.
EmailAddress = Annotated[str, AfterValidator(_address)]
EmailOrBlank = Annotated[str, AfterValidator(_address_or_blank)]


def email_field(description: str, *, blank_clears: bool = False) -> Any:
    """An e-mail address in a request body: the schema states the rule as a pattern (so a schema-valid
    address is one the routes take), the field's type (:data:`EmailAddress`, :data:`EmailOrBlank`) checks
    it with its own code."""
    # spaces and tabs by name: every regex engine that reads the schema agrees on them, not on ``\s``
    pattern = rf"^[ \t]*(?:{_ADDRESS})?[ \t]*$" if blank_clears else rf"^{_ADDRESS}$"
    return Field(None, max_length=EMAIL_MAX_CHARS, description=description, json_schema_extra={"pattern": pattern})


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
    folded = fold_characters(username)  # a space NFKC makes (U+00B4 is " \u0301") is refused, not stripped
    if not folded or len(folded) > USERNAME_MAX_CHARS or any(_refused(ch) for ch in folded):
        return [
            Problem(
                "username must be 1-100 visible characters without spaces or colons (after Unicode NFKC).",
                "username_invalid",
                field="username",
            )
        ]
    return []


def refused_in_username(ch: str) -> bool:
    """A character a user name may not hold, once folded (the OpenAPI document's pattern is made of these)."""
    folded = fold_characters(ch)
    return not folded or any(_refused(part) for part in folded)


def _refused(ch: str) -> bool:
    return ch == ":" or ch.isspace() or ch in FILLERS or is_not_text(ch)
