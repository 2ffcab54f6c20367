"""Session tokens and the CSRF token bound to them.

The cookie holds a random token (256 bits); the database holds only its SHA-256, so a read of the
sessions table signs nobody in. The CSRF token is an HMAC of the session's key under
``FI_SESSION_SECRET``: the pages read it from a cookie that is not HttpOnly and send it back in a
header, which another site can neither read nor set (double submit, bound to the session).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets

log = logging.getLogger(__name__)

SESSION_COOKIE = "fi_session"
CSRF_COOKIE = "fi_csrf"
CSRF_HEADER = b"x-csrf-token"


def new_session_token() -> tuple[str, str]:
    """A fresh ``(token, id_hash)``: the token goes to the browser, the hash to the database."""
    token = secrets.token_urlsafe(32)
    return token, token_hash(token)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


class CsrfTokens:
    def __init__(self, secret: str | None, *, warn: bool = True) -> None:
        if secret:
            self._secret = secret.encode()
        else:
            self._secret = secrets.token_bytes(32)
            if warn:
                log.warning(
                    "FI_SESSION_SECRET is unset: CSRF tokens are signed with a secret generated at start-up; "
                    "replicas behind one balancer must share a configured FI_SESSION_SECRET"
                )

    def for_key(self, session_key: str) -> str:
        return hmac.new(self._secret, f"fi-csrf:v1:{session_key}".encode(), hashlib.sha256).hexdigest()

    def valid(self, session_key: str, offered: bytes | None) -> bool:
        if not offered:
            return False
        return hmac.compare_digest(offered.strip(), self.for_key(session_key).encode())
