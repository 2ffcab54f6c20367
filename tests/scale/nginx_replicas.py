"""nginx in front of several replicas: the shipped replicas site (deploy/nginx/feedback-intelligence-replicas.conf,
written from the route table), with only its upstream's server lines and its listen line changed, as
docs/operations/nginx.md ("nginx in front of replicas") tells operators."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from tests.edge.nginx import REPLICAS_SITE, Nginx, run_nginx, substituted


def replicas_site_config(listen_port: int, upstream_ports: list[int]) -> str:
    return substituted(REPLICAS_SITE.read_text(), listen_port, upstream_ports, REPLICAS_SITE.name)


@contextmanager
def nginx_over(upstream_ports: list[int]) -> Iterator[Nginx]:
    with run_nginx(lambda port: replicas_site_config(port, upstream_ports)) as edge:
        yield edge
