"""Accounts, role grants and sessions (docs/data-model.md; read and written in the live database only).

Accounts are disabled, never deleted (audit rows name them). A session row holds the SHA-256 of the
cookie's token; a sign-in always writes a new row, so a token set before the sign-in (fixation) never
becomes a signed-in one. Grants from SSO claims are replaced at each sign-in; manual ones stay.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass

from sqlalchemy import and_, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from feedback_intelligence.deterministic.timestamps import utc_now_normalized
from feedback_intelligence.store.schema import accounts, role_grants, sessions

TOUCH_EVERY_MS = 60_000  # last_seen_at_ms is written at most once a minute


class UsernameTaken(Exception):
    pass


@dataclass(frozen=True)
class Grant:
    role: str  # clerk | manager | operator
    store: str  # a store id, or * = the chain


@dataclass(frozen=True)
class Person:
    """An enabled account with its grants, as the people layer turns it into a principal."""

    account_id: str
    username: str
    display_name: str
    grants: tuple[Grant, ...]


@dataclass(frozen=True)
class Account:
    id: str
    username: str
    display_name: str
    password_hash: str | None
    auth_source: str
    disabled: bool


def fold_username(username: str) -> str:
    return username.strip().casefold()


def _now_ms() -> int:
    return int(time.time() * 1000)


async def _grants(conn: AsyncConnection, account_id: str) -> tuple[Grant, ...]:
    rows = await conn.execute(
        select(role_grants.c.role, role_grants.c.store)
        .where(role_grants.c.account_id == account_id)
        .order_by(role_grants.c.role, role_grants.c.store)
    )
    return tuple(Grant(row.role, row.store) for row in rows)


async def _replace_grants(conn: AsyncConnection, account_id: str, grants: tuple[Grant, ...], origin: str) -> None:
    await conn.execute(
        delete(role_grants).where(and_(role_grants.c.account_id == account_id, role_grants.c.origin == origin))
    )
    existing = set(await _grants(conn, account_id))
    rows = [
        {"account_id": account_id, "role": g.role, "store": g.store, "origin": origin}
        for g in dict.fromkeys(grants)
        if g not in existing
    ]
    if rows:
        await conn.execute(insert(role_grants), rows)


class AccountStore:
    """The people tables of the live database, over its engine."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def count(self) -> int:
        async with self.engine.connect() as conn:
            return int(await conn.scalar(select(func.count()).select_from(accounts)) or 0)

    async def add_local(self, username: str, display_name: str, password_hash: str, grants: tuple[Grant, ...]) -> str:
        account_id = secrets.token_hex(16)
        now = utc_now_normalized()
        try:
            async with self.engine.begin() as conn:
                await conn.execute(
                    insert(accounts).values(
                        id=account_id,
                        username=fold_username(username),
                        display_name=display_name or username,
                        password_hash=password_hash,
                        auth_source="local",
                        subject=None,
                        created_at=now,
                        updated_at=now,
                    )
                )
                await _replace_grants(conn, account_id, grants, "manual")
        except IntegrityError as exc:
            raise UsernameTaken(username) from exc
        return account_id

    async def by_username(self, username: str) -> Account | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(accounts).where(accounts.c.username == fold_username(username)))).first()
        if row is None:
            return None
        return Account(
            row.id, row.username, row.display_name, row.password_hash, row.auth_source, row.disabled_at is not None
        )

    async def upsert_external(
        self, source: str, subject: str, username: str, display_name: str, email: str | None, grants: tuple[Grant, ...]
    ) -> str | None:
        """The account of an SSO or proxy identity, created at first sight; its claim grants replaced.

        None when the account is disabled."""
        now = utc_now_normalized()
        async with self.engine.begin() as conn:
            row = (
                await conn.execute(
                    select(accounts.c.id, accounts.c.disabled_at).where(
                        and_(accounts.c.auth_source == source, accounts.c.subject == subject)
                    )
                )
            ).first()
            if row is None:
                account_id = secrets.token_hex(16)
                # the user name is unique across sources: an external one is qualified by its source
                name = fold_username(username) or subject
                taken = await conn.scalar(select(accounts.c.id).where(accounts.c.username == name))
                await conn.execute(
                    insert(accounts).values(
                        id=account_id,
                        username=f"{source}:{name}"[:100] if taken else name[:100],
                        display_name=(display_name or username or subject)[:200],
                        email=email[:254] if email else None,
                        password_hash=None,
                        auth_source=source,
                        subject=subject[:255],
                        created_at=now,
                        updated_at=now,
                        last_signin_at=now,
                    )
                )
            elif row.disabled_at is not None:
                return None
            else:
                account_id = row.id
                await conn.execute(
                    update(accounts)
                    .where(accounts.c.id == account_id)
                    .values(
                        display_name=(display_name or username or subject)[:200], updated_at=now, last_signin_at=now
                    )
                )
            await _replace_grants(conn, account_id, grants, "claims")
        return account_id

    async def person(self, account_id: str) -> Person | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(accounts).where(accounts.c.id == account_id))).first()
            if row is None or row.disabled_at is not None:
                return None
            grants = await _grants(conn, account_id)
        return Person(row.id, row.username, row.display_name, grants)

    async def open_session(self, account_id: str, id_hash: str, max_age_s: int, *, replaces: str | None = None) -> None:
        """A new session row (and the sign-in's time); the caller's previous session, if any, revoked."""
        now = _now_ms()
        async with self.engine.begin() as conn:
            if replaces:
                await conn.execute(
                    update(sessions)
                    .where(and_(sessions.c.id_hash == replaces, sessions.c.revoked_at_ms.is_(None)))
                    .values(revoked_at_ms=now)
                )
            await conn.execute(
                insert(sessions).values(
                    id_hash=id_hash,
                    account_id=account_id,
                    created_at_ms=now,
                    last_seen_at_ms=now,
                    expires_at_ms=now + max_age_s * 1000,
                )
            )
            await conn.execute(
                update(accounts).where(accounts.c.id == account_id).values(last_signin_at=utc_now_normalized())
            )

    async def session_person(self, id_hash: str) -> Person | None:
        """The person of a live session: not expired, not revoked, the account not disabled."""
        now = _now_ms()
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(sessions).where(
                        and_(
                            sessions.c.id_hash == id_hash,
                            sessions.c.revoked_at_ms.is_(None),
                            sessions.c.expires_at_ms > now,
                        )
                    )
                )
            ).first()
        if row is None:
            return None
        if now - row.last_seen_at_ms >= TOUCH_EVERY_MS:
            async with self.engine.begin() as conn:
                await conn.execute(update(sessions).where(sessions.c.id_hash == id_hash).values(last_seen_at_ms=now))
        return await self.person(row.account_id)

    async def revoke_session(self, id_hash: str) -> bool:
        async with self.engine.begin() as conn:
            result = await conn.execute(
                update(sessions)
                .where(and_(sessions.c.id_hash == id_hash, sessions.c.revoked_at_ms.is_(None)))
                .values(revoked_at_ms=_now_ms())
            )
        return bool(result.rowcount)
