"""The ``next`` rule's table, shared by the server's unit tests and the browser test.

Each row: the ``next`` parameter as it stands in the sign-in page's address (``/signin?next=…``), and
where the browser must land after signing in: the path itself when it is one of ours, else ``/``.
"""

from __future__ import annotations

from urllib.parse import unquote_plus

HOME = "/"

NEXT_PATHS: list[tuple[str, str]] = [
    # paths of ours: kept
    ("/desk", "/desk"),
    ("%2Fdesk", "/desk"),  # the server's own redirect quotes the path
    ("/desk?store=s1", "/desk?store=s1"),
    ("/%3Fwindow%3D7d", "/?window=7d"),
    ("/", "/"),
    # no target, or not a path
    ("", HOME),
    ("desk", HOME),
    ("https://evil.example/", HOME),
    ("https:%2F%2Fevil.example", HOME),
    ("javascript:alert(1)", HOME),
    ("data:text/html,x", HOME),
    # another host, spelled as browsers read it
    ("//evil.example", HOME),
    ("%2F%2Fevil.example", HOME),
    ("/\\evil.example", HOME),
    ("/%5Cevil.example", HOME),
    ("\\\\evil.example", HOME),
    ("/%09/evil.example", HOME),  # a tab, dropped by the URL parser: //evil.example
    ("/%0A/evil.example", HOME),  # a line feed, likewise
    ("/%0D/evil.example", HOME),  # a carriage return
    ("%09//evil.example", HOME),  # leading control characters are stripped too
    ("/%2509/evil.example", HOME),  # encoded once more: decoded by whatever passes it on
    ("/%252F/evil.example", HOME),
    ("/%255C/evil.example", HOME),
    ("/+/evil.example", HOME),  # "+" is a space in a query
    ("/%20/evil.example", HOME),
]


def decoded(raw: str) -> str:
    """What the page reads from its address (``URLSearchParams.get``) and sends as ``next``."""
    return unquote_plus(raw)
