"""Every reason a guard can give has a plain sentence for the clerk in both page languages (``prior_field``
is a domain policy the desk does not note)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from feedback_intelligence.deterministic import category_override
from feedback_intelligence.structuring.guards import fields, language, theme

I18N = Path(__file__).resolve().parents[2] / "feedback_intelligence" / "web" / "static" / "js" / "i18n.js"
REASONS = sorted(
    {
        *theme.THEME_REASONS,
        language.NOT_ISO,
        language.CONTRADICTS_TEXT,
        language.UNEXPECTED,
        fields.CONTRADICTS_CUES,
        fields.BELOW_ALERT,
        fields.CONTRADICTS_TYPE,
        fields.MISSING,
        category_override.ALERT_REASON,
        category_override.VULGARITY_REASON,
        category_override.KEYWORD_REASON,
    }
)


def bundles() -> dict[str, str]:
    source = I18N.read_text(encoding="utf-8")
    en_start, fi_start = source.index("const en = {"), source.index("const fi = {")
    end = source.index("const BUNDLES")
    return {"en": source[en_start:fi_start], "fi": source[fi_start:end]}


@pytest.mark.parametrize("lang", ["en", "fi"])
def test_each_guard_reason_reads_as_a_sentence_in(lang: str) -> None:
    bundle = bundles()[lang]
    missing = [r for r in REASONS if f'"guard.reason.{r}":' not in bundle]
    assert not missing, f"{lang}: no clerk-facing text for guard reasons {missing}"
    for reason in REASONS:
        text = re.search(rf'"guard\.reason\.{reason}": "([^"]+)"', bundle)
        assert text and len(text.group(1).split()) >= 3, f"{lang}: {reason} has no sentence"
