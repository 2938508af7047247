"""Where the importer may connect: public addresses only, checked when the socket connects.

| rule | how |
|---|---|
| refused | an address that is loopback, private, link-local, multicast, unspecified, reserved or otherwise not global (IPv4 and IPv6, an IPv4-mapped IPv6 address by its IPv4 address; ``ipaddress``) |
| a name | resolved (``getaddrinfo``); refused when *any* of its addresses is refused, so a name that resolves to a public and an internal address cannot pick the internal one |
| where | in the HTTP client's network backend, at ``connect_tcp``: the socket connects to the very address that was checked, so a DNS answer that changes between a check and a fetch (rebinding) cannot reach an internal host; the source, every redirect, robots.txt, the sitemap and every link go through it |
| exception | a host named in ``KB_IMPORT_INTERNAL_HOSTS`` (by its name as the URL spells it, case-insensitive: ``intranet.example.se``, ``127.0.0.1`` for the tests' fixture site) may resolve to anything |
| the error | names the refused URL and why, without connecting: a failed run is no port scanner |
"""

import ipaddress
import socket
from collections.abc import Collection
from urllib.parse import urlsplit

import httpcore
import httpx


class RefusedAddress(Exception):
    """A host the importer may not connect to; the message says which and why."""


def refusal(address: str) -> str | None:
    """Why the importer may not connect to ``address`` (an IP address), or ``None``."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return "not an IP address"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for kind, flag in (
        ("unspecified", ip.is_unspecified),
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("multicast", ip.is_multicast),
        ("reserved", ip.is_reserved),
        ("private", ip.is_private),
        ("non-public", not ip.is_global),  # shared address space 100.64/10, ...
    ):
        if flag:
            return f"{kind} address {ip}"
    return None


def _is_internal_host(host: str, internal_hosts: Collection[str]) -> bool:
    host = host.strip("[]").lower().rstrip(".")
    return host in {h.strip("[]").lower().rstrip(".") for h in internal_hosts}


def allowed_addresses(host: str, port: int, *, internal_hosts: Collection[str]) -> list[str]:
    """The addresses ``host`` resolves to, every one allowed; ``RefusedAddress`` otherwise."""
    bare = host.strip("[]")
    try:
        infos = socket.getaddrinfo(bare, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise RefusedAddress(f"{host} cannot be resolved ({error})") from error
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not _is_internal_host(host, internal_hosts):
        for address in addresses:
            reason = refusal(address)
            if reason is not None:
                raise RefusedAddress(f"{host} is an internal host ({reason})")
    return addresses


def check_url(url: str, *, internal_hosts: Collection[str]) -> None:
    """``RefusedAddress`` when the importer would refuse to connect to ``url``'s host."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise RefusedAddress(f"{url} is not an http(s) URL with a host")
    try:
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    except ValueError as error:
        raise RefusedAddress(f"{url}: {error}") from error
    allowed_addresses(parts.hostname, port, internal_hosts=internal_hosts)


class ConfinedBackend(httpcore.SyncBackend):
    """httpcore's network backend, connecting only to the checked addresses of a host."""

    def __init__(self, internal_hosts: Collection[str]) -> None:
        self.internal_hosts = tuple(internal_hosts)

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        addresses = allowed_addresses(host, port, internal_hosts=self.internal_hosts)
        error: Exception = httpcore.ConnectError(f"{host} has no address")
        for address in addresses:
            try:
                return super().connect_tcp(
                    address,
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except httpcore.ConnectError as failed:
                error = failed
        raise error


def confined_transport(internal_hosts: Collection[str]) -> httpx.HTTPTransport:
    """An httpx transport whose every connection goes through :class:`ConfinedBackend`.

    TLS still verifies the certificate against the URL's host name (httpcore sends the
    origin's name as SNI whatever address the socket connected to).
    """
    transport = httpx.HTTPTransport()
    # httpx builds its pool without a way to pass a network backend: the pool is rebuilt
    # with httpx's own TLS context and ours.
    transport._pool = httpcore.ConnectionPool(
        ssl_context=httpx.create_ssl_context(),
        network_backend=ConfinedBackend(internal_hosts),
    )
    return transport
