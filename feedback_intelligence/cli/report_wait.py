"""``feedctl report --wait``: ask again (``If-None-Match``) until the model's prose is written.

The first answer is the deterministic report; this follows the pending themes with a progress bar
and returns the report once nothing is pending (or the deadline passes: the report as it stands).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

POLL_S = 1.0
WAIT_LIMIT_S = 900.0


def pending_parts(body: dict[str, Any]) -> list[str]:
    llm = body.get("llm") or {}
    return list(llm.get("pending") or []) if llm.get("status") == "pending" else []


def alert_words(alert: dict[str, Any]) -> str:
    """The words the text matched (older reports carry only the stem), with the category's label."""
    by_category: dict[str, list[str]] = {}  # one entry per category, in the report's order
    for hit in alert.get("deterministicHits") or []:
        words = by_category.setdefault(str(hit.get("categoryLabel") or hit.get("category")), [])
        words += [w for w in hit.get("words") or [hit.get("pattern", "")] if w not in words]
    return "; ".join(f"{label}: {', '.join(words)}" for label, words in by_category.items())


def wait_for_prose(
    fetch: Callable[[dict[str, str]], httpx.Response],
    first: httpx.Response,
    console: Console,
    *,
    limit_s: float = WAIT_LIMIT_S,
) -> dict[str, Any]:
    """Ask again (``fetch(headers)``) until nothing is pending; a progress bar counts the parts written so far.

    A ``304`` means nothing changed; any other answer that is not a report ends the wait with the
    report as it stood (the caller printed the deterministic part's figures already in it).
    """
    body: dict[str, Any] = first.json()
    total = len(pending_parts(body))
    if not total:
        return body
    etag = first.headers.get("etag", "")
    deadline = time.monotonic() + limit_s
    columns = (TextColumn("writing the summaries"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("prose", total=total)
        while pending_parts(body) and time.monotonic() < deadline:
            time.sleep(POLL_S)
            response = fetch({"If-None-Match": etag} if etag else {})
            if response.status_code == 304:
                continue
            if response.status_code != 200:
                console.print(
                    f"[yellow]the service answered {response.status_code} while waiting; "
                    "showing the report as it stands[/yellow]"
                )
                break
            etag, body = response.headers.get("etag", ""), response.json()
            progress.update(task, completed=total - len(pending_parts(body)))
    if pending_parts(body):
        console.print(f"[yellow]still writing after {limit_s:.0f} s — showing the report as it stands[/yellow]")
    return body
