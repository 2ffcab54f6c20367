"""Scorecards as Rich tables for the terminal and as a markdown table for ``docs/benchmarks.md``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Group
from rich.table import Table

from feedback_intelligence.evaluation.dataset import SCORED_FIELDS


def fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:,.0f} ms"


def field_table(card: Mapping[str, Any], title: str) -> Table:
    table = Table("field", "final", "model alone", "prior alone", "majority", title=title)
    for field in SCORED_FIELDS:
        f = card["fields"][field]
        table.add_row(
            field,
            fmt(f["final"]),
            fmt(f["modelAlone"]),
            fmt(f["prior"]),
            f"{fmt(f['majority'])} ({f['majorityLabel']})",
        )
    return table


def alert_table(card: Mapping[str, Any]) -> Table:
    table = Table("alert category", "recall", "precision", "tp", "fp", "fn", title="Alerts (from the response)")
    for category, s in card["alerts"]["byCategory"].items():
        table.add_row(category, fmt(s["recall"]), fmt(s["precision"]), str(s["tp"]), str(s["fp"]), str(s["fn"]))
    p = card["alerts"]["watchedPooled"]
    table.add_row(
        "[bold]pooled: " + ", ".join(card["alerts"]["watched"]) + "[/bold]",
        fmt(p["recall"]),
        fmt(p["precision"]),
        str(p["tp"]),
        str(p["fp"]),
        str(p["fn"]),
    )
    return table


def health_table(card: Mapping[str, Any]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    lat = card["latencyMs"]
    table.add_row("items", str(card["n"]))
    table.add_row("failed / salvaged / errors", f"{card['failed']} / {card['salvaged']} / {card['errors']}")
    table.add_row("retries after 503/429", str(card["retries"]))
    table.add_row("latency", f"p50 {_ms(lat['p50'])} · p90 {_ms(lat['p90'])}")
    guards = "; ".join(
        f"{field}: " + ", ".join(f"{reason} {n}" for reason, n in reasons.items())
        for field, reasons in card["guards"].items()
    )
    table.add_row("guard rejections", f"{card['guardedItems']} item(s) · {guards or 'none'}")
    invariants = ", ".join(f"{k} {v}" for k, v in card["invariants"].items())
    table.add_row("invariants", invariants)
    confused = ", ".join(f"{c['gold']}→{c['predicted']} ×{c['count']}" for c in card["categoryConfusions"][:6])
    table.add_row("top category confusions", confused or "none")
    if "keywordRules" in card:
        rules = ", ".join(
            f"{c} {fmt(s['precision'])} ({s['correct']}/{s['fired']})" for c, s in card["keywordRules"].items()
        )
        table.add_row("keyword rule precision", rules or "no rule fired")
    return table


def render(result: Mapping[str, Any]) -> Group:
    parts: list[Any] = []
    for split, card in result["splits"].items():
        title = f"{result['domain']} · {split} ({card['n']} items) · {result.get('target', '')}"
        parts += [field_table(card, title), alert_table(card), health_table(card)]
    return Group(*parts)


def markdown(result: Mapping[str, Any]) -> str:
    """One table: per field and split, final / model alone / prior alone / majority; then alerts."""
    lines = [
        "| split | field | final | model alone | prior alone | majority |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for split, card in result["splits"].items():
        for field in SCORED_FIELDS:
            f = card["fields"][field]
            lines.append(
                f"| {split} ({card['n']}) | {field} | {fmt(f['final'])} | {fmt(f['modelAlone'])} | "
                f"{fmt(f['prior'])} | {fmt(f['majority'])} ({f['majorityLabel']}) |"
            )
    lines += [
        "",
        "| split | alerts pooled over | recall | precision | failed | salvaged | p50 | p90 |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for split, card in result["splits"].items():
        p, lat = card["alerts"]["watchedPooled"], card["latencyMs"]
        lines.append(
            f"| {split} | {', '.join(card['alerts']['watched'])} | {fmt(p['recall'])} | "
            f"{fmt(p['precision'])} | {card['failed']} | {card['salvaged']} | {_ms(lat['p50'])} | "
            f"{_ms(lat['p90'])} |"
        )
    return "\n".join(lines) + "\n"


def _alert_rows(card: Mapping[str, Any]) -> list[tuple[str, str, str, str, str, str]]:
    rows = [
        (category, fmt(s["recall"]), fmt(s["precision"]), str(s["tp"]), str(s["fp"]), str(s["fn"]))
        for category, s in card["alerts"]["byCategory"].items()
    ]
    p = card["alerts"]["watchedPooled"]
    rows.append(("pooled (watched)", fmt(p["recall"]), fmt(p["precision"]), str(p["tp"]), str(p["fp"]), str(p["fn"])))
    return rows


def render_deterministic(result: Mapping[str, Any]) -> Group:
    """The no-model figures: alerts per category and pooled, the prior per field, per split."""
    parts: list[Any] = []
    for split, card in result["splits"].items():
        title = f"{result['domain']} · {split} ({card['n']} items) · alerts and prior, no model"
        alerts = Table("alert category", "recall", "precision", "tp", "fp", "fn", title=title)
        for row in _alert_rows(card):
            alerts.add_row(*row)
        prior = Table("field", "prior alone", "majority")
        for field in SCORED_FIELDS:
            f = card["fields"][field]
            prior.add_row(field, fmt(f["prior"]), f"{fmt(f['majority'])} ({f['majorityLabel']})")
        prior.add_row("themes the guard refuses", str(card["priorThemesRejected"]), "")
        prior.add_row("sentiment against its type", str(card.get("sentimentContradictsType", "–")), "")
        themes = card["priorThemes"]
        prior.add_row("themes naming a gold topic", fmt(themes["namesTopic"]), "")
        prior.add_row(f"Finnish themes in base form ({themes['finnish']})", fmt(themes["baseForm"]), "")
        for language, figure in (themes.get("baseFormByLanguage") or {}).items():
            if language != "fi":
                prior.add_row(f"{language} themes' head in base form ({figure['n']})", fmt(figure["share"]), "")
        parts += [alerts, prior, sentiment_table(card), issue_table(card)]
    return Group(*parts)


def issue_table(card: Mapping[str, Any]) -> Table:
    table = Table("items", "prior alone", "with gold type and category", "majority", "other (prior)", "other (gold)")
    table.title = "Issue rule"
    f = card.get("issue") or {}
    if f.get("n"):
        table.add_row(
            str(f["n"]),
            fmt(f["prior"]),
            fmt(f["goldLabels"]),
            f"{fmt(f['majority'])} ({f['majorityLabel']})",
            fmt(f["otherShare"]),
            fmt(f["goldOtherShare"]),
        )
    return table


def sentiment_table(card: Mapping[str, Any]) -> Table:
    table = Table("language", "n", "type rule", "text reading", "majority", "kept", title="Sentiment rules")
    for language, f in card.get("sentiment", {}).items():
        table.add_row(
            language,
            str(f["n"]),
            fmt(f["typeRule"]),
            fmt(f["textReading"]),
            f"{fmt(f['majority'])} ({f['majorityLabel']})",
            f["kept"],
        )
    return table


def markdown_deterministic(result: Mapping[str, Any]) -> str:
    """One row per split: pooled alert recall/precision, then the prior's accuracy per field."""
    head = " | ".join(SCORED_FIELDS)
    lines = [
        f"| split | alert recall (pooled) | alert precision | {head} |",
        "|---|---:|---:|" + "---:|" * len(SCORED_FIELDS),
    ]
    for split, card in result["splits"].items():
        p = card["alerts"]["watchedPooled"]
        figures = " | ".join(fmt(card["fields"][field]["prior"]) for field in SCORED_FIELDS)
        lines.append(f"| {split} ({card['n']}) | {fmt(p['recall'])} | {fmt(p['precision'])} | {figures} |")
    lines += [
        "",
        "| split | alert category | recall | precision | tp | fp | fn |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for split, card in result["splits"].items():
        lines += [f"| {split} | " + " | ".join(row) + " |" for row in _alert_rows(card)]
    lines += [
        "",
        "| split | language | n | sentiment: type rule | text reading | majority | kept |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for split, card in result["splits"].items():
        for language, f in card.get("sentiment", {}).items():
            lines.append(
                f"| {split} | {language} | {f['n']} | {fmt(f['typeRule'])} | {fmt(f['textReading'])} | "
                f"{fmt(f['majority'])} ({f['majorityLabel']}) | {f['kept']} |"
            )
    lines += [
        "",
        "| split | issue: items | prior alone | gold type and category | majority | other (prior) | other (gold) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for split, card in result["splits"].items():
        f = card.get("issue") or {}
        if f.get("n"):
            lines.append(
                f"| {split} | {f['n']} | {fmt(f['prior'])} | {fmt(f['goldLabels'])} | "
                f"{fmt(f['majority'])} ({f['majorityLabel']}) | {fmt(f['otherShare'])} | {fmt(f['goldOtherShare'])} |"
            )
    return "\n".join(lines) + "\n"
