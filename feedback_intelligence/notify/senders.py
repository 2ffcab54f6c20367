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

import contextlib
import ssl
import time
from datetime import UTC, datetime
from email.message import EmailMessage
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
        await send_mail(route, email_message(message, route.mail_from or "", route.mail_to), timeout_s)
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


async def send_mail(route: NotifyRoute, mail: EmailMessage, timeout_s: float) -> None:
    """``mail`` to its ``To`` through the route's relay: one SMTP conversation, step by step, so a refusal
    says which step refused (docs/adr/0062)."""
    parsed = urlparse(route.url)
    implicit_tls = parsed.scheme == "smtps"
    context = ssl.create_default_context(cafile=route.ca_file) if route.ca_file else ssl.create_default_context()
    port = parsed.port or (465 if implicit_tls else 587)
    where = f"{parsed.hostname}:{port}"
    smtp = aiosmtplib.SMTP(
        hostname=parsed.hostname,
        port=port,
        use_tls=implicit_tls,
        start_tls=False,  # asked for below, where its refusal can be named
        tls_context=context,
        timeout=timeout_s,
    )
    step = "connect"
    try:
        await smtp.connect()
        if route.starttls and not implicit_tls:
            await smtp.ehlo()
            if not smtp.supports_extension("starttls"):
                raise SendFailed(f"SMTP TLS not offered by {where}: {NO_STARTTLS_HINT}", retryable=False)
            step = "tls"
            await smtp.starttls()
        if route.username is not None:
            step = "login"
            await smtp.login(route.username, route.password or "")
        step = "send"
        await smtp.send_message(mail)
        with contextlib.suppress(aiosmtplib.SMTPException, OSError):  # taken: a rude goodbye is no failure
            await smtp.quit()
    except aiosmtplib.SMTPException as exc:
        raise smtp_failure(exc, step, where) from exc
    except OSError as exc:  # a TLS handshake's ssl.SSLError among them
        raise smtp_failure(exc, step, where) from exc
    finally:
        smtp.close()


NO_STARTTLS_HINT = '"starttls": false sends without TLS (a relay on the same host), smtps:// is TLS from the first byte'
NO_AUTH_HINT = "the server offers no login here (most offer one only over TLS)"


def _said(text: object) -> str:
    """A server's words on one line (they end the one-line reason; a reply can span lines)."""
    return " ".join(str(text).split())[:160]


def smtp_failure(exc: BaseException, step: str, where: str) -> SendFailed:
    """The one-line reason of a failed SMTP step, and whether a later attempt can help."""
    if isinstance(exc, aiosmtplib.SMTPRecipientsRefused):
        refused = "; ".join(f"{r.recipient} {r.code} {_said(r.message)}" for r in exc.recipients)
        return SendFailed(
            f"SMTP recipient refused: {refused}", retryable=all(400 <= r.code < 500 for r in exc.recipients)
        )
    if isinstance(exc, aiosmtplib.SMTPAuthenticationError):
        return SendFailed(f"SMTP login refused: {exc.code} {_said(exc.message)}", retryable=False)
    if isinstance(exc, aiosmtplib.SMTPTimeoutError):
        return SendFailed(f"SMTP timeout at {step} with {where}", retryable=True)
    if isinstance(exc, aiosmtplib.SMTPConnectError | ConnectionRefusedError) and step == "connect":
        return SendFailed(f"SMTP connection refused: {where}: {_said(exc)}", retryable=True)
    if step == "tls" or isinstance(exc, ssl.SSLError):
        return SendFailed(f"SMTP TLS failed with {where}: {_said(exc)}", retryable=False)
    if isinstance(exc, aiosmtplib.SMTPResponseException):
        code = exc.code
        if code == 530 and step == "send":  # RFC 3207: "Must issue a STARTTLS command first"
            return SendFailed(
                f'SMTP TLS required by {where}: {code} {_said(exc.message)} (set "starttls": true)', retryable=False
            )
        what = {"login": "login refused", "send": "message refused"}.get(step, "refused")
        if isinstance(exc, aiosmtplib.SMTPSenderRefused):
            what = "sender refused"
        return SendFailed(f"SMTP {what}: {code} {_said(exc.message)}", retryable=400 <= code < 500)
    if step == "login":  # aiosmtplib's own refusal: the server lists no AUTH
        return SendFailed(f"SMTP login impossible at {where}: {NO_AUTH_HINT}", retryable=False)
    if isinstance(exc, aiosmtplib.SMTPServerDisconnected):
        return SendFailed(f"SMTP connection lost at {step} with {where}: {_said(exc)}", retryable=True)
    return SendFailed(f"SMTP {step} failed with {where}: {type(exc).__name__}: {_said(exc)}", retryable=True)
