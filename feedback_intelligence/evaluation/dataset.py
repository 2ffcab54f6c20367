"""A domain's labelled evaluation set: ``domains/<name>/eval/set.jsonl``, one item a line.

Each item carries gold values for the five scored fields (and, where labelled, its issue), the
alert categories a correct reading raises, and a ``split``: ``dev`` items may be looked at while
writing rules and prompts, ``holdout`` items may not (see the README beside each set).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from feedback_intelligence.domain.model import Domain

SCORED_FIELDS: tuple[str, ...] = ("category", "severity", "type", "sentiment", "language")
SPLITS: tuple[str, ...] = ("dev", "holdout")
#: The items of ``feedctl eval --from-corrections``: the chain's corrected entries (evaluation/corrections.py).
CORRECTIONS_SPLIT = "corrections"
SET_FILE = Path("eval") / "set.jsonl"


class EvalSetError(ValueError):
    """The set file is missing or an item breaks a rule; the message names the line."""


@dataclass(frozen=True, slots=True)
class EvalItem:
    id: str
    split: str
    text: str
    gold: dict[str, str]  # field -> gold value, for every field in SCORED_FIELDS
    alerts: frozenset[str]  # alert categories a correct reading raises
    tags: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()  # gold topic words in base form, in the text's language (a theme names one)
    issue: str | None = None  # the gold issue (deterministic/issue.py), where the set labels it


def set_path(domain: Domain) -> Path:
    if domain.directory is None:
        raise EvalSetError(f"domain '{domain.name}' was not loaded from a folder, so it ships no evaluation set")
    return domain.directory / SET_FILE


def load_set(domain: Domain, path: Path | None = None) -> list[EvalItem]:
    """Every item of the set, validated against ``domain``'s enums; raises :class:`EvalSetError`."""
    path = path or set_path(domain)
    if not path.is_file():
        raise EvalSetError(f"no evaluation set at {path}")
    items: list[EvalItem] = []
    seen: set[str] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EvalSetError(f"{path.name}:{number}: not JSON ({exc.msg})") from exc
        item = _item(raw, f"{path.name}:{number}")
        problems = label_problems(item, domain)
        if item.id in seen:
            problems.append(f"duplicate id '{item.id}'")
        if problems:
            raise EvalSetError(f"{path.name}:{number}: " + "; ".join(problems))
        seen.add(item.id)
        items.append(item)
    if not items:
        raise EvalSetError(f"{path} holds no items")
    return items


def _item(raw: object, where: str) -> EvalItem:
    if not isinstance(raw, dict):
        raise EvalSetError(f"{where}: an item must be a JSON object")
    try:
        gold = raw["gold"]
        if not isinstance(gold, dict):
            raise TypeError("gold")
        return EvalItem(
            id=str(raw["id"]),
            split=str(raw["split"]),
            text=str(raw["text"]),
            gold={field: str(gold[field]) for field in SCORED_FIELDS},
            alerts=frozenset(str(a) for a in raw.get("alerts", [])),
            tags=tuple(str(t) for t in raw.get("tags", [])),
            topics=tuple(str(t) for t in raw.get("topics", [])),
            issue=str(gold["issue"]) if gold.get("issue") is not None else None,
        )
    except (KeyError, TypeError) as exc:
        raise EvalSetError(f"{where}: missing or malformed {exc}") from exc


def label_problems(item: EvalItem, domain: Domain) -> list[str]:
    """What in an item's labels the domain does not declare (an empty list when all is well)."""
    allowed = {
        "category": domain.categories,
        "severity": domain.severities,
        "type": domain.types,
        "sentiment": domain.sentiments,
    }
    problems = [
        f"gold {field} '{item.gold[field]}' is not declared by domain '{domain.name}'"
        for field, values in allowed.items()
        if item.gold[field] not in values
    ]
    if item.issue is not None and item.issue not in domain.issues:
        problems.append(f"gold issue '{item.issue}' is not declared by domain '{domain.name}'")
    language = item.gold["language"]
    if len(language) != 2 or not language.isascii() or not language.islower():
        problems.append(f"gold language '{language}' is not a two-letter ISO 639-1 code")
    problems += [
        f"alert category '{a}' is not in the domain's alert lexicon"
        for a in sorted(item.alerts)
        if a not in domain.alert_keywords
    ]
    if item.split not in SPLITS:
        problems.append(f"split '{item.split}' is not one of {', '.join(SPLITS)}")
    if not item.text.strip():
        problems.append("empty text")
    problems += [f"topic '{t}' is not one lower-case word" for t in item.topics if t != t.lower() or " " in t]
    return problems


def select(items: list[EvalItem], split: str) -> list[EvalItem]:
    """``dev``, ``holdout`` or ``all``."""
    if split == "all":
        return list(items)
    if split == CORRECTIONS_SPLIT:
        return [item for item in items if item.split == split]
    if split not in SPLITS:
        raise EvalSetError(f"split must be dev, holdout or all, not '{split}'")
    return [item for item in items if item.split == split]
