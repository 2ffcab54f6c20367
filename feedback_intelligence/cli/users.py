"""``feedctl user add``: a local account with its roles, through the operator route ``/admin/users``.

The same path as every feedctl command (loopback or FI_OPERATOR_TOKEN), so the first operator is made
from the host the service runs on. The password is read from a prompt (hidden, asked twice) or, for
scripts, from the environment variable FEEDCTL_PASSWORD; never from the command line, where ``ps``
and the shell's history would show it.
"""

from __future__ import annotations

import os
from typing import Annotated

import typer

from feedback_intelligence.cli.failures import CliError, ExitCode
from feedback_intelligence.cli.http import body_of, client, send, server_errors
from feedback_intelligence.cli.output import JsonFlag, emit_json

users = typer.Typer(no_args_is_help=True, help="Accounts of FI_AUTH=local (ADR 0030).")


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
    json_output: JsonFlag = False,
) -> None:
    """Add a local account with its role grants (the first operator: `feedctl user add admin --role operator`)."""
    password = os.environ.get("FEEDCTL_PASSWORD") or typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    grants = [_grant(r) for r in role]
    body = {"username": username, "displayName": name, "password": password, "grants": grants}
    with client() as http:
        answer = send(http, "POST", "/admin/users", json=body)
    if answer.status_code == 409:
        raise CliError(f"user add: the user name '{username}' is taken", ExitCode.BAD_INPUT)
    if answer.status_code != 201:
        code = ExitCode.BAD_INPUT if 400 <= answer.status_code < 500 else ExitCode.DEGRADED
        raise CliError(f"user add: {answer.status_code} {server_errors(answer)}", code)
    created = body_of(answer)
    if json_output:
        emit_json(created)
    else:
        said = ", ".join(f"{g['role']}:{g['store']}" for g in grants)
        typer.echo(f"added {created['username']} ({said})")
