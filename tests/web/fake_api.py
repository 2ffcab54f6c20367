"""A scripted stand-in for the API, for browser tests of the pages.

It serves the very same pages and static files as the real app (it mounts the real pages router)
and answers the API routes from a :class:`Script` the test sets up: /interpret sequences such as
503, 503, 200, a saturated 2-slot backend, 429s; the live channel; reports (built by the app's own
report service over the scripted entries, see ``sample_data.build_report``) and the snapshot.
Every /interpret attempt is recorded with its arrival time. It runs as a real uvicorn server on a
free loopback port, in a thread of the test process.
"""

from __future__ import annotations

import asyncio
import copy
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from starlette.responses import JSONResponse, Response

from feedback_intelligence.api.routes.pages import include_pages
from feedback_intelligence.report.window import Window, WindowError
from tests.web import sample_data

# What the edge colleague will send; the pages must work under it (no inline script or style).
STRICT_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


@dataclass
class Attempt:
    at: float  # time.monotonic() at arrival
    text: str
    status: int = 0


@dataclass
class Script:
    # /interpret
    interpret_statuses: list[int] = field(default_factory=list)  # consumed one per attempt; then 200
    retry_after: str | None = None  # Retry-After header on 503 and 429
    unavailable: bool = False  # 503 answers say "llm_unavailable" (model down) instead of "busy"
    saturated_slots: int | None = None  # emulate a backend with N slots: beyond that 503 at once
    hold_s: float = 1.5  # how long an admitted interpret holds its slot
    interpretation: dict[str, Any] = field(default_factory=sample_data.interpretation)
    attempts: list[Attempt] = field(default_factory=list)
    in_use: int = 0
    # /schema
    schema: dict[str, Any] = field(default_factory=sample_data.schema)
    schema_failures: int = 0  # answer 503 this many times first
    schema_calls: int = 0
    # live channel
    live_items: list[dict[str, Any]] = field(default_factory=list)
    live_version: int = 0
    live_report_status: int = 200
    saves: list[dict[str, Any]] = field(default_factory=list)
    save_statuses: list[int] = field(default_factory=list)  # forced answers before storing
    version_calls: int = 0
    # management view
    report: dict[str, Any] | None = None  # None: the app's report service over live_items (canned prose)
    report_status: int = 200
    report_delay_s: float = 0.0
    report_queries: list[dict[str, str]] = field(default_factory=list)
    snapshot: dict[str, Any] | None = None
    # the desk's store (/live/desk-store): names of the stores the fake knows; any other ?store= is refused
    store_names: dict[str, str] = field(default_factory=dict)


