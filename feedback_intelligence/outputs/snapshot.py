"""The saved snapshot: ``report-latest.json`` and ``report-latest.html``, each replaced atomically.

A reader sees the old file or the new one, never a torn one: each file is written to a temp file
in the same directory, flushed and fsynced, then moved over the old name with ``os.replace``.
Writing never fails the request (errors are logged); the pair is only eventually consistent.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from feedback_intelligence.domain.model import Domain
from feedback_intelligence.outputs.snapshot_html import render_snapshot_html
from feedback_intelligence.report.model import Report

log = logging.getLogger(__name__)

JSON_NAME = "report-latest.json"
HTML_NAME = "report-latest.html"
STALE_TEMP_S = 60.0
_REPLACE_ATTEMPTS = 5
_REPLACE_PAUSE_S = 0.04


def snapshot_json(report: dict[str, Any]) -> str:
    return json.dumps(report, ensure_ascii=False, indent=2)


def write_snapshot(directory: Path, report: Report, domain: Domain) -> bool:
    """Write both files; ``True`` if both landed. Never raises."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        log.exception("snapshot: cannot create %s", directory)
        return False
    wrote_json = _atomic_write(directory / JSON_NAME, lambda: snapshot_json(report.to_json()))
    wrote_html = _atomic_write(directory / HTML_NAME, lambda: render_snapshot_html(report, domain))
    return wrote_json and wrote_html


async def persist_snapshot(directory: Path, report: Report, domain: Domain) -> bool:
    """:func:`write_snapshot` off the event loop."""
    return await asyncio.to_thread(write_snapshot, directory, report, domain)


def read_snapshot_json(directory: Path) -> str | None:
    return _read(directory / JSON_NAME)


def read_snapshot_html(directory: Path) -> str | None:
    return _read(directory / HTML_NAME)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _atomic_write(path: Path, render: Callable[[], str]) -> bool:
    temp = path.with_name(f"{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        data = render().encode("utf-8")
        _sweep_stale_temps(path)
        with open(temp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        _replace(temp, path)
        _fsync_directory(path.parent)
        return True
    except Exception:
        log.exception("snapshot: writing %s failed", path)
        try:
            temp.unlink(missing_ok=True)
        except OSError:
            log.warning("snapshot: could not remove temp file %s", temp)
        return False


def _replace(temp: Path, path: Path) -> None:
    """``os.replace``, retried briefly: on Windows a reader holding the target can refuse it for a moment."""
    for attempt in range(_REPLACE_ATTEMPTS):
        try:
            os.replace(temp, path)
            return
        except PermissionError:
            if attempt == _REPLACE_ATTEMPTS - 1:
                raise
            time.sleep(_REPLACE_PAUSE_S)


def _sweep_stale_temps(path: Path) -> None:
    """Temp files left by a crashed writer; young ones may belong to a writer still running."""
    cutoff = time.time() - STALE_TEMP_S
    for stale in path.parent.glob(f"{path.name}.*.tmp"):
        try:
            if stale.stat().st_mtime < cutoff:
                stale.unlink()
        except OSError:
            continue


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable where the platform allows it."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
