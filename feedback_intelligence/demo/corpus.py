"""Demo corpus and ground truth, with timestamps that are always recent.

File format (``data/corpus.jsonl``, one JSON object a line, blank lines ignored)::

    {"id": "demo-0001", "source": "email", "daysAgo": 3, "timeOfDay": "14:25", "text": "..."}

The corpus stores **relative** times: ``daysAgo`` (integer ≥ 0) counts days back from the *anchor date*
and ``timeOfDay`` (``HH:MM``) is Finnish wall-clock time. The anchor date is **yesterday in Finland**
at load time (:func:`corpus_anchor`): the last complete shop day, so no item lands in the future whatever
the hour of loading, and a report with ``to=now`` covering N ≥ 22 days contains the whole corpus.
:func:`load_corpus` turns each line into ``{id, source, text, timestamp}`` with an absolute ISO timestamp
in Finnish local time (``+02:00`` in winter, ``+03:00`` in summer, EU rule), ready to POST to ``/feedback``.
A line may instead carry an absolute ``timestamp`` (e.g. a generated corpus); it is passed through unchanged.

The ground truth (``data/ground-truth.json``) follows the reference generator's format with relative windows:
each story has ``windowDays`` instead of ``windowFrom``/``windowTo``; the story covers the ``windowDays``
days ending at the anchor date. :func:`load_ground_truth` with an ``anchor`` adds the absolute dates.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime, time, timedelta, timezone
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent / "data"
DEFAULT_CORPUS_PATH = DATA_DIR / "corpus.jsonl"
DEFAULT_GROUND_TRUTH_PATH = DATA_DIR / "ground-truth.json"

RETAIL_SOURCES: tuple[str, ...] = ("google_review", "email", "web_form", "desk")
ID_PATTERN = re.compile(r"^[A-Za-z0-9._-]+$")
ID_MAX_LENGTH = 100
TEXT_MAX_CHARS = 800  # counted like the API does: UTF-16 code units
_TIME_OF_DAY = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")

_EET = timedelta(hours=2)
_EEST = timedelta(hours=3)


class CorpusError(ValueError):
    """A corpus or ground-truth file that cannot be used (unreadable, malformed, invalid line)."""


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _last_sunday(year: int, month: int) -> date:
    day = date(year, month + 1, 1) - timedelta(days=1)
    return day - timedelta(days=(day.weekday() - 6) % 7)


def _is_summer_time(instant_utc: datetime) -> bool:
    """EU rule: summer time from 01:00 UTC on the last Sunday of March to 01:00 UTC on the last Sunday of October."""
    year = instant_utc.year
    start = datetime.combine(_last_sunday(year, 3), time(1, 0), tzinfo=UTC)
    end = datetime.combine(_last_sunday(year, 10), time(1, 0), tzinfo=UTC)
    return start <= instant_utc < end


def finland_utc_offset(instant: datetime) -> timedelta:
    """Finland's UTC offset at an instant (naive datetimes are taken as UTC)."""
    return _EEST if _is_summer_time(_as_utc(instant)) else _EET


def finland_local(day: date, hour: int, minute: int) -> datetime:
    """Finnish wall-clock time as an aware datetime with a fixed +02:00/+03:00 offset.

    The one-hour gaps/overlaps at the switch (03:00-04:00 local) are resolved toward summer time; the demo
    only uses shop hours, so they never arise.
    """
    naive = datetime.combine(day, time(hour, minute))
    offset = _EEST if _is_summer_time((naive - _EEST).replace(tzinfo=UTC)) else _EET
    return naive.replace(tzinfo=timezone(offset))


def _as_utc(instant: datetime) -> datetime:
    return instant.replace(tzinfo=UTC) if instant.tzinfo is None else instant.astimezone(UTC)


def corpus_anchor(now: datetime | None = None) -> date:
    """The anchor date for relative timestamps: the day before ``now``'s date in Finland (naive ``now`` = UTC)."""
    instant = _as_utc(now or datetime.now(UTC))
    local_date = (instant + finland_utc_offset(instant)).date()
    return local_date - timedelta(days=1)


def format_timestamp(instant: datetime) -> str:
    """``yyyy-MM-ddTHH:mm:00+03:00`` like the reference generator (seconds kept if non-zero)."""
    return instant.isoformat(timespec="seconds")


def parse_iso_instant(value: str) -> datetime | None:
    """Lenient ISO-8601 parse (``Z`` suffix, 7 fractional digits); ``None`` if unparseable. Offset-less stays naive."""
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    # Python's fromisoformat takes at most 6 fractional digits; .NET round-trip writes 7.
    text = re.sub(r"(\.\d{6})\d+", r"\1", text)
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CorpusError(f"{path}: cannot read ({exc})") from exc


