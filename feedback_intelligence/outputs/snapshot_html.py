"""The snapshot as one self-contained HTML page: no script, no external resource, every value escaped.

Rendered from the typed :class:`Report` through a Jinja2 template with autoescape and strict
undefined names, so a renamed field is an error at render time, never a blank in the page."""

from __future__ import annotations

from dataclasses import dataclass

import jinja2

from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.ticks import from_ticks, parse_instant
from feedback_intelligence.report.model import Report


@dataclass(frozen=True, slots=True)
class _Labels:
    lang: str
    page_title: str
    heading: str
    badge: str
    summary: str  # {count} {alerts}
    window: str  # {start} {end} {count} {generated}
    without_structure: str  # {count}
    truncated: str  # {count}
    alerts: str  # {count}
    no_alerts: str
    keyword: str
    model: str
    themes: str  # {count}
    no_themes: str
    items: str  # {count}
    trend: str
    automated: str
    flagged: str  # {count}
    sources: str  # {count}
    review: str
    moderation: str  # {count}
    overall: str


_FI = _Labels(
    lang="fi",
    page_title="Palautekatsaus, tallennettu — Feedback Intelligence",
    heading="Asiakaspalautteen tilanne",
    badge="Tallennettu katsaus",
    summary="{count} palautetta, {alerts} hälytystä",
    window="Aikaväli {start} – {end} · {count} palautetta · koottu {generated}",
    without_structure="{count} ilman jäsennystä",
    truncated="Katsaus luki aikaväliltä vain uusimmat {count} palautetta.",
    alerts="Hälytykset ({count})",
    no_alerts="Aikavälillä ei ole hälytyksiä.",
    keyword="sanahaku",
    model="kielimalli",
    themes="Aiheet ja suunnat ({count})",
    no_themes="Aikavälillä ei ole jäsenneltyä palautetta.",
    items="{count} palautetta",
    trend="suunta",
    automated="automaattinen kooste",
    flagged="⚠ {count} tarkistettavana (mahdollista manipulointia — silti mukana luvuissa)",
    sources="Palautteet ({count})",
    review="⚠ tarkistettava",
    moderation="Moderoitavaa sisältöä ({count})",
    overall="Yhteenveto",
)

_EN = _Labels(
    lang="en",
    page_title="Feedback overview, saved — Feedback Intelligence",
    heading="Customer feedback overview",
    badge="Saved overview",
    summary="{count} feedback item(s), {alerts} alert(s)",
    window="Window {start} – {end} · {count} item(s) · compiled {generated}",
    without_structure="{count} without structure",
    truncated="The overview read only the newest {count} items of the window.",
    alerts="Alerts ({count})",
    no_alerts="No alerts in this window.",
    keyword="keyword",
    model="language model",
    themes="Themes and trends ({count})",
    no_themes="No structured feedback in this window.",
    items="{count} item(s)",
    trend="trend",
    automated="automated summary",
    flagged="⚠ {count} to review (possible manipulation — still counted)",
    sources="Feedback ({count})",
    review="⚠ review",
    moderation="Content to moderate ({count})",
    overall="Summary",
)

_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;background:#f5f6f8;color:#1d2330}
main{max-width:960px;margin:0 auto;padding:24px 16px 48px}
h1{margin:0 0 4px;font-size:1.6rem}h2{margin:28px 0 10px;font-size:1.2rem}
.badge{display:inline-block;background:#5b6473;color:#fff;border-radius:10px;padding:2px 10px;font-size:.8rem}
.meta{color:#5b6473;font-size:.9rem;margin:6px 0}
.card{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:12px 14px;margin:10px 0}
.card h3{margin:0 0 4px;font-size:1.05rem}
.alert{border-left:4px solid #b3261e}
.origin{color:#5b6473;font-size:.85rem}
.pill{display:inline-block;border-radius:10px;padding:1px 8px;margin:2px 4px 2px 0;font-size:.8rem;
color:#fff;background:#9aa4af}
.snt-positive{background:#1e7e34}.snt-negative{background:#b3261e}.snt-neutral{background:#9aa4af}
.flag{color:#8a4b00;font-size:.9rem}
.source{border-top:1px solid #eef0f3;padding:6px 0;font-size:.9rem}
.source .text{white-space:pre-wrap;overflow-wrap:anywhere}
summary{cursor:pointer;color:#2d5fa0}
"""


def _labels(language: str) -> _Labels:
    return _FI if (language or "").lower() == "fi" else _EN


def _when(timestamp: str | None) -> str:
    ticks = parse_instant(timestamp) if timestamp else None
    if ticks is None:
        return timestamp or ""
    return from_ticks(ticks).strftime("%Y-%m-%d %H:%M") + " UTC"


def _environment(domain: Domain) -> jinja2.Environment:
    def sentiment_order(counts: dict[str, int]) -> list[str]:
        """The domain's sentiments in its order, then any other key; zero counts left out."""
        keys = [k for k in domain.sentiments if counts.get(k)] + [k for k in counts if k not in domain.sentiments]
        return [k for k in keys if counts.get(k)]

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("feedback_intelligence.outputs", "templates"),
        autoescape=True,  # every value is text from customers or the model: escaped, never markup
        undefined=jinja2.StrictUndefined,  # a renamed field fails the render instead of rendering blank
        keep_trailing_newline=True,
    )
    env.filters["when"] = _when
    env.filters["sentiment_order"] = sentiment_order
    return env


def render_snapshot_html(report: Report, domain: Domain) -> str:
    """The typed report as the snapshot page (``templates/snapshot.html.j2``)."""
    template = _environment(domain).get_template("snapshot.html.j2")
    labels = _labels(report.language or domain.language)
    return template.render(report=report, domain=domain, labels=labels, css=_CSS)
