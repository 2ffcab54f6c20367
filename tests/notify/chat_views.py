"""What a person sees of a Slack or a Teams body: the text shown, the links and the mentions, read by
the rules those clients document, so a test can say "no mention, no link but ours" of a real delivery.

Slack (Formatting text for app surfaces): ``<…>`` is a control sequence — ``<!channel>``, ``<!here>``,
``<!everyone>`` and ``<!subteam^…>`` ping, ``<@U…>`` mentions a person, ``<#C…>`` a channel, anything
else is a link, ``<url|label>`` shown as its label; ``&lt;``, ``&gt;``, ``&amp;`` show as ``<``, ``>``,
``&``. Unless a text object is ``verbatim``, Slack also links bare addresses and parses ``@channel``.

Adaptive Cards: a ``TextBlock``'s text is Markdown (``[label](url)`` is a link, and clients link bare
addresses); a ``TextRun``'s is not; ``Action.OpenUrl`` and ``selectAction`` are links.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

SLACK_CONTROL = re.compile(r"<([^<>]*)>")
BARE_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>()\]]+", re.IGNORECASE)
PLAIN_MENTION = re.compile(r"@(?:channel|here|everyone)\b")
MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]*)\)")


@dataclass
class ChatView:
    shown: str = ""
    links: list[tuple[str, str]] = field(default_factory=list)  # (target, label)
    mentions: list[str] = field(default_factory=list)

    @property
    def lines(self) -> list[str]:
        return self.shown.splitlines()


def _slack_entities(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def slack_view(text: str, *, verbatim: bool) -> ChatView:
    view = ChatView()

    def control(match: re.Match[str]) -> str:
        target, _, label = match.group(1).partition("|")
        shown = _slack_entities(label or target)
        if target[:1] in "!@#":
            view.mentions.append(match.group(1))
        else:
            view.links.append((_slack_entities(target), shown))
        return shown

    view.shown = _slack_entities(SLACK_CONTROL.sub(control, text))
    if not verbatim:
        plain = SLACK_CONTROL.sub("", text)
        view.links += [(url, url) for url in BARE_URL.findall(plain)]
        view.mentions += PLAIN_MENTION.findall(plain)
    return view


def slack_message_view(body: dict[str, Any]) -> tuple[ChatView, ChatView]:
    """(the notification's ``text``, the blocks) as Slack shows them."""
    fallback = slack_view(body["text"], verbatim=False)
    blocks = ChatView()
    for block in body.get("blocks", []):
        text = block["text"]
        assert text["type"] in ("mrkdwn", "plain_text"), text["type"]
        view = slack_view(text["text"], verbatim=text.get("verbatim", False))
        blocks.shown += view.shown + "\n"
        blocks.links += view.links
        blocks.mentions += view.mentions
    return fallback, blocks


def teams_card_view(card: dict[str, Any]) -> ChatView:
    view = ChatView()
    for element in card["body"]:
        if element["type"] == "TextBlock":
            text = element["text"]
            view.links += [(url, label) for label, url in MARKDOWN_LINK.findall(text)]
            view.links += [(url, url) for url in BARE_URL.findall(MARKDOWN_LINK.sub("", text))]
            view.shown += MARKDOWN_LINK.sub(r"\1", text) + "\n"
        elif element["type"] == "RichTextBlock":
            for run in element["inlines"]:
                run = {"type": "TextRun", "text": run} if isinstance(run, str) else run
                assert run["type"] == "TextRun", run["type"]
                if run.get("selectAction", {}).get("type") == "Action.OpenUrl":
                    view.links.append((run["selectAction"]["url"], run["text"]))
                view.shown += run["text"]
            view.shown += "\n"
        else:
            raise AssertionError(f"a card element this view does not read: {element['type']}")
    for action in card.get("actions", []):
        if action["type"] == "Action.OpenUrl":
            view.links.append((action["url"], action["title"]))
    return view
