"""Real SMTP servers for the tests (aiosmtpd, in the test's process): a plain one, one that offers or
requires STARTTLS under a self-signed certificate, one that asks a login, one that refuses recipients."""

from __future__ import annotations

import email
import ipaddress
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from feedback_intelligence.devtools.processes import free_port

LOGIN = ("fi", "s3cret")
REFUSED_RECIPIENT = "nobody@shop.example"


class Inbox:
    """What the server took; ``arrived`` is set from the server's own thread."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.recipients: list[list[str]] = []  # each message's envelope (RCPT TO)
        self.arrived = threading.Event()

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        if address == REFUSED_RECIPIENT:
            return "550 5.1.1 No such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(email.message_from_bytes(envelope.content, _class=EmailMessage, policy=policy.default))
        self.recipients.append(list(envelope.rcpt_tos))
        self.arrived.set()
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m, envelope in zip(self.messages, self.recipients, strict=True) if address in envelope]


def authenticator(server: Any, session: Any, envelope: Any, mechanism: str, auth_data: Any) -> AuthResult:
    ok = isinstance(auth_data, LoginPassword) and (auth_data.login, auth_data.password) == tuple(
        part.encode() for part in LOGIN
    )
    return AuthResult(success=ok, handled=False)  # handled=False: the server answers a refusal with 535


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (cert, key); a route trusts it through ``caFile``."""
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
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


@contextmanager
def smtp_server(
    certificate: tuple[Path, Path] | None = None, *, require_starttls: bool = False, login: bool = False
) -> Iterator[tuple[Controller, Inbox]]:
    """A running server: STARTTLS offered when given a certificate, a login asked when ``login``."""
    tls: dict[str, Any] = {}
    if certificate is not None:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(*certificate)
        tls = {"tls_context": context, "require_starttls": require_starttls}
    auth: dict[str, Any] = {"auth_required": True, "authenticator": authenticator} if login else {}
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port(), **tls, **auth)
    controller.start()
    try:
        yield controller, inbox
    finally:
        controller.stop()
