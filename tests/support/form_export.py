"""A form tool's CSV export as a regional manager has one: semicolons, Finnish dates with dots in the time
(``6.9.2026 08.30.19``), naive times on the Helsinki clock, channel labels instead of sources, store
*names* instead of ids, and texts in Finnish, Swedish and English."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

HELSINKI = ZoneInfo("Europe/Helsinki")
STORES = [{"id": "hki-1", "name": "Helsinki Keskusta"}, {"id": "tre-1", "name": "Tampere Hervanta"}]
CHANNELS = {"Verkkolomake": "web_form", "Google-arvostelu": "google_review", "Sähköposti": "email"}
VALUE_MAP = {"source": CHANNELS}
HEADER = ["Vastaus-ID", "Lähetetty", "Kanava", "Myymälä", "Palaute"]
TEXTS = [
    "Kassajono oli pitkä ja vain yksi kassa auki.",
    "Henkilökunta oli todella ystävällistä, kiitos!",
    "Hedelmäosastolla banaanit olivat ruskeita.",
    "Personalen var mycket hjälpsam och trevlig.",
    "Kön till kassan var lång i kväll.",
    "The self-checkout kept freezing and nobody came to help.",
    "Great selection of fresh bread this morning.",
]
#: A text whose rules alert (food safety): an alerting row, recent, in every export.
ALERTING = "Lapsi sai vatsataudin, kun söi meiltä ostettua jauhelihaa."
#: The first row, at a known instant on the Helsinki clock in summer time (UTC+3).
FIRST_LOCAL = datetime(2026, 9, 6, 8, 30, 19)  # written 6.9.2026 08.30.19
FIRST_UTC = "2026-09-06T05:30:19"


@dataclass(frozen=True)
class ExportRow:
    local: datetime  # naive, on the Helsinki clock
    seconds: bool  # written with its seconds (the form tool) or without (a spreadsheet's hh:mm)
    channel: str
    store_name: str
    text: str

    def utc_prefix(self) -> str:
        """The stored instant's first 19 characters (``2026-09-06T05:30:19``)."""
        return self.local.replace(tzinfo=HELSINKI).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")


def finnish(moment: datetime, seconds: bool) -> str:
    """``6.9.2026 08.30.19`` (the form tool's) or ``6.9.2026 08:30`` (a spreadsheet's)."""
    day = f"{moment.day}.{moment.month}.{moment.year}"
    return f"{day} {moment:%H.%M.%S}" if seconds else f"{day} {moment:%H:%M}"


def export_rows(count: int = 200, *, start: datetime, seed: int = 7, alerting_every: int = 25) -> list[ExportRow]:
    """``count`` rows from ``start`` (naive, Helsinki) back in time an hour and some apart; every
    ``alerting_every``-th text alerts."""
    rng = random.Random(seed)
    rows = []
    for n in range(count):
        local = (start - timedelta(minutes=73 * n, seconds=rng.randrange(60) if n else 0)).replace(microsecond=0)
        seconds = n % 4 != 3
        local = local if seconds else local.replace(second=0)
        text = ALERTING if n % alerting_every == 1 else f"{TEXTS[n % len(TEXTS)]} ({n})"
        rows.append(ExportRow(local, seconds, list(CHANNELS)[n % 3], STORES[n % 2]["name"], text))
    return rows


def write_export(path: Path, rows: list[ExportRow], id_prefix: str = "R") -> Path:
    """The rows as the form tool writes them: UTF-8 with a BOM, ``;``, CRLF, two date forms mixed; a
    store's name in capitals now and then (typed by hand)."""
    lines = [";".join(HEADER)]
    for n, row in enumerate(rows):
        store = row.store_name.upper() if n % 5 == 4 else row.store_name  # the names' case varies by hand
        text = row.text.replace('"', '""')
        lines.append(f'{id_prefix}{1000 + n};{finnish(row.local, row.seconds)};{row.channel};{store};"{text}"')
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode("utf-8-sig"))
    return path
