"""Extraction and field validation of a model's reply: every salvage shape of the contract."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from feedback_intelligence.records import Structure
from feedback_intelligence.structuring.extract import extract_json_object
from feedback_intelligence.structuring.parser import NO_OBJECT, parse_structure, validate_structure
from tests.structuring import domains

DOMAIN = domains.small()
GOOD = {
    "category": "maito_kylma",
    "theme": "pilaantunut maito",
    "severity": "medium",
    "type": "complaint",
    "language": "fi",
}
GOOD_STRUCTURE = Structure("maito_kylma", "pilaantunut maito", "medium", "complaint", "fi")


def reply(**changes: object) -> str:
    obj = {**GOOD, **changes}
    return json.dumps({k: v for k, v in obj.items() if v is not ...}, ensure_ascii=False)


# --- extraction -------------------------------------------------------------------------------------


def test_strict_object_is_strict_and_not_salvaged() -> None:
    extraction = extract_json_object("  " + reply() + "\n")
    assert extraction.obj == GOOD
    assert extraction.strict and not extraction.salvaged


def test_fenced_json_block_is_salvaged() -> None:
    extraction = extract_json_object("Tässä vastaus:\n```json\n" + reply() + "\n```\nKiitos!")
    assert extraction.obj == GOOD
    assert not extraction.strict and extraction.salvaged


def test_fence_without_language_tag_is_salvaged() -> None:
    assert extract_json_object("```\n" + reply() + "\n```").obj == GOOD


def test_think_block_is_removed_even_when_it_holds_braces() -> None:
    raw = '<think>\nMaybe {"category": "hevi"} ... no, dairy.\n</think>\n' + reply()
    extraction = extract_json_object(raw)
    assert extraction.obj == GOOD and extraction.salvaged


def test_several_think_blocks_are_removed_non_greedily() -> None:
    raw = "<think>a</think> " + reply() + " <think>{b}</think>"
    assert extract_json_object(raw).obj == GOOD


def test_prose_around_the_object_is_salvaged_from_first_to_last_brace() -> None:
    extraction = extract_json_object("Sure! " + reply(theme="{sulut} teemassa") + " Hope this helps.")
    assert extraction.obj is not None and extraction.obj["theme"] == "{sulut} teemassa"


@pytest.mark.parametrize("raw", ["", "   ", "no json here", "[1, 2]", '"just a string"', "{not json}", "} {", "NaN"])
def test_garbage_yields_no_object(raw: str) -> None:
    extraction = extract_json_object(raw)
    assert extraction.obj is None and not extraction.strict and not extraction.salvaged


def test_a_top_level_array_of_objects_is_salvaged_only_if_one_object_spans_first_to_last_brace() -> None:
    assert extract_json_object("[" + reply() + "]").obj == GOOD
    assert extract_json_object("[" + reply() + ", " + reply() + "]").obj is None


def test_nan_is_not_json() -> None:
    assert extract_json_object('{"a": NaN}').obj is None


# --- field validation -------------------------------------------------------------------------------


def test_strict_valid_reply() -> None:
    result = parse_structure(reply(), DOMAIN)
    assert result.structure == GOOD_STRUCTURE
    assert result.violations == [] and result.notes == []
    assert result.strict and not result.salvaged and not result.normalized and result.valid


def test_fenced_reply_is_valid_and_salvaged() -> None:
    result = parse_structure("```json\n" + reply() + "\n```", DOMAIN)
    assert result.structure == GOOD_STRUCTURE
    assert result.salvaged and not result.strict


def test_think_block_reply_is_valid_and_salvaged() -> None:
    result = parse_structure("<think>hmm</think>" + reply(), DOMAIN)
    assert result.structure == GOOD_STRUCTURE and result.salvaged


def test_category_as_array_keeps_the_first_element_with_a_note() -> None:
    result = parse_structure(reply(category=["maito_kylma", "hevi"]), DOMAIN)
    assert result.structure == GOOD_STRUCTURE
    assert result.notes == ['\'category\' was an array ["maito_kylma", "hevi"]; kept first element, discarded the rest']
    assert result.normalized


def test_category_array_element_is_normalized_and_checked_too() -> None:
    result = parse_structure(reply(category=[" HEVI "]), DOMAIN)
    assert result.structure is not None and result.structure.category == "hevi"
    assert "'category' normalized from ' HEVI ' to 'hevi'" in result.notes


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([3, "hevi"], "'category' must be a string, got Array: [3, \"hevi\"]"),
        ([], "'category' must be a string, got Array: []"),
        ([["hevi"]], "'category' must be a string, got Array: [[\"hevi\"]]"),
    ],
)
def test_category_array_with_invalid_first_element_is_a_violation(value: object, message: str) -> None:
    result = parse_structure(reply(category=value), DOMAIN)
    assert result.structure is None
    assert result.violations == [message]


def test_only_category_gets_the_array_salvage() -> None:
    result = parse_structure(reply(severity=["high"]), DOMAIN)
    assert result.violations == ["'severity' must be a string, got Array: [\"high\"]"]


def test_invented_enum_value_is_a_violation() -> None:
    result = parse_structure(reply(category="maitotuotteet", type="rant"), DOMAIN)
    assert result.structure is None
    assert result.violations == [
        "'category' value 'maitotuotteet' is not in the allowed set",
        "'type' value 'rant' is not in the allowed set",
    ]


def test_label_instead_of_key_is_a_violation() -> None:
    result = parse_structure(reply(category="Maito & kylmä"), DOMAIN)
    assert result.violations == ["'category' value 'Maito & kylmä' is not in the allowed set"]


def test_casing_and_whitespace_are_normalised_with_notes() -> None:
    result = parse_structure(
        reply(category=" Maito_Kylma", severity="HIGH", language=" FI ", theme=" Pilaantunut maito "), DOMAIN
    )
    assert result.structure == Structure("maito_kylma", "Pilaantunut maito", "high", "complaint", "fi")
    assert result.normalized
    assert result.notes == [
        "'category' normalized from ' Maito_Kylma' to 'maito_kylma'",
        "'severity' normalized from 'HIGH' to 'high'",
        "'theme' normalized from ' Pilaantunut maito ' to 'Pilaantunut maito'",
        "'language' normalized from ' FI ' to 'fi'",
    ]


def test_theme_keeps_its_case() -> None:
    result = parse_structure(reply(theme="Valio maito"), DOMAIN)
    assert result.structure is not None and result.structure.theme == "Valio maito"
    assert not result.normalized and result.notes == []


@pytest.mark.parametrize("missing", ["category", "theme", "severity", "type", "language"])
def test_missing_required_field_is_a_violation(missing: str) -> None:
    result = parse_structure(reply(**{missing: ...}), DOMAIN)
    assert result.structure is None
    assert result.violations == [f"missing field '{missing}'"]


def test_property_names_are_case_sensitive() -> None:
    obj = {**GOOD}
    obj["Category"] = obj.pop("category")
    result = validate_structure(obj, DOMAIN)
    assert result.violations == ["missing field 'category'"]
    assert result.notes == ["ignored extra field 'Category'"]


def test_extra_field_is_noted_and_tolerated() -> None:
    result = parse_structure(reply(confidence=0.9, alert="none"), DOMAIN)
    assert result.structure == GOOD_STRUCTURE
    assert result.notes == ["ignored extra field 'confidence'", "ignored extra field 'alert'"]
    assert not result.normalized


def test_garbage_reply_is_a_violation() -> None:
    result = parse_structure("I cannot help with that.", DOMAIN)
    assert result.structure is None
    assert result.violations == [NO_OBJECT]
    assert not result.strict and not result.salvaged


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (3, "'severity' must be a string, got Number: 3"),
        (2.5, "'severity' must be a string, got Number: 2.5"),
        (True, "'severity' must be a string, got True: true"),
        (None, "'severity' must be a string, got Null: null"),
        ({"level": "high"}, '\'severity\' must be a string, got Object: {"level": "high"}'),
    ],
)
def test_non_string_severity_is_a_violation(value: object, message: str) -> None:
    result = parse_structure(reply(severity=value), DOMAIN)
    assert result.structure is None
    assert result.violations == [message]


def test_long_non_string_values_are_truncated_in_the_message() -> None:
    result = parse_structure(reply(type=list(range(100))), DOMAIN)
    (violation,) = result.violations
    shown = violation.split("got Array: ", 1)[1]
    assert shown.endswith("…") and len(shown) == 61


@pytest.mark.parametrize("value", ["", "   ", 7, None])
def test_blank_or_non_string_text_field_is_a_violation(value: object) -> None:
    result = parse_structure(reply(theme=value), DOMAIN)
    assert result.structure is None
    assert len(result.violations) == 1
    assert result.violations[0].startswith("'theme' must be a non-empty string, got ")


def test_blank_language_names_its_kind_and_value() -> None:
    result = parse_structure(reply(language=" "), DOMAIN)
    assert result.violations == ["'language' must be a non-empty string, got String: \" \""]


# --- optional sentiment ------------------------------------------------------------------------------


def test_valid_sentiment_is_kept() -> None:
    result = parse_structure(reply(sentiment="negative"), DOMAIN)
    assert result.structure is not None and result.structure.sentiment == "negative"
    assert result.notes == []


def test_sentiment_is_normalised_with_a_note() -> None:
    result = parse_structure(reply(sentiment=" Negative"), DOMAIN)
    assert result.structure is not None and result.structure.sentiment == "negative"
    assert result.notes == ["'sentiment' normalized from ' Negative' to 'negative'"]
    assert result.normalized


def test_missing_sentiment_is_none_without_a_note() -> None:
    result = parse_structure(reply(), DOMAIN)
    assert result.structure is not None and result.structure.sentiment is None
    assert result.notes == []


def test_invalid_sentiment_is_dropped_with_a_note_never_a_violation() -> None:
    result = parse_structure(reply(sentiment="angry"), DOMAIN)
    assert result.structure is not None and result.structure.sentiment is None
    assert result.violations == []
    assert result.notes == ["optional 'sentiment' value 'angry' is not in the allowed set, ignored"]


def test_non_string_sentiment_is_dropped_with_a_note() -> None:
    result = parse_structure(reply(sentiment=1), DOMAIN)
    assert result.structure is not None and result.structure.sentiment is None
    assert result.notes == ["optional 'sentiment' was Number, ignored"]


@pytest.mark.parametrize("value", [None, "", "  "])
def test_null_or_blank_sentiment_is_none_without_a_note(value: object) -> None:
    result = parse_structure(reply(sentiment=value), DOMAIN)
    assert result.structure is not None and result.structure.sentiment is None
    assert result.notes == []


def test_violations_and_notes_are_reported_together() -> None:
    result = parse_structure(reply(category="x", severity="LOW", sentiment="meh", extra=1), DOMAIN)
    assert result.structure is None
    assert result.violations == ["'category' value 'x' is not in the allowed set"]
    assert result.notes == [
        "'severity' normalized from 'LOW' to 'low'",
        "optional 'sentiment' value 'meh' is not in the allowed set, ignored",
        "ignored extra field 'extra'",
    ]


def test_unterminated_fence_still_salvages_the_object() -> None:
    result = parse_structure("```json\n" + reply(), DOMAIN)
    assert result.structure == GOOD_STRUCTURE and result.salvaged


def test_deeply_nested_garbage_is_a_violation_not_a_crash() -> None:
    result = parse_structure("{" + '"a":' * 1 + "[" * 100_000 + "]" * 100_000 + "}", DOMAIN)
    assert result.structure is None and result.violations


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)
_FIELD_VALUES = st.one_of(_JSON, st.sampled_from(["maito_kylma", " HEVI ", "low", "Complaint", "fi", "negative"]))


@given(st.text())
def test_any_reply_text_parses_without_raising(raw: str) -> None:
    result = parse_structure(raw, DOMAIN)
    assert (result.structure is None) == bool(result.violations)


@given(st.dictionaries(st.sampled_from([*GOOD, "sentiment", "Category", "extra"]), _FIELD_VALUES))
def test_any_object_validates_without_raising_and_only_into_domain_values(obj: dict[str, object]) -> None:
    result = validate_structure(obj, DOMAIN)
    assert (result.structure is None) == bool(result.violations)
    if result.structure is not None:
        assert result.structure.category in DOMAIN.categories
        assert result.structure.severity in DOMAIN.severities
        assert result.structure.type in DOMAIN.types
        assert result.structure.sentiment is None or result.structure.sentiment in DOMAIN.sentiments
        assert result.structure.theme == result.structure.theme.strip() != ""