class FakeApi:
    def __init__(self) -> None:
        self.script = Script()
        self.lock = threading.Lock()
        self.app = self._build()

    def reset(self) -> Script:
        with self.lock:
            self.script = Script()
        return self.script

    # ------------------------------------------------------------------ app

    def _build(self) -> FastAPI:
        app = FastAPI()
        include_pages(app)
        fake = self

        @app.middleware("http")
        async def csp(request: Request, call_next: Any) -> Response:
            response = await call_next(request)
            response.headers["Content-Security-Policy"] = STRICT_CSP
            return response

        def busy(sc: Script) -> Response:
            headers = {"Retry-After": sc.retry_after} if sc.retry_after else {}
            if sc.unavailable:
                body = {"error": "llm_unavailable", "retryAfterSeconds": 5, "message": "model down"}
            else:
                body = {"error": "busy", "reason": "acquire_timeout", "retryAfterSeconds": 1, "message": "busy"}
            return JSONResponse(body, status_code=503, headers=headers)

        @app.post("/interpret")
        async def interpret(request: Request) -> Response:
            sc = fake.script
            body = await request.json()
            attempt = Attempt(time.monotonic(), str(body.get("text", "")))
            sc.attempts.append(attempt)
            if sc.saturated_slots is not None:
                if sc.in_use >= sc.saturated_slots:
                    attempt.status = 503
                    return busy(sc)
                sc.in_use += 1
                try:
                    await asyncio.sleep(sc.hold_s)
                finally:
                    sc.in_use -= 1
                attempt.status = 200
                return JSONResponse(sc.interpretation)
            status = sc.interpret_statuses.pop(0) if sc.interpret_statuses else 200
            attempt.status = status
            if status == 503:
                return busy(sc)
            if status == 429:
                headers = {"Retry-After": sc.retry_after} if sc.retry_after else {}
                return Response(status_code=429, headers=headers)
            if status == 400:
                return JSONResponse(
                    {"errors": ["text must be non-empty."], "codes": [{"code": "text_empty"}]}, status_code=400
                )
            if status != 200:
                return JSONResponse({"error": "internal error"}, status_code=status)
            return JSONResponse(sc.interpretation)

        @app.get("/schema")
        async def schema() -> Response:
            sc = fake.script
            sc.schema_calls += 1
            if sc.schema_calls <= sc.schema_failures:
                return JSONResponse({"error": "down"}, status_code=503)
            return JSONResponse(sc.schema)

        @app.get("/live/version")
        async def live_version() -> Response:
            fake.script.version_calls += 1
            return JSONResponse({"version": fake.script.live_version})

        @app.get("/live/desk-store")
        async def desk_store(store: str | None = None) -> Response:
            names = fake.script.store_names
            if store is None:
                return JSONResponse({"id": None, "name": None, "boundBy": "none"})
            if store not in names:
                message = f"store must be one of the stores of FI_STORES ({', '.join(names)}), got '{store}'."
                return JSONResponse(
                    {"errors": [message], "codes": [{"code": "store_unknown", "field": "store", "value": store}]},
                    status_code=400,
                )
            return JSONResponse({"id": store, "name": names[store], "boundBy": "page"})

        @app.get("/live/feedback")
        async def live_list(limit: int = 200, mine: bool = False) -> Response:
            if mine:  # the fake knows no people: "my entries" is the real app's (tests/web/test_my_entries.py)
                return JSONResponse([])
            items = sorted(fake.script.live_items, key=lambda i: i["timestamp"], reverse=True)
            return JSONResponse(items[: max(1, min(1000, limit))])

        @app.get("/live/feedback/{feedback_id}")
        async def live_get(feedback_id: str) -> Response:
            for item in fake.script.live_items:
                if item["id"] == feedback_id:
                    return JSONResponse(item)
            return JSONResponse({"error": "not found"}, status_code=404)

        @app.post("/live/feedback")
        async def live_save(request: Request) -> Response:
            sc = fake.script
            body = await request.json()
            sc.saves.append(copy.deepcopy(body))
            if sc.save_statuses:
                status = sc.save_statuses.pop(0)
                return JSONResponse({"error": "scripted"}, status_code=status)
            if any(i["id"] == body.get("id") for i in sc.live_items):
                return JSONResponse({"error": "duplicate id", "id": body["id"]}, status_code=409)
            stored = sample_data.stored_from_request(body)
            sc.live_items.append(stored)
            sc.live_version += 1
            return JSONResponse(
                {
                    "id": stored["id"],
                    "structure": stored["structure"],
                    "structureFailed": False,
                    "salvageNotes": [],
                    "alerts": [],
                    "needsReview": False,
                    "reviewFlags": [],
                },
                status_code=201,
                headers={"Location": f"/live/feedback/{stored['id']}"},
            )

        def window_of(request: Request) -> Window:
            return sample_data.window(request.query_params.get("from"), request.query_params.get("to"))

        def refused(exc: WindowError) -> Response:
            return JSONResponse({"errors": [exc.message], "codes": [{"code": "window_invalid"}]}, status_code=400)

        @app.get("/live/report")
        async def live_report(request: Request) -> Response:
            sc = fake.script
            if sc.live_report_status != 200:
                return JSONResponse({"error": "scripted"}, status_code=sc.live_report_status)
            try:
                span = window_of(request)
            except WindowError as exc:
                return refused(exc)
            report = await sample_data.build_report(
                sc.live_items, summary=True, language=sc.schema["language"], span=span
            )
            return JSONResponse(report.to_json())

        @app.get("/report")
        async def report(request: Request) -> Response:
            sc = fake.script
            sc.report_queries.append(dict(request.query_params))
            if sc.report_delay_s:
                await asyncio.sleep(sc.report_delay_s)
            if sc.report_status != 200:
                return JSONResponse(
                    {"errors": ["window must be positive and at most 366 days."], "codes": [{"code": "window_invalid"}]}
                    if sc.report_status == 400
                    else {"error": "scripted"},
                    status_code=sc.report_status,
                )
            if sc.report is not None:
                return JSONResponse(sc.report)
            try:
                span = window_of(request)
            except WindowError as exc:
                return refused(exc)
            report = await sample_data.build_report(
                sc.live_items, summary=False, language=sc.schema["language"], span=span
            )
            return JSONResponse(report.to_json())

        @app.get("/report/snapshot")
        async def snapshot() -> Response:
            if fake.script.snapshot is None:
                return Response(status_code=204)
            return JSONResponse(fake.script.snapshot)

        return app


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ThreadedServer:
    """uvicorn on a free loopback port in a daemon thread; ``stop()`` shuts it down cleanly."""

    def __init__(self, app: Any) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="off", access_log=False
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name=f"fake-api-{self.port}", daemon=True)

    def start(self) -> ThreadedServer:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("fake API server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
