"""Secrets the service makes itself are kept in its data folder, so what they sign outlives a restart.

Unset, ``FI_VISITOR_SECRET`` (the desk's visitor key: whose entries are "mine" under ``FI_AUTH=none``)
and ``FI_SESSION_SECRET`` (CSRF tokens, the sign-in flow cookie) are read from ``visitor-secret`` and
``session-secret`` in ``settings.storage.secrets_dir``, made there on the first start: 32 random bytes,
hex, mode 0600, created atomically (written whole to a private file, then linked to its name, which
fails if another process got there first, whose secret is then read). A configured secret is used as
it is and no file is read. Replicas still share configured secrets: a file is one host's (ADR 0046).
"""

from __future__ import annotations

import logging
import os
import secrets
import stat
from pathlib import Path
from typing import Any

from feedback_intelligence.config import Settings

log = logging.getLogger(__name__)

#: (group, setting, file name) of every secret the service may make itself.
KEPT = (("edge", "visitor_secret", "visitor-secret"), ("auth", "session_secret", "session-secret"))
_MIN_CHARS = 32


class KeptSecretError(Exception):
    """A kept secret's file is there but unusable (empty, too short, unreadable): the boot stops."""


def with_kept_secrets(settings: Settings) -> Settings:
    """``settings`` with each unset secret read from, or made in, ``settings.storage.secrets_dir``."""
    folder = settings.storage.secrets_dir
    groups: dict[str, Any] = {}
    for group_name, setting, name in KEPT:
        group = groups.get(group_name, getattr(settings, group_name))
        if getattr(group, setting):
            continue
        value, made = kept_secret(folder / name)
        groups[group_name] = group.model_copy(update={setting: value})
        env = group.variables()[setting]
        log.info("%s is unset: %s the one in %s", env, "made" if made else "using", folder / name)
        if settings.gate.redis_url:
            log.warning(
                "%s is unset on a replica (FI_REDIS_URL): %s is this host's; set %s to one value on every replica",
                env,
                folder / name,
                env,
            )
    return settings.model_copy(update=groups) if groups else settings


def kept_secret(path: Path) -> tuple[str, bool]:
    """The secret in ``path``, made first if there is none: (value, whether it was made now)."""
    try:
        return _read(path), False
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    value = secrets.token_hex(32)
    draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(value + "\n")
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(draft, path)  # atomic, and refuses to replace: one secret wins a race of two starts
        except FileExistsError:
            return _read(path), False
    finally:
        draft.unlink(missing_ok=True)
    return value, True


def _read(path: Path) -> str:
    value = path.read_text(encoding="ascii", errors="replace").strip()
    if len(value) < _MIN_CHARS:
        raise KeptSecretError(
            f"{path}: a kept secret must be at least {_MIN_CHARS} characters; remove the file to make a new one"
        )
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        log.warning("%s can be read by others (mode %o): chmod 600 it", path, mode)
    return value
