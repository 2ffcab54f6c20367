"""Where a browser goes after signing in: the ``next`` it was sent with, only when that stays on this service.

The one rule for both sign-ins: the password sign-in answers the target (``POST /auth/signin``'s
``next``) and the page goes there, the single sign-on keeps it in its flow cookie; no page decides on
its own. A target is refused (the answer is ``/``) unless it is a path of this origin **as a browser
reads it**: a browser's URL parser drops tabs, line feeds and carriage returns anywhere, reads ``\\`` as
``/``, and a link may be decoded once more by whatever passes it on, so ``/\\t/evil.example`` (the page's
``next=/%09/evil.example``) is ``//evil.example``, another host. So every percent-decoded layer must
still be one path: starting with a single ``/`` (not ``//``, not ``/\\``), with no control character,
whitespace or backslash anywhere, no scheme and no host. That refuses some odd but harmless paths (a
space in a query); the fallback ``/`` costs a click, an open redirect costs a phished password.
"""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

HOME = "/"
MAX_CHARS = 2048  # longer than any path of ours; a longer one is refused, not cut
_MAX_LAYERS = 4  # encoded more deeply than this is no link anyone made by hand


def safe_next(value: str | None) -> str:
    """``value`` when it is a same-origin path after every decoding a browser may apply, else ``/``."""
    if not value or len(value) > MAX_CHARS:
        return HOME
    layer = value
    for _ in range(_MAX_LAYERS):
        if not _one_path(layer):
            return HOME
        decoded = unquote(layer)
        if decoded == layer:
            return value
        layer = decoded
    return HOME


def _one_path(text: str) -> bool:
    if not text.startswith("/") or text.startswith(("//", "/\\")):
        return False
    if any(ch == "\\" or ch.isspace() or ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in text):
        return False
    parts = urlsplit(text)
    return not parts.scheme and not parts.netloc
