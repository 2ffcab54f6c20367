"""The LLM layer of the report: a yes/no alert screen, alert reasons and cited theme prose.

Everything here is optional decoration on the deterministic report. Each model answer passes
the guards before it is used; anything that fails, is shed or runs out of budget falls back to
the deterministic text and is counted, never raised.

Saturation policy (a product decision, not the reference's): the report stops calling the model
for the rest of its generation as soon as one call is shed (the gate had no slot for a background
caller within the acquire timeout, or the backend said it is busy) or the backend is plainly
unable to serve (unreachable, still loading, or a call ran into its deadline). Every synthesis
part still ahead (and the nomination call, if items were already confirmed) is then counted as a
fallback without a call, and the alert screen stops with the rest of its candidates unscreened
(the screen fails closed; confirmed items keep their alert with the generic reason). So under a saturated gate a
report costs about one acquire timeout of LLM waiting instead of one per part, and a report
never keeps knocking on a gate that live visitors are using. A model that answers badly
(unparseable, ungrounded, directive prose, or a plain backend error) does not stop the report:
the next part may well succeed.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections import Counter
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from feedback_intelligence.config import ReportSettings
from feedback_intelligence.domain.model import (
    ALERT_NOMINATION_ROLE,
    ALERT_VERIFY_ROLE,
    DATA_PLACEHOLDER,
    SYNTHESIS_ROLE,
    TEXT_PLACEHOLDER,
    Domain,
)
from feedback_intelligence.llm.errors import LlmBusy, LlmDeadlineExceeded, LlmPreempted, LlmUnavailable, LlmWarming
from feedback_intelligence.metrics import Metrics
from feedback_intelligence.prompting.runner import PromptRunner
from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.report.deterministic_layer import Group, alert_row
from feedback_intelligence.report.model import AlertRow
from feedback_intelligence.report.prose.call_rate import RATE, CallRate
from feedback_intelligence.report.prose.guards import is_grounded, looks_action_bearing, strip_id_echo
from feedback_intelligence.report.prose.layer import AUTOMATIC_MODEL, BUDGET, ThemeProse
from feedback_intelligence.report.prose.quality import prose_rejection
from feedback_intelligence.report.prose.replies import NominationReply, SynthesisReply, parsed_reply
from feedback_intelligence.report.trends import direction_label
from feedback_intelligence.store.aggregates import Example
from feedback_intelligence.structuring.extract import extract_json_object
from feedback_intelligence.structuring.untrusted import neutralize
from feedback_intelligence.wording.excerpt import excerpt
from feedback_intelligence.wording.sentences import Wording, wording_for

log = logging.getLogger(__name__)

ROUTE = "report"
VERIFY_MAX_TOKENS = 12
NOMINATION_MAX_TOKENS = 700
MAX_EXCERPTS_PER_THEME = 8
VERDICTS_KEPT = 20_000

_UNSERVICEABLE = (LlmUnavailable, LlmWarming, LlmDeadlineExceeded)
_VERDICT_SPLIT = re.compile(r"[\s.,!?:;\"'\-—()]+")
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


@dataclass(slots=True)
class LlmLedger:
    """One report's LLM budget and what became of it."""

    budget: int  # synthesis + nomination calls allowed
    verify_budget: int  # yes/no screen calls allowed
    calls: int = 0  # calls that took from ``budget`` (attempted, whatever the outcome)
    verify_calls: int = 0
    shed: int = 0  # calls the gate or backend shed (busy), preemptions included
    # calls a waiting visitor preempted, in this generation's attempts so far (aging, docs/adr/0017)
    preempted: int = 0
    failed: int = 0  # calls that raised anything else
    fallbacks: int = 0  # parts that used deterministic text: infrastructure, budget, unusable reply
    dropped_claims: int = 0  # ungrounded citations
    action_dropped: int = 0  # directive prose
    stopped: str | None = None  # "busy" / "unavailable": the report stopped calling the model
    rejected: Counter[str] = field(default_factory=Counter)  # prose a prose guard kept out, by reason
    screen_candidates: int = 0
    screened: int = 0
    screen_confirmed: int = 0
    screen_running: bool = False
    screen_stopped: str | None = None  # why candidates were left unscreened (the ledger's stop, or the budget)

    @property
    def remaining(self) -> int:
        return self.budget - self.calls

    @property
    def verify_remaining(self) -> int:
        return self.verify_budget - self.verify_calls

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "budget": self.budget,
            "verifyCalls": self.verify_calls,
            "verifyBudget": self.verify_budget,
            "shed": self.shed,
            "preempted": self.preempted,
            "failed": self.failed,
            "stopped": self.stopped,
            "rejected": dict(self.rejected),
            "screen": {
                "candidates": self.screen_candidates,
                "screened": self.screened,
                "confirmed": self.screen_confirmed,
                "running": self.screen_running,
                "stopped": self.screen_stopped,
            },
        }


