"""Per-process limits at the WebSocket edge: connections per client address."""

from collections import Counter


def client_address(scope: dict) -> str:
    client = scope.get("client") or ("unknown", 0)
    return str(client[0])


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
