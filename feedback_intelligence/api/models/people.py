"""The people surface's bodies: signing in, who am I, accounts, their grants and passwords."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from feedback_intelligence.api.account_rules import EmailAddress, EmailOrBlank, email_field, password_field
from feedback_intelligence.api.models import ApiModel
from feedback_intelligence.auth.next_path import MAX_CHARS as NEXT_MAX_CHARS
from feedback_intelligence.auth.passwords import MAX_LENGTH
from feedback_intelligence.auth.principal import CHAIN, ROLES


class GrantIn(ApiModel):
    role: str = Field(
        description="`clerk`, `manager` or `operator`.", max_length=16, json_schema_extra={"enum": list(ROLES)}
    )
    store: str = Field(
        CHAIN,
        description="A store id, or `*` for the chain (an operator is always `*`).",
        max_length=32,
    )


class SigninIn(ApiModel):
    username: str = Field(min_length=1, max_length=100, description="The sign-in name (case does not matter).")
    password: str = Field(min_length=1, max_length=MAX_LENGTH, description="The account's password.")
    next: str | None = Field(
        None,
        max_length=NEXT_MAX_CHARS,
        description="Where the page was asked to go after signing in (its `next` parameter, as given); the "
        "answer's `next` says where it may go.",
    )


class PasswordRuleOut(ApiModel):
    minLength: int = Field(description="A new password's fewest characters.")
    recommendedLength: int = Field(description="The length the pages recommend (a few words in a row).")
    maxLength: int = Field(description="A password's most characters.")


class MeOut(ApiModel):
    auth: str = Field(description="`none`, `local`, `oidc` or `proxy` (FI_AUTH).")
    signedIn: bool = Field(description="A person is signed in on this request.")
    username: str | None = Field(None, description="Their sign-in name (case-folded).")
    displayName: str | None = Field(None, description="The name the pages show.")
    grants: list[GrantIn] = Field(default_factory=list, description="Their roles, each of a store or `*` the chain.")
    passwordRule: PasswordRuleOut | None = Field(
        None, description="Under FI_AUTH=local, the rule a new password keeps (for the pages' hint); else null."
    )


class SignedInOut(MeOut):
    next: str = Field(
        description="Where the page goes now: the asked `next` when it is a path of this service as a browser "
        "reads it, else `/` (one rule with single sign-on's, auth/next_path.py)."
    )


# Whitespace spelled out (str.isspace's characters), not "\s": pydantic's regex engine and a client's
# (Python's, a fuzzer's) disagree on what "\s" holds, and the schema must mean one thing to both.
_SPACES = "".join(f"\\u{code:04x}" for code in range(0x10000) if chr(code).isspace())
USERNAME_PATTERN = f"^[^:{_SPACES}]+$"


class UserIn(ApiModel):
    username: str = Field(
        min_length=1,
        max_length=100,
        pattern=USERNAME_PATTERN,
        description="The sign-in name (no spaces or colons). Stored and compared in Unicode NFKC, case folded: "
        "`ａｄｍｉｎ` is `admin`.",
    )
    displayName: str | None = Field(None, max_length=200, description="The name the pages show (default: username).")
    email: EmailAddress | None = email_field(
        "Where a manager is mailed an overdue case of their stores; none: not mailed."
    )
    password: str = password_field("The password")
    grants: list[GrantIn] = Field(min_length=1, max_length=100, description="The account's roles.")


class UserCreated(ApiModel):
    id: str = Field(description="The new account's id (audit rows name it).")
    username: str = Field(description="The sign-in name as stored (NFKC, case-folded).")


class GrantsOut(ApiModel):
    username: str = Field(description="The sign-in name (case-folded).")
    grants: list[GrantIn] = Field(description="The account's roles after the change.")


class DisabledIn(ApiModel):
    disabled: bool = Field(description="true: disable the account (its sessions end now); false: enable it again.")


class DisabledOut(ApiModel):
    username: str = Field(description="The sign-in name (case-folded).")
    disabled: bool = Field(description="Whether the account is disabled after the change.")
    sessionsEnded: int = Field(ge=0, description="Live sessions the change ended (0 when enabling or unchanged).")


class PasswordChangeIn(ApiModel):
    currentPassword: str = Field(
        min_length=1, max_length=MAX_LENGTH, description="The password the person signed in with."
    )
    newPassword: str = password_field("The new password")


class PasswordResetIn(ApiModel):
    password: str = password_field("The account's new password")


class PasswordChanged(ApiModel):
    username: str = Field(description="The sign-in name (NFKC, case-folded).")
    sessionsEnded: int = Field(ge=0, description="Live sessions of the account the change ended.")


class MailChoiceIn(ApiModel):
    """Where and how a person gets the brief by mail: a field left out keeps its value, null clears it."""

    email: EmailOrBlank | None = email_field("The person's address (blank or null: none).", blank_clears=True)
    language: Literal["fi", "en"] | None = Field(None, description="The mail's language; null: the domain's.")
    briefMail: Literal["weekly", "daily"] | None = Field(
        None, description="`weekly` (Mondays), `daily`, or null: no brief by mail (the default: it is opt-in)."
    )


class MailChoiceOut(MailChoiceIn):
    username: str = Field(description="The sign-in name (case-folded).")
