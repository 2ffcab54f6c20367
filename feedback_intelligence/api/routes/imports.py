"""The management page's import (ADR 0063): ``POST /imports/preview`` and ``POST /imports/run``.

The body is the CSV file itself, as the manager's form tool exported it; the choices (the columns, the
labels' values) come in the query. It is spooled to disk past 1 MiB and read by the import's own rules
(``feedback_intelligence/imports``), the ones ``feedctl load`` reads a file by, so a file previews and
loads the same way from the page and from the command line. The edge caps the body as a batch's
(``FI_BATCH_MAX_BODY_BYTES``).

A run is refused whole, nothing stored, while a line needs fixing (as ``feedctl load`` refuses a file).
Otherwise its rows go through the batch route's own steps (``store_batch``: each item checked as a save,
the rules, one transaction a batch), a batch slot at a time (ADR 0043), and the answer streams one
progress line per batch. The run goes on when the page is closed: what was sent is stored whole, and
running the same file again stores nothing twice (the ids are made from its name, line and text).

A run is a backfill (``history``) unless the page says otherwise: no case, nobody paged, the rules'
structures kept, and the model only when asked (``byModel``), later, at background priority.
"""

from __future__ import annotations

import asyncio
import json
import logging
import tempfile
from collections.abc import AsyncIterator
from typing import IO, Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.responses import StreamingResponse

from feedback_intelligence.api import models as m
from feedback_intelligence.api.authorship import author_of
from feedback_intelligence.api.deps import RuntimeDep
from feedback_intelligence.api.errors import InputError
from feedback_intelligence.api.models.imports import ImportPreviewOut, ImportProgressOut
from feedback_intelligence.api.problems import Problem
from feedback_intelligence.api.responses import errors
from feedback_intelligence.api.routes.batch import store_batch
from feedback_intelligence.api.routes.desk import schema
from feedback_intelligence.api.runtime import Runtime
from feedback_intelligence.api.scope import ManagerScope
from feedback_intelligence.imports.preview import FIRST_PROBLEMS, preview, unknown_sources
from feedback_intelligence.imports.rows import ImportRefused, Line, with_id
from feedback_intelligence.imports.upload import ReadUpload, UploadOptions, read_upload
from feedback_intelligence.services.batch_slots import BatchesBusy
from feedback_intelligence.services.channels import CORPUS
from feedback_intelligence.store.errors import StoreError

log = logging.getLogger(__name__)
router = APIRouter()

SPOOL_BYTES = 1 << 20  # an upload past this is kept on disk while it is read, not in memory
CHUNK = 500  # rows a batch (at most FI_BATCH_MAX_ITEMS), as feedctl load sends them
UPLOAD = "upload.csv"  # how a problem names the file when the page sends no name
_RUNS: set[asyncio.Task[None]] = set()  # runs in progress: held, so a closed page never stops one

MapQuery = Annotated[
    str | None,
    Query(
        alias="map",
        description='Item field → column, as JSON (`{"text": "Palaute", "timestamp": "Lähetetty"}`); absent: '
        "suggested from the header's words.",
    ),
]
ValuesQuery = Annotated[
    str | None,
    Query(
        alias="values",
        description='Labels → values, as JSON (`{"source": {"Verkkolomake": "web_form"}}`); a store\'s name '
        "of FI_STORES needs none.",
    ),
]
NameQuery = Annotated[
    str | None, Query(alias="name", max_length=200, description="The file's name, for messages and ids.")
]
SourceQuery = Annotated[
    str | None, Query(max_length=64, description="The source of every row without a source column.")
]

