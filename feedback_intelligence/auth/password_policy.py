"""What a new password must be (NIST SP 800-63B, section 3.1.1.2): long enough, not known to attackers.

- At least :data:`MIN_LENGTH` characters (8; the docs recommend :data:`RECOMMENDED_LENGTH`, 15), at most
  :data:`~feedback_intelligence.auth.passwords.MAX_LENGTH`; any characters, spaces and emoji included,
  and **no composition rules** (no "a digit and a capital"): they make passwords harder to remember,
  not to guess.
- Refused: a password of whitespace and invisible characters only, one character repeated
  (``aaaaaaaa``), the account's own user name, and any of the commonest passwords.
- The commonest passwords are the 30,000 of the ``zxcvbn`` package (its ``passwords`` frequency list,
  from leaked password sets), compared after NFKC and case-folding, so ``Ｐａｓｓｗｏｒｄ１`` is
  ``password1``. A list kept by people who follow the leaks, not one typed here.

Each refusal has a stable code (the API's 400 ``codes`` carry it, the pages translate it) and an
English message; the password itself is never part of either.
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass, field

from zxcvbn.frequency_lists import FREQUENCY_LISTS  # type: ignore[import-untyped]

from feedback_intelligence.auth.passwords import MAX_LENGTH
from feedback_intelligence.text.normalize import is_blank

MIN_LENGTH = 8
RECOMMENDED_LENGTH = 15


@dataclass(frozen=True)
class PasswordProblem:
    code: str  # password_too_short | password_too_long | password_blank | password_repeated | …
    message: str
    params: dict[str, int] = field(default_factory=dict)  # the numbers a page puts in its own words


def password_problem(password: str, username: str | None = None) -> PasswordProblem | None:
    """The first rule ``password`` breaks, or None. ``username``: the account's, which it must not be."""
    if len(password) < MIN_LENGTH:
        return PasswordProblem(
            "password_too_short",
            f"A password needs at least {MIN_LENGTH} characters ({RECOMMENDED_LENGTH} or more is better: "
            "a few words in a row are easy to remember).",
            {"min": MIN_LENGTH, "recommended": RECOMMENDED_LENGTH},
        )
    if len(password) > MAX_LENGTH:
        return PasswordProblem(
            "password_too_long", f"A password has at most {MAX_LENGTH} characters.", {"max": MAX_LENGTH}
        )
    if is_blank(password):
        return PasswordProblem("password_blank", "A password of spaces only is no password.")
    folded = _folded(password)
    if len(set(folded)) == 1:
        return PasswordProblem("password_repeated", "A password of one character repeated is guessed at once.")
    if username is not None and folded == _folded(username):
        return PasswordProblem("password_is_username", "A password must not be the user name.")
    if folded in _common_passwords():
        return PasswordProblem(
            "password_common", "This password is among the most common ones and is guessed first; choose another."
        )
    return None


def _folded(text: str) -> str:
    """The form compared with the list: compatibility characters as their plain twins, case folded."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold()).strip()


@functools.cache
def _common_passwords() -> frozenset[str]:
    """zxcvbn's list (lowercase already), read once on the first check rather than at import."""
    return frozenset(FREQUENCY_LISTS["passwords"])
