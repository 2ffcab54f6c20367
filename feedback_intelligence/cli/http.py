"""How feedctl talks to a running service (``FEEDCTL_URL``): one client, and answers turned into
:class:`CliError` where a person has to act (service down, operator route refused, bad request)."""

from __future__ import annotations

import os
from typing import Any

import httpx

from feedback_intelligence.cli.failures import CliError, ExitCode, unreachable

DEFAULT_URL = "http://127.0.0.1:8080"


def base_url() -> str:
    return os.environ.get("FEEDCTL_URL", DEFAULT_URL).rstrip("/")


def client(timeout: float = 30.0) -> httpx.Client:
    headers = {}
    token = os.environ.get("FI_OPERATOR_TOKEN")
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.Client(base_url=base_url(), timeout=timeout, headers=headers)


def send(http: httpx.Client, method: str, path: str, **kwargs: Any) -> httpx.Response:
    """One request; a service that does not answer becomes the 'cannot reach' error (exit 2)."""
    try:
        response = http.request(method, path, **kwargs)
    except httpx.TransportError as exc:
        raise unreachable(base_url(), exc) from exc
    if response.status_code == 404 and _is_hidden_route(response):
        if not is_our_service(http):
            raise not_our_service(base_url(), path)
        raise CliError(
            f"{base_url()} does not let this caller use {path} (operator routes answer only on loopback or with "
            "FI_OPERATOR_TOKEN)",
            ExitCode.UNREACHABLE,
        )
    return response


def is_our_service(http: httpx.Client) -> bool:
    """Does the base URL point at a Feedback Intelligence service? Its public /livez tells."""
    try:
        probe = http.get("/livez")
        return probe.status_code == 200 and probe.json() == {"status": "alive"}
    except (httpx.HTTPError, ValueError):
        return False


def not_our_service(url: str, path: str) -> CliError:
    """A 404 that is not an operator route hidden from this caller: the base URL itself is wrong."""
    return CliError(
        f"no Feedback Intelligence service at {url} ({path} answered 404 and so does /livez): FEEDCTL_URL must be "
        "the service's root, such as http://127.0.0.1:8080, without a page path like /desk",
        ExitCode.UNREACHABLE,
    )


def _is_hidden_route(response: httpx.Response) -> bool:
    """The edge answers an operator route to a non-operator with the same 404 as an unknown path."""
    try:
        body: Any = response.json()
    except ValueError:
        return False
    return bool(body == {"error": "Not Found"})


def body_of(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return response.text


def server_errors(response: httpx.Response) -> str:
    """The service's own words for a refusal: its ``errors`` list, ``message`` or ``error``."""
    body = body_of(response)
    if isinstance(body, dict):
        if isinstance(body.get("errors"), list) and body["errors"]:
            return "; ".join(str(e) for e in body["errors"])
        for key in ("message", "error", "detail"):
            if isinstance(body.get(key), str) and body[key]:
                return str(body[key])
    text = str(body).strip()
    return text[:200] if text else f"HTTP {response.status_code}"