_RESPONSES = errors(
    400,
    413,
    429,
    s400="`import_unreadable` (the file cannot be read: not text, no header, no column for the text), "
    "`import_options` (the mapping or values are not as described) or, on a run, `import_has_problems` "
    "(lines need fixing; the preview names them). Nothing was stored.",
    s413="The file is over FI_BATCH_MAX_BODY_BYTES: nothing was read or stored.",
)
#: The body, as the OpenAPI document states it (the route reads the raw stream, so FastAPI cannot infer it).
_CSV_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "description": "The CSV file as exported (a header line naming the columns, then a row per item).",
        "content": {"text/csv": {"schema": {"type": "string", "format": "binary"}}},
    }
}
_RESPONSES[403] = {"description": "`store_forbidden`: an import is the chain's; a manager of some stores runs none."}


async def _spooled(request: Request) -> IO[bytes]:
    """The body, spooled to disk past ``SPOOL_BYTES`` (the edge has capped its size already)."""
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115 (closed by the caller)
    async for chunk in request.stream():
        spool.write(chunk)
    spool.seek(0)
    return spool


def _options(mapping: str | None, values: str | None, source: str | None, store: str | None) -> UploadOptions:
    try:
        return UploadOptions.of(
            json.loads(mapping) if mapping else None, json.loads(values) if values else None, source, store
        )
    except json.JSONDecodeError as exc:
        raise InputError([Problem(f"map and values must be JSON objects ({exc.msg})", "import_options")]) from exc
    except ImportRefused as exc:
        raise InputError([Problem(exc.message, "import_options")]) from exc


async def _read(request: Request, rt: Runtime, where: str, options: UploadOptions) -> tuple[ReadUpload, dict[str, Any]]:
    """The upload read and mapped in a worker thread (CPU work: the loop keeps serving the desks)."""
    found = (await schema(rt)).model_dump(mode="json")
    spool = await _spooled(request)
    try:
        return await asyncio.to_thread(read_upload, spool, where, options, found), found
    except ImportRefused as exc:
        raise InputError([Problem(exc.message, "import_unreadable")]) from exc
    finally:
        spool.close()


@router.post(
    "/imports/preview",
    response_model=ImportPreviewOut,
    responses=_RESPONSES,
    tags=["report"],
    operation_id="previewImport",
    openapi_extra=_CSV_BODY,
    summary="Preview a CSV import: the columns, the mapping, the first rows as stored and the first problems",
    description="The body is the CSV file (any delimiter of `,;|` or tab; UTF-8 or Windows-1252). It is read "
    "and mapped as `feedctl load --dry-run` reads a file; nothing is stored. A manager of the chain.",
)
async def preview_import(
    request: Request,
    rt: RuntimeDep,
    scope: ManagerScope,
    mapping: MapQuery = None,
    values: ValuesQuery = None,
    name: NameQuery = None,
    source: SourceQuery = None,
) -> ImportPreviewOut:
    scope.require_chain()
    where = name or UPLOAD
    read, found = await _read(request, rt, where, _options(mapping, values, source, scope.store))
    seen = preview(where, read.lines, read.unreadable, found)
    return ImportPreviewOut(
        columns=read.columns,
        mapping=read.mapping,
        suggested=read.suggested,
        sources=found.get("sources") or [],
        unknownSources=unknown_sources(read.lines, found),
        rows=len(read.lines),
        timezone=found.get("timezone") or "UTC",
        **seen.to_json(),
    )


