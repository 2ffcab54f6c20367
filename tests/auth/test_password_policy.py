"""The password rule (NIST SP 800-63B): length, no composition rules, the commonest passwords refused."""

from __future__ import annotations

import pytest

from feedback_intelligence.auth.password_policy import MIN_LENGTH, RECOMMENDED_LENGTH, password_problem
from feedback_intelligence.auth.passwords import MAX_LENGTH


@pytest.mark.parametrize(
    ("password", "code"),
    [
        ("lyhyt", "password_too_short"),
        ("x" * (MAX_LENGTH + 1), "password_too_long"),
        (" " * 10, "password_blank"),  # long enough, and nothing at all
        ("\u200b" * 10, "password_blank"),  # zero-width spaces: invisible
        ("\t \u3000\u00a0    ", "password_blank"),
        ("aaaaaaaa", "password_repeated"),
        ("AaAaAaAaAa", "password_repeated"),  # the same letter whatever its case
        ("ＡＡＡＡＡＡＡＡ", "password_repeated"),
        ("password", "password_common"),
        ("Password1", "password_common"),  # the list is compared case folded
        ("Ｐａｓｓｗｏｒｄ１", "password_common"),  # and in NFKC: full-width is the same password
        ("salasana", "password_common"),  # Finnish for "password": on the list too
        ("qwertyuiop", "password_common"),
        ("iloveyou", "password_common"),
        ("  12345678  ", "password_common"),  # spaces around it change nothing
    ],
)
def test_a_refused_password_names_its_rule(password: str, code: str) -> None:
    problem = password_problem(password)
    assert problem is not None and problem.code == code


@pytest.mark.parametrize(
    "password",
    [
        "kassa-salasana-1",
        "myymala-paallikko",
        "correct horse battery staple",  # words in a row, spaces and all: no composition rules
        "hyllyt täynnä maitoa",
        "🥛🥛🍞🧀🥛🍞🧀🥛",
        "abcdefgh1",  # no capital, no symbol: fine, as NIST says
    ],
)
def test_a_long_enough_uncommon_password_is_accepted_whatever_it_is_made_of(password: str) -> None:
    assert password_problem(password) is None


def test_the_minimum_is_eight_and_fifteen_is_recommended() -> None:
    assert (MIN_LENGTH, RECOMMENDED_LENGTH) == (8, 15)
    assert password_problem("vx7-kq2") is not None and password_problem("vx7-kq2").code == "password_too_short"
    assert password_problem("vx7-kq2w") is None
    problem = password_problem("lyhyt")
    assert problem is not None and problem.params == {"min": 8, "recommended": 15}


def test_the_user_name_is_no_password() -> None:
    problem = password_problem("Kaisa-Kassinen", "kaisa-kassinen")
    assert problem is not None and problem.code == "password_is_username"
    assert password_problem("Kaisa-Kassinen", "pia") is None


def test_the_list_is_zxcvbns_not_one_typed_here() -> None:
    from zxcvbn.frequency_lists import FREQUENCY_LISTS

    listed = FREQUENCY_LISTS["passwords"]
    assert len(listed) >= 30_000
    long_enough = [word for word in listed if len(word) >= MIN_LENGTH and len(set(word)) > 1][:200]
    assert all(password_problem(word) is not None for word in long_enough)
    assert {password_problem(word).code for word in long_enough} == {"password_common"}  # type: ignore[union-attr]
