"""nginx in front of several replicas: the deployed site file, with the upstream block of
docs/operations-replicas.md (one ``server`` per replica, failed servers skipped, a request that could
not be sent passed to the next replica)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from feedback_intelligence.devtools.processes import free_port
from tests.edge.nginx import _MAIN, NGINX, SITE, Nginx

# What docs/operations-replicas.md tells operators to change in deploy/nginx/feedback-intelligence.conf.
NEXT_UPSTREAM = "proxy_next_upstream error timeout;     # only what was never sent: nginx does not replay a POST"


def upstream_block(ports: list[int]) -> str:
    servers = "\n".join(f"    server 127.0.0.1:{port} max_fails=1 fail_timeout=10s;" for port in ports)
    return f"upstream feedback_intelligence {{\n{servers}\n    keepalive 16;\n}}"


def replicas_site_config(listen_port: int, upstream_ports: list[int]) -> str:
    text = SITE.read_text()
    start = text.index("upstream feedback_intelligence {")
    end = text.index("}", start) + 1
    text = text[:start] + upstream_block(upstream_ports) + text[end:]
    replacements = {"listen 80;": f"listen 127.0.0.1:{listen_port};",
                    "proxy_next_upstream off;": NEXT_UPSTREAM}
    for old, new in replacements.items():
        assert text.count(old) == 1, f"{SITE.name} no longer has exactly one '{old}'"
        text = text.replace(old, new)
    return text


@contextmanager
def nginx_over(upstream_ports: list[int]) -> Iterator[Nginx]:
    tmp = Path(tempfile.mkdtemp(prefix="fi-nginx-replicas-"))
    port = free_port()
    (tmp / "site.conf").write_text(replicas_site_config(port, upstream_ports))
    user = "user root;" if os.geteuid() == 0 else ""
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
                raise RuntimeError(f"nginx exited with {proc.returncode}")
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
            proc.send_signal(signal.SIGQUIT)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        shutil.rmtree(tmp, ignore_errors=True)
