"""The structuring prompt: a domain-neutral template, filled once per domain, then once per call.

The template is the packaged ``prompts/structuring.txt`` unless the domain ships its own under the
``structuring`` role of its ``prompts`` map, or the caller passes one explicitly. Where the rules decide
every field but the theme (the domain's ``priorFields``), the model is asked for the theme alone, with
the packaged ``prompts/theme.txt`` (:meth:`StructuringPrompt.theme_only`): a shorter prompt and schema.
Domain values are filled in a single pass, so nothing a domain declares can introduce a placeholder; the feedback text
is spliced last, fenced and neutralised, into the slots where the template said ``{{text}}``.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from feedback_intelligence.domain.model import STRUCTURING_ROLE, TEXT_PLACEHOLDER, Domain, normalize_newlines
from feedback_intelligence.structuring.untrusted import fence

log = logging.getLogger(__name__)

_PACKAGED_PROMPT = "structuring.txt"
_PACKAGED_THEME_PROMPT = "theme.txt"
# The corrective re-prompt's own words (the service appends them; the theme guard knows them as prompt text).
CORRECTION_INTRO = "Your previous reply was rejected:"
CORRECTION_ASK = "Reply with ONLY the corrected JSON object, nothing else."
_DOMAIN_PLACEHOLDERS = re.compile(r"\{\{(categories|severities|types|sentiments)\}\}")


class PromptTemplateError(ValueError):
    """The structuring template is unusable (it has no ``{{text}}`` slot, or cannot be read)."""


@lru_cache(maxsize=2)
def packaged_template(name: str = _PACKAGED_PROMPT) -> str:
    """A packaged template (the full structure's by default), read once from the package data."""
    source = resources.files("feedback_intelligence.structuring").joinpath("prompts", name)
    return normalize_newlines(source.read_text(encoding="utf-8"))


def packaged_theme_template() -> str:
    """The template that asks for the theme alone."""
    return packaged_template(_PACKAGED_THEME_PROMPT)


def read_template(path: str | Path) -> str:
    try:
        return normalize_newlines(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise PromptTemplateError(f"cannot read the structuring prompt {path}: {exc}") from exc


def render_categories(domain: Domain) -> str:
    """One line per category, ``"<key>" (<Label>)`` or ``"<key>" (<Label> — <hint>)``."""
    lines = []
    for key, label in domain.categories.items():
        hint = (domain.category_hints.get(key) or "").strip()
        detail = f"{label} — {hint}" if hint else label
        lines.append(f"{json.dumps(key, ensure_ascii=False)} ({detail})")
    return "\n  ".join(lines)


def render_enum(keys: Iterable[str]) -> str:
    """``["low", "medium", ...]`` from an ordered collection of keys."""
    return "[" + ", ".join(json.dumps(k, ensure_ascii=False) for k in keys) + "]"


@dataclass(frozen=True, slots=True)
class StructuringPrompt:
    """A template filled for one domain; :meth:`render` splices one feedback text into it."""

    segments: tuple[str, ...]  # the filled template, split where the feedback text goes

    @classmethod
    def for_domain(
        cls, domain: Domain, *, template: str | None = None, path: str | Path | None = None
    ) -> StructuringPrompt:
        """Fill ``template`` (else the file at ``path``, else the domain's own, else the packaged one)."""
        if template is None:
            if path is not None:
                template = read_template(path)
            else:
                template = domain.prompts.get(STRUCTURING_ROLE) or packaged_template()
        template = normalize_newlines(template)
        if TEXT_PLACEHOLDER not in template:
            raise PromptTemplateError(f"the structuring prompt has no {TEXT_PLACEHOLDER} placeholder")
        if "{{categories}}" not in template:
            log.warning("the structuring prompt for domain %r has no {{categories}} placeholder", domain.name)
        values = {
            "categories": render_categories(domain),
            "severities": render_enum(domain.severities),
            "types": render_enum(domain.types),
            "sentiments": render_enum(domain.sentiments),
        }
        segments = tuple(
            _DOMAIN_PLACEHOLDERS.sub(lambda m: values[m.group(1)], part) for part in template.split(TEXT_PLACEHOLDER)
        )
        return cls(segments)

    @classmethod
    def theme_only(cls, domain: Domain, *, template: str | None = None) -> StructuringPrompt:
        """The prompt that asks for the theme alone (``template``, else the packaged ``theme.txt``)."""
        template = normalize_newlines(template if template is not None else packaged_theme_template())
        if TEXT_PLACEHOLDER not in template:
            raise PromptTemplateError(f"the theme prompt has no {TEXT_PLACEHOLDER} placeholder")
        return cls(tuple(template.split(TEXT_PLACEHOLDER)))

    @classmethod
    def instructions(cls, domain: Domain) -> str:
        """The domain's templates as the model reads them (the full one and the theme-only one), minus the
        category list and the feedback slot.

        The category list is left out on purpose: its labels and hints are the domain's vocabulary,
        words a real theme may use; what remains is instruction text a theme must never echo.
        """
        template = normalize_newlines(domain.prompts.get(STRUCTURING_ROLE) or packaged_template())
        template = f"{template}\n{packaged_theme_template()}"
        values = {
            "categories": "",
            "severities": render_enum(domain.severities),
            "types": render_enum(domain.types),
            "sentiments": render_enum(domain.sentiments),
        }
        filled = _DOMAIN_PLACEHOLDERS.sub(lambda m: values[m.group(1)], template.replace(TEXT_PLACEHOLDER, "\n"))
        return f"{filled}\n{CORRECTION_INTRO}\n{CORRECTION_ASK}"

    def render(self, text: str) -> str:
        """The prompt for one feedback text: fenced between markers the text cannot forge."""
        return fence(text).join(self.segments)
