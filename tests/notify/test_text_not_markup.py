"""Customer text reaches Slack and Teams as text: a real delivery to a real HTTP receiver, read the
way each client reads its body (tests/notify/chat_views.py), pings nobody and links only to the case."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from feedback_intelligence.devtools.receiver import Receiver
from feedback_intelligence.notify.markup import one_line, teams_text
from tests.notify.chat_views import slack_message_view, teams_card_view
from tests.notify.support import HOSTILE_TEXT, alert_item, rig, routes

CASE_LINK = ("http://fi.example/#case=live:chat-evil", "Avaa tapaus")
HOSTILE_STORE = "<!here>"  # a store id from the data, under an FI_STORE_PATTERN that lets it through


@pytest.fixture
def chat_receivers() -> tuple[Receiver, Receiver]:
    slack, teams = Receiver().start(), Receiver().start()
    yield slack, teams
    slack.stop()
    teams.stop()


async def _deliver_hostile(tmp_path: Path, slack: Receiver, teams: Receiver) -> tuple[dict, dict]:
    configured = routes(
        {"name": "slack", "kind": "slack", "url": slack.url},
        {"name": "teams", "kind": "teams", "url": teams.url},
    )
    async with rig(tmp_path, configured) as r:
        await r.channel.insert(alert_item("chat-evil", text=HOSTILE_TEXT, store=HOSTILE_STORE))
        r.worker.start()
        await asyncio.to_thread(slack.wait_for, 1)
        await asyncio.to_thread(teams.wait_for, 1)
    return slack.received[0].json(), teams.received[0].json()


async def test_slack_shows_the_customer_text_as_typed_with_no_mention_and_only_the_case_link(
    tmp_path: Path, chat_receivers: tuple[Receiver, Receiver]
) -> None:
    body, _ = await _deliver_hostile(tmp_path, *chat_receivers)
    fallback, blocks = slack_message_view(body)
    assert blocks.mentions == [] and fallback.mentions == []
    assert blocks.links == [CASE_LINK] and fallback.links == []
    assert f"Palaute: ”{HOSTILE_TEXT}”" in blocks.lines  # every character shown as the customer typed it
    assert blocks.lines[0] == fallback.shown == f"Hälytys: ruokaturvallisuus – myymälä {HOSTILE_STORE}"


async def test_teams_shows_the_customer_text_as_typed_with_only_the_case_link(
    tmp_path: Path, chat_receivers: tuple[Receiver, Receiver]
) -> None:
    _, body = await _deliver_hostile(tmp_path, *chat_receivers)
    [attachment] = body["attachments"]
    assert attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
    view = teams_card_view(attachment["content"])
    assert view.links == [CASE_LINK]
    assert f"Palaute: ”{HOSTILE_TEXT}”" in view.lines
    assert view.lines[0] == f"Hälytys: ruokaturvallisuus – myymälä {HOSTILE_STORE}"


def test_a_teams_text_run_keeps_a_date_function_as_typed_and_text_is_one_visible_line() -> None:
    typed = "{{DATE(2017-02-14T06:00:00Z, SHORT)}}"
    assert "{{" not in teams_text(typed) and teams_text(typed).replace("\u2060", "") == typed
    assert one_line("a\r\nBcc: x\x00\u202eelpmaxe.live\tb") == "a Bcc: x elpmaxe.live b"
