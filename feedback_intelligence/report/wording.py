"""Every sentence the report writes itself, in the domain's language (fi or en; others read en).

The automatic summary is written to read as a person would put it: how many, what about, which
way it is going — one sentence each, no excuse for the missing model prose (the card says where
its text came from).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from feedback_intelligence.report.trends import DECLINING, GROWING, STABLE, WORSENING


def _count_fi(n: int) -> str:
    return "Aikavälillä tuli yksi palaute." if n == 1 else f"Aikavälillä tuli {n} palautetta."


def _count_en(n: int) -> str:
    return (
        "One piece of feedback came in during this period."
        if n == 1
        else (f"{n} pieces of feedback came in during this period.")
    )


def _join(words: Sequence[str], conjunction: str) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + f" {conjunction} " + words[-1]


def _themes_fi(themes: Sequence[str]) -> str:
    if not themes:
        return ""
    if len(themes) == 1:
        return f"Eniten puhuttiin aiheesta {themes[0]}."
    return f"Eniten puhuttiin aiheista {_join(themes, 'ja')}."


def _themes_en(themes: Sequence[str]) -> str:
    if not themes:
        return ""
    if len(themes) == 1:
        return f"Most of it was about {themes[0]}."
    return f"Most of it was about {_join(themes, 'and')}."


@dataclass(frozen=True, slots=True)
class Wording:
    count_sentence: Callable[[int], str]
    themes_sentence: Callable[[Sequence[str]], str]
    trend_sentences: dict[str, str]  # direction -> sentence; a direction not listed says nothing
    too_few_for_trend: str
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
    alert_labels: dict[str, str] = field(default_factory=dict)

    def automatic_summary(self, count: int, themes: Sequence[str], direction: str, *, trend_known: bool = True) -> str:
        """Counts, the leading themes in words, the trend in a sentence (or that there is too little to tell)."""
        trend = self.trend_sentences.get(direction, "") if trend_known else self.too_few_for_trend
        sentences = [self.count_sentence(count), self.themes_sentence(themes), trend]
        return " ".join(s for s in sentences if s)

    def alert_label(self, category: str) -> str:
        return self.alert_labels.get(category, category.replace("_", " "))


FINNISH = Wording(
    count_sentence=_count_fi,
    themes_sentence=_themes_fi,
    trend_sentences={
        STABLE: "Määrä on pysynyt suunnilleen samana koko aikavälin.",
        GROWING: "Palautetta on tullut aikavälin loppupuolella selvästi enemmän kuin alussa.",
        DECLINING: "Palautetta on tullut aikavälin loppupuolella selvästi vähemmän kuin alussa.",
        WORSENING: "Palautteet ovat muuttuneet aikavälin loppua kohden vakavammiksi.",
    },
    too_few_for_trend="Suuntaa ei voi vielä arvioida näin pienestä määrästä.",
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
    count_sentence=_count_en,
    themes_sentence=_themes_en,
    trend_sentences={
        STABLE: "The volume stayed about the same through the period.",
        GROWING: "Clearly more of it came in during the second half of the period than in the first.",
        DECLINING: "Clearly less of it came in during the second half of the period than in the first.",
        WORSENING: "It grew more severe towards the end of the period.",
    },
    too_few_for_trend="There is too little of it yet to tell a trend.",
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
