"""Text that is not ours as literal text in each format a notification is written in: one function each.

A notification quotes what a customer wrote and names a store from the data. None of it may become
markup: a Slack ``<!channel>`` must not ping the channel, a ``<https://evil.example|Avaa tapaus>`` or a
Teams ``[klikkaa](https://evil.example)`` must not become a link dressed as ours. The only markup a
body carries is what its renderer (notify/message.py) writes itself, the case link; every line of
text goes through its format's function below, there and nowhere else (invariant 13, docs/adr/0038).
"""

from __future__ import annotations

import html

# C0 and C1 controls become spaces; the bidirectional-formatting characters go, since they reorder
# what a reader sees (a link or a name shown backwards) without showing themselves.
_BIDI_FORMATTING = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_DROPPED = str.maketrans(
    {**{code: " " for code in (*range(0x20), *range(0x7F, 0xA0))}, **dict.fromkeys(map(ord, _BIDI_FORMATTING))}
)
WORD_JOINER = "\u2060"


def one_line(text: str) -> str:
    """Text from the data as one line of visible characters: runs of whitespace and controls are one
    space, the bidirectional-formatting characters are gone. Every format starts from this."""
    return " ".join(text.translate(_DROPPED).split())


def slack_text(text: str) -> str:
    """Slack mrkdwn: ``&``, ``<`` and ``>`` as the entities Slack documents, so no ``<!channel>``,
    ``<!here>``, ``<@U…>``, ``<#C…>`` or ``<url|label>`` is read as a control sequence. The body also
    sets ``verbatim``, so Slack links no bare address and parses no plain ``@channel``."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def teams_text(text: str) -> str:
    """The text of an Adaptive Card ``TextRun``, the element whose text is not Markdown (a ``TextBlock``'s
    is, and Teams' clients honour backslash escapes in it unevenly). What a TextRun still reads is a
    ``{{DATE(…)}}`` or ``{{TIME(…)}}`` function: a word joiner between the braces keeps it as typed."""
    return text.replace("{{", "{" + WORD_JOINER + "{")


def mail_header(text: str) -> str:
    """A header's value: one line, so no CR or LF can begin a header of its own (a ``Bcc:``)."""
    return one_line(text)


def mail_html(text: str) -> str:
    """Text in an HTML mail part (the brief by mail): one line, every ``&``, ``<``, ``>`` and quote escaped."""
    return html.escape(one_line(text), quote=True)
