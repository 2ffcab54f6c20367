"""The ``next`` rule on the server: the shared table (tests/support/next_paths.py), then the rule's edges."""

from __future__ import annotations

import pytest

from feedback_intelligence.auth.next_path import MAX_CHARS, safe_next
from tests.support.next_paths import NEXT_PATHS, decoded


@pytest.mark.parametrize(("raw", "lands"), NEXT_PATHS)
def test_the_shared_table(raw: str, lands: str) -> None:
    assert safe_next(decoded(raw)) == lands


@pytest.mark.parametrize(
    "value",
    [
        None,
        "/\t/evil.example",
        "/\n/evil.example",
        "/\r\n/evil.example",
        "\x00//evil.example",
        "/\x0b/evil.example",
        "/\u2028/evil.example",
        "/\\\\evil.example",
        "/%5c%5cevil.example",  # lower-case hex decodes too
        "/%25252F/evil.example",  # three layers deep
        "/%2525252F/evil.example",  # four: past the bound, refused as no link anyone makes
        "/" + "a" * MAX_CHARS,
    ],
)
def test_what_a_browser_would_read_as_another_host_or_no_path_is_refused(value: str | None) -> None:
    assert safe_next(value) == "/"


@pytest.mark.parametrize(
    "value",
    ["/cases/ab12", "/desk?store=hki-1&x=%C3%A4", "/työpiste", "/.//x", "/@evil.example", "/#case=live:desk-3f.a_1"],
)
def test_an_odd_but_same_origin_path_is_kept(value: str) -> None:
    assert safe_next(value) == value
