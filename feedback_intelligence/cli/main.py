"""feedctl: the operator's command line."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import typer

from feedback_intelligence.cli import ops
from feedback_intelligence.settings import ConfigurationError, load_settings

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Operate a Feedback Intelligence service.")
for command in (ops.status, ops.warm, ops.interpret, ops.load, ops.report, ops.restructure, ops.verify):
    app.command()(command)


@app.command()
def serve(
    host: str | None = typer.Option(None, help="Listen address (default FI_HOST)."),
    port: int | None = typer.Option(None, help="Listen port (default FI_PORT)."),
    log_level: str = typer.Option("info", help="Log level."),
) -> None:
    """Run the API and the pages: one process, one worker.

    A single worker is deliberate while the gate is in-process: several workers would each admit
    their own slots and break the GPU's bound. Run replicas with FI_REDIS_URL instead.
    """
    import uvicorn

    from feedback_intelligence.api.app import create_app

    overrides = {k: v for k, v in {"host": host, "port": port}.items() if v is not None}
    try:
        settings = load_settings(**overrides)
    except ConfigurationError as exc:
        typer.secho(str(exc), fg=typer.colors.RED, err=True)
        raise typer.Exit(2) from exc
    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        application = create_app(settings)
    except ConfigurationError as exc:
        typer.secho(str(exc), fg=typer.colors.RED, err=True)
        raise typer.Exit(2) from exc
    uvicorn.run(
        application, host=settings.host, port=settings.port, workers=1, log_level=log_level.lower(),
        timeout_graceful_shutdown=5,
        # Client identity is the edge's job, under FI_TRUSTED_PROXIES; uvicorn's own forwarded-header
        # handling (on by default for 127.0.0.1) would rewrite the peer before the edge sees it.
        proxy_headers=False,
    )


@app.command("sim-ollama")
def sim_ollama(
    parallel: int = typer.Option(1, min=1, help="Requests a loaded model runs at once (OLLAMA_NUM_PARALLEL)."),
    max_queue: int = typer.Option(512, min=0, help="Pending queue for a cold/loading model (OLLAMA_MAX_QUEUE)."),
    service_ms: int = typer.Option(1500, min=0, help="Time one request holds a parallel slot."),
    load_ms: int = typer.Option(0, min=0, help="Cold-load delay of the model."),
    keep_alive_s: float = typer.Option(300.0, help="How long the model stays loaded after its last request."),
    host: str = typer.Option("127.0.0.1"),
    port: int = typer.Option(11434),
    replies: Path | None = typer.Option(
        None, help='JSONL of scripted replies: {"match": "substring", "reply": "..."} or {"reply": "..."} '
                   "(served in order); anything else gets the usual synthetic reply.",
    ),
) -> None:
    """A simulated Ollama server (test and benchmark fixture, never the product's default)."""
    from feedback_intelligence.sim.ollama_sim import SimConfig, serve_sim
    from feedback_intelligence.sim.script import ScriptError, read_script

    try:
        script = read_script(replies) if replies is not None else None
    except ScriptError as exc:
        typer.secho(str(exc), fg=typer.colors.RED, err=True)
        raise typer.Exit(2) from exc
    serve_sim(
        SimConfig(parallel=parallel, max_queue=max_queue, service_ms=service_ms, load_ms=load_ms,
                  keep_alive_s=keep_alive_s),
        host=host,
        port=port,
        replies=script,
    )


@app.command()
def crowd(
    clerks: int = typer.Option(40, min=1, help="Simulated clerks."),
    duration: float = typer.Option(60.0, min=1, help="Seconds the crowd lasts."),
    think_min: float = typer.Option(1.0, help="Shortest think time between presses (s)."),
    think_max: float = typer.Option(6.0, help="Longest think time between presses (s)."),
    seed: int | None = typer.Option(None, help="Random seed for a repeatable crowd."),
    output: Path | None = typer.Option(None, help="Write the result as JSON here."),
) -> None:
    """N clerks for D seconds against a running server, following the desk's 503 policy."""
    from rich.console import Console

    from feedback_intelligence.cli.crowd import crowd_command

    summary = crowd_command(clerks, duration, think_min, think_max, seed, output)
    Console().print_json(data=summary)


def main() -> None:  # pragma: no cover - console entry
    try:
        app()
    except ConfigurationError as exc:
        print(exc, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":  # pragma: no cover
    main()
