"""The people service: who a request's credentials name, sign-in and sign-out, login throttling.

One object per app (``edge.people``), shared by the edge's people layer and the auth routes. Its
account store is bound at start-up (the live database's engine, built by the runtime).
"""

from __future__ import annotations

import asyncio
import logging
import time

from limits import parse
from limits.aio.storage import Storage
from limits.aio.strategies import FixedWindowRateLimiter

from feedback_intelligence.auth.passwords import verify_password
from feedback_intelligence.auth.principal import CHAIN, Grant, Principal, parse_grants
from feedback_intelligence.auth.tokens import CsrfTokens, new_session_token, token_hash
from feedback_intelligence.settings import AuthSettings
from feedback_intelligence.store.accounts import Account, AccountStore, fold_username

log = logging.getLogger(__name__)

PROXY_CACHE_S = 60.0  # a proxy identity's account is refreshed at most this often


class SigninThrottled(Exception):
    def __init__(self, retry_after_s: int) -> None:
        super().__init__(retry_after_s)
        self.retry_after_s = retry_after_s


class People:
    def __init__(self, settings: AuthSettings, storage: Storage) -> None:
        self.settings = settings
        self.csrf = CsrfTokens(settings.session_secret, warn=settings.enabled)
        self._store: AccountStore | None = None
        self._throttle = FixedWindowRateLimiter(storage)
        self._per_user = parse(settings.login_rate_limit)
        self._per_address = parse(settings.login_address_rate_limit)
        self._proxy_cache: dict[tuple[str, str, str, str], tuple[float, Principal | None]] = {}

    @property
    def enabled(self) -> bool:
        return self.settings.enabled

    @property
    def mode(self) -> str:
        return self.settings.mode

    def bind(self, store: AccountStore) -> None:
        self._store = store

    @property
    def store(self) -> AccountStore:
        if self._store is None:
            raise RuntimeError("the account store is bound at start-up")
        return self._store

    # ── credentials → a person ─────────────────────────────────────────────────────────────────
    async def from_session_token(self, token: str | None) -> Principal | None:
        if not token or len(token) > 200 or self._store is None:
            return None
        id_hash = token_hash(token)
        person = await self.store.session_person(id_hash)
        return Principal.of(person, id_hash) if person else None

    async def from_proxy(self, user: str, name: str, roles: str, stores: str) -> Principal | None:
        """A trusted proxy's identity headers (the caller checked the peer): its account, made at first sight."""
        key = (user, name, roles, stores)
        cached = self._proxy_cache.get(key)
        now = time.monotonic()
        if cached is not None and now - cached[0] < PROXY_CACHE_S:
            return cached[1]
        grants = parse_grants(_words(roles), _words(stores))
        account_id = await self.store.upsert_external("proxy", user, name or user, name or user, None, grants)
        person = await self.store.person(account_id) if account_id else None
        principal = Principal.of(person, f"proxy:{user}") if person else None
        if len(self._proxy_cache) > 10_000:
            self._proxy_cache.clear()
        self._proxy_cache[key] = (now, principal)
        return principal

    # ── signing in and out ─────────────────────────────────────────────────────────────────────
    async def _hit(self, item: object, key: str) -> None:
        assert hasattr(item, "amount")
        if not await self._throttle.hit(item, key):  # type: ignore[arg-type]
            stats = await self._throttle.get_window_stats(item, key)  # type: ignore[arg-type]
            raise SigninThrottled(max(1, int(stats.reset_time - time.time()) + 1))

    async def _throttled(self, item: object, key: str) -> None:
        if not await self._throttle.test(item, key):  # type: ignore[arg-type]
            stats = await self._throttle.get_window_stats(item, key)  # type: ignore[arg-type]
            raise SigninThrottled(max(1, int(stats.reset_time - time.time()) + 1))

    async def sign_in_local(self, username: str, password: str, address: str, replaces: str | None) -> str | None:
        """The new session's token, or None for a wrong name or password. Raises :class:`SigninThrottled`.

        Every attempt counts against the address; a failed one against the user name too, so a
        guesser is stopped after ``FI_LOGIN_RATE_LIMIT`` tries at one name whatever addresses it uses."""
        user_key = _user_key(username)
        # an address over its limit writes nothing more: its flood must not become a flood of audit rows
        await self._hit(self._per_address, f"fi-login:addr:{address}")
        try:
            await self._throttled(self._per_user, user_key)
        except SigninThrottled:
            await self.store.record_refused(username, "throttled")
            raise
        account = await self.store.by_username(username)
        ok = verify_password(account.password_hash if account else None, password)
        if not ok or account is None or account.disabled or account.auth_source != "local":
            await self._hit(self._per_user, user_key)
            await self.store.record_refused(username, _refusal(account, ok))
            return None
        return await self.open_session(account.id, replaces)

    async def open_session(self, account_id: str, replaces: str | None) -> str:
        """A new session id at every sign-in: whatever token the browser held before is revoked."""
        token, id_hash = new_session_token()
        await self.store.open_session(
            account_id, id_hash, self.settings.session_max_age_s, replaces=token_hash(replaces) if replaces else None
        )
        return token

    async def sign_out(self, token: str | None) -> bool:
        if not token or len(token) > 200:
            return False
        return await self.store.revoke_session(token_hash(token))

    async def check_own_password(self, username: str, password: str) -> Account | None:
        """A signed-in person's current password, asked before they change it: their local account when it
        matches, else None. A wrong one counts against their name's sign-in window as a failed sign-in does,
        so a borrowed session guesses no faster than the sign-in page lets anyone; a full window raises
        :class:`SigninThrottled` even for the right password."""
        key = _user_key(username)
        await self._throttled(self._per_user, key)
        account = await self.store.by_username(username)
        stored = account.password_hash if account is not None else None
        ok = await asyncio.to_thread(verify_password, stored, password)  # Argon2: off the event loop
        if not ok or account is None or account.auth_source != "local":
            await self._hit(self._per_user, key)
            return None
        return account

    def grants_from_claims(self, roles: object, stores: object) -> tuple[Grant, ...]:
        """An ID token's role and store claims → grants, by allow-lists (ADR 0040).

        Once ``FI_OIDC_ROLE_MAP`` is set only its keys grant a role: a claim value it does not name (the
        raw ``operator`` among them) grants nothing. Without a map our own names map to themselves. A
        store grants only when it is one of this deployment's stores; the chain only through the value
        ``FI_OIDC_CHAIN_VALUE`` names (unset: none does, a ``*`` in the claim grants nothing)."""
        settings = self.settings
        mapping = settings.oidc_role_map
        claimed = _claim_list(roles)
        ours = [mapping[role] for role in claimed if role in mapping] if mapping else claimed
        if len(ours) < len(claimed):
            log.debug(
                "roles claim values not in FI_OIDC_ROLE_MAP grant nothing: %s",
                sorted({role[:64] for role in claimed if role not in mapping})[:10],
            )
        granted: list[str] = []
        refused: list[str] = []
        for store in _claim_list(stores):
            if settings.oidc_chain_value is not None and store == settings.oidc_chain_value:
                granted.append(CHAIN)
            elif store != CHAIN and settings.stores.accepts(store):
                granted.append(store)
            else:
                refused.append(store[:64])
        if refused:
            log.debug(
                "stores claim values grant nothing (not a store of this deployment; the chain needs "
                "FI_OIDC_CHAIN_VALUE): %s",
                refused[:10],
            )
        return parse_grants(ours, granted)


def _user_key(username: str) -> str:
    """A name's sign-in window (failed sign-ins, wrong current passwords), whatever address they come from."""
    return f"fi-login:user:{fold_username(username)[:100]}"


def _refusal(account: Account | None, password_ok: bool) -> str:
    """Why a sign-in was refused, for the audit log only (the caller hears one answer for all)."""
    if account is None:
        return "unknown_name"
    if account.disabled:
        return "disabled"
    if account.auth_source != "local":
        return "not_local"
    return "wrong_password" if not password_ok else "refused"


def _words(value: str) -> list[str]:
    return [word for word in value.replace(",", " ").split() if word]


def _claim_list(value: object) -> list[str]:
    if isinstance(value, str):
        return _words(value)
    if isinstance(value, list | tuple):
        return [str(item) for item in value if isinstance(item, str | int)]
    return []
