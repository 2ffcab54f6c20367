"""The caller of a change as the change rule and the audit log see them, and the rule's verdict for a
request (``services/change_rule.py`` holds the rule itself)."""

from __future__ import annotations

from starlette.requests import Request

from feedback_intelligence.api.authorship import author_of, visitor_hash
from feedback_intelligence.api.deps import is_operator
from feedback_intelligence.api.runtime import Runtime
from feedback_intelligence.auth.principal import principal_of
from feedback_intelligence.edge.visitor import STATE_KEY as VISITOR_STATE_KEY
from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.services import change_rule as rule

__all__ = ["actor_of", "change_verdict"]


def actor_of(request: Request) -> rule.Actor:
    """The caller as the change rule and the audit log see them."""
    principal = principal_of(request.scope)
    operator = is_operator(request)
    author = author_of(request.scope)
    if principal is not None:
        return rule.Actor("account", principal.account_id, principal.display_name[:100], principal, operator, author)
    if operator:
        return rule.Actor("operator", None, None, None, True, author)
    visitor = request.scope.get("state", {}).get(VISITOR_STATE_KEY)
    return rule.Actor("visitor", visitor_hash(visitor) if visitor else None, None, author=author)


def change_verdict(request: Request, rt: Runtime, item: StoredFeedback) -> rule.Verdict:
    return rule.verdict(
        actor_of(request),
        item,
        auth_enabled=rt.settings.auth.enabled,
        window_s=rt.settings.auth.correction_window_s,
        now=rt.clock.now(),
    )
