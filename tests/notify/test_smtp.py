"""E-mail through a real SMTP server (aiosmtpd) that requires STARTTLS and a login."""

from __future__ import annotations

import asyncio
import email
import ipaddress
import ssl
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from feedback_intelligence.config.notify_routes import NotifyRoute
from feedback_intelligence.devtools.processes import free_port
from tests.notify.support import HOSTILE_TEXT, alert_item, rig, routes


class Inbox:
    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.recipients: list[list[str]] = []  # each message's envelope (RCPT TO)
        self.arrived = threading.Event()  # set from the server's own thread

    async def handle_DATA(self, server, session, envelope) -> str:
        self.messages.append(email.message_from_bytes(envelope.content, _class=EmailMessage, policy=policy.default))
        self.recipients.append(list(envelope.rcpt_tos))
        self.arrived.set()
        return "250 OK"


def authenticator(server, session, envelope, mechanism, auth_data) -> AuthResult:
    ok = isinstance(auth_data, LoginPassword) and (auth_data.login, auth_data.password) == (b"fi", b"s3cret")
    return AuthResult(success=ok)


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1; the route trusts it through ``caFile``."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


@pytest.fixture
def smtp_server(certificate: tuple[Path, Path]) -> Iterator[tuple[Controller, Inbox]]:
    cert, key = certificate
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    inbox = Inbox()
    controller = Controller(
        inbox,
        hostname="127.0.0.1",
        port=free_port(),
        tls_context=context,
        require_starttls=True,
        auth_required=True,
        authenticator=authenticator,
    )
    controller.start()
    yield controller, inbox
    controller.stop()


def mail_route(controller: Controller, certificate: tuple[Path, Path]) -> list[NotifyRoute]:
    return routes(
        {
            "name": "mail",
            "kind": "smtp",
            "url": f"smtp://127.0.0.1:{controller.port}",
            "from": "fi@shop.example",
            "to": ["manager@shop.example"],
            "username": "fi",
            "password": "s3cret",
            "caFile": str(certificate[0]),
        }
    )


async def test_the_alert_mail_arrives_over_starttls_with_a_login(tmp_path: Path, smtp_server, certificate) -> None:
    controller, inbox = smtp_server
    async with rig(tmp_path, mail_route(controller, certificate)) as r:
        await r.channel.insert(alert_item("mail-1"))
        r.worker.start()
        assert await asyncio.to_thread(inbox.arrived.wait, 30)
    [mail] = inbox.messages
    assert mail["To"] == "manager@shop.example" and "ruokaturvallisuus" in mail["Subject"]
    assert mail["X-FI-Delivery"] == "live:mail-1:mail:alert"
    text = mail.get_content()
    assert "vatsataudin" in text and "http://fi.example/#case=live:mail-1" in text


async def test_the_mail_shows_customer_text_as_typed_and_data_starts_no_header(
    tmp_path: Path, smtp_server, certificate
) -> None:
    controller, inbox = smtp_server
    # A store id from the data that would end the Subject and add a Bcc, and a right-to-left override
    # that would show what follows it backwards (an address, a name).
    store = "S1\r\nBcc: eve@evil.example"
    text = HOSTILE_TEXT + " \u202eelpmaxe.live"
    async with rig(tmp_path, mail_route(controller, certificate)) as r:
        await r.channel.insert(alert_item("mail-evil", store=store, text=text))
        r.worker.start()
        assert await asyncio.to_thread(inbox.arrived.wait, 30)
    [mail] = inbox.messages
    assert inbox.recipients == [["manager@shop.example"]] and mail["Bcc"] is None
    assert mail["Subject"] == "Hälytys: ruokaturvallisuus – myymälä S1 Bcc: eve@evil.example"
    assert mail.get_content_type() == "text/plain" and not mail.is_multipart()  # no HTML part to render markup
    lines = mail.get_content().splitlines()
    assert f"Palaute: ”{HOSTILE_TEXT} elpmaxe.live”" in lines  # as typed, less the invisible override
    assert [line for line in lines if line.startswith("Avaa tapaus")] == [
        "Avaa tapaus: http://fi.example/#case=live:mail-evil"
    ]
