"""What the OpenAPI schema cannot say: the operations where a schema-valid request may still be refused
with a documented 400, so the edge fuzz does not require such a request to be accepted.

(Said here, not in schemathesis.toml: an `[[operations]]` table there turns off schemathesis' `include`
filters, which tests/edge's fuzz test relies on.)
"""

from __future__ import annotations

from typing import Any

# A report's window binds `from` and `to` together (at most FI_REPORT_MAX_WINDOW_DAYS apart, starting no
# earlier than 0001-01-01), which JSON Schema cannot state: a `to` early in year 1 with the default days
# before it, or a longer window, is the documented 400 `window_invalid` for parameters each valid on its
# own. Every such operation documents that 400 with its code: the rule is read off the schema, not listed.
WINDOW_INVALID = "`window_invalid`"
# A new password is refused when it is the user name or one of the commonest passwords
# (auth/password_policy.py): no JSON Schema compares two fields or lists 30,000 values, so these may
# answer 400 to schema-valid data (the generator does reuse one string for both fields). The schema
# states the rest (api/openapi.py).
PASSWORD_PATHS = ("/admin/users", "/admin/users/{username}/password", "/auth/password")
# A case note's bound is FI_INPUT_MAX_CHARS, a setting the static schema cannot carry (it states the
# hard ceiling), and a note blank once trimmed is refused: 400 to schema-valid data, about one run in three.
SETTING_BOUND_PATHS = ("/cases/{ref}/notes",)
# Closing a case binds its fields together (services/cases.py): a root cause "other" needs its words, a
# handled case its resolution. The schema states which fields each action requires (if/then), not that
# their words are more than blanks once trimmed: 400 `root_cause_text_required` and its kind to
# schema-valid data such as `"rootCauseText": ""`.
CLOSURE_PATHS = ("/cases/{ref}/actions",)
# The brief by mail needs an address, the body's or the one the account already has: a state the schema cannot
# see, so `{"briefMail": "daily", "email": null}` is schema-valid and the documented 400 `email_required`.
MAIL_CHOICE_PATHS = ("/admin/users/{username}/mail", "/auth/me/mail")
# The page's import takes a CSV file as its body: any text is a valid body, but one without a header or a
# column for the text is the documented 400 `import_unreadable` (its rules are the import's, not a
# schema's). And an instant of `/report/refined` near year 1 with an offset is a date-time the service's
# instants cannot hold: 400 `timestamp_invalid`.
CONTENT_PATHS = ("/imports/preview", "/imports/run", "/report/refined")


def window_bound_paths(schema: dict[str, Any]) -> set[str]:
    """The paths of the schema with an operation documenting the 400 ``window_invalid``."""
    return {
        path
        for path, item in schema["paths"].items()
        for operation in item.values()
        if isinstance(operation, dict)
        and WINDOW_INVALID in operation.get("responses", {}).get("400", {}).get("description", "")
    }


def unsure_paths(schema: dict[str, Any]) -> set[str]:
    """Every path where a schema-valid request may still be a documented 400."""
    return (
        window_bound_paths(schema)
        | set(PASSWORD_PATHS)
        | set(SETTING_BOUND_PATHS)
        | set(CLOSURE_PATHS)
        | set(MAIL_CHOICE_PATHS)
        | set(CONTENT_PATHS)
    )