def alert_verdict(reply: str, wording: Wording) -> bool:
    """A yes/no screen reply: any "no" token wins, then a "yes" token; anything else is no."""
    text = unicodedata.normalize("NFC", _THINK.sub(" ", reply)).lower()
    tokens = set(_VERDICT_SPLIT.split(text))
    if wording.no_word in tokens:
        return False
    return wording.yes_word in tokens


def synthesis_schema(shown_ids: Sequence[str]) -> dict[str, Any]:
    """Constrained output: cited ids can only be ids the model was shown (the gate still checks).

    The length caps matter for small models, which otherwise repeat a word inside ``narrative``
    until the token cap and never close the object (seen with SmolLM2-135M).
    """
    return {
        "type": "object",
        "properties": {
            "title": {"type": "string", "minLength": 1, "maxLength": 80},
            "narrative": {"type": "string", "minLength": 1, "maxLength": 600},
            "citedIds": {
                "type": "array",
                "items": {"type": "string", "enum": list(shown_ids)},
                "minItems": 1,
                "maxItems": 12,
            },
        },
        "required": ["title", "narrative", "citedIds"],
        "additionalProperties": False,
    }


def nomination_schema(ids: Sequence[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "alerts": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "enum": list(ids)},
                        "reason": {"type": "string", "maxLength": 240},
                    },
                    "required": ["id", "reason"],
                },
            }
        },
        "required": ["alerts"],
    }


class OverCallRate(Exception):
    """A report model call the per-minute bound kept from the model (report/prose/call_rate.py)."""


