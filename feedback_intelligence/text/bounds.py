"""Bounds on every free-text field that is stored: one place, used by the wire models (client
text) and the structure parser (model text), so a value too long or shaped wrong is refused where
it enters instead of being stored and rendered."""

from __future__ import annotations

# A short phrase naming the topic, shown in lists and report groups. The one theme limit: the model's
# JSON schema asks for at most this, the parser refuses longer, and so do the wire models (a clerk's
# theme). 60, the length the model was always asked for, rather than the 120 the wire once allowed:
# a longer "theme" is a sentence, not a topic, and would wrap in every list.
THEME_MAX_CHARS = 60
TAXONOMY_KEY_MAX_CHARS = 64  # category, severity, type, sentiment, source: keys of the domain's lists
LANGUAGE_MAX_CHARS = 35  # the longest well-formed BCP 47 tag in practice
# A language tag or a plain language name: letters, then optional letter/digit subtags (full match).
LANGUAGE_PATTERN = r"[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*"
TIMESTAMP_MAX_CHARS = 64
NOTE_MAX_CHARS = 300  # one salvage note (it quotes at most a clipped model value)
# A correction holds one field's value: a theme, a taxonomy key or a language tag.
CORRECTION_VALUE_MAX_CHARS = max(THEME_MAX_CHARS, TAXONOMY_KEY_MAX_CHARS, LANGUAGE_MAX_CHARS)
