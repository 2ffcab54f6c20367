"""Passwords: Argon2id through argon2-cffi, its own tuned defaults (RFC 9106's second recommendation)."""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

_hasher = PasswordHasher()
# A hash verified when the user name is unknown, so a miss takes as long as a wrong password. Made by the
# hasher in force (so it costs what a real account's verify costs) at start-up, through prepare(); not at
# import, where every process that never signs anyone in would pay a full Argon2 hash.
_stand_in: tuple[PasswordHasher, str] | None = None

MAX_LENGTH = 1024  # Argon2 takes any length; a bound keeps a megabyte "password" from costing more


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    """True when ``password`` matches; ``password_hash=None`` (unknown user, SSO account) spends the same time."""
    try:
        _hasher.verify(password_hash or _stand_in_hash(), password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False
    return password_hash is not None


def prepare() -> None:
    """Make the stand-in hash now (at start-up) rather than in the first sign-in with an unknown name."""
    _stand_in_hash()


def _stand_in_hash() -> str:
    global _stand_in
    if _stand_in is None or _stand_in[0] is not _hasher:
        _stand_in = (_hasher, _hasher.hash("not a password anyone has"))
    return _stand_in[1]
