"""``feedctl user add | grant | revoke | disable | enable | password | mail``: local accounts, role grants, who may
sign in and their passwords, through the operator routes ``/admin/users``, ``/admin/users/{name}/grants``,
``/admin/users/{name}/disabled``, ``/admin/users/{name}/password`` and ``/admin/users/{name}/mail``.

The same path as every feedctl command (loopback or FI_OPERATOR_TOKEN), so the first operator is made
from the host the service runs on. A password is read from a prompt (hidden, asked twice), from the
first line of standard input with ``--password-stdin``, or, for scripts, from the environment variable
FEEDCTL_PASSWORD; never from the command line, where ``ps`` and the shell's history would show it.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated, Any
from urllib.parse import quote

import httpx
import typer

from feedback_intelligence.cli.failures import CliError, ExitCode
from feedback_intelligence.cli.http import body_of, client, send, server_errors
from feedback_intelligence.cli.output import JsonFlag, emit_json

users = typer.Typer(no_args_is_help=True, help="Accounts of FI_AUTH=local (ADR 0030).")


_PASSWORD_STDIN = Annotated[
    bool,
    typer.Option("--password-stdin", help="Read the password from the first line of standard input."),
]


def _new_password(from_stdin: bool) -> str:
    """The password to send: standard input's first line (``--password-stdin``), FEEDCTL_PASSWORD, or a prompt."""
    if from_stdin:
        line = sys.stdin.readline()
        if not line:
            raise CliError("no password on standard input (--password-stdin reads its first line)", ExitCode.BAD_INPUT)
        return line.removesuffix("\n").removesuffix("\r")
    return os.environ.get("FEEDCTL_PASSWORD") or typer.prompt("Password", hide_input=True, confirmation_prompt=True)


def _grant(text: str) -> dict[str, str]:
    role, _, store = text.partition(":")
    return {"role": role.strip(), "store": store.strip() or "*"}


@users.command("add")
def add(
    username: Annotated[str, typer.Argument(help="The sign-in name (case does not matter).")],
    role: Annotated[
        list[str],
        typer.Option(
            "--role",
            help="ROLE[:STORE], repeatable: clerk:s1, manager:s1, manager:* (the chain), operator.",
        ),
    ],
    name: Annotated[str | None, typer.Option(help="The name shown in the pages (default: the user name).")] = None,
    email: Annotated[
        str | None, typer.Option(help="Where a manager is mailed an overdue case of their stores (none: not mailed).")
    ] = None,
    password_stdin: _PASSWORD_STDIN = False,
    json_output: JsonFlag = False,
) -> None:
    """Add a local account with its role grants (the first operator: `feedctl user add admin --role operator`)."""
    password = _new_password(password_stdin)
    grants = [_grant(r) for r in role]
    body = {"username": username, "displayName": name, "email": email, "password": password, "grants": grants}
    with client() as http:
        answer = send(http, "POST", "/admin/users", json=body)
    if answer.status_code == 409:
        raise CliError(f"user add: the user name '{username}' is taken", ExitCode.BAD_INPUT)
    created = _answered("add", answer, 201)
    if json_output:
        emit_json(created)
    else:
        said = ", ".join(f"{g['role']}:{g['store']}" for g in grants)
        typer.echo(f"added {created['username']} ({said})")


def _answered(verb: str, answer: httpx.Response, expected: int, username: str | None = None) -> Any:
    """The body of an ``expected`` answer; otherwise the error a person can act on (a 4xx is their input)."""
    if answer.status_code == 404 and username is not None:
        raise CliError(f"user {verb}: no account '{username}'", ExitCode.BAD_INPUT)
    if answer.status_code != expected:
        code = ExitCode.BAD_INPUT if 400 <= answer.status_code < 500 else ExitCode.DEGRADED
        raise CliError(f"user {verb}: {answer.status_code} {server_errors(answer)}", code)
    return body_of(answer)


