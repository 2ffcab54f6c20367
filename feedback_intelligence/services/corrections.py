"""Correct and erase an item (ADR 0024 section 7, ADR 0030): who may, and what one change writes.

Who may is one rule of its own, ``services/change_rule.verdict`` (a clerk their own entry within
``FI_CORRECTION_WINDOW_S``, a manager their store's, an operator any).

A correction writes the changed fields, each as an audit row with old and new value (``text`` as a
fact only, so correcting a name out of the text removes it); a text correction re-matches the alert
hits, and when their categories change that is a row too (``alerts``: the categories before and after),
so the case's log says why its item no longer alerts, or alerts now. A correction is a save (ADR 0041):
what the corrected item starts, a case and its notifications, the channel's write starts
(``Channel.correct``); an alert removed leaves the case for a person to close.

Erasure refuses the id in the other channels first (``services/tombstones.py``), then deletes the
item's rows, leaves the tombstone, redacts the item's audit rows, appends ``item.erase``, and then
removes the copies outside the database: report prose layers (the whole cache of them: they quote
texts, and they regenerate), the snapshot files when they cite the item.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from feedback_intelligence.deterministic.alerts import match_alerts
from feedback_intelligence.deterministic.category_override import category_advice
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.outputs.snapshot import HTML_NAME, JSON_NAME
from feedback_intelligence.records import AlertHit, StoredFeedback, Structure
from feedback_intelligence.report.prose.store import ProseStore
from feedback_intelligence.services import tombstones
from feedback_intelligence.services.change_rule import Actor
from feedback_intelligence.services.channels import Channel
from feedback_intelligence.store.audit import AuditEntry
from feedback_intelligence.store.errors import StaleRevision
from feedback_intelligence.store.rows import rule_advice_json
from feedback_intelligence.store.tombstones import Tombstone

log = logging.getLogger(__name__)

__all__ = ["STRUCTURE_FIELDS", "Actor", "correction_values", "erase", "merged_structure"]

STRUCTURE_FIELDS = ("category", "theme", "severity", "type", "sentiment")


def _entry(at: str, actor: Actor, change_id: str, action: str, feedback_id: str, **values: Any) -> AuditEntry:
    return AuditEntry(
        at=at,
        change_id=change_id,
        actor_kind=actor.kind,
        actor_id=actor.id,
        actor_name=actor.name,
        action=action,
        feedback_id=feedback_id,
        **values,
    )


def correction_values(
    item: StoredFeedback, changes: dict[str, str], domain: Domain, actor: Actor, *, clock: Clock = SYSTEM_CLOCK
) -> tuple[dict[str, Any], list[AuditEntry]]:
    """The columns to write and the audit rows of a correction (only fields that really change), each row
    at ``clock``'s now."""
    change_id = secrets.token_hex(16)
    at = format_instant(clock.now())
    values: dict[str, Any] = {}
    entries: list[AuditEntry] = []
    if "text" in changes and changes["text"] != item.text:
        hits = match_alerts(changes["text"], domain)
        values["text"] = changes["text"]
        values["alerts_json"] = json.dumps([a.to_json() for a in hits], ensure_ascii=False, separators=(",", ":"))
        entries.append(_entry(at, actor, change_id, "item.correct", item.id, field="text"))  # the fact only
        before, after = _categories(item.alerts), _categories(hits)
        if before != after:  # the domain's alert categories, never the words that matched
            entries.append(
                _entry(at, actor, change_id, "item.correct", item.id, field="alerts", old_value=before, new_value=after)
            )
    if "store" in changes and changes["store"] != item.store:
        values["store"] = changes["store"]
        entries.append(
            _entry(
                at,
                actor,
                change_id,
                "item.correct",
                item.id,
                field="store",
                old_value=item.store,
                new_value=changes["store"],
            )
        )
    structure_changes = {k: v for k, v in changes.items() if k in STRUCTURE_FIELDS}
    if structure_changes and item.structure is not None:
        old = item.structure.to_json()
        new = {**old, **structure_changes}
        for name in STRUCTURE_FIELDS:
            if old.get(name) != new.get(name):
                entries.append(
                    _entry(
                        at,
                        actor,
                        change_id,
                        "item.correct",
                        item.id,
                        field=name,
                        old_value=None if old.get(name) is None else str(old.get(name)),
                        new_value=None if new.get(name) is None else str(new.get(name)),
                    )
                )
        if new != old:
            values["structure_json"] = json.dumps(new, ensure_ascii=False, separators=(",", ":"))
            values["structure_failed"] = False
    if item.structure is not None and ("text" in values or "structure_json" in values):
        # The corrected structure is a person's: kept as given, with what the rules would choose (ADR 0045).
        text = values.get("text", item.text)
        structure = merged_structure(item, structure_changes)
        advice = category_advice(text, structure, match_alerts(text, domain), domain)
        values["rule_advice_json"] = rule_advice_json((advice,) if advice else ())
    return values, entries


def _categories(hits: Sequence[AlertHit]) -> str | None:
    """The alert categories of ``hits`` as the audit row holds them: sorted, comma-separated; None for none."""
    return ",".join(sorted({hit.category for hit in hits})) or None


def merged_structure(item: StoredFeedback, changes: dict[str, str]) -> Structure | None:
    """The structure after the correction, for validation; None when the item has none to correct."""
    if item.structure is None:
        return None
    data = {**item.structure.to_json(), **{k: v for k, v in changes.items() if k in STRUCTURE_FIELDS}}
    return Structure(
        category=data["category"],
        theme=data["theme"],
        severity=data["severity"],
        type=data["type"],
        language=data["language"],
        sentiment=data.get("sentiment"),
    )


async def erase(
    channel: Channel,
    item: StoredFeedback,
    actor: Actor,
    *,
    elsewhere: Sequence[Channel],
    expected_revision: int | None,
    prose: ProseStore,
    snapshot_dir: Path,
    clock: Clock = SYSTEM_CLOCK,
) -> bool:
    """Erase ``item`` of ``channel``; ``elsewhere``, the other channels, refuse its id from then on.
    False when the item is gone; :class:`StaleRevision` when ``If-Match`` named another revision."""
    entry = _entry(format_instant(clock.now()), actor, secrets.token_hex(16), "item.erase", item.id)
    current = await channel.store.revision(item.id)
    if current is None:
        return False
    if expected_revision is not None and current[0] != expected_revision:
        raise StaleRevision(item.id, current[0])  # before the spread: a refused erasure refuses no id
    await tombstones.spread(elsewhere, Tombstone(item.id, entry.at, item.store))
    if not await channel.store.erase(item.id, entry, expected_revision=expected_revision):
        return False
    try:
        await prose.clear()
    except Exception:  # the layers expire with their TTL; the operator is told to check
        log.exception("erasure of %s: the report prose layers could not be cleared", item.id)
    _drop_snapshot_citing(snapshot_dir, item)
    return True


def _drop_snapshot_citing(directory: Path, item: StoredFeedback) -> None:
    """The saved snapshot is removed when it cites the item (its id or its words); the next one is written anew."""
    paths = [directory / JSON_NAME, directory / HTML_NAME]
    cites = False
    for path in paths:
        try:
            body = path.read_text(encoding="utf-8")
        except OSError:
            continue
        if f'"{item.id}"' in body or item.id in body or item.text in body or json.dumps(item.text)[1:-1] in body:
            cites = True
    if cites:
        for path in paths:
            path.unlink(missing_ok=True)
        log.info("erasure of %s: the saved snapshot cited it and was removed", item.id)
