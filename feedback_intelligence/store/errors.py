"""Every failure the store raises on purpose, as one tree (``api/errors.py`` answers each family once)::

    StoreError
    ├── StoreUnavailable          the database cannot be reached: retry shortly, nothing was written
    │   ├── StoreFull             the database has no room left: retrying will not help until space is freed
    │   └── StoreAccessDenied     the server answered and refuses this service: no such database, a wrong
    │                             password, an unknown role, a role without privileges
    ├── NewerSchema               the database is at a revision this release does not know (a newer one migrated it)
    └── StoreRefusal              the database answered, and the answer is no: the caller's to resolve
        ├── DuplicateId           an item id already stored (a retried save)
        ├── Erased                an erased item's id: never stored again
        ├── StaleRevision         ``If-Match`` named another revision of the item
        ├── CaseNotFound          the item has no case
        ├── CaseTransitionInvalid the case's state does not allow the action
        ├── StaleCaseRevision     ``If-Match`` named another revision of the case
        ├── UsernameTaken         an account of that name exists
        └── AccountNotLocal       the account signs in elsewhere: it has no password here

A driver's error becomes a :class:`StoreUnavailable` in one place, the store's base class
(``store/base.py``); a refusal is raised where the store finds it. Anything else the store raises is a bug.
"""

from __future__ import annotations


class StoreError(Exception):
    """A failure the store raises on purpose (the base of every other one here)."""


class StoreUnavailable(StoreError):
    """The channel's database cannot be reached right now (refused, reset, timed out, shutting down).

    Not a bug and not the client's fault: the API answers 503 with ``Retry-After`` and nothing is
    written, so a client that retries with the same id loses nothing.
    """

    def __init__(self, store: str, detail: str) -> None:
        self.store = store
        self.detail = detail
        super().__init__(f"{store} store unavailable: {detail}")


class StoreFull(StoreUnavailable):
    """The channel's database has no room left: SQLite's ``SQLITE_FULL`` ("database or disk is full"),
    PostgreSQL's ``disk_full``, or the filesystem's ``ENOSPC``.

    Not "cannot be reached": retrying in a moment will not help until an operator frees space, so the API
    answers it with a code and message of its own, and the store reads unhealthy in ``/admin/status``
    until a save succeeds again (``FeedbackStore.storage_fault``). Nothing is half-written.
    """


class StoreAccessDenied(StoreUnavailable):
    """The database server answered and refuses this service: the configuration's to fix, not the network's.

    ``kind`` says which (PostgreSQL's SQLSTATE, see ``ACCESS_DENIED``): ``no-database`` (3D000), ``password``
    (28P01), ``role`` (28000: no such role, or no ``pg_hba.conf`` entry for it), ``privileges`` (42501). A
    running service meets it as it meets an outage (503, nothing written, retry once fixed); at start, or
    from ``feedctl migrate``, it is one line naming the variable and the fix (``cli/databases.py``).
    """

    def __init__(self, store: str, detail: str, kind: str) -> None:
        super().__init__(store, detail)
        self.kind = kind


#: PostgreSQL's SQLSTATE → :attr:`StoreAccessDenied.kind`.
ACCESS_DENIED = {"3D000": "no-database", "28P01": "password", "28000": "role", "42501": "privileges"}


class NewerSchema(StoreError):
    """The database's schema revision is none of this release's migrations: a newer release migrated it, and
    this one cannot tell what its tables hold (``store/revisions.py``; rolling back is a restore)."""

    def __init__(self, revision: str, head: str) -> None:
        self.revision, self.head = revision, head
        super().__init__(f"schema revision {revision} is newer than this release's head {head}")


class StoreRefusal(StoreError):
    """The database answered and the store refuses the change: the caller's to resolve, never a fault."""


class DuplicateId(StoreRefusal):
    """The id is stored already (409): a retried save changed nothing."""

    def __init__(self, feedback_id: str) -> None:
        self.feedback_id = feedback_id
        super().__init__(f"duplicate id {feedback_id!r}")


class Erased(StoreRefusal):
    """The id belongs to an erased item (its tombstone): never stored again (410 ``erased``)."""

    def __init__(self, feedback_id: str) -> None:
        super().__init__(feedback_id)
        self.feedback_id = feedback_id


class StaleRevision(StoreRefusal):
    """``If-Match`` named another revision than the item's (412); ``current`` is the item's."""

    def __init__(self, feedback_id: str, current: int) -> None:
        super().__init__(feedback_id)
        self.feedback_id = feedback_id
        self.current = current


class CaseNotFound(StoreRefusal):
    """The item has no case (the case service names it by its ref instead)."""


class CaseTransitionInvalid(StoreRefusal):
    """The case's state does not allow the action (``store/cases.py`` ``TRANSITIONS``)."""

    def __init__(self, state: str, action: str) -> None:
        self.state, self.action = state, action
        super().__init__(f"a case that is {state} cannot be {action}d")


class StaleCaseRevision(StoreRefusal):
    """``If-Match`` named another revision than the case's; ``current`` is the case's."""

    def __init__(self, current: int) -> None:
        self.current = current
        super().__init__(f"the case changed meanwhile (revision {current})")


class UsernameTaken(StoreRefusal):
    """An account already has this (folded) user name."""

    def __init__(self, username: str) -> None:
        self.username = username
        super().__init__(username)


class AccountNotLocal(StoreRefusal):
    """The account signs in elsewhere (single sign-on, a proxy): it has no password here."""

    def __init__(self, username: str, auth_source: str) -> None:
        self.username = username
        self.auth_source = auth_source
        super().__init__(auth_source)
