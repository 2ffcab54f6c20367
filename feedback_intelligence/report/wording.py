"""Every sentence the report writes itself, in the domain's language (fi or en; others read en)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Wording:
    fallback_narrative: str  # {count} {themes} {trend}
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


FINNISH = Wording(
    fallback_narrative=(
        "{count} palautetta valitulla aikavälillä. Eniten mainitut aiheet: {themes}. Kehitys: {trend}. "
        "(Koottu automaattisesti — kielimallin yhteenvetoa ei tällä kertaa saatu.)"
    ),
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
)

ENGLISH = Wording(
    fallback_narrative=(
        "{count} feedback item(s) in this period. Most mentioned: {themes}. Direction: {trend}. "
        "(Compiled automatically — no language-model summary was available this time.)"
    ),
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
)


def wording_for(language: str | None) -> Wording:
    return FINNISH if (language or "").lower() == "fi" else ENGLISH
