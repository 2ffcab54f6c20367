"""The API's own description (``/openapi.json``): what FastAPI derives from the routes and wire
models, plus what only the running app knows — the active domain's enums (category, severity, type,
sentiment, source, alert categories) and the text limit from the settings."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute

from feedback_intelligence.api.account_rules import NOT_ONE_CHARACTER_REPEATED, refused_in_username
from feedback_intelligence.api.filters import CHANNELS
from feedback_intelligence.api.models import CrossSiteBody
from feedback_intelligence.auth.principal import CHAIN, ROLES
from feedback_intelligence.config import Settings
from feedback_intelligence.config.stores import StoreDirectory
from feedback_intelligence.domain.model import SCHEMA_FIELDS, Domain
from feedback_intelligence.instants.timestamps import EDGE_DAYS
from feedback_intelligence.store.aggregates import ANY_ALERT
from feedback_intelligence.text import bounds
from feedback_intelligence.text.normalize import NUL_FREE_PATTERN, is_blank

DESCRIPTION = """\
Shop-floor feedback, structured by a local LLM behind a gate that **sheds instead of queueing**.

* **LLM routes** (`interpretFeedback`, `saveDeskEntry` without `acceptedStructure`, `ingestFeedback`)
  wait at most the acquire timeout (~500 ms) for one of the gate's few slots, then answer
  `503` with `Retry-After`. A shed stores nothing; retry with the same `id`.
* **Everything else** (lists, saves of an accepted structure, the schema, the report's deterministic
  layer) never needs the LLM.
* **Errors**: `400 {"errors": [...], "codes": [...]}` names every broken rule (the codes are for
  clients that translate); `403` a state change sent by a page on another site; `409` a duplicate
  id; `413` a body over the cap; `429` too many requests or an LLM request still running; `503`
  busy or unavailable. Never a `500` for bad input.
