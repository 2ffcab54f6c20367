"""The inbox's filters, read from the query in one place: every report, list and export of the management
view narrows by the one :class:`ItemFilter` this dependency builds (ADR 0034).

Each value must be one of the domain's keys (``/schema``), ``any`` or an alert category for ``alert``,
``corpus`` or ``live`` for ``channel``; anything else is a 422 naming the field and what it accepts, so a
stale shared link says what is wrong instead of showing an empty view. An unknown ``store`` stays the 400
``store_unknown`` every route that takes a store answers (ADR 0024 section 2). A field given twice
is a 422 too: ADR 0024 plans a repeat as OR within the field, which is not built, and the last value
alone would narrow silently. A caller that must
narrow further (a manager's store grant) replaces fields of the built filter, never re-reads the query.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Annotated

from fastapi import Depends, Query, Request

from feedback_intelligence.api import validation as v
from feedback_intelligence.api.deps import RuntimeDep
from feedback_intelligence.api.errors import InputError
from feedback_intelligence.api.problems import Problem
from feedback_intelligence.api.scope import ManagerReach, narrow
from feedback_intelligence.services.channels import CORPUS, LIVE
from feedback_intelligence.store.aggregates import ANY_ALERT, ItemFilter
from feedback_intelligence.store.search import query_words

Q_MAX_CHARS = 200  # a search is a few words; the page cuts what it sends at the same length
CHANNELS = (CORPUS, LIVE)


def _unknown(field: str, value: str, allowed: Iterable[str]) -> Problem:
    keys = list(allowed)
    return Problem(
        f"{field} must be one of [{', '.join(keys)}], got '{value[:64]}'.",
        "filter_unknown",
        field=field,
        value=value[:64],
    )


FIELDS = ("store", "category", "issue", "severity", "type", "sentiment", "source", "alert", "channel", "q", "advice")


def item_filter(
    request: Request,
    rt: RuntimeDep,
    store: str | None = Query(
        None, description="Only this store's items (one of FI_STORES, or an id of FI_STORE_PATTERN)."
    ),
    category: str | None = Query(None, description="Only this category (a key of `/schema` `categories`)."),
    issue: str | None = Query(None, description="Only this issue, the problem reported (a key of `/schema` `issues`)."),
    severity: str | None = Query(None, description="Only this severity (a key of `/schema` `severities`)."),
    type: str | None = Query(None, description="Only this feedback type (a key of `/schema` `types`)."),
    sentiment: str | None = Query(None, description="Only this sentiment (a key of `/schema` `sentiments`)."),
    source: str | None = Query(None, description="Only items from this source (one of `/schema` `sources`)."),
    alert: str | None = Query(
        None, description="`any`: items with an operational alert; an alert category (`/schema` `alertCategories`)."
    ),
    channel: str | None = Query(None, description="`corpus` (imported) or `live` (the desk) alone; none = both."),
    q: str | None = Query(
        None, description=f"Every word a substring of the text, case and accents folded (≤ {Q_MAX_CHARS})."
    ),
    advice: bool | None = Query(
        None,
        description="`true`: only items where a deterministic rule disagrees with the person's value (its "
        "`ruleAdvice`, ADR 0045), the manager's list of disagreements; `false`: only items where none does.",
    ),
) -> ItemFilter:
    """The filter of ``/report``, ``/report/items``, ``/report/items.csv`` and ``/report/stores``; 422 for an
    unknown value (400 for an unknown store)."""
    domain = rt.domain
    unknown_store = v.store_errors(store, rt.settings.chain.stores)
    if unknown_store:  # 400 store_unknown, as on every route that takes a store (ADR 0024 section 2)
        raise InputError(unknown_store)
    problems: list[str] = [
        # one value per field for now: a second would otherwise be dropped without a word (OR is not built)
        Problem(f"{field} may be given once, got {n} values.", "filter_repeated", field=field)
        for field in FIELDS
        if (n := len(request.query_params.getlist(field))) > 1
    ]
    for field, value, allowed in (
        ("category", category, domain.categories),
        ("issue", issue, domain.issues),
        ("severity", severity, domain.severities),
        ("type", type, domain.types),
        ("sentiment", sentiment, domain.sentiments),
        ("source", source, domain.sources),
        ("alert", alert, (ANY_ALERT, *domain.alert_keywords)),
        ("channel", channel, CHANNELS),
    ):
        if value is not None and value not in allowed:
            problems.append(_unknown(field, value, allowed))
    if q is not None and len(q) > Q_MAX_CHARS:
        problems.append(Problem(f"q must be at most {Q_MAX_CHARS} characters.", "q_too_long", limit=Q_MAX_CHARS))
    if problems:
        raise InputError(problems, status_code=422)
    return ItemFilter(
        store=store,
        category=category,
        issue=issue,
        severity=severity,
        type=type,
        sentiment=sentiment,
        source=source,
        alert=alert,
        channel=channel,
        q=q if q is not None and query_words(q) else None,  # a blank search narrows nothing
        advice=advice,
    )


ItemFilterDep = Annotated[ItemFilter, Depends(item_filter)]


def scoped_filter(flt: ItemFilterDep, reach: ManagerReach) -> ItemFilter:
    """The request's filter within the stores the caller's roles reach (api/scope.py): another store is
    403 ``store_forbidden``; with none named a person of one store reads that store. Every managers'
    read of many items takes its filter from here."""
    return replace(flt, store=narrow(reach.stores, flt.store).store)


ScopedFilter = Annotated[ItemFilter, Depends(scoped_filter)]
