"""The people service: who a request's credentials name, sign-in and sign-out, login throttling.

One object per app (``edge.people``), shared by the edge's people layer and the auth routes. Its
account store is bound at start-up (the live database's engine, built by the runtime).
"""

from __future__ import annotations

import logging
import time

from limits import RateLimitItem, parse
from limits.aio.storage import Storage
from limits.aio.strategies import FixedWindowRateLimiter
from sqlalchemy.exc import SQLAlchemyError

from feedback_intelligence.auth.password_work import PasswordWork
from feedback_intelligence.auth.passwords import hash_password, verify_password
from feedback_intelligence.auth.principal import CHAIN, Grant, Principal, parse_grants
from feedback_intelligence.auth.tokens import CsrfTokens, new_session_token, token_hash
from feedback_intelligence.config import AuthSettings
from feedback_intelligence.config.stores import StoreDirectory
from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock
from feedback_intelligence.store.accounts import Account, AccountStore, fold_username
from feedback_intelligence.store.errors import StoreUnavailable

log = logging.getLogger(__name__)

# A proxy identity's account is read (and its header grants written) at most this often: the longest a
# disabled person keeps access on another replica (this one forgets at once, :meth:`People.accounts_changed`).
PROXY_CACHE_S = 5.0
#: How long an address that signed in to an account stays its owner's when the name is under attack.
KNOWN_ADDRESS_S = 90 * 86_400


class SigninThrottled(Exception):
    def __init__(self, retry_after_s: int) -> None:
        super().__init__(retry_after_s)
        self.retry_after_s = retry_after_s


class People:
    def __init__(
        self, settings: AuthSettings, stores: StoreDirectory, storage: Storage, *, clock: Clock = SYSTEM_CLOCK
    ) -> None:
        self.settings = settings
        self.clock = clock  # the proxy identity cache's age (the sign-in limits are the storage's own time)
        self.stores = stores  # the stores a grant may name (FI_STORES, else FI_STORE_PATTERN)
        self.csrf = CsrfTokens(settings.session_secret, warn=settings.enabled)
        self._store: AccountStore | None = None
        self._storage = storage
        self._throttle = FixedWindowRateLimiter(storage)
        self._per_address_and_name = parse(settings.login_rate_limit)
        self._per_name = parse(settings.login_name_rate_limit)
        self._per_address = parse(settings.login_address_rate_limit)
        self.password_work = PasswordWork(settings.password_check_slots)
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
        now = self.clock.monotonic()
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

    def accounts_changed(self) -> None:
        """An account was disabled or changed here: no proxy identity is answered from memory any more."""
        self._proxy_cache.clear()

    # ── signing in and out ─────────────────────────────────────────────────────────────────────
    async def _throttled(self, item: RateLimitItem, key: str) -> None:
        if not await self._throttle.test(item, key):
            await self._refuse(item, key)

    async def _refuse(self, item: RateLimitItem, key: str) -> None:
        stats = await self._throttle.get_window_stats(item, key)
        raise SigninThrottled(max(1, int(stats.reset_time - time.time()) + 1))

    async def sign_in_local(self, username: str, password: str, address: str, replaces: str | None) -> str | None:
        """The new session's token, or None for a wrong name or password.

        Raises :class:`SigninThrottled` (429) or :class:`~.password_work.PasswordWorkBusy` (503).
        ``address`` is what the edge counts a client by (an IPv4 address, an IPv6 /64). The rule, said in
        docs/operations/people.md ("Sign-in limits"): a failure counts against the address, against (address,
        name) and against the name; a right password counts against none of them, so fifty clerks behind one
        NAT address sign in on the first morning (ADR 0053). The name's own limit, once reached, refuses only
        addresses this account never signed in from, so failures elsewhere never lock its owner out."""
        # an address over its limit writes nothing more: its flood must not become a flood of audit rows
        address_key = f"fi-login:addr:{address}"
        await self._throttled(self._per_address, address_key)
        pair_key, name_key, known_key = _window_keys(username, address)
        try:
            await self._throttled(self._per_address_and_name, pair_key)
            if not await self._storage.get(known_key):
                await self._throttled(self._per_name, name_key)
        except SigninThrottled:
            await self._record_refused(username, "throttled")
            raise
        async with self.password_work.slot() as check:
            account = await self.store.by_username(username)
            ok = await check.run(verify_password, account.password_hash if account else None, password)
        if not ok or account is None or account.disabled or account.auth_source != "local":
            await self._throttle.hit(self._per_address, address_key)
            await self._throttle.hit(self._per_address_and_name, pair_key)
            await self._throttle.hit(self._per_name, name_key)
            await self._record_refused(username, _refusal(account, ok))
            return None
        await self._storage.incr(known_key, KNOWN_ADDRESS_S)
        return await self.open_session(account.id, replaces)

    async def hash_password(self, password: str) -> str:
        """A new password's Argon2 hash, made off the loop like every check (raises ``PasswordWorkBusy``)."""
        return await self.password_work.run(hash_password, password)

    async def _record_refused(self, username: str, reason: str) -> None:
        """The refusal's audit row; a database too busy to take it is logged, and the answer stays a refusal
        (a burst of wrong sign-ins on SQLite must never turn 401s into 500s)."""
        try:
            await self.store.record_refused(username, reason)
        except (StoreUnavailable, SQLAlchemyError) as exc:  # a locked database (translated), or another write error
            log.warning("a refused sign-in (%s) was not written to the audit log: %s", reason, type(exc).__name__)

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

    async def check_own_password(self, username: str, password: str, address: str) -> Account | None:
        """A signed-in person's current password, asked before they change it: their local account when it
        matches, else None. A wrong one counts as a failed sign-in from ``address`` does (the (address, name)
        and the name windows), so a borrowed session guesses no faster than the sign-in page lets anyone; a
        full (address, name) window raises :class:`SigninThrottled` even for the right password. Checked in
        a password slot like a sign-in (raises ``PasswordWorkBusy``)."""
        pair_key, name_key, _ = _window_keys(username, address)
        await self._throttled(self._per_address_and_name, pair_key)
        async with self.password_work.slot() as check:
            account = await self.store.by_username(username)
            ok = await check.run(verify_password, account.password_hash if account else None, password)
        if not ok or account is None or account.auth_source != "local":
            await self._throttle.hit(self._per_address_and_name, pair_key)
            await self._throttle.hit(self._per_name, name_key)
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
            elif store != CHAIN and self.stores.accepts(store):
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


def _window_keys(username: str, address: str) -> tuple[str, str, str]:
    """The limiter's keys of a name's failures (sign-ins, wrong current passwords): (address, name), the
    name, and the mark that the address signed in to the account before."""
    name = fold_username(username)[:100]
    return f"fi-login:pair:{address}:{name}", f"fi-login:name:{name}", f"fi-login:known:{name}:{address}"


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
