"""Wire models (camelCase, as the pages speak). Every field carries a description for the API's own
documentation at ``/docs``; the active domain's enums and the text limit are added to the schema
when the app is built (:mod:`feedback_intelligence.api.openapi`), since they depend on settings.

Here: the shared base, the error bodies and the desk's bodies; other surfaces' bodies in modules of their
own (``operator``, ``cases``, ``people``). A route returns a model, not a dict, wherever its answer has a
fixed shape (docs/adr/0050-routes-return-models.md)."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, GetJsonSchemaHandler, StrictBool, StringConstraints
from pydantic.fields import ComputedFieldInfo, FieldInfo
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from feedback_intelligence.config.stores import STORE_MAX_CHARS
from feedback_intelligence.text import bounds
from feedback_intelligence.text.normalize import NUL_FREE_PATTERN, TextRuleError, normalize_text, single_line

# Client text enters the domain here: every string field of a request body is normalised
# (feedback_intelligence.text.normalize) and bounded (feedback_intelligence.text.bounds) before any
# route, gate or store sees it. A refusal is a 400 whose message and code name the rule.


def _language(value: str) -> str:
    value = single_line(value)
    if not re.fullmatch(bounds.LANGUAGE_PATTERN, value):
        raise TextRuleError(
            "must be a language tag such as 'fi' or 'en-GB' (letters, digits and '-')", "language_invalid"
        )
    return value


class SentText(str):
    """Normalised text that remembers how long it was as sent (the length the schema's maxLength counts)."""

    sent_length: int


def _normalized(raw: str) -> str:
    text = SentText(normalize_text(raw))
    text.sent_length = len(raw)
    return text


class _RefusesNul:
    """The schema says what ``single_line`` refuses: a NUL anywhere (400 ``text_nul_character``). A pattern
    set later by the API's schema (an id's, a store's) is narrower and stays."""

    def __get_pydantic_json_schema__(self, core_schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = handler(core_schema)
        schema.setdefault("pattern", NUL_FREE_PATTERN)
        return schema


Text = Annotated[str, AfterValidator(_normalized)]
Key = Annotated[
    str, StringConstraints(max_length=bounds.TAXONOMY_KEY_MAX_CHARS), AfterValidator(single_line), _RefusesNul()
]
Theme = Annotated[str, StringConstraints(max_length=bounds.THEME_MAX_CHARS), AfterValidator(single_line), _RefusesNul()]
Language = Annotated[str, StringConstraints(max_length=bounds.LANGUAGE_MAX_CHARS), AfterValidator(_language)]
FieldValue = Annotated[
    str, StringConstraints(max_length=bounds.CORRECTION_VALUE_MAX_CHARS), AfterValidator(single_line), _RefusesNul()
]
StoreId = Annotated[str, StringConstraints(max_length=STORE_MAX_CHARS), AfterValidator(single_line), _RefusesNul()]
Instant = Annotated[
    str, StringConstraints(max_length=bounds.TIMESTAMP_MAX_CHARS), AfterValidator(single_line), _RefusesNul()
]


def _title(name: str, _: FieldInfo | ComputedFieldInfo) -> str:
    """``alertCategories`` → ``Alert categories`` (pydantic's own would be ``Alertcategories``)."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).lower()
    return words[:1].upper() + words[1:]


def _absent(value: Any) -> bool:
    return value is None


class ApiModel(BaseModel):
    model_config = ConfigDict(field_title_generator=_title)


class _Wire(ApiModel):
    """A request body: unknown keys are ignored, so an older client keeps working."""

    model_config = ConfigDict(extra="ignore", field_title_generator=_title)


# ------------------------------------------------------------------------------------------ errors


class ErrorCode(ApiModel):
    """One broken rule as a code a client can translate; the parameters say which field and by how much."""

    model_config = ConfigDict(extra="allow", field_title_generator=_title)
    code: str = Field(
        description="Stable code, e.g. `text_too_long`, `source_unknown`, `value_not_in_taxonomy`, "
        "`timestamp_invalid`, `field_missing`, `body_not_json`, `body_too_large`."
    )
    # Left out when absent (as the error handlers write them), also when a model serialises them.
    field: str | None = Field(None, description="The field at fault, when there is one.", exclude_if=_absent)
    limit: int | None = Field(
        None, description="The limit that was exceeded (characters or bytes).", exclude_if=_absent
    )
    length: int | None = Field(None, description="The length that was sent.", exclude_if=_absent)
    value: str | None = Field(None, description="The value that was refused.", exclude_if=_absent)


class ErrorsBody(ApiModel):
    """400 (and 413): the request broke a rule; nothing was stored."""

    errors: list[str] = Field(description="One English message per broken rule, each naming its rule.")
    codes: list[ErrorCode] = Field(
        default_factory=list, description="The same rules as codes, in the same order, for clients to translate."
    )


class NotFoundBody(ApiModel):
    """404: no such item, no saved snapshot yet, or a route this caller may not use."""

    error: str = Field(description="`not found`, `no snapshot` or `Not Found`.")
    id: str | None = Field(None, description="The id that was asked for.")


class ErasedBody(ApiModel):
    """410: the item with this id was erased (a tombstone without personal data remains)."""

    error: str = Field(description="`erased`.")
    id: str = Field(description="The erased item's id.")


class DuplicateBody(ApiModel):
    """409: an item with this id is already stored (a retried save): nothing was changed."""

    error: str = Field(description="Always `duplicate id`.")
    id: str = Field(description="The id that is already stored.")


class RateLimitedBody(ApiModel):
    """429: this client sent too much, or its previous LLM request is still running."""

    error: str = Field(description="`rate_limited` or `too_many_inflight`.")
    reason: str | None = Field(None, description="Which ceiling was hit (per client or per address).")
    retryAfterSeconds: int = Field(description="Seconds to wait; also in the `Retry-After` header.")
    message: str = Field(description="A sentence for a person.")


class CrossSiteBody(ApiModel):
    """403: a page on another site tried to change data here (``Origin`` or ``Sec-Fetch-Site`` says so)."""

    error: str = Field(description="Always `cross_site_request`.")
    message: str = Field(description="A sentence for a person.")


class BusyBody(ApiModel):
    """503: the LLM is busy (shed after waiting at most the acquire timeout), unavailable, or a store is down."""

    error: str = Field(description="`busy` (shed), `llm_unavailable` or `store_unavailable`.")
    retryAfterSeconds: int = Field(description="Seconds to wait; also in the `Retry-After` header.")
    reason: str | None = Field(None, description="Why a request was shed (e.g. `acquire_timeout`).")
    detail: str | None = Field(None, description="What failed, for an operator.")
    message: str | None = Field(None, description="A sentence for a person.")
    store: str | None = Field(None, description="With `store_unavailable`: which store.")


# ------------------------------------------------------------------------------------------ feedback


class StructureBody(_Wire):
    """The structure of one text, as the clerk accepted it (bounded, normalised)."""

    category: Key = Field(description="The domain's category key.")
    theme: Theme = Field(
        description="A short free-text theme, in the text's language (one line, at most "
        f"{bounds.THEME_MAX_CHARS} characters)."
    )
    severity: Key = Field(description="How serious it is.")
    type: Key = Field(description="What kind of feedback it is.")
    language: Language = Field(description="The text's language tag (e.g. `fi`, `en-GB`).")
    sentiment: Key | None = Field(None, description="The tone; when absent it follows from `type`.")


class StructureOut(ApiModel):
    """The structure of one text: what the model suggests, or what is stored."""

    category: str = Field(description="The domain's category key.")
    theme: str = Field(description="A short free-text theme, in the text's language.")
    severity: str = Field(description="How serious it is.")
    type: str = Field(description="What kind of feedback it is.")
    language: str = Field(description="The text's language (e.g. `fi`).")
    # No ``sentiment`` key when there is none: the wire shape of a structure everywhere (records.Structure).
    sentiment: str | None = Field(
        None, description="The tone; when absent it follows from `type`.", exclude_if=lambda value: value is None
    )


class CorrectionIn(_Wire):
    """One field the clerk changed from the model's suggestion."""

    field: Key = Field(description="The structure field that was changed.")
    modelValue: FieldValue | None = Field(None, description="What the model suggested.")
    humanValue: FieldValue | None = Field(None, description="What the clerk chose instead.")


class ProposerIn(_Wire):
    """Whose proposal the clerk saved: the `proposedBy` of the interpretation, echoed."""

    backend: Key = Field(description="The backend's public name; one the service does not run is recorded as unknown.")
    model: Key | None = Field(None, description="Ignored: the service records the model it runs on that backend.")


class ProposerOut(ApiModel):
    """The backend (by its public name) and model that proposed a structure."""

    backend: str = Field(description="The backend's public name (FI_LLM_BACKENDS), or `unknown`.")
    model: str = Field(description="The model it runs, or `unknown`.")


class FeedbackIn(_Wire):
    """One feedback item to store."""

    id: str | None = Field(
        None, description="Client-made id ([A-Za-z0-9._-]); a retried save with the same id never duplicates (409)."
    )
    source: Key = Field(description="Where the feedback came from (one of the domain's sources).")
    text: Text = Field(
        description="The customer's words, stored untrimmed. NUL and unpaired surrogates are "
        "refused; bidi controls and zero-width spaces are dropped (NFC)."
    )
    timestamp: Instant | None = Field(None, description="ISO-8601 instant; offset-less means UTC; absent means now.")
    acceptedStructure: StructureBody | None = Field(
        None, description="The structure the clerk accepted: stored as is, no LLM call."
    )
    corrections: list[CorrectionIn] | None = Field(
        None, description="The fields the clerk changed from the model's suggestion (needs acceptedStructure)."
    )
    modelInterpretationFailed: StrictBool | None = Field(
        None, description="The model could not interpret the text and the clerk filled the fields by hand."
    )
    structureLater: StrictBool | None = Field(
        None,
        description="Save now, structure later: no LLM call and never shed; answers 202 with the "
        "deterministic proposal as the structure and `pending` true until the background "
        "worker has structured it. Not with `acceptedStructure`.",
    )
    store: StoreId | None = Field(
        None,
        description="The store (shop) the feedback was given in: one of FI_STORES, or an id of "
        "FI_STORE_PATTERN; anything else is refused 400 `store_unknown`. Absent: no store.",
    )
    proposedBy: ProposerIn | None = Field(
        None,
        description="Whose proposal the accepted structure started from (the interpretation's `proposedBy`): "
        "with `acceptedStructure`, the save counts in the correction rates per backend and model. A save "
        "with `corrections` and without it counts under `unknown`.",
    )


class BatchIn(_Wire):
    """Many items to store at once (bulk import), never through the model."""

    items: list[Any] = Field(
        description="The items, each a `FeedbackIn`, at most FI_BATCH_MAX_ITEMS (more: 413 `batch_too_large`). "
        "Each is checked on its own: one that breaks a rule is `invalid` in its result, the others are "
        "stored. Without `acceptedStructure` an item is saved for later (`structureLater` is implied; "
        "`false` is that item's error). Send an `id` with each item: a retried batch then answers "
        "`duplicate` for what is already stored, never a second copy.",
        # Any value is an item here: each is checked as a FeedbackIn on its own (a result per item, by
        # design), so the schema must not promise that a batch with a non-FeedbackIn item is refused.
        json_schema_extra={
            "items": {"description": "Checked as a `FeedbackIn` (components/schemas/FeedbackIn), on its own."}
        },
    )
    history: StrictBool | None = Field(
        None,
        description="A history import (backfill): the items are stored with their alerts, but none of them "
        "opens a case or notifies anyone, however recent it is. Absent or false: a recent alerting item "
        "opens its case and pages as a save does.",
    )
    byModel: StrictBool | None = Field(
        None,
        description="Whether the model structures the items without `acceptedStructure` later, in the "
        "background (they are `accepted`, saved for later), or the rules' structure they are stored with "
        "is their last (`created`). Absent: true, but false with `history: true` (a backfill is read by "
        "the rules unless the operator asks for the model).",
    )

    @property
    def model_later(self) -> bool:
        """Whether the items without a structure wait for the model (the default rule of ``byModel``)."""
        return self.byModel if self.byModel is not None else not self.history


class BatchItemResult(ApiModel):
    """What became of one item of a batch."""

    index: int = Field(description="The item's place in `items` (from 0).")
    id: str | None = Field(description="The stored id (the item's, or a new one); the item's own id when not stored.")
    status: Literal["created", "accepted", "duplicate", "erased", "invalid"] = Field(
        description="`created` (stored with its structure: the clerk's, or the rules' when the model is not "
        "asked), `accepted` (saved for later: the "
        "background worker structures it), `duplicate` (an item with this id is stored already, or came "
        "earlier in this batch: nothing changed), `erased` (an item with this id was erased, in either "
        "channel: the id is never stored again), `invalid` (a rule was broken: not stored)."
    )
    errors: list[str] | None = Field(
        None, description="With `invalid`: one message per broken rule.", exclude_if=lambda value: value is None
    )
    codes: list[ErrorCode] | None = Field(
        None, description="With `invalid`: the same rules as codes.", exclude_if=lambda value: value is None
    )


class BatchOut(ApiModel):
    """200: a result for every item, in order; the stored items went in as one transaction."""

    results: list[BatchItemResult] = Field(description="One result per item, in the order sent.")
    created: int = Field(description="Items stored with their structure.")
    accepted: int = Field(description="Items saved for later.")
    duplicate: int = Field(description="Items already stored (by id).")
    erased: int = Field(description="Items whose id was erased (never stored again).")
    invalid: int = Field(description="Items refused.")


class InterpretIn(_Wire):
    """A text to interpret; nothing is stored."""

    text: Text = Field(description="The customer's words (normalised as in `FeedbackIn.text`).")


class ProposalIn(_Wire):
    """A text for the rules alone; nothing is stored. As long as a save may be (the rules read it all)."""

    text: Text = Field(description="The customer's words (normalised as in `FeedbackIn.text`).")


class AlertOut(ApiModel):
    """A deterministic alert: a lexicon pattern found in the text."""

    category: str = Field(description="The alert category (e.g. `injury_safety`).")
    pattern: str = Field(description="The lexicon pattern that matched.")


class PersonalDataOut(ApiModel):
    """Personal data found in a text (docs/rules.md, "Personal data"): the desk warns and offers to remove it."""

    kind: str = Field(
        description="`phone`, `email`, `hetu` (Finnish personal identity code), `iban`, `card` or `name`."
    )
    value: str = Field(description="The text as written.")
    placeholder: str = Field(description="What replaces it when removed, and what other desks see.")


class RuleAdviceOut(ApiModel):
    """A rule that disagrees with a person's value, which is kept (ADR 0045): for a manager to see."""

    field: str = Field(description="The structure field, e.g. `category`.")
    value: str = Field(description="What the rule would choose.")
    rule: str = Field(
        description="Which rule: `alert_category` (an alert whose category is a category), `vulgarity` "
        '(dense swearing) or `keyword_evidence` (the category keywords; docs/rules.md, "Category override").'
    )
    words: list[str] = Field(description="The words of the text that made it choose.")


class FeedbackCreated(ApiModel):
    """201: the item is stored; `Location` names it."""

    id: str = Field(description="The stored id (the client's, or a new one).")
    structure: StructureOut | None = Field(description="The stored structure; null when structuring failed.")
    structureFailed: bool = Field(
        description="The LLM could not structure it; kept with its raw text, `feedctl restructure` retries."
    )
    salvageNotes: list[str] = Field(description="What the parser repaired and what the guards replaced.")
    alerts: list[AlertOut] = Field(description="Deterministic alerts found in the text.")
    needsReview: bool = Field(description="A person should check it (e.g. possible prompt injection).")
    reviewFlags: list[str] = Field(description="Why it needs review.")
    pending: bool = Field(
        False,
        description="Saved for later (202): the structure is the deterministic "
        "proposal until the background worker replaces it.",
    )
    store: str | None = Field(None, description="The store it was given in; null = no store.")
    ruleAdvice: list[RuleAdviceOut] = Field(
        default_factory=list,
        description="Where a rule would choose otherwise than the clerk did: the clerk's value is stored, "
        "this beside it.",
    )
    personalData: list[PersonalDataOut] = Field(
        default_factory=list,
        description="Personal data found in the text: the desk warns before the save and offers to replace it "
        "with its placeholder; other desks and the live report see it masked.",
    )


class FeedbackItem(ApiModel):
    """A stored feedback item."""

    id: str = Field(description="The item's id.")
    source: str = Field(description="Where the feedback came from.")
    text: str = Field(description="The customer's words, as sent.")
    timestamp: str = Field(description="When the feedback was given (ISO-8601, UTC).")
    createdAt: str = Field(description="When it was stored (ISO-8601, UTC).")
    structure: StructureOut | None = Field(description="Its structure; null when structuring failed.")
    structureFailed: bool = Field(description="The LLM could not structure it.")
    modelFailed: bool = Field(description="The model failed and the clerk filled in the fields by hand.")
    salvageNotes: list[str] = Field(description="What the parser repaired and what the guards replaced.")
    alerts: list[AlertOut] = Field(description="Deterministic alerts found in the text.")
    corrections: list[dict[str, Any]] | None = Field(description="The clerk's corrections of the model, if any.")
    needsReview: bool = Field(description="A person should check it.")
    reviewFlags: list[str] = Field(description="Why it needs review.")
    pending: bool = Field(
        description="Waiting for the background worker: `structure` is the deterministic "
        "proposal until then (see `structureLater`)."
    )
    store: str | None = Field(None, description="The store it was given in; null = no store.")
    ruleAdvice: list[RuleAdviceOut] = Field(
        default_factory=list,
        description="Where a rule would choose otherwise than the person who saved or corrected it did "
        "(their value is the stored one).",
    )
    changeable: bool | None = Field(
        None, description="`mine=true` only: the caller may still correct or erase it (null elsewhere)."
    )
    changeableUntil: str | None = Field(
        None, description="`mine=true` only: when that lapses (a clerk's correction window); null = it does not."
    )


class GuardOut(ApiModel):
    """One model value a guard rejected; ``structure`` already carries the replacement."""

    field: str = Field(description="The structure field: category, theme, severity, type, sentiment or language.")
    reason: str = Field(
        description="Why, as a stable code (the reason label of fi_guard_rejections_total): e.g. prompt_echo, "
        "control_characters, mixed_case, repeated_word, not_grounded, not_iso639_1, contradicts_text, "
        "contradicts_type, missing, keyword_evidence, prior_field (the domain lets the deterministic prior "
        "decide the field)."
    )
    modelValue: str | None = Field(description="Exactly what the model said (null when it said nothing).")
    replacement: str | None = Field(description="The value shown instead.")


class InterpretOut(ApiModel):
    """The model's suggestion for a text (checked and repaired before it is returned)."""

    structure: StructureOut | None = Field(description="The suggested structure; null when the model failed.")
    failed: bool = Field(description="The model's answer was unusable: fill in the fields by hand.")
    salvaged: bool = Field(description="The answer needed repair before it could be used.")
    notes: list[str] = Field(description="What was repaired, and what the guards replaced and why.")
    alertCategories: list[str] = Field(description="Alert categories whose patterns occur in the text.")
    guards: list[GuardOut] = Field(
        default_factory=list, description="Model values the guards replaced, in the order the guards ran."
    )
    categoryAdvice: dict[str, RuleAdviceOut] = Field(
        default_factory=dict,
        description="For each category a clerk might choose against which a rule would choose another: "
        "that rule's advice (said before the save; the clerk's choice is what is stored).",
    )
    personalData: list[PersonalDataOut] = Field(
        default_factory=list,
        description="Personal data found in the text: the desk warns before the save and offers to replace it "
        "with its placeholder; other desks and the live report see it masked.",
    )
    proposedBy: ProposerOut | None = Field(
        None, description="The backend and model that answered; send it back with the save (`proposedBy`)."
    )


class ProposalOut(ApiModel):
    """The rules' structure for a text, made without the model (what "fill in by hand" starts from)."""

    structure: StructureBody = Field(description="The deterministic prior's structure, every field filled.")
    alertCategories: list[str] = Field(description="Alert categories whose patterns occur in the text.")
    categoryAdvice: dict[str, RuleAdviceOut] = Field(
        default_factory=dict,
        description="For each category a clerk might choose against which a rule would choose another: "
        "that rule's advice (said before the save; the clerk's choice is what is stored).",
    )
    personalData: list[PersonalDataOut] = Field(
        default_factory=list,
        description="Personal data found in the text: the desk warns before the save and offers to replace it "
        "with its placeholder; other desks and the live report see it masked.",
    )


class DeskStoreOut(ApiModel):
    """The store a desk saves for: the service's (FI_DESK_STORE) or the page's (`/desk?store=…`)."""

    id: str | None = Field(description="The store id every save of this desk carries; null = no store.")
    name: str | None = Field(description="The store's name (FI_STORES), or its id when the deployment lists none.")
    boundBy: str = Field(description="`setting` (FI_DESK_STORE), `page` (`?store=`) or `none`.")


class VersionOut(ApiModel):
    """The live channel's change counter."""

    version: int = Field(description="Grows with every change to the live channel; survives restarts.")


class RestructureOut(ApiModel):
    """What one re-structuring pass did (also the body of its 503, with the work done so far)."""

    restructured: int = Field(description="Items that now have a structure.")
    failed: int = Field(description="Items the LLM still could not structure.")
    skipped: int = Field(description="Items left alone (e.g. a clerk's accepted structure).")
    alertsUpdated: int = Field(description="Items whose alerts changed.")
    total: int = Field(description="Items looked at.")


class RestructureShedBody(RestructureOut):
    """503 of a re-structuring pass that was shed part-way: the counts of the work done so far."""

    error: str = Field(description="Always `busy`.")
    retryAfterSeconds: int = Field(description="Seconds to wait; also in the `Retry-After` header.")


class StoreOut(ApiModel):
    """One store of FI_STORES."""

    id: str = Field(description="The store's id, as an item's `store`.")
    name: str = Field(description="What the store is called.")


class SchemaOut(ApiModel):
    """The active domain's taxonomy, with display labels in its language."""

    language: str = Field(description="The domain's language (ISO 639-1); pages speak it.")
    categoryField: str = Field(description="What the domain calls its category field (e.g. `Osasto`).")
    catchAllCategory: str | None = Field(description="The category for what fits nowhere else.")
    demotedCategories: list[str] = Field(description="Categories the model may suggest only with a keyword.")
    categories: list[str] = Field(description="Category keys, in display order.")
    severities: list[str] = Field(description="Severity keys, low to high.")
    types: list[str] = Field(description="Feedback type keys.")
    sources: list[str] = Field(description="Accepted `source` values.")
    categoryLabels: dict[str, str] = Field(description="Category key → label.")
    severityLabels: dict[str, str] = Field(description="Severity key → label.")
    typeLabels: dict[str, str] = Field(description="Type key → label.")
    sentiments: list[str] = Field(description="Sentiment keys.")
    sentimentLabels: dict[str, str] = Field(description="Sentiment key → label.")
    typeSentiment: dict[str, str] = Field(description="The sentiment a type implies when none is given.")
    alertCategories: list[str] = Field(description="Alert category keys (the report's `?alert=` filter), in order.")
    digestAlertCategories: list[str] = Field(
        default_factory=list,
        description="The alert categories that open no case and page nobody: the day's digest tells them "
        "(FI_NOTIFY_DIGEST_HOUR); an alert with any other category pages and opens (or joins) a case.",
    )
    caseRootCauses: dict[str, dict[str, str]] = Field(
        description="Why a handled case happened: root cause key → label by page language (`fi`, `sv`, `en`), in "
        "the order the page lists them (the domain's `caseRootCauses`); `rootCause` of a case's `handle`."
    )
    issues: list[str] = Field(
        default_factory=list, description="Issue keys (the problem an item reports; the report's `?issue=`), in order."
    )
    issueLabels: dict[str, str] = Field(
        default_factory=dict, description="Issue key → label, in the domain's language."
    )
    catchAllIssue: str | None = Field(default=None, description="The issue for what names no problem of the list.")
    textMaxChars: int = Field(
        description="The longest text the model reads and `POST /interpret` accepts (FI_INPUT_MAX_CHARS); the desk "
        "marks a longer one instead of cutting it."
    )
    textStoreMaxChars: int = Field(
        description="The longest text stored (FI_TEXT_STORE_MAX_CHARS), by hand or saved for later; of a text over "
        "`textMaxChars` the model reads the first part and the row's `salvageNotes` say so."
    )
    timezone: str = Field(
        description="The IANA zone the service's days and times are shown in (FI_TIMEZONE), so every page shows "
        "the shop's clock whatever the browser's zone."
    )
    stores: list[StoreOut] | None = Field(
        None,
        description="The chain's stores (FI_STORES) with their names, in order; null when the deployment lists "
        "none (any id of FI_STORE_PATTERN is a store). An import maps a store's name to its id with it.",
    )
    laterWaitsForFreeSlot: bool = Field(
        False,
        description="Background work must leave every slot free (FI_LLM_BACKGROUND_RESERVE ≥ the slots): an "
        "entry saved to be interpreted later waits for the bounded wait, not for a free GPU; the desk says so.",
    )