def _item_from_line(record: Any, anchor: date, where: str, seen: set[str]) -> dict[str, str]:
    if not isinstance(record, dict):
        raise CorpusError(f"{where}: expected a JSON object")
    item_id = record.get("id")
    if not isinstance(item_id, str) or len(item_id) > ID_MAX_LENGTH or not ID_PATTERN.fullmatch(item_id):
        raise CorpusError(f"{where}: id must match [A-Za-z0-9._-], max {ID_MAX_LENGTH} chars, got {item_id!r}")
    if item_id in seen:
        raise CorpusError(f"{where}: duplicate id {item_id!r}")
    source = record.get("source")
    if source not in RETAIL_SOURCES:
        raise CorpusError(f"{where}: source must be one of [{', '.join(RETAIL_SOURCES)}], got {source!r}")
    text = record.get("text")
    if not isinstance(text, str) or not text.strip():
        raise CorpusError(f"{where}: text must be non-empty")
    if utf16_length(text) > TEXT_MAX_CHARS:
        raise CorpusError(f"{where}: text exceeds the {TEXT_MAX_CHARS}-character cap ({utf16_length(text)})")

    if "timestamp" in record:
        timestamp = record["timestamp"]
        if not isinstance(timestamp, str) or parse_iso_instant(timestamp) is None:
            raise CorpusError(f"{where}: timestamp must be an ISO-8601 instant, got {timestamp!r}")
    else:
        days_ago = record.get("daysAgo")
        if isinstance(days_ago, bool) or not isinstance(days_ago, int) or days_ago < 0:
            raise CorpusError(f"{where}: daysAgo must be an integer >= 0, got {days_ago!r}")
        match = _TIME_OF_DAY.fullmatch(str(record.get("timeOfDay", "")))
        if match is None:
            raise CorpusError(f"{where}: timeOfDay must be HH:MM, got {record.get('timeOfDay')!r}")
        day = anchor - timedelta(days=days_ago)
        timestamp = format_timestamp(finland_local(day, int(match.group(1)), int(match.group(2))))

    seen.add(item_id)
    return {"id": item_id, "source": source, "text": text, "timestamp": timestamp}


def load_corpus(path: str | Path | None = None, now: datetime | None = None) -> list[dict]:
    """Items ``{id, source, text, timestamp}`` in file order, relative times re-based on :func:`corpus_anchor`.

    Raises :class:`CorpusError` on an unreadable file or any invalid line (with its line number).
    """
    corpus_path = Path(path) if path is not None else DEFAULT_CORPUS_PATH
    anchor = corpus_anchor(now)
    items: list[dict] = []
    seen: set[str] = set()
    for lineno, line in enumerate(_read_text(corpus_path).splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{corpus_path}:{lineno}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CorpusError(f"{where}: not JSON ({exc.msg})") from exc
        items.append(_item_from_line(record, anchor, where, seen))
    return items


def parse_date(value: Any) -> date | None:
    """The ``yyyy-MM-dd`` date at the start of a string, or ``None``."""
    if not isinstance(value, str):
        return None
    try:
        return date.fromisoformat(value.strip()[:10])
    except ValueError:
        return None


def story_window(story: dict, anchor: date | None) -> tuple[date, date] | None:
    """A story's inclusive date window: absolute ``windowFrom``/``windowTo`` if both parse, else the ``windowDays``
    days ending at ``anchor``; ``None`` if neither is available."""
    start, end = parse_date(story.get("windowFrom")), parse_date(story.get("windowTo"))
    if start is not None and end is not None:
        return start, end
    days = story.get("windowDays")
    if anchor is None or isinstance(days, bool) or not isinstance(days, int) or days < 1:
        return None
    return anchor - timedelta(days=days - 1), anchor


def load_ground_truth(path: str | Path | None = None, anchor: date | None = None) -> dict:
    """The ground-truth object as stored; with ``anchor``, also ``anchorDate`` and each story's absolute
    ``windowFrom``/``windowTo`` (``yyyy-MM-dd``) resolved from ``windowDays`` (existing absolute windows are kept).

    Raises :class:`CorpusError` if the file is unreadable, not JSON, or not an object. Semantic checks (an empty
    story list, missing fields) are the verifier's business.
    """
    gt_path = Path(path) if path is not None else DEFAULT_GROUND_TRUTH_PATH
    try:
        data = json.loads(_read_text(gt_path))
    except json.JSONDecodeError as exc:
        raise CorpusError(f"{gt_path}: not JSON ({exc.msg})") from exc
    if not isinstance(data, dict):
        raise CorpusError(f"{gt_path}: expected a JSON object")
    if anchor is not None:
        data["anchorDate"] = anchor.isoformat()
        for story in data.get("stories") or []:
            if not isinstance(story, dict) or ("windowFrom" in story and "windowTo" in story):
                continue
            window = story_window(story, anchor)
            if window is not None:
                story["windowFrom"], story["windowTo"] = window[0].isoformat(), window[1].isoformat()
    return data
