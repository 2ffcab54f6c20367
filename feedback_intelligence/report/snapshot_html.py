"""The snapshot as one self-contained HTML page: no script, no external resource, every value escaped."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from feedback_intelligence.domain.model import Domain
from feedback_intelligence.report.instants import from_ticks, parse_instant


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


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _when(timestamp: Any) -> str:
    ticks = parse_instant(timestamp) if isinstance(timestamp, str) else None
    if ticks is None:
        return _e(timestamp)
    return _e(from_ticks(ticks).strftime("%Y-%m-%d %H:%M") + " UTC")


def _sentiment_pills(counts: dict[str, int], domain: Domain) -> str:
    keys = [k for k in domain.sentiments if counts.get(k)] + [k for k in counts if k not in domain.sentiments]
    pills = [
        f'<span class="pill snt-{_e(k)}">{_e(domain.sentiments.get(k, k))} {_e(counts[k])}</span>'
        for k in keys
        if counts.get(k)
    ]
    return f'<div class="pills">{"".join(pills)}</div>' if pills else ""


def _alerts(report: dict[str, Any], labels: _Labels) -> str:
    alerts = report.get("alerts") or []
    parts = [f"<h2>{_e(labels.alerts.format(count=len(alerts)))}</h2>"]
    if not alerts:
        parts.append(f'<p class="meta">{_e(labels.no_alerts)}</p>')
    for alert in alerts:
        hits = alert.get("deterministicHits") or []
        if hits:
            origin = f"{labels.keyword}: " + "; ".join(_hit_text(h) for h in hits)
        else:
            origin = f"{labels.model}: {alert.get('llmReason') or ''}"
        parts.append(
            '<div class="card alert">'
            f'<div class="text">{_e(alert.get("textExcerpt"))}</div>'
            f'<div class="origin">{_e(origin)} · {_e(alert.get("source"))} · {_when(alert.get("timestamp"))}</div>'
            "</div>"
        )
    return "".join(parts)


def _sources(theme: dict[str, Any], domain: Domain, labels: _Labels) -> str:
    sources = theme.get("sources") or []
    if not sources:
        return ""
    rows = []
    for source in sources:
        bits = [_e(source.get("source")), _when(source.get("timestamp"))]
        if not theme.get("unrated"):
            severity = source.get("severity")
            bits.append(_e(domain.severities.get(severity, severity)))
        sentiment = source.get("sentiment")
        badge = (
            f' <span class="pill snt-{_e(sentiment)}">{_e(domain.sentiments.get(sentiment, sentiment))}</span>'
            if sentiment
            else ""
        )
        review = f' <span class="flag">{_e(labels.review)}</span>' if source.get("needsReview") else ""
        rows.append(
            f'<div class="source"><div class="text">{_e(source.get("text"))}</div>'
            f'<div class="origin">{" · ".join(bits)}{badge}{review}</div></div>'
        )
    return f"<details><summary>{_e(labels.sources.format(count=len(sources)))}</summary>{''.join(rows)}</details>"


def _theme_card(theme: dict[str, Any], domain: Domain, labels: _Labels) -> str:
    category = theme.get("category")
    label = domain.categories.get(category, category) if isinstance(category, str) else category
    meta = [_e(label), _e(labels.items.format(count=theme.get("count", 0)))]
    if not theme.get("unrated"):
        meta.append(f"{_e(labels.trend)}: {_e(theme.get('directionLabel'))}")
        if not theme.get("narrativeFromLlm"):
            meta.append(_e(labels.automated))
    flagged = theme.get("flaggedCount") or 0
    flag = f'<div class="flag">{_e(labels.flagged.format(count=flagged))}</div>' if flagged else ""
    return (
        '<div class="card">'
        f"<h3>{_e(theme.get('title'))}</h3>"
        f'<div class="meta">{" · ".join(meta)}</div>'
        f"{_sentiment_pills(theme.get('sentimentCounts') or {}, domain)}{flag}"
        f"<p>{_e(theme.get('narrative'))}</p>"
        f"{_sources(theme, domain, labels)}"
        "</div>"
    )


def render_snapshot_html(report: dict[str, Any], domain: Domain) -> str:
    labels = _labels(report.get("language") or domain.language)
    themes = report.get("themes") or []
    rated = [t for t in themes if not t.get("unrated")]
    unrated = [t for t in themes if t.get("unrated")]
    total = report.get("totalItems", 0)
    description = labels.summary.format(count=total, alerts=len(report.get("alerts") or []))
    window = labels.window.format(
        start=_when(report.get("windowFrom")),
        end=_when(report.get("windowTo")),
        count=_e(total),
        generated=_when(report.get("generatedAt")),
    )
    notes = []
    if report.get("structureFailedCount"):
        notes.append(_e(labels.without_structure.format(count=report["structureFailedCount"])))
    if report.get("truncated"):
        notes.append(_e(labels.truncated.format(count=total)))

    body = [
        f'<h1>{_e(labels.heading)}</h1><span class="badge">{_e(labels.badge)}</span>',
        f'<p class="meta">{window}</p>',
        *(f'<p class="meta">{note}</p>' for note in notes),
        _sentiment_pills(report.get("sentimentCounts") or {}, domain),
    ]
    overall = report.get("overall")
    if overall:
        body.append(f"<h2>{_e(labels.overall)}</h2>{_theme_card(overall, domain, labels)}")
    body.append(_alerts(report, labels))
    body.append(f"<h2>{_e(labels.themes.format(count=len(rated)))}</h2>")
    if not rated:
        body.append(f'<p class="meta">{_e(labels.no_themes)}</p>')
    body.extend(_theme_card(t, domain, labels) for t in rated)
    if unrated:
        moderated = sum(int(t.get("count") or 0) for t in unrated)
        cards = "".join(_theme_card(t, domain, labels) for t in unrated)
        body.append(f"<details><summary>{_e(labels.moderation.format(count=moderated))}</summary>{cards}</details>")

    title = _e(labels.page_title)
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{_e(labels.lang)}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        '<meta name="referrer" content="no-referrer">'
        f"<title>{title}</title>"
        f'<meta name="description" content="{_e(description)}">'
        f'<meta property="og:type" content="website"><meta property="og:title" content="{title}">'
        f'<meta property="og:description" content="{_e(description)}">'
        f'<meta name="twitter:card" content="summary"><meta name="twitter:title" content="{title}">'
        f'<meta name="twitter:description" content="{_e(description)}">'
        f"<style>{_CSS}</style></head>"
        f"<body><main>{''.join(body)}</main></body></html>\n"
    )


def _hit_text(hit: dict[str, Any]) -> str:
    """The category's label and the words the text matched; a snapshot saved before words existed shows the stem."""
    words = hit.get("words") or [hit.get("pattern", "")]
    label = hit.get("categoryLabel") or hit.get("category", "")
    return f"{label}: " + ", ".join(str(w) for w in words)
