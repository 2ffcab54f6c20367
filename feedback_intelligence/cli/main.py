"""feedctl: the operator's command line.

Exit codes (every command): 0 ok · 1 the service answered but not all is well (failed items, /health
503, a story not found) · 2 the service cannot be reached, or the input is bad (a file, a flag, a
setting) · 3 a database cannot be used (serve, migrate: cli/databases.py). Errors are one line on stderr,
printed in one place: :mod:`feedback_intelligence.cli.failures`.
"""

from __future__ import annotations

import logging
import sys
from enum import StrEnum
from pathlib import Path

import typer

from feedback_intelligence.cli import backup, deploy, failures, ops
from feedback_intelligence.cli.evaluate import eval_command
from feedback_intelligence.cli.migrate import migrate_app
from feedback_intelligence.cli.notify import notify_app
from feedback_intelligence.cli.output import JsonFlag
from feedback_intelligence.cli.rederive import rederive
from feedback_intelligence.cli.rollups import rollups_app
from feedback_intelligence.cli.rules import rules_app
from feedback_intelligence.cli.status import status
from feedback_intelligence.cli.users import users
from feedback_intelligence.config import load_settings

# rich_markup_mode=None: click's plain help and usage errors. Rich's help panel shows a flag as
# "--watch <bool>" and wraps a usage error in a box; plain click prints "--watch" and one "Error:" line.
app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    help="Operate a Feedback Intelligence service. Exit codes: 0 ok, 1 degraded or failed items, "
    "2 unreachable or bad input, 3 a database cannot be used.",
)
for command in (status, ops.warm, ops.interpret, ops.load, ops.report, ops.restructure, ops.verify, rederive):
    app.command()(command)
app.command("eval")(eval_command)
app.command("backup")(backup.backup)
app.command("restore")(backup.restore)
app.command("nginx-config")(deploy.nginx_config)
app.command("probe")(deploy.probe)
app.add_typer(migrate_app, name="migrate")
app.add_typer(notify_app, name="notify")
app.add_typer(rollups_app, name="rollups")
app.add_typer(rules_app, name="rules")
app.add_typer(users, name="user")


class LogLevel(StrEnum):
    debug = "debug"
    info = "info"
    warning = "warning"
    error = "error"


@app.command()
def serve(
    host: str | None = typer.Option(None, help="Listen address (default FI_HOST)."),
    port: int | None = typer.Option(None, help="Listen port (default FI_PORT)."),
    log_level: LogLevel = typer.Option(LogLevel.info, help="Log level."),
) -> None:
    """Run the API and the pages: one process, one worker.

    A single worker is deliberate while the gate is in-process: several workers would each admit
    their own slots and break the GPU's bound. Run replicas with FI_REDIS_URL instead.
    """
    import uvicorn

    from feedback_intelligence.api.app import create_app
    from feedback_intelligence.api.runtime import load_configured_domain
    from feedback_intelligence.cli import databases, log_setup, loop_pauses
    from feedback_intelligence.config import unknown
    from feedback_intelligence.config.kept_secrets import KeptSecretError, with_kept_secrets
    from feedback_intelligence.edge.http_server import uvicorn_limits
    from feedback_intelligence.store.feedback_store import FeedbackStore

    overrides = {k: v for k, v in {"host": host, "port": port}.items() if v is not None}
    settings = load_settings(**overrides)  # a bad setting: one line per fault, exit 2 (cli/failures.py)
    log_config = log_setup.configure(log_level.value, settings.server.log_format)
    for line in unknown.warnings():  # a misspelt variable is not silently ignored (ADR 0052)
        logging.getLogger("feedback_intelligence.config").warning(line)
    # a database that is down, missing or refusing the role: one line and exit 3 (cli/databases.py)
    databases.on_each(settings, FeedbackStore.ping, "cannot start")
    load_configured_domain(settings)  # a bad FI_DOMAIN is one line before anything is written (1 ms a load)
    try:
        settings = with_kept_secrets(settings)  # "mine" and sessions outlive a restart (ADR 0046)
    except KeptSecretError as exc:
        raise failures.CliError(f"cannot start: {exc}") from exc
    # migrated here, not first in the lifespan: a role without privileges, or a database a newer release
    # migrated, is the same one line, not a traceback; the log names each database's revision
    databases.migrate_all(settings, "cannot start")
    # the event loop's pauses that are the interpreter's, not the work's (docs/adr/0043)
    application = create_app(settings, on_started=loop_pauses.freeze_what_start_up_made)
    loop_pauses.shorten_lock_turns()
    uvicorn.run(
        application,
        host=settings.server.host,
        port=settings.server.port,
        workers=1,
        log_level=log_level.value,
        log_config=log_config,  # the access log keeps no search words, no credentials (ADR 0039)
        timeout_graceful_shutdown=5,
        # Client identity is the edge's job, under FI_TRUSTED_PROXIES; uvicorn's own forwarded-header
        # handling (on by default for 127.0.0.1) would rewrite the peer before the edge sees it.
        proxy_headers=False,
        # Header size, read deadline, keep-alive and concurrency bounds: edge/http_server.py.
        **uvicorn_limits(settings),
    )


