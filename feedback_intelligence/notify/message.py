"""One notification, rendered from the item at delivery time (the outbox keeps no copy of the text).

It carries what a person needs to act and no more personal data than that: the text excerpt, the
alert categories, when, which store, and a link to the case. No source, no author, no review flags.
Each kind gets its body here: a generic JSON webhook, a Slack or a Microsoft Teams incoming webhook,
or an e-mail. What the message says is plain text (:meth:`Message.text_lines`); each body writes every
line through its format's function of notify/markup.py and adds the case link in its own syntax, so
the link is the only markup a customer's text sits beside (docs/adr/0038).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from email.message import EmailMessage
from typing import Any
from urllib.parse import quote, urlencode
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.timestamps import parse_normalized
from feedback_intelligence.notify.markup import mail_header, one_line, slack_text, teams_text
from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.wording.excerpt import excerpt
from feedback_intelligence.wording.sentences import wording_for

EXCERPT_CHARS = 200
DIGEST = "digest"
DIGEST_EXAMPLES = 5  # a digest quotes this many items; the link lists them all
DIGEST_EXCERPT_CHARS = 120
SHOWN_ZONE = "Europe/Helsinki"
LINK_LABEL = "Avaa tapaus"


@dataclass(frozen=True, slots=True)
class Message:
    delivery_id: str
    event: str  # alert, escalation, overdue, test
    channel: str
    feedback_id: str
    categories: tuple[str, ...]
    category_labels: tuple[str, ...]
    severity: str | None
    store: str | None
    timestamp: str
    excerpt: str
    case_url: str | None
    # A digest (workers/alert_digest.py): its own title, its lines after it, the items it lists.
    heading: str | None = None
    lines: tuple[str, ...] = ()
    refs: tuple[str, ...] = ()
    link_label: str = LINK_LABEL

    @property
    def ref(self) -> str:
        return f"{self.channel}:{self.feedback_id}"

    @property
    def title(self) -> str:
        if self.heading is not None:
            return self.heading
        kind = {"escalation": "Eskaloitu hälytys", "overdue": "Myöhässä", "test": "Testiviesti"}.get(
            self.event, "Hälytys"
        )
        labels = ", ".join(self.category_labels) or "hälytys"
        where = f" – myymälä {one_line(self.store)}" if self.store else ""
        return f"{kind}: {labels}{where}"

    @property
    def shown_time(self) -> str:
        moment = parse_normalized(self.timestamp)
        try:
            moment = moment.astimezone(ZoneInfo(SHOWN_ZONE))
        except ZoneInfoNotFoundError:  # no tz database: the UTC time, said so
            return moment.strftime("%-d.%-m.%Y klo %H.%M UTC")
        return moment.strftime("%-d.%-m.%Y klo %H.%M")

    def text_lines(self) -> list[str]:
        """What the message says, as plain text; the case link is not among them (each body adds it)."""
        if self.event == DIGEST:
            return [self.title, *self.lines]
        lines = [self.title, f"Aika: {self.shown_time}", f"Palaute: ”{self.excerpt}”"]
        if self.event == "escalation":
            lines.append("Kukaan ei ole vielä kuitannut tätä kriittistä tapausta.")
        if self.event == "overdue":
            lines.append("Tapauksen määräaika on mennyt, eikä sitä ole vielä hoidettu.")
            lines.append("Saat tämän viestin myymälän esihenkilönä.")
        return lines

    def to_json(self) -> dict[str, Any]:
        """The generic webhook's body (ADR 0024 section 10: ``feedbackId``, ``channel``, ``alertCategories``,
        the delivery id)."""
        return {
            "deliveryId": self.delivery_id,
            "event": self.event,
            "feedbackId": self.feedback_id,
            "channel": self.channel,
            "ref": self.ref,
            "alertCategories": list(self.categories),
            "severity": self.severity,
            "store": self.store,
            "timestamp": self.timestamp,
            "excerpt": self.excerpt,
            "caseUrl": self.case_url,
        } | ({"count": len(self.refs), "refs": list(self.refs)} if self.event == DIGEST else {})


def case_url(public_url: str | None, ref: str) -> str | None:
    return f"{public_url.rstrip('/')}/#case={quote(ref, safe=':')}" if public_url else None


def render(
    item: StoredFeedback, *, delivery_id: str, event: str, channel: str, domain: Domain, public_url: str | None
) -> Message:
    wording = wording_for(domain.language)
    categories = tuple(dict.fromkeys(h.category for h in item.alerts if not domain.is_demoted(h.category)))
    return Message(
        delivery_id=delivery_id,
        event=event,
        channel=channel,
        feedback_id=item.id,
        categories=categories,
        category_labels=tuple(wording.alert_label(c) for c in categories),
        severity=item.structure.severity if item.structure else None,
        store=item.store,
        timestamp=item.timestamp,
        excerpt=excerpt(one_line(item.text), EXCERPT_CHARS),
        case_url=case_url(public_url, f"{channel}:{item.id}"),
    )


def render_digest(
    items: Sequence[StoredFeedback],
    *,
    day: date,
    delivery_id: str,
    channel: str,
    domain: Domain,
    zone: ZoneInfo,
    store_name: Callable[[str], str],
    public_url: str | None,
) -> Message:
    """One message for a day's digest alerts (``items``, oldest first): counts by store, a few examples, a link."""
    wording = wording_for(domain.language)
    digest = set(domain.digest_alert_categories)
    categories = tuple(dict.fromkeys(h.category for item in items for h in item.alerts if h.category in digest))
    labels = ", ".join(wording.alert_label(c) for c in categories)
    by_store = Counter(store_name(item.store) if item.store else "ei myymälää" for item in items)
    lines = [f"{name}: {count}" for name, count in sorted(by_store.items(), key=lambda kv: (-kv[1], kv[0]))]
    lines.append("Esimerkkejä:")
    for item in items[:DIGEST_EXAMPLES]:
        at = parse_normalized(item.timestamp).astimezone(zone).strftime("klo %H.%M")
        where = f" {store_name(item.store)}" if item.store else ""
        lines.append(f"{at}{where}: ”{excerpt(one_line(item.text), DIGEST_EXCERPT_CHARS)}”")
    if len(items) > DIGEST_EXAMPLES:
        lines.append(f"… ja {len(items) - DIGEST_EXAMPLES} muuta listassa.")
    shown_day = f"{day.day}.{day.month}.{day.year}"
    link = None
    if public_url:
        alert = categories[0] if len(categories) == 1 else "any"
        link = f"{public_url.rstrip('/')}/?{urlencode({'alert': alert, 'channel': channel})}"
    return Message(
        delivery_id=delivery_id,
        event=DIGEST,
        channel=channel,
        feedback_id=f"digest-{day.isoformat()}",
        categories=categories,
        category_labels=tuple(wording.alert_label(c) for c in categories),
        severity=None,
        store=None,
        timestamp=items[-1].timestamp,
        excerpt="",
        case_url=link,
        heading=f"Päivän kooste {shown_day}: {len(items)} hälytystä ({labels})",
        lines=tuple(lines),
        refs=tuple(f"{channel}:{item.id}" for item in items),
        link_label="Avaa lista",
    )