def _change(verb: str, username: str, role: str, json_output: bool) -> None:
    grant = _grant(role)
    path = f"/admin/users/{quote(username, safe='')}/grants"
    with client() as http:
        if verb == "grant":
            answer = send(http, "POST", path, json=grant)
        else:
            answer = send(http, "DELETE", f"{path}/{quote(grant['role'], safe='')}/{quote(grant['store'], safe='')}")
    after = _answered(verb, answer, 200, username)
    if json_output:
        emit_json(after)
    else:
        said = ", ".join(f"{g['role']}:{g['store']}" for g in after["grants"]) or "no roles"
        typer.echo(f"{after['username']}: {said}")


_ROLE = Annotated[str, typer.Option("--role", help="ROLE[:STORE]: clerk:s1, manager:s1, manager:*, operator.")]


@users.command("grant")
def grant(
    username: Annotated[str, typer.Argument(help="The sign-in name.")], role: _ROLE, json_output: JsonFlag = False
) -> None:
    """Grant a role to an account (audit row `account.grant`)."""
    _change("grant", username, role, json_output)


@users.command("revoke")
def revoke(
    username: Annotated[str, typer.Argument(help="The sign-in name.")], role: _ROLE, json_output: JsonFlag = False
) -> None:
    """Revoke one role grant of an account (audit row `account.revoke`)."""
    _change("revoke", username, role, json_output)


def _set_disabled(username: str, disabled: bool, json_output: bool) -> None:
    verb = "disable" if disabled else "enable"
    with client() as http:
        answer = send(http, "PUT", f"/admin/users/{quote(username, safe='')}/disabled", json={"disabled": disabled})
    after = _answered(verb, answer, 200, username)
    if json_output:
        emit_json(after)
    elif after["disabled"]:
        typer.echo(f"{after['username']}: disabled ({after['sessionsEnded']} sessions ended)")
    else:
        typer.echo(f"{after['username']}: enabled")


@users.command("disable")
def disable(username: Annotated[str, typer.Argument(help="The sign-in name.")], json_output: JsonFlag = False) -> None:
    """Disable an account (someone who left): no sign-in, its sessions end now (audit row `account.disable`)."""
    _set_disabled(username, True, json_output)


@users.command("enable")
def enable(username: Annotated[str, typer.Argument(help="The sign-in name.")], json_output: JsonFlag = False) -> None:
    """Enable a disabled account again (audit row `account.enable`)."""
    _set_disabled(username, False, json_output)


@users.command("password")
def set_password(
    username: Annotated[str, typer.Argument(help="The sign-in name.")],
    password_stdin: _PASSWORD_STDIN = False,
    json_output: JsonFlag = False,
) -> None:
    """Set a local account's password (leaked or forgotten): every session of the account ends now
    (audit row `account.password_reset`)."""
    new = _new_password(password_stdin)
    with client() as http:
        answer = send(http, "PUT", f"/admin/users/{quote(username, safe='')}/password", json={"password": new})
    after = _answered("password", answer, 200, username)
    if json_output:
        emit_json(after)
    else:
        typer.echo(f"{after['username']}: password set ({after['sessionsEnded']} sessions ended)")


@users.command("mail")
def mail(
    username: Annotated[str, typer.Argument(help="The sign-in name.")],
    email: Annotated[str | None, typer.Option("--email", help="The person's address ('' clears it).")] = None,
    language: Annotated[str | None, typer.Option("--language", help="fi or en ('' : the domain's).")] = None,
    brief: Annotated[
        str | None, typer.Option("--brief", help="weekly (Mondays), daily, or off: the brief of their stores by mail.")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Set a person's address, language and brief by mail (opt-in; audit row `account.mail`). Options left
    out keep their value."""
    body: dict[str, Any] = {}
    if email is not None:
        body["email"] = email or None
    if language is not None:
        body["language"] = language or None
    if brief is not None:
        body["briefMail"] = None if brief in ("", "off") else brief
    with client() as http:
        answer = send(http, "PATCH", f"/admin/users/{quote(username, safe='')}/mail", json=body)
    after = _answered("mail", answer, 200, username)
    if json_output:
        emit_json(after)
    else:
        shown = after["briefMail"] or "off"
        typer.echo(
            f"{after['username']}: brief by mail {shown}, address {after['email'] or '-'}, "
            f"language {after['language'] or 'the domain’s'}"
        )