@app.command("sim-ollama")
def sim_ollama(
    parallel: int = typer.Option(1, min=1, help="Requests a loaded model runs at once (OLLAMA_NUM_PARALLEL)."),
    max_queue: int = typer.Option(
        512, min=0, help="Pending queue for a cold/loading model (OLLAMA_MAX_QUEUE); batching: OpenAI calls waiting."
    ),
    service_ms: int = typer.Option(1500, min=0, help="Time one request holds a parallel slot."),
    load_ms: int = typer.Option(0, min=0, help="Cold-load delay of the model."),
    keep_alive_s: float = typer.Option(300.0, help="How long the model stays loaded after its last request."),
    host: str = typer.Option("127.0.0.1"),
    port: int = typer.Option(11434),
    replies: Path | None = typer.Option(
        None,
        help='JSONL of scripted replies: {"match": "substring", "reply": "..."} or {"reply": "..."} '
        "(served in order); anything else gets the usual synthetic reply.",
    ),
    batching: bool = typer.Option(False, help="A GPU that batches (--parallel is its max_num_seqs)."),
    step_ms: float = typer.Option(15.0, min=0, help="Batching: one decode step alone."),
    per_seq_ms: float = typer.Option(0.6, min=0, help="Batching: added to a step per running sequence."),
    knee_seqs: int = typer.Option(24, min=1, help="Batching: sequences the memory holds."),
    past_knee_ms: float = typer.Option(8.0, min=0, help="Batching: added per sequence past the knee."),
    prefill_ms_per_1k: float = typer.Option(100.0, min=0, help="Batching: per 1000 prompt tokens joining."),
) -> None:
    """A simulated Ollama server (test and benchmark fixture, never the product's default)."""
    from feedback_intelligence.sim.batching import BatchingConfig
    from feedback_intelligence.sim.ollama_sim import SimConfig, serve_sim
    from feedback_intelligence.sim.script import ScriptError, read_script

    try:
        script = read_script(replies) if replies is not None else None
    except ScriptError as exc:
        typer.secho(str(exc), fg=typer.colors.RED, err=True)
        raise typer.Exit(2) from exc
    serve_sim(
        SimConfig(
            parallel=parallel,
            max_queue=max_queue,
            service_ms=service_ms,
            load_ms=load_ms,
            keep_alive_s=keep_alive_s,
            batching=BatchingConfig(step_ms, per_seq_ms, knee_seqs, past_knee_ms, prefill_ms_per_1k, parallel)
            if batching
            else None,
        ),
        host=host,
        port=port,
        replies=script,
    )


@app.command()
def crowd(
    clerks: int = typer.Option(40, min=1, help="Simulated clerks."),
    duration: float = typer.Option(60.0, min=1, help="Seconds the crowd lasts."),
    think_min: float = typer.Option(1.0, min=0, help="Shortest think time between presses (s)."),
    think_max: float = typer.Option(6.0, min=0, help="Longest think time between presses (s)."),
    seed: int | None = typer.Option(None, help="Random seed for a repeatable crowd."),
    output: Path | None = typer.Option(None, help="Write the result as JSON here."),
    url: str | None = typer.Option(None, "--url", help="Service to press on (default FEEDCTL_URL or :8080)."),
    json_output: JsonFlag = False,
) -> None:
    """N clerks for D seconds against a running server, following the desk's 503 policy.

    Exit 1 when presses ended in errors other than the busy message, 2 when the service cannot be reached.
    """
    from feedback_intelligence.cli.crowd_view import run_crowd_command

    raise typer.Exit(run_crowd_command(clerks, duration, think_min, think_max, seed, output, json_output, url))


def main() -> None:  # pragma: no cover - console entry
    sys.exit(failures.run(app))


if __name__ == "__main__":  # pragma: no cover
    main()