def trial_message(route_name: str, public_url: str | None, now: str) -> Message:
    return Message(
        delivery_id=f"test:{route_name}:{datetime.now().timestamp():.0f}",
        event="test",
        channel="live",
        feedback_id="test",
        categories=(),
        category_labels=("yhteyden testi",),
        severity=None,
        store=None,
        timestamp=now,
        excerpt="Tämä on palautepalvelun testiviesti. Jos näet sen, ilmoitukset tulevat perille.",
        case_url=public_url.rstrip("/") + "/" if public_url else None,
    )


def json_body(message: Message) -> bytes:
    return json.dumps(message.to_json(), ensure_ascii=False, separators=(",", ":")).encode()


def slack_body(message: Message) -> bytes:
    """A Slack incoming-webhook body: ``text`` (what a notification shows) and one section block.

    ``verbatim``: Slack links no bare address and parses no plain ``@channel`` in the block; with
    every line through :func:`slack_text`, the case link written here is the block's only link.
    """
    lines = [slack_text(line) for line in message.text_lines()]
    if message.case_url:
        lines.append(f"<{slack_text(message.case_url)}|{slack_text(message.link_label)}>")
    section = {"type": "mrkdwn", "text": "\n".join(lines), "verbatim": True}
    body = {
        "text": slack_text(message.title),
        "blocks": [{"type": "section", "text": section}],
        "unfurl_links": False,  # Slack's servers fetch nothing to preview
        "unfurl_media": False,
    }
    return json.dumps(body, ensure_ascii=False).encode()


def _teams_line(line: str, **style: str) -> dict[str, Any]:
    return {"type": "RichTextBlock", "inlines": [{"type": "TextRun", "text": teams_text(line), **style}]}


def teams_body(message: Message) -> bytes:
    """A Teams incoming-webhook (Workflows) body: a message with one Adaptive Card. Every line is a
    ``TextRun`` (no Markdown); the card's one action opens the case."""
    title, *rest = message.text_lines()
    card: dict[str, Any] = {
        "type": "AdaptiveCard",
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "version": "1.4",
        "body": [_teams_line(title, weight="Bolder"), *(_teams_line(line) for line in rest)],
    }
    if message.case_url:
        card["actions"] = [{"type": "Action.OpenUrl", "title": message.link_label, "url": message.case_url}]
    body = {
        "type": "message",
        "attachments": [{"contentType": "application/vnd.microsoft.card.adaptive", "content": card}],
    }
    return json.dumps(body, ensure_ascii=False).encode()


def email_message(message: Message, sender: str, recipients: tuple[str, ...]) -> EmailMessage:
    """A plain-text mail (no HTML part, so nothing in it is markup); the subject through :func:`mail_header`."""
    mail = EmailMessage()
    mail["From"] = sender
    mail["To"] = ", ".join(recipients)
    mail["Subject"] = mail_header(message.title)
    # The delivery id as Message-ID: a resend after a replica's death is the same message to the mail system.
    mail["Message-ID"] = f"<{message.delivery_id.replace(':', '.')}@feedback-intelligence>"
    mail["X-FI-Delivery"] = message.delivery_id
    lines = message.text_lines()
    if message.case_url:
        lines.append(f"{message.link_label}: {message.case_url}")
    mail.set_content("\n".join(lines) + "\n")
    return mail
