"""Accounts, role grants and sessions (docs/data-model.md; read and written in the live database only).

Accounts are disabled, never deleted (audit rows name them). A session row holds the SHA-256 of the
cookie's token; a sign-in always writes a new row, so a token set before the sign-in (fixation) never
becomes a signed-in one. Grants from SSO claims are replaced at each sign-in; manual ones stay.

Every change here, and every sign-in (made or refused) and sign-out, appends its ``audit_log`` row in
the same transaction (store/audit.py): ``account.add``, ``account.grant``, ``account.revoke``,
``account.disable``, ``account.enable``, ``account.password_change``, ``account.password_reset``,
``session.signin``, ``session.refused``, ``session.signout``, ``account.mail`` (an address, language or
brief-by-mail choice; its ``reason`` names which). A
row names the account and the actor, never a password, a token or its hash, nor a refused name as typed
(it may be a password typed in the wrong field): a refusal of an unknown name is a row without a name.
"""

from __future__ import annotations

import secrets
import unicodedata
from dataclasses import dataclass

from sqlalchemy import and_, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from feedback_intelligence.instants.clock import Clock, now_ms
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.store import audit
from feedback_intelligence.store.base import StoreView
from feedback_intelligence.store.errors import AccountNotLocal, UsernameTaken
from feedback_intelligence.store.schema import accounts, role_grants, sessions

TOUCH_EVERY_MS = 60_000  # last_seen_at_ms is written at most once a minute


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


@dataclass(frozen=True)
class MailChoice:
    """Where and how a person gets the brief by mail (ADR 0062); None: not set."""

    email: str | None
    language: str | None  # fi, en; None: the domain's
    brief: str | None  # weekly, daily; None: no brief by mail (the default: it is opt-in)


@dataclass(frozen=True)
class BriefReader:
    """An enabled account that asked for the brief by mail and has an address."""

    account_id: str
    username: str
    display_name: str
    email: str
    language: str | None
    brief: str  # weekly | daily
    grants: tuple[Grant, ...]


@dataclass(frozen=True)
class By:
    """Who makes an account change, as the audit log names them (``actor_kind`` / ``actor_id`` / ``actor_name``)."""

    kind: str  # account | operator | system | visitor
    id: str | None = None
    name: str | None = None


OPERATOR = By("operator")  # the operator token or a program on the host


def _row(
    at: str,
    by: By,
    action: str,
    *,
    field: str | None = None,
    old_value: str | None = None,
    new_value: str | None = None,
    reason: str | None = None,
) -> audit.AuditEntry:
    return audit.AuditEntry(
        at=at,
        change_id=secrets.token_hex(16),
        actor_kind=by.kind,
        actor_id=by.id,
        actor_name=by.name[:100] if by.name else None,
        action=action,
        field=field,
        old_value=old_value,
        new_value=new_value,
        reason=reason,
    )


def _grant_rows(at: str, by: By, account_id: str, added: list[Grant], removed: list[Grant]) -> list[audit.AuditEntry]:
    """An account row's ``field`` is the account's id; a grant's value is ``role:store``."""
    return [_row(at, by, "account.grant", field=account_id, new_value=f"{g.role}:{g.store}") for g in added] + [
        _row(at, by, "account.revoke", field=account_id, old_value=f"{g.role}:{g.store}") for g in removed
    ]


def fold_username(username: str) -> str:
    """The one form a user name is stored and compared in: :func:`fold_characters`, outer spaces dropped."""
    return fold_characters(username).strip()


def fold_characters(text: str) -> str:
    """NFKC (compatibility characters as their plain twins, so the full-width ``ａｄｍｉｎ`` is ``admin``),
    case folded, NFKC again (folding can undo it)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


async def _grants(conn: AsyncConnection, account_id: str) -> tuple[Grant, ...]:
    rows = await conn.execute(
        select(role_grants.c.role, role_grants.c.store)
        .where(role_grants.c.account_id == account_id)
        .order_by(role_grants.c.role, role_grants.c.store)
    )
    return tuple(Grant(row.role, row.store) for row in rows)


async def _replace_grants(
    conn: AsyncConnection, account_id: str, grants: tuple[Grant, ...], origin: str
) -> tuple[list[Grant], list[Grant]]:
    """The account's ``origin`` grants become ``grants``; returns what was added and what removed."""
    before = set(await _grants(conn, account_id))
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
    after = set(await _grants(conn, account_id))
    return sorted(after - before, key=_grant_order), sorted(before - after, key=_grant_order)


