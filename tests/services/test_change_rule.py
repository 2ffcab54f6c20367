"""The one rule of who may correct or erase an entry (services/change_rule.py), as a table:
role × own or a colleague's × within or after the window × the entry's store or another."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from feedback_intelligence.auth.principal import Grant, Principal
from feedback_intelligence.instants.timestamps import normalize_timestamp
from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.services.change_rule import NOT_YOURS, ROLE_OR_STORE, WINDOW_PASSED, Actor, verdict

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
WINDOW_S = 15 * 60
ME, COLLEAGUE = "a" * 32, "b" * 32
OK = None  # allowed


def _person(role: str, store: str) -> Actor:
    principal = Principal(ME, "me", "Me", (Grant(role, store),), "session")
    return Actor("account", ME, "Me", principal, author=principal.author)


def _item(author: str, store: str | None, age_s: int) -> StoredFeedback:
    created = normalize_timestamp((NOW - timedelta(seconds=age_s)).isoformat())
    return StoredFeedback("e-1", "desk", "teksti", created, created, None, store=store, author=f"account:{author}")


# role, grant's store, whose entry, its age, the entry's store → None (allowed) or the 403 code
TABLE = [
    ("clerk", "s1", ME, 60, "s1", OK),
    ("clerk", "s1", ME, WINDOW_S + 1, "s1", WINDOW_PASSED),
    ("clerk", "s1", COLLEAGUE, 60, "s1", NOT_YOURS),
    ("clerk", "s1", COLLEAGUE, WINDOW_S + 1, "s1", NOT_YOURS),
    ("clerk", "s1", ME, 60, "s2", ROLE_OR_STORE),  # their own, but moved to a store they do not work in
    ("clerk", "s1", COLLEAGUE, 60, "s2", ROLE_OR_STORE),
    ("clerk", "*", ME, 60, "s2", OK),
    ("clerk", "s1", ME, 60, None, ROLE_OR_STORE),  # an entry without a store is the chain's (ADR 0041)
    ("clerk", "*", ME, 60, None, OK),
    ("clerk", "*", COLLEAGUE, 60, None, NOT_YOURS),
    ("manager", "s1", ME, 60, "s1", OK),
    ("manager", "s1", COLLEAGUE, WINDOW_S + 1, "s1", OK),
    ("manager", "s1", COLLEAGUE, 60, "s2", ROLE_OR_STORE),
    ("manager", "s1", ME, WINDOW_S + 1, "s2", ROLE_OR_STORE),
    ("manager", "*", COLLEAGUE, WINDOW_S + 1, "s2", OK),
    ("manager", "s1", COLLEAGUE, WINDOW_S + 1, None, ROLE_OR_STORE),  # the chain's, not a store manager's
    ("manager", "*", COLLEAGUE, WINDOW_S + 1, None, OK),
    ("operator", "*", COLLEAGUE, WINDOW_S + 1, "s2", OK),
    ("operator", "*", COLLEAGUE, WINDOW_S + 1, None, OK),
]


@pytest.mark.parametrize(("role", "grant", "whose", "age_s", "store", "expected"), TABLE)
def test_who_may_change_an_entry(role: str, grant: str, whose: str, age_s: int, store: str, expected: str) -> None:
    found = verdict(_person(role, grant), _item(whose, store, age_s), auth_enabled=True, window_s=WINDOW_S, now=NOW)
    assert (found.allowed, found.code) == (expected is None, expected)


def test_a_clerks_permission_says_when_it_lapses_and_a_managers_does_not() -> None:
    item = _item(ME, "s1", 60)
    clerk = verdict(_person("clerk", "s1"), item, auth_enabled=True, window_s=WINDOW_S, now=NOW)
    assert clerk.until == normalize_timestamp((NOW - timedelta(seconds=60) + timedelta(seconds=WINDOW_S)).isoformat())
    manager = verdict(_person("manager", "s1"), item, auth_enabled=True, window_s=WINDOW_S, now=NOW)
    assert manager.allowed and manager.until is None


def test_the_loopback_or_token_operator_changes_anything_at_any_time() -> None:
    operator = Actor("operator", None, None, None, operator=True)
    assert verdict(operator, _item(COLLEAGUE, "s2", 10**6), auth_enabled=True, window_s=0, now=NOW).allowed


@pytest.mark.parametrize(
    ("author", "age_s", "expected"),
    [
        ("visitor:1111111111111111", 60, OK),  # this browser's own
        ("visitor:1111111111111111", WINDOW_S + 1, WINDOW_PASSED),
        ("visitor:2222222222222222", 60, NOT_YOURS),  # another browser's
        (None, 60, OK),  # saved before 0009 or by a program: the window alone
        (None, WINDOW_S + 1, WINDOW_PASSED),
    ],
)
def test_without_accounts_own_is_the_browsers_visitor_key(author: str | None, age_s: int, expected: str) -> None:
    created = normalize_timestamp((NOW - timedelta(seconds=age_s)).isoformat())
    item = StoredFeedback("e-1", "desk", "teksti", created, created, None, author=author)
    me = Actor("visitor", "1111111111111111", None, author="visitor:1111111111111111")
    found = verdict(me, item, auth_enabled=False, window_s=WINDOW_S, now=NOW)
    assert (found.allowed, found.code) == (expected is None, expected)


def test_without_accounts_or_a_visitor_key_nobody_claims_an_authored_entry() -> None:
    item = _item(ME, None, 60)
    assert verdict(Actor("visitor", None, None), item, auth_enabled=False, window_s=WINDOW_S, now=NOW).code == NOT_YOURS
