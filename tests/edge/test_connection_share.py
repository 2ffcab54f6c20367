"""The per-peer connection share's arithmetic (ADR 0023); the server side is
tests/api/test_slowloris_over_http.py."""

from __future__ import annotations

from feedback_intelligence.edge.connection_share import ConnectionShare, peer_of


def test_ipv6_counts_by_its_64_and_ipv4_by_address() -> None:
    assert peer_of("2001:db8:1:2::1") == peer_of("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert peer_of("2001:db8:1:3::1") != peer_of("2001:db8:1:2::1")
    assert peer_of("192.0.2.1") != peer_of("192.0.2.2")
    assert peer_of("::ffff:192.0.2.1") == "192.0.2.1"  # IPv4-mapped is the IPv4 peer
    assert peer_of("not-an-address") is None


def test_a_peer_holds_at_most_its_share_and_gets_it_back_on_release() -> None:
    share = ConnectionShare(2, exempt=["127.0.0.1"])
    keys = [share.counted_key(f"2001:db8::{n}") for n in (1, 2, 3)]
    assert keys[0] == keys[1] == keys[2]
    key = keys[0]
    assert key is not None
    assert [share.take(key) for _ in range(3)] == [True, True, False]
    share.release(key)
    assert share.take(key)
    assert share.held("2001:db8::77") == 2


def test_exempt_addresses_and_networks_are_not_counted() -> None:
    share = ConnectionShare(1, exempt=["127.0.0.1", "10.0.0.0/8", "::1"])
    assert share.counted_key("127.0.0.1") is None
    assert share.counted_key("10.1.2.3") is None
    assert share.counted_key("::1") is None
    assert share.counted_key("127.0.0.2") == "127.0.0.2"
