"""Every sentence the report writes itself, in the domain's language (fi or en; others read en).

The automatic summary says what is specific to its theme (ADR 0028): the group's name and numbers
(items, the severe ones, negative and positive, the window's halves once there are enough to tell a
trend) in one sentence, then the leading base-form themes with their counts and one or two short
quotes in the next. The first sentence names the group and the second quotes its own items, so no
two cards carry the same sentence; nothing apologises for the missing model prose (the card says
where its text came from).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple


def _join(words: Sequence[str], conjunction: str) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + f" {conjunction} " + words[-1]


class Quote(NamedTuple):
    """A short, checked excerpt of an item and where it was heard (its store's name; None: not said)."""

    text: str
    store: str | None = None


def _quoted(quotes: Sequence[Quote], open_mark: str, close_mark: str) -> str:
    return ", ".join(f"{open_mark}{q.text}{close_mark}" + (f" ({q.store})" if q.store else "") for q in quotes)


@dataclass(frozen=True, slots=True)
class SummaryFacts:
    """What one automatic summary says, as plain values (report/deterministic_layer.py gathers them)."""

    label: str
    count: int
    severe: int  # items in the two most severe classes
    negative: int
    positive: int
    themes: Sequence[tuple[str, int]]  # leading base-form themes with their counts
    quotes: Sequence[Quote]  # short, checked excerpts of the group's own items, each with its store
    direction_word: str  # the trend in words ("kasvava"), shown beside the halves
    halves: tuple[int, int] | None  # (first, second) half counts; None while too few to tell a trend


def _summary_fi(f: SummaryFacts) -> list[str]:
    head = f"{f.label}: " + ("yksi palaute" if f.count == 1 else f"{f.count} palautetta")
    if f.severe:
        head += f", joista vakavia {f.severe}"
    if f.negative or f.positive:
        head += f"; kielteisiä {f.negative}, myönteisiä {f.positive}"
    if f.halves is not None:
        head += f"; alkupuoliskolla {f.halves[0]}, loppupuoliskolla {f.halves[1]} ({f.direction_word})"
    themes = _join([f"{t} ({n})" for t, n in f.themes], "ja")
    quotes = _quoted(f.quotes, "”", "”")
    if themes and quotes:
        return [head + ".", f"Eniten mainitaan {themes}, esimerkiksi {quotes}."]
    if quotes:
        return [head + ".", f"Esimerkiksi {quotes}."]
    return [head + (f"; eniten mainitaan {themes}." if themes else ".")]


def _summary_en(f: SummaryFacts) -> list[str]:
    head = f"{f.label}: " + ("one item" if f.count == 1 else f"{f.count} items")
    if f.severe:
        head += f", {f.severe} of them severe"
    if f.negative or f.positive:
        head += f"; {f.negative} negative, {f.positive} positive"
    if f.halves is not None:
        head += f"; {f.halves[0]} in the first half, {f.halves[1]} in the second ({f.direction_word})"
    themes = _join([f"{t} ({n})" for t, n in f.themes], "and")
    quotes = _quoted(f.quotes, "“", "”")
    if themes and quotes:
        return [head + ".", f"Most mentioned: {themes}, for example {quotes}."]
    if quotes:
        return [head + ".", f"For example {quotes}."]
    return [head + (f"; most mentioned: {themes}." if themes else ".")]


@dataclass(frozen=True, slots=True)
class Wording:
    moderation_narrative: str  # {count}
    generic_alert_reason: str
    overall_scope: str
    yes_word: str
    no_word: str
    # labels of the data block handed to the synthesis prompt
    data_count: str
    data_trend: str
    data_severities: str
    data_themes: str
    data_excerpts: str
    summary_sentences: Callable[[SummaryFacts], list[str]] = _summary_en
    series_labels: dict[str, str] = field(default_factory=lambda: {"all": "All feedback", "alert": "Alerts"})
    alert_labels: dict[str, str] = field(default_factory=dict)

    def automatic_summary(self, facts: SummaryFacts) -> str:
        """The group's numbers and trend, then its leading themes and quotes."""
        return " ".join(s for s in self.summary_sentences(facts) if s)

    def alert_label(self, category: str) -> str:
        return self.alert_labels.get(category, category.replace("_", " "))


FINNISH = Wording(
    summary_sentences=_summary_fi,
    series_labels={"all": "Kaikki palaute", "alert": "Hälytykset"},
    moderation_narrative="{count} moderointia odottavaa palautetta tällä aikavälillä.",
    generic_alert_reason="Kielimalli arvioi, että palautteessa voi olla turvallisuusriski — lue palaute kokonaan.",
    overall_scope="kaikki",
    yes_word="kyllä",
    no_word="ei",
    data_count="palautteita",
    data_trend="suunta",
    data_severities="vakavuudet",
    data_themes="aiheet",
    data_excerpts="otteita",
    alert_labels={
        "injury_safety": "loukkaantuminen tai turvallisuus",
        "food_safety": "ruokaturvallisuus",
        "payment": "maksaminen",
        "legal_threat": "oikeudellinen uhka",
        "rasismi": "rasismi",
        "data_loss": "tietojen menetys",
        "security_account": "tilin turvallisuus",
        "payment_failure": "maksu epäonnistui",
        "blocking_bug": "estävä vika",
    },
)

ENGLISH = Wording(
    summary_sentences=_summary_en,
    moderation_narrative="{count} item(s) awaiting moderation in this period.",
    generic_alert_reason="The language model judged that this item may describe a safety risk — read it in full.",
    overall_scope="all",
    yes_word="yes",
    no_word="no",
    data_count="feedback items",
    data_trend="trend",
    data_severities="severities",
    data_themes="themes",
    data_excerpts="excerpts",
    alert_labels={
        "injury_safety": "injury or safety",
        "food_safety": "food safety",
        "payment": "payment",
        "legal_threat": "legal threat",
        "rasismi": "racism",
        "data_loss": "data loss",
        "security_account": "account security",
        "payment_failure": "payment failure",
        "blocking_bug": "blocking bug",
    },
)


def wording_for(language: str | None) -> Wording:
    return FINNISH if (language or "").lower() == "fi" else ENGLISH
