"""Structure one feedback text through the gate: prompt, parse, at most one corrective re-prompt.

Model misbehaviour never raises: after two unusable replies the result carries no structure,
the reasons as notes and the last raw reply. A usable reply passes the guards
(:mod:`feedback_intelligence.structuring.guards`): a rejected value is replaced by the deterministic prior's and
the rejection kept as a note and counted. Transport outcomes do raise, because each caller
degrades its own way: :class:`~feedback_intelligence.llm.errors.LlmBusy` (shed: 503, store
nothing) and :class:`~feedback_intelligence.llm.errors.LlmFailure` (down/broken: structure_failed).

The rules read the text once (:class:`~feedback_intelligence.deterministic.reading.Reading`), when the
model's first reply arrives: the parser, the guards and the caller (``StructuringResult.reading``) all use
that one reading.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace

from feedback_intelligence.deterministic.reading import Reading, reading_of
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.metrics import Metrics
from feedback_intelligence.prompting.runner import PromptRunner
from feedback_intelligence.records import Structure
from feedback_intelligence.structuring.guards.rejection import Rejection
from feedback_intelligence.structuring.guards.structure import guard_structure
from feedback_intelligence.structuring.parser import ParseResult, parse_structure, parse_theme
from feedback_intelligence.structuring.prompt import CORRECTION_ASK, CORRECTION_INTRO, StructuringPrompt
from feedback_intelligence.structuring.schema import asks_theme_only, structure_json_schema, theme_json_schema
from feedback_intelligence.structuring.untrusted import neutralize
from feedback_intelligence.text.first_part import first_part, read_note

log = logging.getLogger(__name__)

# A theme-only reply is ``{"theme": "…"}`` of at most THEME_MAX_CHARS characters; Finnish letters can take
# two tokens each, so 80 tokens cut some replies short (a re-prompt: 9 of 110 in bench/interpret_latency).
THEME_ONLY_MAX_TOKENS = 128


@dataclass(frozen=True, slots=True)
class StructuringResult:
    structure: Structure | None  # None = structure_failed
    raw_response: str  # the last reply, kept for diagnosis (not stored with the feedback)
    salvaged: bool  # the accepted (or last) reply needed unwrapping
    normalized: bool  # a field value was trimmed, lowercased or taken from an array
    retried: bool
    notes: tuple[str, ...] = ()
    rejections: tuple[Rejection, ...] = ()  # model values the guards replaced (their notes are in ``notes``)
    # the rules' reading of the text the model read (its first part for a long text), once a reply came;
    # a caller asking about the same text takes it from here instead of reading the text again
    reading: Reading | None = field(default=None, compare=False, repr=False)

    @property
    def failed(self) -> bool:
        return self.structure is None


def correction_prompt(prompt: str, violations: list[str]) -> str:
    """The original prompt plus what was wrong; the violations quote model output, so neutralised."""
    listed = "; ".join(neutralize(v) for v in violations)
    return f"{prompt}\n\n{CORRECTION_INTRO} {listed}\n{CORRECTION_ASK}"


class StructuringService:
    """Asks the model for a structure through the runner and checks the reply before anyone sees it.

    At most two calls per text (one corrective re-prompt). Unusable model output never raises: the
    result then has no structure, the reasons as notes and the raw reply. Transport outcomes raise
    (:class:`~feedback_intelligence.llm.errors.LlmBusy`, :class:`~feedback_intelligence.llm.errors.LlmFailure`).
    """

    def __init__(
        self,
        runner: PromptRunner,
        domain: Domain,
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        use_schema: bool = True,
        prompt: StructuringPrompt | None = None,
        deadline_s: float | None = None,
        metrics: Metrics | None = None,
        read_max_chars: int | None = None,
    ) -> None:
        """Fills the prompt now, so a broken template stops the boot rather than every call.

        Where the domain's ``priorFields`` give every field but the theme to the rules, the model is asked
        for the theme alone (a shorter prompt and schema, a faster answer), unless ``prompt`` is given.
        ``read_max_chars``: the model reads at most this much of a text (FI_INPUT_MAX_CHARS); a longer
        stored text is structured from its first part, and the result's notes say so."""
        self.runner = runner
        self.read_max_chars = read_max_chars
        self.domain = domain
        self.theme_only = prompt is None and asks_theme_only(domain)
        self.max_tokens = min(max_tokens, THEME_ONLY_MAX_TOKENS) if self.theme_only else max_tokens
        self.temperature = temperature
        self.deadline_s = deadline_s
        self.metrics = metrics
        if self.theme_only:
            self.prompt = StructuringPrompt.theme_only(domain)
            self.json_schema = theme_json_schema() if use_schema else None
        else:
            self.prompt = prompt or StructuringPrompt.for_domain(domain)
            self.json_schema = structure_json_schema(domain) if use_schema else None

    def _parse(self, raw: str, reading: Reading) -> ParseResult:
        if self.theme_only:
            return parse_theme(raw, reading.prior)
        return parse_structure(raw, self.domain)

    def background(self, route: str, preemptions: int) -> CallContext:
        """The context of background structuring on ``route`` for an item preempted ``preemptions``
        times before (the gate's aging rule decides whether it is still preemptible)."""
        return self.runner.background(route, preemptions)

    def overdue(self, route: str) -> CallContext:
        """The context of a row that has waited past its bound (docs/adr/0031)."""
        return self.runner.overdue(route)

    async def _ask(self, prompt: str, context: CallContext) -> str:
        return await self.runner.complete(
            prompt,
            context,
            max_tokens=self.max_tokens,
            temperature=self.temperature,
            json_schema=self.json_schema,
            deadline_s=self.deadline_s,
        )

    async def structure(self, text: str, context: CallContext) -> StructuringResult:
        """``context``: whose call this is, at which priority, and whether it may be preempted."""
        read = first_part(text, self.read_max_chars)
        result = await self._structure(read, context)
        if read == text:
            return result
        return replace(result, notes=(*result.notes, read_note(len(read), len(text))))

    async def _structure(self, text: str, context: CallContext) -> StructuringResult:
        prompt = self.prompt.render(text)
        raw = await self._ask(prompt, context)
        # read once the model answered: a call shed or failed costs the rules nothing
        reading = reading_of(text, self.domain)
        first = self._parse(raw, reading)
        if first.valid:
            return self._guarded(reading, _result(first, raw, reading, retried=False, notes=first.notes))

        log.info("structuring reply rejected, re-prompting once: %s", "; ".join(first.violations))
        raw = await self._ask(correction_prompt(prompt, first.violations), context)
        second = self._parse(raw, reading)
        notes = [f"first attempt: {v}" for v in first.violations]
        if second.valid:
            return self._guarded(reading, _result(second, raw, reading, retried=True, notes=notes + second.notes))
        log.warning("structuring failed after a re-prompt: %s", "; ".join(second.violations))
        notes += [f"retry: {v}" for v in second.violations]
        return _result(second, raw, reading, retried=True, notes=notes + second.notes)

    def _guarded(self, reading: Reading, result: StructuringResult) -> StructuringResult:
        assert result.structure is not None
        guarded = guard_structure(result.structure, reading, self.domain)
        notes = list(result.notes)
        before, after = result.structure.theme, guarded.structure.theme
        if after != before and not any(r.field == "theme" for r in guarded.rejections):
            # an accepted theme, in base form: said in the notes like any other normalisation
            notes.append(f"'theme' normalized from '{before}' to '{after}' (base form)")
        if not guarded.rejections:
            if after == before:
                return result
            return replace(result, structure=guarded.structure, normalized=True, notes=tuple(notes))
        if self.metrics is not None:
            self.metrics.count_rejections(guarded.rejections)
        log.info("guards replaced %s", ", ".join(f"{r.field} ({r.reason})" for r in guarded.rejections))
        return replace(
            result,
            structure=guarded.structure,
            normalized=result.normalized or after != before,
            notes=(*notes, *guarded.notes),
            rejections=guarded.rejections,
        )


def _result(parsed: ParseResult, raw: str, reading: Reading, *, retried: bool, notes: list[str]) -> StructuringResult:
    return StructuringResult(
        structure=parsed.structure,
        raw_response=raw,
        salvaged=parsed.salvaged,
        normalized=parsed.normalized,
        retried=retried,
        notes=tuple(notes),
        reading=reading,
    )
