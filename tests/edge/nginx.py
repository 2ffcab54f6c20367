"""A real nginx on loopback, configured from a site shipped in deploy/nginx (test-only paths).

Of a shipped site only what docs/operations/nginx.md ("Behind nginx") tells an operator to change is changed:
the upstream's ``server`` lines and the ``listen`` line."""

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
REPLICAS_SITE = REPO / "deploy" / "nginx" / "feedback-intelligence-replicas.conf"

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


def site_config(listen_port: int, upstream_port: int, site: Path = SITE) -> str:
    """A shipped site with only its listen address and upstream server(s) changed."""
    return substituted(site.read_text(), listen_port, [upstream_port], site.name)


def substituted(text: str, listen_port: int, upstream_ports: list[int], name: str = "site") -> str:
    """``listen 80;`` becomes this loopback port; the upstream's server lines become one per port, each
    with the options the shipped first line has (``max_fails=…``)."""
    assert text.count("listen 80;") == 1, f"{name} no longer has exactly one 'listen 80;'"
    text = text.replace("listen 80;", f"listen 127.0.0.1:{listen_port};")
    start = text.index("upstream feedback_intelligence {")
    end = text.index("}", start)
    lines = text[start:end].splitlines(keepends=True)
    servers = [n for n, line in enumerate(lines) if line.lstrip().startswith("server ")]
    assert servers, f"{name}: no server line in its upstream"
    first = lines[servers[0]]
    address = first.split()[1].rstrip(";")
    replaced = [first.replace(address, f"127.0.0.1:{port}", 1) for port in upstream_ports]
    kept = [line for n, line in enumerate(lines) if n not in servers]
    block = "".join(kept[: servers[0]] + replaced + kept[servers[0] :])
    return text[:start] + block + text[end:]


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
