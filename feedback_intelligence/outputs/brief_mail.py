"""The brief by mail (ADR 0062): the first screen's content for one person's stores, as a plain-text mail
with a simple HTML twin, in the person's language.

It says what the page's brief says (report/brief.py builds it; this only writes it): the week's totals
against the week before, the cases to act on (each with its ``/#case=<ref>`` link), the significant rises
per store and a link to the page. It quotes **no customer text**: a case line names its alert, store, when
and who has it; the words are behind the sign-in, where the reader's grants are checked again. Every piece
of text goes through its format's function of notify/markup.py (one line; escaped in HTML); the only
markup is the links written here. An output: it writes a finished brief down, as the snapshot writes a report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from email.message import EmailMessage
from zoneinfo import ZoneInfo

from feedback_intelligence.instants.timestamps import parse_normalized
from feedback_intelligence.notify.markup import mail_header, mail_html, one_line
from feedback_intelligence.notify.message import case_url
from feedback_intelligence.report.brief import Brief

LANGUAGES = ("fi", "en")
CASES_SHOWN = 5  # the page shows three above the fold; a mail has room for a few more, then the link

_WORDS: dict[str, dict[str, str]] = {
    "fi": {
        "weekly": "Viikon katsaus",
        "daily": "Päivän katsaus",
        "hello": "Hei {name}, tässä myymälöidesi tilanne {start}–{end}.",
        "totals": "Palautteita {items} (edellinen viikko {previous}), hälytyksiä {alerts} "
        "(edellinen viikko {previous_alerts}), avoimia tapauksia {open}.",
        "act": "Toimi nyt",
        "no_cases": "Ei avoimia tapauksia.",
        "more_cases": "… ja {count} muuta tapausta sivulla.",
        "no_owner": "ei vielä vastuuhenkilöä",
        "owner": "vastuussa {name}",
        "no_store": "ei myymälää",
        "open_case": "Avaa tapaus",
        "rose": "Mikä nousi",
        "no_rises": "Ei merkitseviä nousuja edelliseen viikkoon.",
        "rise": "{store}: {label} {current} (edellinen viikko {previous})",
        "stores": "Myymälät",
        "store_line": "{store}: {items} palautetta (edellinen viikko {previous}), hälytyksiä {alerts}",
        "page": "Avaa katsaus",
        "why": "Sait tämän, koska tilasit katsauksen sähköpostiin. Tilauksen voi perua tililtä, "
        "tai ylläpitäjä voi perua sen.",
        "time": "%-d.%-m. klo %H.%M",
        "day": "%-d.%-m.%Y",
    },
    "en": {
        "weekly": "The week's brief",
        "daily": "The day's brief",
        "hello": "Hello {name}, here is how your stores did {start}–{end}.",
        "totals": "{items} feedback items (the week before {previous}), {alerts} with an alert "
        "(the week before {previous_alerts}), {open} open cases.",
        "act": "Act on now",
        "no_cases": "No open cases.",
        "more_cases": "… and {count} more cases on the page.",
        "no_owner": "no owner yet",
        "owner": "owned by {name}",
        "no_store": "no store",
        "open_case": "Open the case",
        "rose": "What rose",
        "no_rises": "No significant rises against the week before.",
        "rise": "{store}: {label} {current} (the week before {previous})",
        "stores": "Stores",
        "store_line": "{store}: {items} items (the week before {previous}), {alerts} with an alert",
        "page": "Open the brief",
        "why": "You get this because you asked for the brief by mail. You can stop it in your account, "
        "or an administrator can.",
        "time": "%-d %b %H:%M",
        "day": "%-d %b %Y",
    },
}


def words(language: str | None) -> dict[str, str]:
    return _WORDS["en" if language == "en" else "fi"]


Line = tuple[str, str | None]  # a line of plain text and its link (ours), if any


@dataclass(frozen=True, slots=True)
class CaseLine:
    """One case to act on, as the mail says it: no customer text."""

    ref: str
    alerts: str  # its alert categories' labels, in the reader's language
    store: str | None  # the store's name
    at: str  # the incident's time (normalised UTC)
    owner: str | None


@dataclass(frozen=True, slots=True)
class BriefMail:
    delivery_id: str
    period: str  # weekly | daily
    day: date  # the day it is sent for, on the shop's clock
    name: str  # the reader's display name
    language: str | None
    brief: Brief
    cases: Sequence[CaseLine]
    open_cases: int  # every open case in the reader's reach (the mail lists the first few)
    public_url: str | None
    zone: ZoneInfo

    def _time(self, instant: str, key: str) -> str:
        return parse_normalized(instant).astimezone(self.zone).strftime(words(self.language)[key])

    @property
    def subject(self) -> str:
        w = words(self.language)
        return f"{w[self.period]} {self.day.strftime(w['day'])}"

    def sections(self) -> list[tuple[str | None, list[Line]]]:
        """The mail as (heading, [(line, link)]) sections, each line plain text, each link ours."""
        w = words(self.language)
        b = self.brief
        hello = w["hello"].format(
            name=self.name, start=self._time(b.window_from, "day"), end=self._time(b.window_to, "day")
        )
        totals = w["totals"].format(
            items=b.totals.items,
            previous=b.totals.previous_items,
            alerts=b.totals.alert_items,
            previous_alerts=b.totals.previous_alert_items,
            open=self.open_cases,
        )
        cases: list[Line] = []
        for line in self.cases[:CASES_SHOWN]:
            who = w["owner"].format(name=line.owner) if line.owner else w["no_owner"]
            text = f"{line.alerts} – {line.store or w['no_store']}, {self._time(line.at, 'time')}, {who}"
            cases.append((text, case_url(self.public_url, line.ref)))
        if not cases:
            cases.append((w["no_cases"], None))
        elif self.open_cases > len(cases):
            cases.append((w["more_cases"].format(count=self.open_cases - len(cases)), None))
        rises: list[Line] = [
            (w["rise"].format(store=row.name, label=rise.label, current=rise.current, previous=rise.previous), None)
            for row in b.stores
            for rise in row.rises
        ] or [(w["no_rises"], None)]
        stores: list[Line] = [
            (w["store_line"].format(store=r.name, items=r.items, previous=r.previous_items, alerts=r.alert_items), None)
            for r in b.stores
        ]
        page: list[Line] = [(w["page"], self.public_url.rstrip("/") + "/")] if self.public_url else []
        return [
            (None, [(hello, None), (totals, None)]),
            (w["act"], cases),
            (w["rose"], rises),
            (w["stores"], stores),
            (None, [*page, (w["why"], None)]),
        ]

    def text(self) -> str:
        out: list[str] = [self.subject, ""]
        for heading, lines in self.sections():
            if heading:
                out.append(one_line(heading))
            for line, link in lines:
                out.append(f"- {one_line(line)}" if heading else one_line(line))
                if link:
                    out.append(f"  {link}")
            out.append("")
        return "\n".join(out)

    def html(self) -> str:
        parts = [f"<h1>{mail_html(self.subject)}</h1>"]
        for heading, lines in self.sections():
            if heading:
                parts.append(f"<h2>{mail_html(heading)}</h2>")
            items = [
                f'<a href="{mail_html(link)}">{mail_html(line)}</a>' if link else mail_html(line)
                for line, link in lines
            ]
            parts.append(
                "<ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>"
                if heading
                else "".join(f"<p>{i}</p>" for i in items)
            )
        lang = "en" if self.language == "en" else "fi"
        return f'<!doctype html><html lang="{lang}"><body>{"".join(parts)}</body></html>'

    def email(self, sender: str, recipient: str) -> EmailMessage:
        mail = EmailMessage()
        mail["From"] = sender
        mail["To"] = recipient
        mail["Subject"] = mail_header(self.subject)
        mail["Message-ID"] = f"<{self.delivery_id.replace(':', '.')}@feedback-intelligence>"
        mail["X-FI-Delivery"] = self.delivery_id
        mail.set_content(self.text())
        mail.add_alternative(self.html(), subtype="html")
        mail["Content-Language"] = "en" if self.language == "en" else "fi"  # after: set_content drops Content-*
        return mail
