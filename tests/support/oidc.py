"""The real OpenID Connect provider of the sign-in tests (npm ``oidc-provider``, tests/oidc_provider)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx

from tests.prerequisites import require

PROVIDER_DIR = Path(__file__).resolve().parents[1] / "oidc_provider"
CLIENT_ID, CLIENT_SECRET = "fi-test", "fi-test-secret"


@contextmanager
def oidc_provider(port: int, redirect_uri: str) -> Iterator[str]:
    """Start the provider on ``port``; yields its issuer URL once it listens."""
    require("node")
    require("oidc-provider")
    proc = subprocess.Popen(
        ["node", str(PROVIDER_DIR / "provider.mjs"), str(port), redirect_uri],
        cwd=PROVIDER_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,  # its warnings about development mode
        text=True,
    )
    try:
        assert proc.stdout is not None
        seen = []
        for line in proc.stdout:  # its own "ready" line, after its development-mode warnings: no polling
            if line.startswith("ready "):
                break
            seen.append(line)
        else:
            raise RuntimeError(f"oidc-provider did not start: {''.join(seen)}")
        yield line.split()[1]
    finally:
        proc.terminate()
        proc.wait(10)


def _form_action(html: str, page_url: str) -> str:
    match = re.search(r'<form[^>]*action="([^"]+)"', html)
    assert match, html[:500]
    return urljoin(page_url, match.group(1))


async def authorization_code(authorize_url: str, redirect_uri: str, login: str) -> tuple[str, str]:
    """Walk the provider's development login and consent pages as a browser would; (code, state)."""
    async with httpx.AsyncClient(follow_redirects=False, timeout=10) as http:
        response = await http.get(authorize_url)
        for _ in range(12):
            if response.is_redirect:
                target = urljoin(str(response.url), response.headers["location"])
                if target.startswith(redirect_uri):
                    query = parse_qs(urlsplit(target).query)
                    return query["code"][0], query["state"][0]
                response = await http.get(target)
                continue
            html = response.text
            action = _form_action(html, str(response.url))
            fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', html))
            if 'name="login"' in html:
                fields.update(login=login, password="any")
            response = await http.post(action, data=fields)
    raise AssertionError("the provider never redirected back")