@router.post(
    "/imports/run",
    response_class=StreamingResponse,
    responses={
        **_RESPONSES,
        200: {
            "description": "Progress as NDJSON, one `ImportProgressOut` a batch; the last has `finished: true`.",
            "content": {"application/x-ndjson": {"schema": ImportProgressOut.model_json_schema()}},
        },
    },
    tags=["report"],
    operation_id="runImport",
    openapi_extra=_CSV_BODY,
    summary="Run a CSV import from the management page, streaming its progress",
    description="Read as the preview reads it; refused whole (400 `import_has_problems`) while a line needs "
    "fixing. A backfill by default (`history`): no case, nobody paged, the rules' structures kept, the "
    "model only with `byModel` (later, at background priority). A manager of the chain.",
)
async def run_import(
    request: Request,
    rt: RuntimeDep,
    scope: ManagerScope,
    mapping: MapQuery = None,
    values: ValuesQuery = None,
    name: NameQuery = None,
    source: SourceQuery = None,
    history: Annotated[bool, Query(description="A backfill: no case, nobody paged (default).")] = True,
    by_model: Annotated[
        bool, Query(alias="byModel", description="The model structures the rows later, in the background.")
    ] = False,
) -> StreamingResponse:
    scope.require_chain()
    where = name or UPLOAD
    read, found = await _read(request, rt, where, _options(mapping, values, source, scope.store))
    seen = preview(where, read.lines, read.unreadable, found)
    if seen.problems:
        shown = "; ".join(seen.problems[:FIRST_PROBLEMS])
        needs = f"{seen.lines_with_problems} lines need fixing; nothing was stored: {shown}"
        raise InputError([Problem(needs, "import_has_problems", lines=seen.lines_with_problems)])
    progress: asyncio.Queue[ImportProgressOut] = asyncio.Queue()
    run = asyncio.create_task(
        _store(rt, where, read.lines, history, by_model if history else True, author_of(request.scope), progress)
    )
    _RUNS.add(run)
    run.add_done_callback(_RUNS.discard)
    return StreamingResponse(
        _lines(progress),
        media_type="application/x-ndjson",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},  # each line as it is written
    )


async def _lines(progress: asyncio.Queue[ImportProgressOut]) -> AsyncIterator[str]:
    while True:
        line = await progress.get()
        yield line.model_dump_json() + "\n"
        if line.finished:
            return


async def _store(
    rt: Runtime,
    where: str,
    lines: list[Line],
    history: bool,
    by_model: bool,
    author: str | None,
    progress: asyncio.Queue[ImportProgressOut],
) -> None:
    """Every row in batches of ``CHUNK`` (a slot each, waited for rather than shed: nobody is waiting on
    the other end of a shed), a progress line after each; the last says whether it finished whole."""
    size = min(CHUNK, rt.settings.chain.batch_max_items)
    counts = dict.fromkeys(("created", "accepted", "duplicate", "erased", "invalid"), 0)
    problems: list[str] = []
    done = 0

    def line(*, finished: bool = False, failed: str | None = None) -> ImportProgressOut:
        return ImportProgressOut(
            total=len(lines), done=done, problems=problems[:FIRST_PROBLEMS], finished=finished, failed=failed, **counts
        )

    try:
        for start in range(0, len(lines), size):
            chunk = lines[start : start + size]
            body = m.BatchIn(items=[with_id(where, row) for row in chunk], history=history, byModel=by_model)
            answer = await _one_batch(rt, body, author)
            for row, result in zip(chunk, answer.results, strict=True):
                counts[result.status] += 1
                if result.status == "invalid":
                    problems.append(f"{where}:{row.number}: {'; '.join(result.errors or [])}")
            done += len(chunk)
            progress.put_nowait(line())
    except StoreError as exc:
        log.warning("import %s stopped after %d of %d rows: %s", where, done, len(lines), exc)
        progress.put_nowait(line(finished=True, failed=f"the database did not take a batch ({exc}); run it again"))
        return
    except Exception:  # the page must hear the end, whatever stopped the run
        log.exception("import %s stopped after %d of %d rows", where, done, len(lines))
        progress.put_nowait(line(finished=True, failed="the service failed (the details are in its log); run it again"))
        return
    progress.put_nowait(line(finished=True))


async def _one_batch(rt: Runtime, body: m.BatchIn, author: str | None) -> m.BatchOut:
    while True:
        try:
            return await rt.batch_slots.run(lambda: store_batch(CORPUS, body, rt, author))
        except BatchesBusy as busy:  # another import holds the slot: wait for it, as feedctl load does
            await rt.clock.sleep(busy.retry_after_s)