* **Schema and behaviour agree** (ADR 0023; `schemathesis --checks all`): instants (`timestamp`, the
  `from`/`to` of lists and reports) are `format: date-time`, so `""` or any other non-instant is
  refused `400` (offset-less instants are accepted too, as UTC, and any RFC 3339 offset up to ±23:59;
  `feedctl load` reads a spreadsheet's offset-less times on the shop's clock, `FI_TIMEZONE`, and sends
  them with `Z`);
  `corrections` require a non-null `acceptedStructure`, and `structureLater: true` takes none (the
  schema says so with `if`/`then`); booleans are JSON booleans (`0` is refused); texts need one
  visible character and no NUL (`pattern`, derived from the app's own blank rule); `maxLength` of
  `text` counts the text as sent; a correction names at least one field; `If-Match` has its pattern;
  an unserved method is `405` with `Allow` naming every method of the path. Only the report window
  (at most `FI_REPORT_MAX_WINDOW_DAYS` long, binding `from` and `to` together, and starting no earlier
  than year 1, which a `to` early in year 1 with the default days before it would) is a 400 the schema
  cannot say: every operation taking a window documents it.
* **Operator routes** (corpus channel, metrics, status, warm, these docs) answer only on loopback or
  with `FI_OPERATOR_TOKEN` (`Authorization: Bearer …`); to anyone else they are an ordinary 404.
"""

TAGS = [
    {"name": "desk", "description": "What the clerk's desk page uses: interpret, save, the live channel."},
    {"name": "feedback", "description": "The corpus channel (imports, the demo corpus). Operator routes."},
    {"name": "report", "description": "The management report: always renders; LLM prose on top when it can."},
    {"name": "health", "description": "Liveness, honest LLM health and Prometheus metrics."},
    {"name": "operator", "description": "Maintenance: status board, warm-up, re-structuring, telemetry."},
]


def camel_operation_id(route: APIRoute) -> str:
    """The fallback for a route without an explicit ``operation_id``: its function name in camelCase."""
    head, *rest = route.name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def install_openapi(app: FastAPI, domain: Domain, settings: Settings) -> None:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title,
                version=app.version,
                summary=app.summary,
                description=DESCRIPTION,
                routes=app.routes,
                tags=TAGS,
            )
            drop_unused_422(schema)
            document_cross_site_refusal(schema)
            document_body_cap(schema)
            add_domain(schema, domain, settings.domain.input_max_chars, settings.domain.text_store_max_chars)
            document_instants(schema)
            document_corrections_need_structure(schema)
            document_ids_and_tags(schema, settings.domain.id_max_length)
            document_stores(schema, settings.chain.stores)
            document_accounts(schema)
            document_headers(schema)
            document_filters(schema, domain)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to customise the schema


def drop_unused_422(schema: dict[str, Any]) -> None:
    """FastAPI documents a 422 for every route with parameters; this app answers bad input with 400
    (:mod:`feedback_intelligence.api.errors`), so the 422 and its models would only mislead. A route's own
    422 (a filter value the domain does not know, ``api/filters.py``) stays."""
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            responses = operation.get("responses", {})
            if "HTTPValidationError" in str(responses.get("422", "")):
                responses.pop("422")
    components = schema.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        components.pop(name, None)


_UNSAFE_METHODS = ("post", "put", "patch", "delete")


def document_cross_site_refusal(schema: dict[str, Any]) -> None:
    """Every operation that changes state may be refused ``403`` by the edge's cross-site guard
    (:mod:`feedback_intelligence.edge.origin`), before any route runs; say so on each of them."""
    components: dict[str, Any] = schema.setdefault("components", {}).setdefault("schemas", {})
    components["CrossSiteBody"] = CrossSiteBody.model_json_schema(ref_template="#/components/schemas/{model}")
    for operations in schema.get("paths", {}).values():
        for method, operation in operations.items():
            if method in _UNSAFE_METHODS:
                operation.setdefault("responses", {})["403"] = {
                    "description": "Refused: a page on another site may not change data here.",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CrossSiteBody"}}},
                }


def document_body_cap(schema: dict[str, Any]) -> None:
    """Every operation that takes a body may be refused ``413`` by the edge's body cap
    (:mod:`feedback_intelligence.edge.body_limit`), before any route runs; say so on each that does not
    already (a route's own words for it stay). Its body is the ``ErrorsBody`` every 400 documents."""
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            if "requestBody" in operation:
                operation.setdefault("responses", {}).setdefault(
                    "413",
                    {
                        "description": "The body is over `FI_MAX_BODY_BYTES`; it was not read.",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorsBody"}}},
                    },
                )


def add_domain(schema: dict[str, Any], domain: Domain, max_chars: int, store_max_chars: int) -> None:
    """Write the domain's enums and the text limits into the component schemas that carry them: what the
    model reads (``/interpret``) and what a save stores (ADR 0025)."""
    components: dict[str, Any] = schema.get("components", {}).get("schemas", {})
    for name, component in components.items():
        properties: dict[str, Any] = component.get("properties", {})
        base = name.split("-")[0]  # FastAPI names a model "X-Input"/"X-Output" when the two differ
        if base in ("StructureBody", "StructureOut", "ItemChangeIn"):
            _enum(properties.get("category"), domain.categories)
            _enum(properties.get("severity"), domain.severities)
            _enum(properties.get("type"), domain.types)
            _enum(properties.get("sentiment"), domain.sentiments)
        elif base == "InterpretIn":
            _text_limit(properties.get("text"), max_chars, "FI_INPUT_MAX_CHARS")
        elif base == "ProposalIn":
            _text_limit(properties.get("text"), store_max_chars, "FI_TEXT_STORE_MAX_CHARS")
        elif base == "FeedbackIn":
            _text_limit(properties.get("text"), store_max_chars, "FI_TEXT_STORE_MAX_CHARS")
            _enum(properties.get("source"), domain.sources)
        if base == "ItemChangeIn":  # a correction: the same rules as a save's fields
            _text_limit(properties.get("text"), store_max_chars, "FI_TEXT_STORE_MAX_CHARS")
        elif base == "CorrectionIn":
            _enum(properties.get("field"), SCHEMA_FIELDS)
            for value in ("modelValue", "humanValue"):
                for alternative in _alternatives(properties.get(value) or {}):
                    alternative["pattern"] = NO_NUL
        elif base == "CaseAction":  # a dismissal's reason, a closure's words are not blank (api/routes/cases.py)
            for needs in component["allOf"]:
                for required in needs["then"]["properties"].values():
                    required.update(_visible_without_nul())
            _enum(properties.get("rootCause"), domain.case_root_causes)
        elif base == "AlertOut":
            _enum(properties.get("category"), domain.alert_keywords)
        elif base == "InterpretOut":
            items = (properties.get("alertCategories") or {}).get("items")
            _enum(items, domain.alert_keywords)


INSTANT_PARAMETERS = ("from", "to")
# a saved item's timestamp is not on the calendar's first or last day (instants/timestamps.EDGE_DAYS)
EDGE_DAYS_REFUSED = "^(?!" + "|".join(EDGE_DAYS) + ")"
ID_PATTERN_SCHEMA = "^[A-Za-z0-9._-]+$"  # api/validation.py's ID_PATTERN, anchored
NO_NUL = NUL_FREE_PATTERN  # NUL is refused in every text (text/normalize.py)


@functools.cache
def visible_character() -> str:
    """A pattern for one character that is not blank by ``text.normalize.is_blank`` (whitespace,
    control, format, combining and filler characters): derived from that one rule over every code
    point, once a process, so the schema refuses exactly the texts the app calls empty."""
    return _any_but(is_blank)


@functools.cache
def username_character() -> str:
    """A pattern for one character a user name may hold (api/account_rules.refused_in_username): derived
    over every code point, once a process, as :func:`visible_character`."""
    return _any_but(refused_in_username)


def _any_but(refused: Callable[[str], bool]) -> str:
    """A character class of every code point but those ``refused`` names (surrogates aside)."""
    spans_of: list[tuple[int, int]] = []
    for code in range(0x110000):
        if not 0xD800 <= code <= 0xDFFF and refused(chr(code)):
            if spans_of and spans_of[-1][1] == code - 1:
                spans_of[-1] = (spans_of[-1][0], code)
            else:
                spans_of.append((code, code))
    spans = "".join(_escaped(lo) if lo == hi else f"{_escaped(lo)}-{_escaped(hi)}" for lo, hi in spans_of)
    return f"[^{spans}]"


def _escaped(code: int) -> str:
    # Beyond the BMP the character itself: JSON carries it, and a regex engine that reads code points
    # (Python's, schemathesis') takes it as one; ``\\U`` is no ECMA-262 escape.
    return f"\\u{code:04x}" if code <= 0xFFFF else chr(code)


def _visible_without_nul() -> dict[str, Any]:
    """A text's two character rules: at least one visible character, and no NUL anywhere."""
    return {"allOf": [{"pattern": visible_character()}, {"pattern": NO_NUL}]}


def document_instants(schema: dict[str, Any]) -> None:
    """Every instant the API reads is ``format: date-time``: a body's ``timestamp``, a query's ``from``/``to``.
    Anything else (``""`` included) is refused ``400 timestamp_invalid``, which the schema now says."""
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "query" and parameter.get("name") in INSTANT_PARAMETERS:
                    for alternative in _alternatives(parameter.get("schema", {})):
                        alternative["format"] = "date-time"
    for name, component in schema.get("components", {}).get("schemas", {}).items():
        if name.split("-")[0] == "FeedbackIn":
            for alternative in _alternatives(component.get("properties", {}).get("timestamp") or {}):
                alternative["format"] = "date-time"
                alternative["pattern"] = EDGE_DAYS_REFUSED


def document_corrections_need_structure(schema: dict[str, Any]) -> None:
    """The save's rules between fields, in JSON Schema: ``corrections`` (a list) need a non-null
    ``acceptedStructure`` and no ``modelInterpretationFailed: true``; ``structureLater: true`` takes no
    structure (the clerk's structure needs no model)."""
    for name, component in schema.get("components", {}).get("schemas", {}).items():
        if name.split("-")[0] != "FeedbackIn":
            continue
        structure = next(alt for alt in component["properties"]["acceptedStructure"]["anyOf"] if "$ref" in alt)
        component["allOf"] = [
            {
                "if": {"properties": {"corrections": {"type": "array"}}, "required": ["corrections"]},
                "then": {"properties": {"acceptedStructure": structure}, "required": ["acceptedStructure"]},
            },
            {
                "if": {"properties": {"structureLater": {"const": True}}, "required": ["structureLater"]},
                "then": {"properties": {"acceptedStructure": {"type": "null"}}},
            },
            {  # what the clerk corrected was the model's suggestion, so the model cannot have failed
                "if": {"properties": {"corrections": {"type": "array"}}, "required": ["corrections"]},
                "then": {"properties": {"modelInterpretationFailed": {"enum": [False, None]}}},
            },
        ]


def document_ids_and_tags(schema: dict[str, Any], id_max_length: int) -> None:
    """The rules the app already enforces on ids (body and path) and language tags, written into the schema."""
    id_rule = {"pattern": ID_PATTERN_SCHEMA, "maxLength": id_max_length}
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "path" and parameter.get("name") == "feedback_id":
                    parameter.get("schema", {}).update(id_rule)
    for name, component in schema.get("components", {}).get("schemas", {}).items():
        base, properties = name.split("-")[0], component.get("properties", {})
        if base == "FeedbackIn":
            for alternative in _alternatives(properties.get("id") or {}):
                alternative.update(id_rule)
        if base in ("StructureBody", "ItemChangeIn"):
            for alternative in _alternatives(properties.get("theme") or {}):
                alternative.update({"minLength": 1, **_visible_without_nul()})
        if base == "StructureBody":
            for alternative in _alternatives(properties.get("language") or {}):
                alternative["pattern"] = f"^{bounds.LANGUAGE_PATTERN}$"


def document_stores(schema: dict[str, Any], stores: StoreDirectory) -> None:
    """A store id (an item's ``store``, the ``store`` query): the listed ids, or the pattern's."""
    rule: dict[str, Any] = (
        {"enum": [entry.id for entry in stores.entries]}
        if stores.entries is not None
        else {"pattern": f"^(?:{stores.pattern})$", "minLength": 1}
    )
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "query" and parameter.get("name") == "store":
                    for alternative in _alternatives(parameter.get("schema", {})):
                        alternative.update(rule)
    for name, component in schema.get("components", {}).get("schemas", {}).items():
        if name.split("-")[0] in ("FeedbackIn", "ItemChangeIn"):
            for alternative in _alternatives(component.get("properties", {}).get("store") or {}):
                alternative.update(rule)
    # a grant's store (a body's, a revocation's path): one of these, or "*" the chain (api/routes/auth.py)
    grant_rule: dict[str, Any] = (
        {"enum": [CHAIN, *(entry.id for entry in stores.entries)]}
        if stores.entries is not None
        else {"pattern": f"^(?:\\*|{stores.pattern})$", "minLength": 1}
    )
    for name, component in schema.get("components", {}).get("schemas", {}).items():
        if name.split("-")[0] == "GrantIn":
            for alternative in _alternatives(component.get("properties", {}).get("store") or {}):
                alternative.pop("allOf", None)
                alternative.update(grant_rule)
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if (parameter.get("in"), parameter.get("name")) == ("path", "store"):
                    for alternative in _alternatives(parameter.get("schema", {})):
                        alternative.pop("allOf", None)
                        alternative.update(grant_rule)


def document_accounts(schema: dict[str, Any]) -> None:
    """A new account's name and a new password, as the app takes them (api/account_rules.py): a name of
    characters that stay visible, colon- and space-free once folded; a password with a visible
    character that is not one character repeated. (Its other rules, the commonest passwords and the
    user name, no pattern can say: a schema-valid password may still be refused 400.)"""
    password = {"allOf": [{"pattern": visible_character()}, {"pattern": NOT_ONE_CHARACTER_REPEATED}]}
    fields = {"UserIn": ("password",), "PasswordChangeIn": ("newPassword",), "PasswordResetIn": ("password",)}
    for name, component in schema.get("components", {}).get("schemas", {}).items():
        base = name.split("-")[0]
        properties = component.get("properties", {})
        for field in fields.get(base, ()):
            for alternative in _alternatives(properties.get(field) or {}):
                alternative.update(password)
        if base == "UserIn":
            for alternative in _alternatives(properties.get("username") or {}):
                alternative["pattern"] = f"^{username_character()}+$"


def document_filters(schema: dict[str, Any], domain: Domain) -> None:
    """The report's filters (api/filters.py) and a grant's role in a path take the values the app takes:
    an unknown one is a 422 (400 for a role) the schema now announces."""
    allowed: dict[tuple[str, str], list[str]] = {
        ("query", "category"): list(domain.categories),
        ("query", "issue"): list(domain.issues),
        ("query", "severity"): list(domain.severities),
        ("query", "type"): list(domain.types),
        ("query", "sentiment"): list(domain.sentiments),
        ("query", "source"): list(domain.sources),
        ("query", "alert"): [ANY_ALERT, *domain.alert_keywords],
        ("query", "channel"): list(CHANNELS),
        ("path", "role"): list(ROLES),
    }
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                where = (parameter.get("in", ""), parameter.get("name", ""))
                values = allowed.get(where)
                for alternative in _alternatives(parameter.get("schema", {})):
                    if values is not None:
                        alternative["enum"] = values


def document_headers(schema: dict[str, Any]) -> None:
    """A header is absent or a string, never JSON ``null``: an optional header's ``anyOf`` with null
    (how FastAPI writes ``str | None``) becomes its string schema, keeping the pattern it was given."""
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                described = parameter.get("schema", {})
                if parameter.get("in") != "header" or "anyOf" not in described:
                    continue
                strings = [alt for alt in described.pop("anyOf") if alt.get("type") == "string"]
                parameter["schema"] = {**described, **(strings[0] if strings else {"type": "string"})}


def _alternatives(prop: dict[str, Any]) -> Iterable[dict[str, Any]]:
    """The string schema(s) of a property: itself, or the string branch of an ``anyOf`` (an optional)."""
    if "anyOf" in prop:
        return [alt for alt in prop["anyOf"] if alt.get("type") == "string"]
    return [prop]


def _enum(prop: dict[str, Any] | None, values: Iterable[str]) -> None:
    if prop is None:
        return
    for alternative in _alternatives(prop):
        alternative["enum"] = list(values)


def _text_limit(prop: dict[str, Any] | None, max_chars: int, setting: str) -> None:
    if prop is None:
        return
    prop["minLength"] = 1
    prop["maxLength"] = max_chars
    prop.update(_visible_without_nul())
    prop["description"] = (
        f"{prop.get('description', '')} At most {max_chars} characters ({setting}); "
        "a longer text is refused with 400 `text_too_long`, never cut."
    ).strip()
