"""feedctl commands for a deployment: the nginx site written from the route table, and the container probe."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from feedback_intelligence.cli.failures import CliError, ExitCode


def nginx_config(
    upstream: Annotated[
        list[str] | None,
        typer.Option(
            "--upstream", help="host:port of a replica (repeat for each; default 127.0.0.1:FI_PORT, one host)."
        ),
    ] = None,
    listen: Annotated[str, typer.Option(help="nginx's listen directive's argument.")] = "80",
    server_name: Annotated[str, typer.Option(help="nginx's server_name.")] = "_",
) -> None:
    """Print the nginx site for the public edge, written from this version's route table.

    Its body caps and read timeout follow FI_MAX_BODY_BYTES, FI_BATCH_MAX_BODY_BYTES (the page's upload) and
    FI_LLM_CALL_TIMEOUT_S from the environment.
    Regenerate it after every upgrade: a route the pages call that nginx does not forward is a 404.
    """
    from feedback_intelligence.config import load_settings
    from feedback_intelligence.edge.nginx_site import Limits, render_site

    settings = load_settings()
    servers = upstream or [f"127.0.0.1:{settings.server.port}"]
    for server in servers:
        host, _, port = server.rpartition(":")
        if not host or not port.isdigit():
            raise CliError(f"--upstream {server!r}: expected host:port", ExitCode.BAD_INPUT)
    limits = Limits(
        settings.edge.max_body_bytes, int(settings.gate.call_timeout_s), settings.chain.batch_max_body_bytes
    )
    typer.echo(render_site(servers, listen=listen, server_name=server_name, limits=limits), nl=False)


class Probe(StrEnum):
    livez = "livez"
    health = "health"


def probe(
    what: Annotated[Probe, typer.Argument(help="livez: the process answers; health: ready (the LLM too).")],
    timeout_s: Annotated[float, typer.Option(min=0.1, help="Seconds to wait for the answer.")] = 5.0,
) -> None:
    """Ask this host's service (127.0.0.1:FI_PORT) for /livez or /health: a container's health check.

    Sends a Host header the service accepts (FI_ALLOWED_HOSTS). Exit 0 on 200, 1 on any other answer,
    2 when nothing answers.
    """
    import httpx

    from feedback_intelligence.config import load_settings

    settings = load_settings()
    url = f"http://127.0.0.1:{settings.server.port}/{what.value}"
    try:
        answer = httpx.get(url, headers={"Host": probe_host(settings.edge.allowed_hosts)}, timeout=timeout_s)
    except httpx.TransportError as exc:
        reason = f"{what.value}: nothing answers at {url} ({exc or type(exc).__name__})"
        raise CliError(reason, ExitCode.UNREACHABLE) from exc
    if answer.status_code != 200:
        raise CliError(f"{what.value}: {answer.status_code}", ExitCode.DEGRADED)


def probe_host(allowed: list[str]) -> str:
    """A name the allowed-hosts check lets through: the first listed, or one under a listed ``*.`` domain."""
    first = allowed[0] if allowed else "localhost"
    if first == "*":
        return "localhost"
    return "probe" + first[1:] if first.startswith("*.") else first
