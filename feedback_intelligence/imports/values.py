"""The values of an import mapped to what the service takes (ADR 0059): a form tool's channel labels to
the domain's sources, store names to store ids, and its dates and times to UTC instants.

A value map is a small JSON object (``feedctl load --values FILE``, or the page's choices):
``{"source": {"Verkkolomake": "web_form"}, "store": {"Keskusta": "hki-1"}}``; a label is matched
trimmed and case-insensitively, and a value the map does not name is sent as it is. A store's *name* as
in ``FI_STORES`` (the service's ``/schema``) needs no map: it is matched exactly, case-insensitively,
and becomes the store's id.

A time is ISO 8601 or Finnish, ``d.m.yyyy``, ``d.m.yyyy hh.mm``, ``d.m.yyyy hh.mm.ss`` (``.`` or ``:``
between hours, minutes and seconds), found value by value. A time without an offset is the shop's
clock (the service's ``FI_TIMEZONE``), unless ``naive_utc``: so a naive Helsinki export lands at the
instant it names, in summer and in winter. The hour repeated when summer time ends is read as the first
of the two (summer time); a time in the hour skipped when it begins never happened and is refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from feedback_intelligence.imports.rows import ImportRefused, Line

MAPPED_FIELDS = ("source", "store")
_FINNISH = re.compile(
    r"(?P<d>\d{1,2})\.(?P<mo>\d{1,2})\.(?P<y>\d{4})"
    r"(?:[ T]+(?:klo\s*)?(?P<h>\d{1,2})[.:](?P<mi>\d{2})(?:[.:](?P<s>\d{2}))?)?"
)


def _fold(label: str) -> str:
    return label.strip().casefold()


def value_map_of(raw: Any, where: str) -> dict[str, dict[str, str]]:
    """A value map read as JSON (``--values FILE``, the page's label choices): field → {folded label →
    value}; raises ImportRefused naming what is wrong, ``where`` saying whose map it is."""
    example = '{"source": {"Verkkolomake": "web_form"}, "store": {"Keskusta": "hki-1"}}'
    if not isinstance(raw, dict):
        raise ImportRefused(f"{where}: expected an object such as {example}")
    mapping: dict[str, dict[str, str]] = {}
    for field, labels in raw.items():
        if field not in MAPPED_FIELDS:
            raise ImportRefused(f"{where}: '{field}' cannot be mapped (only {', '.join(MAPPED_FIELDS)})")
        if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
            raise ImportRefused(f"{where}: '{field}' must map labels to values, as in {example}")
        folded: dict[str, str] = {}
        for label, value in labels.items():
            if _fold(label) in folded:
                raise ImportRefused(f"{where}: '{field}' maps '{label}' twice (labels ignore case)")
            folded[_fold(label)] = value
        mapping[field] = folded
    return mapping


@dataclass(frozen=True)
class ValueMapper:
    """Maps one item's values; built from ``--values``, the service's ``/schema`` and ``--naive-utc``."""

    values: Mapping[str, Mapping[str, str]]
    store_ids: Mapping[str, str]  # folded store name → id (FI_STORES), empty when the service lists none
    zone: ZoneInfo
    naive_utc: bool = False

    @classmethod
    def of(cls, values: Mapping[str, Mapping[str, str]], schema: Mapping[str, Any], naive_utc: bool) -> ValueMapper:
        stores = schema.get("stores") or []
        names = {_fold(s["name"]): s["id"] for s in stores if isinstance(s, dict) and "id" in s and "name" in s}
        zone_name = schema.get("timezone") or "UTC"
        try:
            zone = ZoneInfo(zone_name)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ImportRefused(f"the service's timezone '{zone_name}' is not one this machine knows") from exc
        return cls(values, names, zone, naive_utc)

    def map_line(self, line: Line) -> tuple[Line, list[str]]:
        """The line with its values mapped, and what could not be (empty when all is well)."""
        item = dict(line.item)
        problems: list[str] = []
        for field in MAPPED_FIELDS:
            value = item.get(field)
            if isinstance(value, str):
                item[field] = self.values.get(field, {}).get(_fold(value), value)
        store = item.get("store")
        if isinstance(store, str):
            item["store"] = self.store_ids.get(_fold(store), store)
        timestamp = item.get("timestamp")
        if isinstance(timestamp, str):
            try:
                item["timestamp"] = self.instant(timestamp)
            except ValueError as exc:
                problems.append(str(exc))
        return Line(line.number, item), problems

    def instant(self, text: str) -> str:
        """``text`` as a UTC instant (``2026-09-06T05:30:19Z``); as given when Python cannot read it (the
        line check then names it); raises ValueError for a time the shop's clock never showed."""
        value = text.strip()
        finnish = _FINNISH.fullmatch(value)
        try:
            if finnish is not None:
                parts = {k: int(v) for k, v in finnish.groupdict(default="0").items()}
                moment = datetime(parts["y"], parts["mo"], parts["d"], parts["h"], parts["mi"], parts["s"])
            else:
                moment = datetime.fromisoformat(value)
        except ValueError:
            return text  # a form only the service reads (seven fraction digits), or none: the check names it
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC) if self.naive_utc else self._on_shop_clock(moment, text)
        return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")

    def _on_shop_clock(self, local: datetime, text: str) -> datetime:
        aware = local.replace(tzinfo=self.zone, fold=0)  # fold 0: the first of a repeated hour
        if aware.astimezone(UTC).astimezone(self.zone).replace(tzinfo=None) != local:
            raise ValueError(
                f"timestamp {text!r} did not happen in {self.zone.key} (the hour skipped when summer time began)"
            )
        return aware
