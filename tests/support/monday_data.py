"""A small chain's fortnight for the manager's brief: five named stores (FI_STORES), steady payment noise in
every store both weeks (it opens no case: it waits for the day's digest), a legal threat per store and
week, one planted rise (bread complaints in one store this week), and one food-safety case newer than
every legal one, so only the tier (not age) puts it first."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

STORES = [
    {"id": "hki-kamppi", "name": "Helsinki Kamppi"},
    {"id": "esp-isoomena", "name": "Espoo Iso Omena"},
    {"id": "tre-hervanta", "name": "Tampere Hervanta"},
    {"id": "tku-skanssi", "name": "Turku Skanssi"},
    {"id": "oulu-limingantulli", "name": "Oulu Limingantulli"},
]
RISE_STORE = "tre-hervanta"
RISE_CATEGORY = "leipa"
SAFETY_STORE = "esp-isoomena"
SAFETY_ID = "safety-1"


@dataclass(frozen=True)
class Fortnight:
    items: list[dict[str, Any]]
    this_week: dict[str, int]  # items per store in the seven days up to now
    week_before: dict[str, int]


def _structure(category: str, severity: str = "medium", kind: str = "complaint") -> dict[str, str]:
    return {"category": category, "theme": category, "severity": severity, "type": kind, "language": "fi"}


def fortnight(now: datetime, *, rise_before: int = 3, rise_now: int = 24, noise: int = 3) -> Fortnight:
    """Items of the fourteen days before ``now``: ``noise`` payment complaints per store and week, steady
    bread complaints in every store, and in :data:`RISE_STORE` ``rise_before`` → ``rise_now`` of them."""
    items: list[dict[str, Any]] = []
    this_week = dict.fromkeys((s["id"] for s in STORES), 0)
    week_before = dict(this_week)

    def add(store: str, days_ago: float, text: str, structure: dict[str, str], ident: str | None = None) -> None:
        stamp = now - timedelta(days=days_ago)
        items.append(
            {
                "id": ident or f"m-{len(items)}",
                "source": "email",
                "text": text,
                "timestamp": stamp.isoformat(),
                "store": store,
                "acceptedStructure": structure,
            }
        )
        (this_week if days_ago < 7 else week_before)[store] += 1

    for week, base in ((0, 0.5), (1, 7.5)):
        for store in STORES:
            for n in range(noise):
                add(
                    store["id"],
                    base + 5.5 - n * 0.1,
                    f"Kortilta veloitettiin kahteen kertaan, kuitti {week}-{n}.",
                    _structure("kuiva_elintarvike", "high"),
                )
            add(  # a threat of the consumer disputes board: a case of a lower tier than food safety, older
                store["id"],
                base + 5.8,
                f"Asiakas vaati hyvitystä ja sanoi vievänsä asian kuluttajariitalautakuntaan ({week}).",
                _structure("kassa_palvelu", "high"),
            )
            bread = (rise_now if week == 0 else rise_before) if store["id"] == RISE_STORE else 2
            for n in range(bread):
                add(
                    store["id"],
                    base + 0.2 + (n % 5) * 0.9,
                    f"Leipä oli homeessa jo ostopäivänä ({week}-{n}).",
                    _structure(RISE_CATEGORY),
                )
    add(
        SAFETY_STORE,
        0.3,
        "Koko perhe sai ruokamyrkytyksen grillibroilerista, lapsi oksensi koko yön.",
        _structure("liha_kala", "critical"),
        SAFETY_ID,
    )
    return Fortnight(items, this_week, week_before)
