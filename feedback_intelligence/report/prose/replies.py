"""The report's model replies as models: what a synthesis or nomination reply must hold to be used.

A reply is untrusted text: :func:`extract_json_object` finds the object, these models say whether it
has the shape the prompt asked for (``llm_layer.synthesis_schema`` / ``nomination_schema`` constrain
decoding; a backend may ignore them). Extra keys are ignored; the guards judge the content after.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictStr, ValidationError


class _Reply(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True, frozen=True)


R = TypeVar("R", bound=_Reply)


class SynthesisReply(_Reply):
    title: StrictStr
    narrative: StrictStr
    # Each cited id is checked against the theme's items by ``guards.is_grounded``: a citation that is
    # not an id (a number, an object) makes the prose ungrounded, not unparseable.
    cited_ids: list[Any] = Field(alias="citedIds")


class NominatedAlert(_Reply):
    id: StrictStr
    reason: StrictStr | None = None


class NominationReply(_Reply):
    alerts: list[Any]  # entries checked one by one: one broken entry does not void the others

    def nominated(self) -> list[NominatedAlert]:
        """The well-formed entries, in the reply's order."""
        out = []
        for entry in self.alerts:
            try:
                out.append(NominatedAlert.model_validate(entry))
            except ValidationError:
                continue
        return out


def parsed_reply(model: type[R], obj: dict[str, Any] | None) -> R | None:
    """``obj`` as ``model``, or None when it lacks the shape."""
    if obj is None:
        return None
    try:
        return model.model_validate(obj)
    except ValidationError:
        return None
