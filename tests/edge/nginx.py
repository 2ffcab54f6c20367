"""A real nginx on loopback, configured from deploy/nginx/feedback-intelligence.conf (test-only paths)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from feedback_intelligence.devtools.processes import REPO, free_port

NGINX = "/usr/sbin/nginx"
SITE = REPO / "deploy" / "nginx" / "feedback-intelligence.conf"
ACCESS_LOG = "/var/log/nginx/feedback-intelligence.access.log"  # the site's own: here under the test's folder

_MAIN = """\
{user}
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log info;
events {{ worker_connections 256; }}
http {{
    default_type application/octet-stream;
    access_log {tmp}/access.log;
    client_body_temp_path {tmp}/client_body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    include {tmp}/site.conf;
}}
"""


def site_config(listen_port: int, upstream_port: int) -> str:
    """The deployed site file with only its listen address and upstream port changed."""
    text = SITE.read_text()
    replacements = {
        "server 127.0.0.1:8080;": f"server 127.0.0.1:{upstream_port};",
        "listen 80;": f"listen 127.0.0.1:{listen_port};",
    }
    for old, new in replacements.items():
        assert text.count(old) == 1, f"{SITE.name} no longer has exactly one '{old}'"
        text = text.replace(old, new)
    return text


@dataclass
class Nginx:
    url: str
    tmp: Path

    def error_log(self) -> str:
        return (self.tmp / "error.log").read_text(errors="replace")

    def access_log(self) -> str:
        return (self.tmp / "access.log").read_text(errors="replace")


def available() -> bool:
    return Path(NGINX).exists()


@contextmanager
def nginx_edge(upstream_port: int) -> Iterator[Nginx]:
    """The deployed site in front of one app process."""
    with run_nginx(lambda port: site_config(port, upstream_port)) as edge:
        yield edge


@contextmanager
def run_nginx(site_for: Callable[[int], str]) -> Iterator[Nginx]:
    """Start nginx on a free loopback port with the site ``site_for(port)``; stop it afterwards."""
    tmp = Path(tempfile.mkdtemp(prefix="fi-nginx-"))
    port = free_port()
    (tmp / "site.conf").write_text(site_for(port).replace(ACCESS_LOG, str(tmp / "access.log")))
    user = "user root;" if os.geteuid() == 0 else ""  # workers need the temp dirs the test created
    (tmp / "nginx.conf").write_text(_MAIN.format(tmp=tmp, user=user))
    args = [NGINX, "-p", str(tmp), "-c", str(tmp / "nginx.conf"), "-e", str(tmp / "error.log")]
    check = subprocess.run([*args, "-t"], capture_output=True, text=True, timeout=30)
    assert check.returncode == 0, f"nginx -t failed:\n{check.stderr}"
    proc = subprocess.Popen([*args, "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    edge = Nginx(f"http://127.0.0.1:{port}", tmp)
    try:
        deadline = time.monotonic() + 15
        while True:
            if proc.poll() is not None:
                stderr = proc.stderr.read().decode() if proc.stderr else ""
                raise RuntimeError(f"nginx exited with {proc.returncode}: {stderr}")
            try:
                httpx.get(edge.url + "/livez", timeout=1)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield edge
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGQUIT)  # graceful
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        shutil.rmtree(tmp, ignore_errors=True)