def _grant_order(grant: Grant) -> tuple[str, str]:
    return grant.role, grant.store


async def _set_password(
    conn: AsyncConnection,
    clock: Clock,
    account_id: str,
    name: str,
    password_hash: str,
    by: By,
    action: str,
    keeps: str | None,
) -> int:
    """The new hash, the account's live sessions but ``keeps`` ended, and the audit row (no hash in it)."""
    at = format_instant(clock.now())
    await conn.execute(
        update(accounts).where(accounts.c.id == account_id).values(password_hash=password_hash, updated_at=at)
    )
    now = now_ms(clock)
    live = and_(sessions.c.account_id == account_id, sessions.c.revoked_at_ms.is_(None), sessions.c.expires_at_ms > now)
    if keeps is not None:
        live = and_(live, sessions.c.id_hash != keeps)
    ended = int((await conn.execute(update(sessions).where(live).values(revoked_at_ms=now))).rowcount or 0)
    await audit.append(
        conn, [_row(at, by, action, field=account_id, new_value=name, reason=f"sessions ended: {ended}")]
    )
    return ended


class AccountStore(StoreView):
    """The people tables of the live database, over the live store's engine."""

    async def count(self) -> int:
        async with self.engine.connect() as conn:
            return int(await conn.scalar(select(func.count()).select_from(accounts)) or 0)

    async def add_local(
        self,
        username: str,
        display_name: str,
        password_hash: str,
        grants: tuple[Grant, ...],
        *,
        by: By = OPERATOR,
        email: str | None = None,
    ) -> str:
        """``email``: where an overdue case of a store the account manages is mailed (ADR 0061)."""
        account_id = secrets.token_hex(16)
        now = format_instant(self.clock.now())
        try:
            async with self.engine.begin() as conn:
                await conn.execute(
                    insert(accounts).values(
                        id=account_id,
                        username=fold_username(username),
                        display_name=display_name or username,
                        email=email[:254] if email else None,
                        password_hash=password_hash,
                        auth_source="local",
                        subject=None,
                        created_at=now,
                        updated_at=now,
                    )
                )
                added, _ = await _replace_grants(conn, account_id, grants, "manual")
                add = _row(now, by, "account.add", field=account_id, new_value=fold_username(username))
                await audit.append(conn, [add, *_grant_rows(now, by, account_id, added, [])])
        except IntegrityError as exc:
            raise UsernameTaken(fold_username(username)) from exc
        return account_id

    async def change_grant(
        self, username: str, grant: Grant, *, add: bool, by: By = OPERATOR
    ) -> tuple[Grant, ...] | None:
        """Grant (``add``) or revoke one manual grant; the account's grants after, None for no such account.
        A grant already there (or already gone) changes nothing and writes no audit row."""
        name = fold_username(username)
        at = format_instant(self.clock.now())
        async with self.engine.begin() as conn:
            account_id = await conn.scalar(select(accounts.c.id).where(accounts.c.username == name))
            if account_id is None:
                return None
            current = set(await _grants(conn, account_id))
            if add and grant not in current:
                await conn.execute(
                    insert(role_grants).values(
                        account_id=account_id, role=grant.role, store=grant.store, origin="manual"
                    )
                )
                await audit.append(conn, _grant_rows(at, by, account_id, [grant], []))
            elif not add and grant in current:
                await conn.execute(
                    delete(role_grants).where(
                        and_(
                            role_grants.c.account_id == account_id,
                            role_grants.c.role == grant.role,
                            role_grants.c.store == grant.store,
                        )
                    )
                )
                await audit.append(conn, _grant_rows(at, by, account_id, [], [grant]))
            return await _grants(conn, account_id)

    async def set_disabled(self, username: str, disabled: bool, *, by: By = OPERATOR) -> tuple[bool, int] | None:
        """Disable an account (someone who left) or enable it again: ``(disabled after, sessions ended)``, None
        for no such account. Disabling ends every live session of the account in the same transaction, so
        its next request is signed out and it cannot sign in again (local or SSO) until enabled. An account
        already in that state changes nothing and writes no audit row."""
        name = fold_username(username)
        now = format_instant(self.clock.now())
        async with self.engine.begin() as conn:
            row = (
                await conn.execute(select(accounts.c.id, accounts.c.disabled_at).where(accounts.c.username == name))
            ).first()
            if row is None:
                return None
            if (row.disabled_at is not None) == disabled:
                return disabled, 0
            await conn.execute(
                update(accounts)
                .where(accounts.c.id == row.id)
                .values(disabled_at=now if disabled else None, updated_at=now)
            )
            ended = 0
            if disabled:
                live = and_(sessions.c.account_id == row.id, sessions.c.revoked_at_ms.is_(None))
                ended = (
                    await conn.execute(update(sessions).where(live).values(revoked_at_ms=now_ms(self.clock)))
                ).rowcount
            action = "account.disable" if disabled else "account.enable"
            await audit.append(conn, [_row(now, by, action, field=row.id, new_value=name)])
        return disabled, int(ended or 0)

    async def change_password(self, account_id: str, password_hash: str, *, keeps: str) -> int:
        """A person's own new password: every other session of theirs ends, the one with id hash ``keeps``
        (the request's own) stays. ``account.password_change``; returns the sessions ended."""
        async with self.engine.begin() as conn:
            name = str(await conn.scalar(select(accounts.c.username).where(accounts.c.id == account_id)))
            by = By("account", account_id, name)
            return await _set_password(
                conn, self.clock, account_id, name, password_hash, by, "account.password_change", keeps
            )

    async def reset_password(self, username: str, password_hash: str, *, by: By = OPERATOR) -> int | None:
        """An operator sets a local account's password (one leaked or forgotten): every session of the
        account ends. ``account.password_reset``; returns the sessions ended, None for no such account.
        Raises :class:`AccountNotLocal` for an account of single sign-on or a proxy (its password is elsewhere)."""
        async with self.engine.begin() as conn:
            row = (
                await conn.execute(
                    select(accounts.c.id, accounts.c.username, accounts.c.auth_source).where(
                        accounts.c.username == fold_username(username)
                    )
                )
            ).first()
            if row is None:
                return None
            if row.auth_source != "local":
                raise AccountNotLocal(row.username, row.auth_source)
            return await _set_password(
                conn, self.clock, row.id, row.username, password_hash, by, "account.password_reset", None
            )

    async def record_refused(self, username: str, reason: str) -> None:
        """A refused sign-in: ``session.refused`` naming the account when the name is one, else nobody."""
        async with self.engine.begin() as conn:
            row = (
                await conn.execute(
                    select(accounts.c.id, accounts.c.username).where(accounts.c.username == fold_username(username))
                )
            ).first()
            by = By("account", row.id, row.username) if row is not None else By("visitor")
            await audit.append(conn, [_row(format_instant(self.clock.now()), by, "session.refused", reason=reason)])

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
        now = format_instant(self.clock.now())
        async with self.engine.begin() as conn:
            row = (
                await conn.execute(
                    select(accounts.c.id, accounts.c.disabled_at).where(
                        and_(accounts.c.auth_source == source, accounts.c.subject == subject)
                    )
                )
            ).first()
            system = By("system", source)
            entries: list[audit.AuditEntry] = []
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
                entries.append(_row(now, system, "account.add", field=account_id, new_value=name[:100]))
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
            added, removed = await _replace_grants(conn, account_id, grants, "claims")
            entries += _grant_rows(now, system, account_id, added, removed)
            await audit.append(conn, entries)
        return account_id

    async def granted(self, roles: tuple[str, ...], store: str | None) -> list[Person]:
        """Enabled accounts with a grant of one of ``roles`` reaching ``store`` (a grant of it, or of the chain
        ``*``; an item without a store is the chain's alone), by display name; each with those grants."""
        stores = ["*"] if store is None else ["*", store]
        statement = (
            select(accounts.c.id, accounts.c.username, accounts.c.display_name, role_grants.c.role, role_grants.c.store)
            .join(role_grants, role_grants.c.account_id == accounts.c.id)
            .where(accounts.c.disabled_at.is_(None), role_grants.c.role.in_(roles), role_grants.c.store.in_(stores))
            .order_by(accounts.c.display_name, accounts.c.username, role_grants.c.role, role_grants.c.store)
        )
        found: dict[str, Person] = {}
        async with self.engine.connect() as conn:
            for row in (await conn.execute(statement)).all():
                known = found.get(row.id)
                grants = (*known.grants, Grant(row.role, row.store)) if known else (Grant(row.role, row.store),)
                found[row.id] = Person(row.id, row.username, row.display_name, grants)
        return list(found.values())

    async def manager_addresses(self, store: str | None) -> tuple[str, ...]:
        """The e-mail addresses of the enabled accounts with a ``manager`` grant of ``store`` or of the chain
        (an item without a store is the chain's alone), sorted, each once; an account without one is left out."""
        stores = ["*"] if store is None else ["*", store]
        statement = (
            select(accounts.c.email)
            .join(role_grants, role_grants.c.account_id == accounts.c.id)
            .where(
                accounts.c.disabled_at.is_(None),
                accounts.c.email.is_not(None),
                role_grants.c.role == "manager",
                role_grants.c.store.in_(stores),
            )
            .distinct()
        )
        async with self.engine.connect() as conn:
            found = (await conn.execute(statement)).scalars().all()
        return tuple(sorted({address for address in found if address and "@" in address}))

    async def mail_choice(self, username: str) -> MailChoice | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(accounts).where(accounts.c.username == fold_username(username)))).first()
        return None if row is None else MailChoice(row.email, row.language, row.brief_mail)

    async def set_mail_choice(self, username: str, choice: MailChoice, *, by: By = OPERATOR) -> MailChoice | None:
        """Set the account's address, language and brief-by-mail choice (validated by the caller); one
        ``account.mail`` audit row per value that changed (its ``reason`` names the field). None: no such account."""
        at = format_instant(self.clock.now())
        async with self.engine.begin() as conn:
            row = (await conn.execute(select(accounts).where(accounts.c.username == fold_username(username)))).first()
            if row is None:
                return None
            before = {"email": row.email, "language": row.language, "brief_mail": row.brief_mail}
            after = {"email": choice.email, "language": choice.language, "brief_mail": choice.brief}
            changed = [key for key in before if before[key] != after[key]]
            if changed:
                await conn.execute(update(accounts).where(accounts.c.id == row.id).values(updated_at=at, **after))
                shown = {**before, "email": "set" if row.email else None}  # the log keeps no address
                then = {**after, "email": "set" if choice.email else None}
                rows = [
                    _row(at, by, "account.mail", field=row.id, old_value=shown[k], new_value=then[k], reason=k)
                    for k in changed
                ]
                await audit.append(conn, rows)
        return choice

    async def brief_readers(self) -> list[BriefReader]:
        """Enabled accounts that asked for the brief by mail and have an address, each with all its grants."""
        statement = (
            select(accounts)
            .where(accounts.c.disabled_at.is_(None), accounts.c.brief_mail.is_not(None), accounts.c.email.is_not(None))
            .order_by(accounts.c.username)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(statement)).all()
            return [
                BriefReader(
                    r.id, r.username, r.display_name, r.email, r.language, r.brief_mail, await _grants(conn, r.id)
                )
                for r in rows
            ]

    async def person(self, account_id: str) -> Person | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(accounts).where(accounts.c.id == account_id))).first()
            if row is None or row.disabled_at is not None:
                return None
            grants = await _grants(conn, account_id)
        return Person(row.id, row.username, row.display_name, grants)

    async def open_session(self, account_id: str, id_hash: str, max_age_s: int, *, replaces: str | None = None) -> None:
        """A new session row (and the sign-in's time); the caller's previous session, if any, revoked."""
        at = format_instant(self.clock.now())
        now = now_ms(self.clock)
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
            await conn.execute(update(accounts).where(accounts.c.id == account_id).values(last_signin_at=at))
            row = (
                await conn.execute(
                    select(accounts.c.username, accounts.c.auth_source).where(accounts.c.id == account_id)
                )
            ).first()
            name, source = (row.username, row.auth_source) if row is not None else (None, None)
            await audit.append(conn, [_row(at, By("account", account_id, name), "session.signin", new_value=source)])

    async def session_person(self, id_hash: str) -> Person | None:
        """The person of a live session: not expired, not revoked, the account not disabled."""
        now = now_ms(self.clock)
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
        """Sign-out: the session revoked and ``session.signout`` written (nothing for an unknown or ended one)."""
        live = and_(sessions.c.id_hash == id_hash, sessions.c.revoked_at_ms.is_(None))
        async with self.engine.begin() as conn:
            row = (
                await conn.execute(
                    select(accounts.c.id, accounts.c.username)
                    .join(sessions, sessions.c.account_id == accounts.c.id)
                    .where(live)
                )
            ).first()
            result = await conn.execute(update(sessions).where(live).values(revoked_at_ms=now_ms(self.clock)))
            if result.rowcount and row is not None:
                signout = _row(format_instant(self.clock.now()), By("account", row.id, row.username), "session.signout")
                await audit.append(conn, [signout])
        return bool(result.rowcount)
