"""Send one rendered message down one route: HTTP for webhook, Slack and Teams, SMTP for mail.

Every failure becomes a :class:`SendFailed` that says whether trying again can help (a refused
connection, a timeout, a 5xx, 408 or 429: yes; another 4xx or a refused login: no, the route's
configuration is wrong). Its ``detail`` is a status and a short reason, never the body.

The generic webhook is signed per Standard Webhooks, by its own library: ``webhook-id`` (the outbox
row's dedupe key, the same on every retry and after a replica's death, so receivers dedupe on it),
``webhook-timestamp`` (this attempt's, so a retry half an hour later is still fresh) and
``webhook-signature`` (``v1,<base64 HMAC-SHA256 of "id.timestamp.body">`` under the route's
``whsec_`` secret). A route configured ``"unsigned": true`` gets the id and timestamp without a
signature. Every HTTP send also carries ``X-FI-Delivery``, the same id, which receivers written
before Standard Webhooks dedupe on (docs/adr/0038).
"""

from __future__ import annotations

import ssl
import time
from datetime import UTC, datetime
from urllib.parse import urlparse

import aiosmtplib
import httpx
from standardwebhooks import Webhook

from feedback_intelligence.config.notify_routes import NotifyRoute
from feedback_intelligence.notify.message import Message, email_message, json_body, slack_body, teams_body

DELIVERY_HEADER = "X-FI-Delivery"
RETRYABLE_STATUS = frozenset({408, 425, 429})


class SendFailed(Exception):
    def __init__(self, detail: str, *, retryable: bool) -> None:
        self.detail = detail[:300]
        self.retryable = retryable
        super().__init__(self.detail)


def standard_webhook_headers(secret: str | None, delivery_id: str, body: bytes) -> dict[str, str]:
    """The Standard Webhooks headers of one attempt: signed now under ``secret``, or unsigned (None)."""
    seconds = int(time.time())  # whole seconds: what the header says is what was signed
    headers = {"webhook-id": delivery_id, "webhook-timestamp": str(seconds)}
    if secret is not None:
        headers["webhook-signature"] = Webhook(secret).sign(delivery_id, datetime.fromtimestamp(seconds, UTC), body)
    return headers


def _body(route: NotifyRoute, message: Message) -> bytes:
    if route.kind == "slack":
        return slack_body(message)
    if route.kind == "teams":
        return teams_body(message)
    return json_body(message)


async def send(route: NotifyRoute, message: Message, http: httpx.AsyncClient, *, timeout_s: float) -> None:
    if route.kind == "smtp":
        await _send_mail(route, message, timeout_s)
    else:
        await _post(route, message, http, timeout_s)


async def _post(route: NotifyRoute, message: Message, http: httpx.AsyncClient, timeout_s: float) -> None:
    body = _body(route, message)
    headers = {"Content-Type": "application/json; charset=utf-8", DELIVERY_HEADER: message.delivery_id}
    if route.kind == "webhook":
        headers.update(standard_webhook_headers(route.secret, message.delivery_id, body))
    try:
        response = await http.post(route.url, content=body, headers=headers, timeout=timeout_s)
    except httpx.TimeoutException as exc:
        raise SendFailed(f"timeout: {type(exc).__name__}", retryable=True) from exc
    except httpx.HTTPError as exc:
        raise SendFailed(f"unreachable: {type(exc).__name__}: {exc}", retryable=True) from exc
    if response.is_success:
        return
    status = response.status_code
    retryable = status >= 500 or status in RETRYABLE_STATUS
    raise SendFailed(f"HTTP {status} {response.reason_phrase}", retryable=retryable)


async def _send_mail(route: NotifyRoute, message: Message, timeout_s: float) -> None:
    parsed = urlparse(route.url)
    implicit_tls = parsed.scheme == "smtps"
    context = ssl.create_default_context(cafile=route.ca_file) if route.ca_file else ssl.create_default_context()
    mail = email_message(message, route.mail_from or "", route.mail_to)
    try:
        await aiosmtplib.send(
            mail,
            hostname=parsed.hostname,
            port=parsed.port or (465 if implicit_tls else 587),
            username=route.username,
            password=route.password,
            use_tls=implicit_tls,
            start_tls=route.starttls and not implicit_tls,
            tls_context=context,
            timeout=timeout_s,
        )
    except aiosmtplib.SMTPAuthenticationError as exc:
        raise SendFailed(f"SMTP login refused: {exc.code}", retryable=False) from exc
    except aiosmtplib.SMTPRecipientsRefused as exc:
        raise SendFailed("SMTP recipients refused", retryable=False) from exc
    except aiosmtplib.SMTPResponseException as exc:
        raise SendFailed(f"SMTP {exc.code}", retryable=400 <= exc.code < 500) from exc
    except (aiosmtplib.SMTPException, OSError) as exc:
        raise SendFailed(f"SMTP unreachable: {type(exc).__name__}", retryable=True) from exc
