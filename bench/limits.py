"""Process limits the bench needs: a socket per client."""

import resource


def raise_open_files_limit(needed: int) -> None:
    """Servers and clients inherit it: 1000 sockets each need more than some defaults."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
