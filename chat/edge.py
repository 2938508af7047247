"""Per-process limits at the WebSocket edge, and who the client really is.

The client's address (``client_address``) is the TCP peer, unless the peer
is one of ``TRUSTED_PROXIES`` (addresses or CIDR ranges): then it is taken
from ``X-Forwarded-For``, read from the right, where each trusted proxy
appended the address it saw. The first hop from the right that is not a
trusted proxy is the client; anything to its left was written by the client
itself and is ignored.

| peer          | X-Forwarded-For               | client address          |
|---------------|-------------------------------|-------------------------|
| untrusted     | anything                      | the peer                |
| trusted       | none or unparsable last hop   | the peer                |
| trusted       | ``spoof, 203.0.113.9``        | 203.0.113.9             |
| trusted       | ``203.0.113.9, 10.0.0.2`` (10.0.0.2 trusted) | 203.0.113.9 |
| trusted       | only trusted hops             | the leftmost hop        |

The per-address connection cap (``ConnectionsByAddress``) and the action
quotas count by this address.

Which browser pages may open a socket (``origin_allowed``): origins are
compared whole, scheme, host and port (``normalized_origin``: lower case,
default port dropped). The server's own origin is the handshake's ``Host``
(which must be one of ``ALLOWED_HOSTS``, so a rebound DNS name is not "own")
with ``https`` when the connection is secure.

| Origin header                     | chat and widget socket | staff socket |
|-----------------------------------|------------------------|--------------|
| none (curl, a server-side client) | accepted               | refused      |
| ``null``, unparsable, not http(s) | refused                | refused      |
| the server's own origin           | accepted               | accepted     |
| in ``WIDGET_ALLOWED_ORIGINS``     | accepted               | refused      |
| anything else (another port too)  | refused                | refused      |

A connection's place in the count is a ``ConnectionSlot``, released exactly
once on every path: by the consumer's ``disconnect`` (in a ``finally``), by
its ``connect`` when that fails after admission, and by ``ReleaseSlots``
when the application instance ends any other way (an exception in a hook,
the channel layer failing under a connection during a Redis outage: then
Channels never calls ``disconnect``).
"""

import ipaddress
import logging
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from urllib.parse import urlsplit

from django.conf import settings
from django.http.request import split_domain_port, validate_host

logger = logging.getLogger(__name__)

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=8)
def trusted_networks(proxies: tuple[str, ...]) -> tuple[Network, ...]:
    """``TRUSTED_PROXIES`` entries as networks (a plain address is a /32 or /128)."""
    return tuple(ipaddress.ip_network(p.strip(), strict=False) for p in proxies if p.strip())


def _parse(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    value = value.strip()
    if value.startswith("[") and "]" in value:  # [v6]:port
        value = value[1 : value.index("]")]
    elif value.count(":") == 1:  # v4:port
        value = value.split(":", 1)[0]
    try:
        return ipaddress.ip_address(value)
    except ValueError:
        return None


def _trusted(address, networks: tuple[Network, ...]) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return any(address in network for network in networks)


def forwarded_client(peer: str, forwarded_for: str, proxies: tuple[str, ...]) -> str:
    """The client's address given the TCP peer and the X-Forwarded-For chain (see the table)."""
    networks = trusted_networks(proxies)
    current = _parse(peer)
    if current is None or not networks or not _trusted(current, networks):
        return peer
    for hop in reversed([h for h in forwarded_for.split(",") if h.strip()]):
        address = _parse(hop)
        if address is None:
            break  # unparsable: nothing further left can be believed
        current = address
        if not _trusted(address, networks):
            break
    return str(current)


def client_address(scope: dict) -> str:
    client = scope.get("client") or ("unknown", 0)
    peer = str(client[0])
    proxies = tuple(settings.TRUSTED_PROXIES)
    if not proxies:
        return peer
    forwarded = b",".join(
        value for name, value in scope.get("headers", ()) if name.lower() == b"x-forwarded-for"
    )
    return forwarded_client(peer, forwarded.decode("latin-1"), proxies)


_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalized_origin(value: str) -> str | None:
    """``scheme://host[:port]`` in lower case without a default port; None when not an origin."""
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = parts.hostname
    if scheme not in _DEFAULT_PORTS or not host or parts.username or parts.password:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}" + (f":{port}" if port and port != _DEFAULT_PORTS[scheme] else "")


def allowed_widget_origins() -> frozenset[str]:
    """``WIDGET_ALLOWED_ORIGINS`` normalised (entries that are not origins are left out)."""
    return _normalized_all(tuple(settings.WIDGET_ALLOWED_ORIGINS))


@lru_cache(maxsize=8)
def _normalized_all(values: tuple[str, ...]) -> frozenset[str]:
    return frozenset(o for o in map(normalized_origin, values) if o)


def hosts_allowed() -> list[str]:
    """ALLOWED_HOSTS, plus the local names Django itself allows in DEBUG."""
    hosts = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not hosts:
        hosts = [".localhost", "127.0.0.1", "[::1]"]
    return hosts


def own_origin(host: str, *, secure: bool) -> str | None:
    """This server's origin as the client addressed it (``Host``), if that host is allowed."""
    domain, _port = split_domain_port(host)
    if not domain or not validate_host(domain, hosts_allowed()):
        return None
    return normalized_origin(f"{'https' if secure else 'http'}://{host}")


def origin_allowed(
    origin: str | None, *, host: str, secure: bool, embedders: frozenset[str]
) -> bool:
    """Whether a handshake with this ``Origin`` header may open the socket (see the table).

    ``origin`` None: no header. ``embedders``: the other origins allowed
    (``allowed_widget_origins()`` for the chat, empty for staff).
    """
    if origin is None:
        return True
    parsed = normalized_origin(origin)
    if parsed is None:
        return False
    return parsed == own_origin(host, secure=secure) or parsed in embedders


class ConnectionsByAddress:
    """The open connections of this process, counted per client address."""

    def __init__(self) -> None:
        self.open: Counter = Counter()

    def admit(self, address: str, *, limit: int) -> bool:
        """Count a new connection from ``address`` unless it already has ``limit`` open."""
        if limit and self.open[address] >= limit:
            return False
        self.open[address] += 1
        return True

    def release(self, address: str) -> None:
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]

    def total(self) -> int:
        """Connections admitted and not yet released, all addresses together."""
        return sum(self.open.values())


class ConnectionSlot:
    """One WebSocket's place in its address's count; ``release`` is safe to call again."""

    def __init__(self, connections: ConnectionsByAddress, address: str) -> None:
        self.connections = connections
        self.address = address
        self.held = False
        self._on_release: list[Callable[[], None]] = []

    def admit(self, *, limit: int) -> bool:
        self.held = self.connections.admit(self.address, limit=limit)
        return self.held

    def on_release(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once when the slot is released (e.g. the open-connections gauge)."""
        self._on_release.append(callback)

    def release(self) -> None:
        if self.held:
            self.held = False
            self.connections.release(self.address)
        callbacks, self._on_release = self._on_release, []
        for callback in callbacks:
            callback()


class ReleaseSlots:
    """ASGI middleware: the slots a connection took are released when its instance ends.

    The consumer puts its ``ConnectionSlot`` in ``scope["connection_slots"]``.
    """

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        slots: list[ConnectionSlot] = []
        try:
            return await self.app({**scope, "connection_slots": slots}, receive, send)
        finally:
            for slot in slots:
                if slot.held:
                    logger.warning("Connection from %s ended without disconnect", slot.address)
                slot.release()
