"""The FastAPI application: routes, middleware and the runtime's lifespan."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from feedback_intelligence import __version__
from feedback_intelligence.api.errors import install_error_handlers
from feedback_intelligence.api.openapi import camel_operation_id, install_openapi
from feedback_intelligence.api.routes import (
    admin,
    auth,
    batch,
    cases,
    corrections,
    desk,
    docs,
    health,
    imports,
    mail_choices,
    password_changes,
    report,
)
from feedback_intelligence.api.routes.pages import include_pages
from feedback_intelligence.api.runtime import Runtime, build_runtime, load_configured_domain
from feedback_intelligence.auth import passwords
from feedback_intelligence.auth.oidc import OidcClient
from feedback_intelligence.auth.people import People
from feedback_intelligence.config import AuthSettings, Settings, load_settings
from feedback_intelligence.edge.stack import build_edge, install_edge
from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock
from feedback_intelligence.llm.backend import LlmBackend
from feedback_intelligence.services.channels import LIVE
from feedback_intelligence.store.accounts import AccountStore
from feedback_intelligence.workers.warmup import warm_at_start

log = logging.getLogger(__name__)


def create_app(
    settings: Settings | None = None,
    *,
    backend: LlmBackend | None = None,
    on_started: Callable[[], None] | None = None,
    clock: Clock = SYSTEM_CLOCK,
) -> FastAPI:
    """``on_started``: run once the runtime is built, before the first request (``feedctl serve``'s
    ``loop_pauses.freeze_what_start_up_made``); ``clock``: the runtime's one clock (a test's manual one)."""
    settings = settings or load_settings()
    domain = load_configured_domain(settings)  # a bad domain folder stops the boot here, naming the problem

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.runtime = rt = await build_runtime(settings, backend, domain=domain, clock=clock)
        bind_people(app, edge.people, settings.auth, rt)
        if on_started is not None:
            on_started()
        # Warm in the background: the service answers at once, and the first press finds the model warm.
        warming = (
            asyncio.create_task(warm_at_start(rt.runner.backends or {"default": rt.backend}, rt.interpret.structuring))
            if settings.backends.warm_at_start and backend is None
            else None
        )
        try:
            yield
        finally:
            if warming is not None:
                warming.cancel()
                await asyncio.gather(warming, return_exceptions=True)
            await app.state.runtime.aclose()
            await edge.aclose()

    app = FastAPI(
        title="Feedback Intelligence",
        version=__version__,
        summary="Structured shop-floor feedback behind an LLM gate that sheds instead of queueing.",
        lifespan=lifespan,
        docs_url=None,  # FastAPI's pages load a CDN; ours are served offline (api/routes/docs.py)
        redoc_url=None,
        generate_unique_id_function=camel_operation_id,
    )
    app.state.settings = settings
    install_error_handlers(app)
    app.include_router(health.router)
    app.include_router(desk.router)
    app.include_router(corrections.router)
    app.include_router(batch.router)
    app.include_router(imports.router)
    app.include_router(report.router)
    include_pages(app)
    app.include_router(admin.router)
    app.include_router(cases.router)
    app.include_router(auth.router)
    app.include_router(password_changes.router)
    app.include_router(mail_choices.router)
    app.include_router(docs.router)
    install_openapi(app, domain, settings)
    # The edge (identity, headers, CORS, visitor key, rate limit, route surface, body cap, in-flight
    # limit) wraps every route; its layers and their order are in feedback_intelligence/edge/stack.py.
    edge = install_edge(
        app,
        settings,
        metrics=lambda: _runtime_part(app, "metrics"),
        retry_after_s=lambda: _gate_retry_after(app),
        edge=build_edge(settings, clock=clock),
    )
    app.state.edge = edge
    return app


def bind_people(app: FastAPI, people: People, settings: AuthSettings, rt: Runtime) -> None:
    """The accounts live in the live database (ADR 0024 section 6); FI_AUTH said plainly at boot."""
    people.bind(AccountStore(rt.channels[LIVE].store, rt.clock))
    if settings.mode == "oidc":
        app.state.oidc = OidcClient(settings, settings.session_secret or secrets.token_hex(32), clock=rt.clock)
    if settings.mode == "none":
        log.warning(
            "FI_AUTH=none: no sign-in; anyone who can reach this service reads every entry and writes at the desk "
            "(set FI_AUTH=local, oidc or proxy for accounts and roles; docs/operations/people.md)"
        )
    else:
        log.info("FI_AUTH=%s: customer text only for signed-in people with a role (docs/adr/0030)", settings.mode)
    if settings.mode == "local":
        passwords.prepare()  # the first unknown name then costs what every later one does


def _runtime_part(app: FastAPI, name: str) -> Any:
    runtime = getattr(app.state, "runtime", None)
    return getattr(runtime, name, None)


def _gate_retry_after(app: FastAPI) -> int:
    """How long a client's previous LLM request will likely still run: the gate's estimate."""
    gate = _runtime_part(app, "gate")
    return gate.retry_after_s() if gate is not None else 1
