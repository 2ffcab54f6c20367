"""``If-Match`` on the routes that change a revisioned thing (an item, a case): one pattern, one parser.

The revision is the number the answer's ``ETag`` carries (``"3"``, weak ``W/"3"`` or bare ``3``
accepted); ``*`` or no header applies the change to whatever is current. The schema states the same
pattern, so a client (or a fuzzer) knows what the routes take.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import Header

from feedback_intelligence.api.errors import InputError
from feedback_intelligence.api.problems import Problem

PATTERN = r'^[ \t]*(\*|(W/)?"?[0-9]{1,9}"?)[ \t]*$'
_REVISION = re.compile(r'[ \t]*(?:W/)?"?([0-9]{1,9})"?[ \t]*')


def if_match_header(description: str) -> Any:
    """The header parameter, documented with its pattern (parsed by :func:`expected_revision`)."""
    return Header(None, alias="If-Match", description=description, json_schema_extra={"pattern": PATTERN})


def expected_revision(if_match: str | None, what: str) -> int | None:
    """The revision ``If-Match`` names, None for any; a clear 400 ``if_match_invalid`` otherwise."""
    if if_match is None or if_match.strip(" \t") == "*":
        return None
    found = _REVISION.fullmatch(if_match)
    if found is None:
        raise InputError([Problem(f'If-Match must be {what}, such as "3".', "if_match_invalid", field="If-Match")])
    return int(found.group(1))
