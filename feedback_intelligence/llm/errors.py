"""The failure vocabulary every LLM caller speaks.

Two families matter to callers, because each endpoint degrades differently
(docs/invariants.md, invariant 5): a *shed* (the GPU is busy: answer 503, store nothing) and a
*failure* (the LLM is down, broken or too slow: store as structure_failed, fall back).
"""

from __future__ import annotations


class LlmError(Exception):
    """Base of every LLM-path error."""


class LlmBusy(LlmError):
    """Shed: no slot within the acquire timeout, or the backend said it is busy."""

    def __init__(self, reason: str, retry_after_s: int = 1, detail: str = "") -> None:
        self.reason = reason
        self.retry_after_s = max(1, int(retry_after_s))
        super().__init__(detail or f"LLM busy ({reason})")


class LlmPreempted(LlmBusy):
    """Background work gave its slot to a waiting visitor: its call was cancelled mid-way (the backend
    request too) and the work is to be requeued. Not a failure and not the work's fault: callers
    that treat a shed as "try again later" already do the right thing; those that can, count the
    preemption on the work item (aging: after ``FI_LLM_PREEMPT_MAX`` it is no longer preempted)."""

    def __init__(self, retry_after_s: int = 1, detail: str = "") -> None:
        super().__init__("preempted", retry_after_s, detail or "LLM call preempted by a waiting visitor")


class LlmFailure(LlmError):
    """The backend could not produce an answer (down, error, bad reply, deadline).

    ``str(exc)`` is the operator's detail (backend address, its own error text) for logs and the
    operator routes; :attr:`public` says what is wrong without internal addresses, for answers to
    the public, stored notes and ``/health``."""

    public_message = "the language model failed to answer"

    def __init__(self, detail: str = "", *, public: str | None = None) -> None:
        super().__init__(detail or self.public_message)
        self.public = public or self.public_message


class LlmUnavailable(LlmFailure):
    """The backend cannot be reached at all."""

    public_message = "the language model backend cannot be reached"


class LlmTransportFailure(LlmFailure):
    """The connection to the backend broke during a call (reset, closed mid-reply): the server
    went away, so a pool of backends takes it out like an unreachable one."""


class LlmWarming(LlmFailure):
    """The backend answers but its model is still loading."""

    public_message = "the model is still loading"


class LlmDeadlineExceeded(LlmFailure):
    """The call ran past its deadline; an LLM failure, never a client disconnect."""

    public_message = "the language model call ran past its deadline"


class LlmEngineCrashed(LlmFailure):
    """The embedded engine's process ended during the call (crashed, killed, out of memory); its
    supervisor restarts it. An LLM failure like any other: the service itself lives on."""

    public_message = "the embedded language model engine stopped during the call and is restarting"
