"""Per-process limits at the WebSocket edge: connections per client address."""

from collections import Counter

_open_by_address: Counter = Counter()


def client_address(scope: dict) -> str:
    client = scope.get("client") or ("unknown", 0)
    return str(client[0])


def connection_admit(address: str, *, limit: int) -> bool:
    """Count a new connection from ``address`` unless it already has ``limit`` open."""
    if limit and _open_by_address[address] >= limit:
        return False
    _open_by_address[address] += 1
    return True


def connection_release(address: str) -> None:
    _open_by_address[address] -= 1
    if _open_by_address[address] <= 0:
        del _open_by_address[address]
