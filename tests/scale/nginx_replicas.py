"""nginx in front of several replicas: the deployed site file, with the upstream block of
docs/operations.md, "nginx in front" (one ``server`` per replica, failed servers skipped, a request that could
not be sent passed to the next replica)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from tests.edge.nginx import SITE, Nginx, run_nginx

# What docs/operations.md ("nginx in front") tells operators to change in deploy/nginx/feedback-intelligence.conf.
NEXT_UPSTREAM = "proxy_next_upstream error timeout;     # only what was never sent: nginx does not replay a POST"


def upstream_block(ports: list[int]) -> str:
    servers = "\n".join(f"    server 127.0.0.1:{port} max_fails=1 fail_timeout=10s;" for port in ports)
    return f"upstream feedback_intelligence {{\n{servers}\n    keepalive 16;\n}}"


def replicas_site_config(listen_port: int, upstream_ports: list[int]) -> str:
    text = SITE.read_text()
    start = text.index("upstream feedback_intelligence {")
    end = text.index("}", start) + 1
    text = text[:start] + upstream_block(upstream_ports) + text[end:]
    replacements = {"listen 80;": f"listen 127.0.0.1:{listen_port};", "proxy_next_upstream off;": NEXT_UPSTREAM}
    for old, new in replacements.items():
        assert text.count(old) == 1, f"{SITE.name} no longer has exactly one '{old}'"
        text = text.replace(old, new)
    return text


@contextmanager
def nginx_over(upstream_ports: list[int]) -> Iterator[Nginx]:
    with run_nginx(lambda port: replicas_site_config(port, upstream_ports)) as edge:
        yield edge
