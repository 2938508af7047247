"""chat.edge.forwarded_client: the table in chat/edge.py's docstring."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chat.edge import client_address, forwarded_client

PROXIES = ("10.0.0.0/8", "192.0.2.1", "2001:db8::/32")


@pytest.mark.parametrize(
    ("peer", "forwarded_for", "expected"),
    [
        ("198.51.100.7", "203.0.113.9", "198.51.100.7"),  # untrusted peer: XFF ignored
        ("10.0.0.2", "", "10.0.0.2"),  # trusted, no header
        ("10.0.0.2", "garbage", "10.0.0.2"),  # trusted, unparsable last hop
        ("10.0.0.2", "1.2.3.4, 203.0.113.9", "203.0.113.9"),  # spoofed left part ignored
        ("10.0.0.2", "203.0.113.9, 192.0.2.1", "203.0.113.9"),  # two trusted proxies
        ("10.0.0.2", "10.1.1.1, 192.0.2.1", "10.1.1.1"),  # only trusted hops: leftmost
        ("192.0.2.1", "203.0.113.9:5555", "203.0.113.9"),  # v4 with a port
        ("2001:db8::1", "[2001:db9::5]:443", "2001:db9::5"),  # v6 in brackets
        ("::ffff:10.0.0.3", "203.0.113.9", "203.0.113.9"),  # v4-mapped peer
        ("10.0.0.2", "203.0.113.9, nonsense, 10.0.0.3", "10.0.0.3"),
    ],
)
def test_the_client_is_the_rightmost_untrusted_hop(peer, forwarded_for, expected):
    assert forwarded_client(peer, forwarded_for, PROXIES) == expected


def test_no_trusted_proxies_means_the_peer(settings):
    settings.TRUSTED_PROXIES = []
    scope = {"client": ("10.0.0.2", 1), "headers": [(b"x-forwarded-for", b"203.0.113.9")]}
    assert client_address(scope) == "10.0.0.2"
    settings.TRUSTED_PROXIES = ["10.0.0.2"]
    assert client_address(scope) == "203.0.113.9"


@given(st.lists(st.ip_addresses().map(str), max_size=5))
def test_an_untrusted_peer_is_never_replaced(hops):
    """Whatever chain a client sends straight to the server, the peer is its address."""
    assert forwarded_client("198.51.100.7", ", ".join(hops), PROXIES) == "198.51.100.7"
