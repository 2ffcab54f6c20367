"""One evaluation: load the domain's set, run it through a service over HTTP, score every split."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from feedback_intelligence.deterministic.category_keywords import match_category_keywords
from feedback_intelligence.deterministic.prior import propose_structure
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.evaluation.client import Observation, RunOptions, run_set
from feedback_intelligence.evaluation.dataset import SPLITS, EvalItem, EvalSetError, load_set, select
from feedback_intelligence.evaluation.scoring import scorecard
from feedback_intelligence.evaluation.themes import theme_check_of as theme_figures_check
from feedback_intelligence.evaluation.themes import theme_figures
from feedback_intelligence.structuring.guards.theme import theme_rejection


def prior_proposals(items: list[EvalItem], domain: Domain) -> dict[str, dict[str, Any]]:
    """The deterministic prior's proposal per item (no model), as the baseline's values."""
    return {item.id: propose_structure(item.text, domain).to_json() for item in items}


def keyword_category_of(domain: Domain) -> Callable[[str], str | None]:
    """The category the keyword rules point to (what the category guard would impose), for their precision."""
    return lambda text: match_category_keywords(text, domain.category_keywords, domain.incident_places)


def theme_check_of(domain: Domain) -> Callable[[str, str], bool]:
    """The guards' own theme check: a shown theme it rejects is a defect of the guarding."""
    return lambda theme, text: theme_rejection(theme, text, domain) is not None


def service_info(base_url: str, token: str | None = None) -> dict[str, Any]:
    """Backend kind, model and domain from the operator status board (None values when it cannot be read).

    An unreachable service raises ``httpx.TransportError``: there is nothing to measure."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = httpx.get(base_url.rstrip("/") + "/admin/status", headers=headers, timeout=15)
    try:
        status = response.json() if response.status_code == 200 else {}
    except ValueError:
        status = {}
    status = status if isinstance(status, dict) else {}
    backend = status.get("backend") or {}
    return {
        "domain": status.get("domain"),
        "backend": backend.get("kind"),
        "model": backend.get("model"),
        "slots": (status.get("gate") or {}).get("slots"),
    }


async def evaluate(
    base_url: str,
    domain: Domain,
    split: str = "all",
    options: RunOptions | None = None,
    on_done: Callable[[Observation], None] | None = None,
    items: list[EvalItem] | None = None,
) -> dict[str, Any]:
    """The full result: service info, and a scorecard per split (``all`` also scores dev and holdout)."""
    info = service_info(base_url, options.token if options else None)
    if info["domain"] and info["domain"] != domain.name:
        raise EvalSetError(f"the service at {base_url} runs domain '{info['domain']}', not '{domain.name}'")
    chosen = select(items if items is not None else load_set(domain), split)
    observations, concurrency = await run_set(base_url, chosen, options, on_done)
    priors = prior_proposals(chosen, domain)
    theme_rejected, keyword_category = theme_check_of(domain), keyword_category_of(domain)
    check = theme_figures_check(domain)
    parts = [split] if split != "all" else [s for s in SPLITS if any(i.split == s for i in chosen)] + ["all"]
    splits = {
        part: scorecard(
            select(chosen, part),
            observations,
            domain,
            priors=priors,
            theme_rejected=theme_rejected,
            keyword_category=keyword_category,
            theme_scores=lambda chosen_items, themes: theme_figures(chosen_items, themes, check),
        )
        for part in parts
    }
    return {
        "domain": domain.name,
        "target": base_url,
        "service": info,
        "concurrency": concurrency,
        "split": split,
        "splits": splits,
        "observations": [_observation_json(o) for o in observations],
    }


def _observation_json(o: Observation) -> dict[str, Any]:
    return {
        "id": o.item_id,
        "structure": o.structure,
        "guards": list(o.guards),
        "alerts": sorted(o.alerts),
        "failed": o.failed,
        "salvaged": o.salvaged,
        "latencyMs": o.latency_ms,
        "retries": o.retries,
        "error": o.error,
    }
