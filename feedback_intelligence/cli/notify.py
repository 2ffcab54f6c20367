"""``feedctl notify``: the notification routes of a running service."""

from __future__ import annotations

import typer

from feedback_intelligence.cli.failures import CliError, ExitCode
from feedback_intelligence.cli.http import body_of, client, send
from feedback_intelligence.cli.output import JsonFlag, console, emit_json, key_value_table

notify_app = typer.Typer(no_args_is_help=True, help="Notification routes (FI_NOTIFY_CHANNELS).")


@notify_app.command("test")
def test(json_output: JsonFlag = False) -> None:
    """Send a test message down every configured route now.

    Exit 0 when every route took it, 1 when one did not, 2 when the service cannot be reached.
    """
    with client(timeout=120) as http:
        response = send(http, "POST", "/admin/notify/test")
    body = body_of(response)
    if response.status_code != 200 or not isinstance(body, dict):
        raise CliError(f"notify test: unexpected answer {response.status_code}", ExitCode.DEGRADED)
    results = body.get("results", [])
    if json_output:
        emit_json(body)
    elif not results:
        console.print("[yellow]No notify routes are configured (FI_NOTIFY_CHANNELS).[/yellow]")
    else:
        rows = [
            (f"{r['name']} ({r['kind']})", "[green]sent[/green]" if r["ok"] else f"[red]failed[/red] {r['detail']}")
            for r in results
        ]
        console.print(key_value_table(rows))
    if any(not r["ok"] for r in results):
        raise typer.Exit(int(ExitCode.DEGRADED))
