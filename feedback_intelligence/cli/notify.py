"""``feedctl notify``: the notification routes of a running service."""

from __future__ import annotations

from typing import Annotated

import typer

from feedback_intelligence.cli.failures import CliError, ExitCode
from feedback_intelligence.cli.http import body_of, client, send, server_errors
from feedback_intelligence.cli.output import JsonFlag, console, emit_json, key_value_table

notify_app = typer.Typer(no_args_is_help=True, help="Notification routes (FI_NOTIFY_CHANNELS).")


@notify_app.command("test")
def test(
    route: Annotated[str | None, typer.Argument(help="One route's name; none: every route.")] = None,
    json_output: JsonFlag = False,
) -> None:
    """Send a test message down one route (or every configured route) now, not through the outbox.

    Prints each route's outcome: delivered, or the one-line reason it failed (the step and the
    receiver's words). Exit 0 when every route took it, 1 when one did not or ROUTE is unknown,
    2 when the service cannot be reached.
    """
    with client(timeout=120) as http:
        response = send(http, "POST", "/admin/notify/test", params={"route": route} if route else None)
    body = body_of(response)
    if response.status_code == 404:
        raise CliError(f"notify test: no notify route named {route!r} in FI_NOTIFY_CHANNELS", ExitCode.DEGRADED)
    if response.status_code == 400:
        raise CliError(f"notify test: {server_errors(response)}", ExitCode.DEGRADED)
    if response.status_code != 200 or not isinstance(body, dict):
        raise CliError(f"notify test: unexpected answer {response.status_code}", ExitCode.DEGRADED)
    results = body.get("results", [])
    if json_output:
        emit_json(body)
    elif not results:
        console.print("[yellow]No notify routes are configured (FI_NOTIFY_CHANNELS).[/yellow]")
    else:
        rows = [
            (
                f"{r['name']} ({r['kind']})",
                "[green]delivered[/green]" if r["ok"] else f"[red]failed[/red] {r['detail']}",
            )
            for r in results
        ]
        console.print(key_value_table(rows))
    if any(not r["ok"] for r in results):
        raise typer.Exit(int(ExitCode.DEGRADED))
