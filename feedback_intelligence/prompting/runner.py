"""The one road from a prompt to a backend: through the gate, with a priority and a deadline."""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.slots import Grant
from feedback_intelligence.llm.backend import ChatMessage, Completion, CompletionRequest, LlmBackend
from feedback_intelligence.metrics import Metrics

#: The backends that served the calls made under it, in order: a caller that wants to know who answered (the
#: desk's interpretation, ADR 0065) sets a list; the list object is shared with any task the gate starts.
SERVED_BY: ContextVar[list[str] | None] = ContextVar("served_by", default=None)


class PromptRunner:
    """Sends single-turn prompts to the backend whose slot the gate granted, each call admitted by the gate.

    Raises :class:`~feedback_intelligence.llm.errors.LlmBusy` when shed (its subclass
    :class:`~feedback_intelligence.llm.errors.LlmPreempted` when a background call gave its slot to a
    waiting visitor) and
    :class:`~feedback_intelligence.llm.errors.LlmFailure` (or a subclass) when the backend fails.
    Counts the tokens of every completion in ``metrics`` (a private registry when none is given).
    """

    def __init__(
        self,
        gate: LlmGate,
        backend: LlmBackend,
        metrics: Metrics | None = None,
        backends: Mapping[str, LlmBackend] | None = None,
    ) -> None:
        self.gate = gate
        self.backend = backend  # the first of the pool; the only one under the one-backend shorthand
        self.backends = dict(backends or {})
        self.metrics = metrics or Metrics()

    def granted(self, grant: Grant) -> LlmBackend:
        """The backend whose slot ``grant`` is."""
        return self.backends.get(grant.backend, self.backend)

    def background(self, route: str, preemptions: int) -> CallContext:
        """Background work on ``route`` whose item was preempted ``preemptions`` times before: preemptible
        until the gate's ``FI_LLM_PREEMPT_MAX`` (aging, docs/adr/0017)."""
        return CallContext.background(route, preemptible=self.gate.preemptible(preemptions))

    def overdue(self, route: str) -> CallContext:
        """Background work past its bounded wait: asked as a visitor, never preempted (docs/adr/0031)."""
        return CallContext.overdue(route)

    async def complete(
        self,
        prompt: str,
        context: CallContext,
        *,
        max_tokens: int,
        temperature: float = 0.0,
        json_schema: dict[str, Any] | None = None,
        deadline_s: float | None = None,
    ) -> str:
        """One completion for ``context`` (whose call, its priority and route, whether preemptible)."""
        request = CompletionRequest(
            messages=[ChatMessage("user", prompt)],
            max_tokens=max_tokens,
            temperature=temperature,
            json_schema=json_schema,
            deadline_s=deadline_s or self.gate.call_timeout_s,
        )

        async def call(grant: Grant) -> Completion:
            completion = await self.granted(grant).complete(request)
            served = SERVED_BY.get()
            if served is not None:
                served.append(grant.backend)
            return completion

        completion = await self.gate.run(call, context, deadline_s=deadline_s)
        self.metrics.llm_tokens.labels("prompt").inc(completion.prompt_tokens)
        self.metrics.llm_tokens.labels("completion").inc(completion.completion_tokens)
        return completion.text
