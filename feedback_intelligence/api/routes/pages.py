"""The two pages (management view at ``/``, clerk desk at ``/desk``) and their static assets.

Everything is plain files shipped inside the package (``feedback_intelligence/web/static``): no
build step, no CDN, no inline script, so a strict Content-Security-Policy can be set at the edge.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI
from starlette.responses import FileResponse
from starlette.staticfiles import StaticFiles

STATIC_DIR = Path(__file__).resolve().parents[2] / "web" / "static"

# For the edge's route table: these are public (GET only) and load no LLM.
PUBLIC_PAGE_PATHS: tuple[str, ...] = ("/", "/index.html", "/desk", "/desk.html")
PUBLIC_STATIC_PREFIX = "/static/"

# Pages are small and change with each release: revalidate every time (ETag makes that cheap).
_PAGE_HEADERS = {"Cache-Control": "no-cache"}

router = APIRouter(tags=["pages"], include_in_schema=False)


class _RevalidatingStatic(StaticFiles):
    """Static files that the browser revalidates (ETag / Last-Modified) instead of trusting a stale copy."""

    def file_response(self, *args: Any, **kwargs: Any) -> Any:
        response = super().file_response(*args, **kwargs)
        response.headers.setdefault("Cache-Control", "no-cache")
        return response


def page_response(name: str) -> FileResponse:
    """One of the shipped pages, revalidated at every load."""
    return _page(name)


def _page(name: str) -> FileResponse:
    return FileResponse(STATIC_DIR / name, media_type="text/html; charset=utf-8", headers=_PAGE_HEADERS)


@router.get("/")
@router.get("/index.html")
async def management_view() -> FileResponse:
    return _page("index.html")


@router.get("/desk")
@router.get("/desk.html")
async def desk_page() -> FileResponse:
    return _page("desk.html")


def static_app() -> StaticFiles:
    return _RevalidatingStatic(directory=STATIC_DIR, check_dir=True)


def include_pages(app: FastAPI) -> None:
    """Mount the pages and ``/static`` on ``app`` (the API app or a test double)."""
    app.include_router(router)
    app.mount("/static", static_app(), name="static")