class ReportLlm:
    """Runs the report's model calls at background priority; ``runner=None`` means no model at all."""

    def __init__(
        self,
        domain: Domain,
        options: ReportSettings,
        runner: PromptRunner | None,
        metrics: Metrics | None = None,
        call_rate: CallRate | None = None,
    ) -> None:
        self.domain = domain
        self.options = options
        self.runner = runner
        self.metrics = metrics
        # one bound for every report of the process (the runtime hands the same one to each)
        self.call_rate = call_rate or CallRate(options.model_calls_per_minute, metrics)
        self.wording = wording_for(domain.language)
        # the screen's verdicts, remembered per (item, text): a report over the same items asks only about
        # new ones (until the screen columns of migration 0009 keep them in the row)
        self._verdicts: dict[tuple[str, str], bool] = {}

    @property
    def writes_prose(self) -> bool:
        """Whether theme summaries are asked of the model (FI_REPORT_PROSE, resolved at start-up)."""
        return self.runner is not None and self.options.prose != "automatic"

    def screen_candidates(self, items: Sequence[StoredFeedback]) -> list[StoredFeedback]:
        """Keyword-silent, non-praise items: what the screen asks about."""
        return [i for i in items if not i.alerts and not self._is_praise(i)]

    def _remember(self, item: StoredFeedback, verdict: bool) -> None:
        if len(self._verdicts) >= VERDICTS_KEPT:
            self._verdicts.clear()
        self._verdicts[(item.id, item.text)] = verdict

    def new_ledger(self, preempted: int = 0) -> LlmLedger:
        """``preempted``: preemptions of this generation's earlier attempts (aging carries across them)."""
        if self.runner is None:
            return LlmLedger(budget=0, verify_budget=0)
        return LlmLedger(
            budget=self.options.llm_budget, verify_budget=self.options.alert_verify_budget, preempted=preempted
        )

    # -- calls -------------------------------------------------------------------------------

    async def _complete(
        self,
        ledger: LlmLedger,
        prompt: str,
        *,
        max_tokens: int,
        temperature: float,
        json_schema: dict[str, Any] | None = None,
    ) -> str:
        assert self.runner is not None
        if not await self.call_rate.take():
            ledger.stopped = ledger.stopped or RATE  # this part and the rest of the generation: automatic
            raise OverCallRate(f"over FI_REPORT_MODEL_CALLS_PER_MINUTE ({self.call_rate.per_minute})")
        try:
            return await self.runner.complete(
                prompt,
                self.runner.background(ROUTE, ledger.preempted),
                max_tokens=max_tokens,
                temperature=temperature,
                json_schema=json_schema,
            )
        except LlmPreempted:
            # A clerk took the slot: like a shed, the part stays pending and the generation retries.
            ledger.preempted += 1
            ledger.shed += 1
            ledger.stopped = ledger.stopped or "busy"
            raise
        except LlmBusy:
            ledger.shed += 1
            ledger.stopped = ledger.stopped or "busy"
            raise
        except _UNSERVICEABLE:
            ledger.failed += 1
            ledger.stopped = ledger.stopped or "unavailable"
            raise
        except Exception:
            ledger.failed += 1
            raise

    # -- alert screen (may add alerts, never removes one) --------------------------------------

    def _is_praise(self, item: StoredFeedback) -> bool:
        """``praise``, or any type the domain maps to a positive sentiment (domains name types freely)."""
        structure = item.structure
        if structure is None:
            return False
        return structure.type == "praise" or self.domain.type_sentiment.get(structure.type) == "positive"

    def praise_types(self) -> list[str]:
        """The types ``_is_praise`` reads as praise: the screen's candidates leave them out in the query."""
        return sorted({"praise", *(t for t, s in self.domain.type_sentiment.items() if s == "positive")})

    def screens(self, ledger: LlmLedger) -> bool:
        """Whether the alert screen will ask at all (so its candidates are fetched only then)."""
        template = self.domain.prompts.get(ALERT_VERIFY_ROLE)
        return bool(self.options.alert_nomination and ledger.remaining > 0 and ledger.verify_budget > 0 and template)

    async def screen_alerts(
        self,
        items: Sequence[StoredFeedback],
        ledger: LlmLedger,
        progress: Callable[[], Awaitable[None]] | None = None,
    ) -> list[AlertRow]:
        """Ask yes/no per keyword-silent, non-praise item; confirmed items become model alert rows.

        Fails closed: an error, a shed or an unclear reply means "not an alert". The screen runs
        only while the report still has synthesis budget, and has a budget of its own; a verdict is
        remembered, so the next report asks only about new items. ``progress`` runs after each call,
        so the view shows how far the screen got (the ledger's ``screen`` counts).
        """
        template = self.domain.prompts.get(ALERT_VERIFY_ROLE)
        if not self.options.alert_nomination or ledger.remaining <= 0 or ledger.verify_budget <= 0:
            return []
        if template is None:
            log.warning("report: domain %s has no %s prompt; alert screen skipped", self.domain.name, ALERT_VERIFY_ROLE)
            return []
        candidates = self.screen_candidates(items)
        ledger.screen_candidates = len(candidates)
        ledger.screen_running = True
        confirmed: list[StoredFeedback] = []
        try:
            for index, item in enumerate(candidates):
                known = self._verdicts.get((item.id, item.text))
                if known is not None:
                    ledger.screened += 1
                    if known:
                        confirmed.append(item)
                    continue
                if ledger.verify_remaining <= 0 or ledger.stopped:
                    ledger.screen_stopped = ledger.stopped or BUDGET
                    log.info(
                        "report: alert screen stopped (%s); %d candidate(s) unscreened",
                        ledger.screen_stopped,
                        len(candidates) - index,
                    )
                    break
                ledger.verify_calls += 1
                prompt = template.replace(TEXT_PLACEHOLDER, neutralize(item.text))
                try:
                    reply = await self._complete(ledger, prompt, max_tokens=VERIFY_MAX_TOKENS, temperature=0.0)
                except Exception as exc:
                    log.info("report: alert screen call failed closed for %s: %s", item.id, exc)
                    continue
                verdict = alert_verdict(reply, self.wording)
                self._remember(item, verdict)
                ledger.screened += 1
                if verdict:
                    confirmed.append(item)
                ledger.screen_confirmed = len(confirmed)
                if progress is not None:
                    await progress()
        finally:
            ledger.screen_confirmed = len(confirmed)
            ledger.screen_running = False
            if ledger.screened < ledger.screen_candidates and ledger.screen_stopped is None:
                ledger.screen_stopped = ledger.stopped or "failed"  # the last calls failed (closed)
        if not confirmed:
            return []
        reasons = await self._nominate(confirmed, ledger)
        ids = [i.id for i in confirmed]
        return [alert_row(i, (), self._reason(reasons.get(i.id), ids), self.options, self.domain) for i in confirmed]

    async def _nominate(self, confirmed: Sequence[StoredFeedback], ledger: LlmLedger) -> dict[str, Any]:
        """One call for the reasons of (at most ``max_items_per_llm_call``) confirmed items."""
        template = self.domain.prompts.get(ALERT_NOMINATION_ROLE)
        if ledger.stopped:
            ledger.fallbacks += 1
            return {}
        if template is None or ledger.remaining <= 0:
            return {}
        batch = confirmed[: self.options.max_items_per_llm_call]
        lines = [
            f"- [{neutralize(i.id)}] ({neutralize(i.structure.category) if i.structure else '?'}"
            f"/{neutralize(i.structure.severity) if i.structure else '?'}) "
            f'"{neutralize(excerpt(i.text, self.options.excerpt_chars))}"'
            for i in batch
        ]
        ids = [i.id for i in batch]
        ledger.calls += 1
        try:
            raw = await self._complete(
                ledger,
                template.replace(DATA_PLACEHOLDER, "\n".join(lines)),
                max_tokens=NOMINATION_MAX_TOKENS,
                temperature=0.0,
                json_schema=nomination_schema(ids),
            )
        except Exception as exc:
            log.info("report: alert nomination fell back: %s", exc)
            ledger.fallbacks += 1
            return {}
        obj = extract_json_object(raw or "").obj
        if obj is None:
            ledger.fallbacks += 1
            return {}
        reply = parsed_reply(NominationReply, obj)
        reasons: dict[str, Any] = {}
        for entry in reply.nominated() if reply is not None else ():
            if entry.id in ids:
                reasons.setdefault(entry.id, entry.reason)
        return reasons

    def _reason(self, reason: Any, ids: Collection[str]) -> str:
        if isinstance(reason, str) and reason.strip() and not looks_action_bearing(reason):
            stripped = strip_id_echo(reason.strip(), ids)
            if stripped:
                return stripped
        return self.wording.generic_alert_reason

    # -- theme synthesis ----------------------------------------------------------------------

    async def synthesize(self, ledger: LlmLedger, *, scope: str, group: Group, direction: str) -> ThemeProse:
        """Checked model prose for ``group`` (its counts and newest items), or the reason the automatic
        summary stands (counted)."""
        template = self.domain.prompts.get(SYNTHESIS_ROLE)
        if not self.writes_prose and self.runner is not None:
            return ThemeProse.automatic(AUTOMATIC_MODEL)  # said once in the view; not a fallback
        if ledger.stopped or ledger.remaining <= 0 or template is None:
            if template is None:
                log.warning("report: domain %s has no %s prompt", self.domain.name, SYNTHESIS_ROLE)
            ledger.fallbacks += 1
            # a report budget of 0 is the operator's "no model for reports", not a share used up
            unused = self.runner is None or ledger.budget <= 0
            return ThemeProse.automatic(ledger.stopped or ("no_model" if unused else "budget"))
        shown = list(group.newest[: min(MAX_EXCERPTS_PER_THEME, self.options.max_items_per_llm_call)])
        ledger.calls += 1
        try:
            raw = await self._complete(
                ledger,
                template.replace(DATA_PLACEHOLDER, self._data_block(scope, group, direction, shown)),
                max_tokens=self.options.synthesis_max_tokens,
                temperature=self.options.synthesis_temperature,
                json_schema=synthesis_schema([i.id for i in shown]),
            )
        except Exception as exc:
            log.info("report: synthesis for %s fell back: %s", scope, exc)
            ledger.fallbacks += 1
            return ThemeProse.automatic(ledger.stopped or "failed")
        return self._checked_prose(raw, [e.id for e in group.newest], ledger, template)

    def _data_block(self, scope: str, group: Group, direction: str, shown: Sequence[Example]) -> str:
        w = self.wording
        severities = group.severities.most_common()
        themes = group.themes[:6]
        lines = [
            f"{self.domain.category_field_label}: {scope}",
            f"{w.data_count}: {group.count}",
            f"{w.data_trend}: {direction_label(direction, self.domain.language)}",
            f"{w.data_severities}: " + ", ".join(f"{neutralize(s)} {n}" for s, n in severities),
            f"{w.data_themes}: " + ", ".join(f"{neutralize(t)} ({n})" for t, n in themes),
            f"{w.data_excerpts}:",
        ]
        for item in shown:
            severity = item.severity or "?"
            text = neutralize(excerpt(item.text, self.options.excerpt_chars))
            lines.append(f'- [{neutralize(item.id)}] "{text}" ({neutralize(severity)})')
        return "\n".join(lines)

    def _checked_prose(self, raw: str, ids: Sequence[str], ledger: LlmLedger, template: str) -> ThemeProse:
        reply = parsed_reply(SynthesisReply, extract_json_object(raw or "").obj)
        if reply is None:
            ledger.fallbacks += 1
            return ThemeProse.automatic("unparseable")
        if reply.cited_ids and not is_grounded(reply.cited_ids, set(ids)):
            ledger.dropped_claims += 1
            return ThemeProse.automatic("ungrounded")
        title, narrative = reply.title.strip(), reply.narrative.strip()
        if looks_action_bearing(title) or looks_action_bearing(narrative):
            ledger.action_dropped += 1
            return ThemeProse.automatic("directive")
        title, narrative = strip_id_echo(title, ids), strip_id_echo(narrative, ids)
        if not title or not narrative:
            ledger.fallbacks += 1
            return ThemeProse.automatic("empty")
        rejection = prose_rejection(
            title, narrative, reply.cited_ids, language=self.domain.language, prompt_lines=template.splitlines()
        )
        if rejection is not None:
            ledger.rejected[rejection] += 1
            if self.metrics is not None:
                self.metrics.report_prose_rejected.labels(rejection).inc()
            return ThemeProse.automatic(rejection)
        return ThemeProse(title=title, narrative=narrative)
