"""The API's documentation, served by the app itself: Swagger UI at ``/docs``, ReDoc at ``/redoc``.

FastAPI's own pages load their scripts from a public CDN and start them with an inline script, so
they are blank on a machine without internet access (the usual on-site case) and need a CSP without
protection. Here the assets come from the ``fastapi-offline`` package (its vendored swagger-ui-dist
and ReDoc builds, located through the installed package, never downloaded), the pages are plain
files, and Swagger UI is started from a file — see docs/adr/0013-offline-api-docs-and-operator-surfaces.md.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from pathlib import Path

from fastapi import APIRouter, HTTPException
from starlette.responses import FileResponse, Response

DOCS_DIR = Path(__file__).resolve().parents[2] / "web" / "docs"
ASSETS_PREFIX = "/docs/assets/"


def _vendored_dir() -> Path:
    return Path(str(files("fastapi_offline") / "static"))


def asset_files() -> dict[str, Path]:
    """The only files served under ``/docs/assets/``: an explicit list, not a directory."""
    vendored = _vendored_dir()
    return {
        "swagger-ui-bundle.js": vendored / "swagger-ui-bundle.js",
        "swagger-ui.css": vendored / "swagger-ui.css",
        "redoc.standalone.js": vendored / "redoc.standalone.js",
        "favicon.png": vendored / "favicon.png",
        "swagger-init.js": DOCS_DIR / "swagger-init.js",
        "redoc.css": DOCS_DIR / "redoc.css",
    }


# ReDoc's sidebar always shows a logo fetched from its vendor's CDN; offline that is a failed request
# and, under the docs CSP, a logged violation. The served bundle points it at an empty inline image.
REDOC_CDN_LOGO = b"https://cdn.redoc.ly/redoc/logo-mini.svg"
EMPTY_IMAGE = b"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E"


@cache
def offline_redoc_bundle() -> bytes:
    bundle = asset_files()["redoc.standalone.js"].read_bytes()
    return bundle.replace(REDOC_CDN_LOGO, EMPTY_IMAGE)


_MEDIA = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".png": "image/png"}

router = APIRouter(include_in_schema=False)


@router.get("/docs")
async def swagger_ui() -> FileResponse:
    return FileResponse(DOCS_DIR / "swagger.html", media_type="text/html; charset=utf-8")


@router.get("/redoc")
async def redoc() -> FileResponse:
    return FileResponse(DOCS_DIR / "redoc.html", media_type="text/html; charset=utf-8")


# The assets change only with a release of the package; a day's caching spares the operator's reloads.
_CACHING = {"Cache-Control": "max-age=86400"}


@router.get(ASSETS_PREFIX + "{name}")
async def docs_asset(name: str) -> Response:
    path = asset_files().get(name)
    if path is None:
        raise HTTPException(404, "Not Found")
    if name == "redoc.standalone.js":
        return Response(offline_redoc_bundle(), media_type=_MEDIA[".js"], headers=_CACHING)
    return FileResponse(path, media_type=_MEDIA[path.suffix], headers=_CACHING)
