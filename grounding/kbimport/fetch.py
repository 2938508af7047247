"""One page over HTTP, with every bound an import needs.

| bound | setting | when crossed |
|---|---|---|
| time | ``KB_IMPORT_TIMEOUT`` (connect and each read) | ``FetchError("timed out")`` |
| total time | ``KB_IMPORT_PAGE_SECONDS`` for the whole page, redirects included (a page that sends a byte a second is cut), and what is left of the run's ``KB_IMPORT_RUN_SECONDS`` | ``FetchError("over the time limit (60 s)")`` |
| size | ``KB_IMPORT_MAX_BYTES`` (read as a stream, never more) | ``FetchError("over ... bytes")`` |
| redirects | at most 5, each on the same site; a loop is named as one | ``FetchError("redirect loop")`` / ``("redirect leaves the site")`` |
| content type | HTML, PDF, DOCX, markdown | ``FetchError("content type ... is not imported")`` |
| status | 2xx only | ``FetchError("HTTP 404")`` |
| address | public only, checked at connect time (:mod:`grounding.kbimport.confine`) | ``FetchError("refused <url>: ... is an internal host (loopback address 127.0.0.1)")`` |
"""

import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpx

from grounding.kbimport.confine import RefusedAddress
from grounding.kbimport.extract import SUPPORTED_TYPES

MAX_REDIRECTS = 5


class FetchError(Exception):
    """A page that could not be fetched; the message says why."""


@dataclass(frozen=True, slots=True)
class Fetched:
    url: str  # after redirects
    content_type: str
    encoding: str | None
    data: bytes


def same_site(url: str, site: str) -> bool:
    a, b = urlsplit(url), urlsplit(site)
    return (a.scheme, a.hostname, a.port) == (b.scheme, b.hostname, b.port)


def fetch(
    client: httpx.Client,
    url: str,
    *,
    max_bytes: int,
    site: str | None = None,
    types: frozenset[str] = SUPPORTED_TYPES,
    max_seconds: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Fetched:
    """GET ``url`` within the bounds above; redirects are followed only on ``site``'s host."""
    site = site or url
    seen = {url}
    deadline = None if max_seconds is None else clock() + max_seconds
    for _ in range(MAX_REDIRECTS + 1):
        try:
            with client.stream("GET", url) as response:
                if response.is_redirect:
                    target = urljoin(url, response.headers.get("location", ""))
                    if target in seen:
                        raise FetchError(f"redirect loop at {target}")
                    if not same_site(target, site):
                        raise FetchError(f"redirect leaves the site: {target}")
                    seen.add(target)
                    url = target
                    if deadline is not None and clock() > deadline:
                        raise FetchError(f"over the time limit ({max_seconds:g} s)")
                    continue
                if not response.is_success:
                    raise FetchError(f"HTTP {response.status_code}")
                content_type = response.headers.get("content-type", "").split(";")[0].strip()
                if content_type.lower() not in types:
                    raise FetchError(f"content type {content_type or 'none'!r} is not imported")
                declared = int(response.headers.get("content-length") or 0)
                if declared > max_bytes:
                    raise FetchError(f"over {max_bytes} bytes ({declared})")
                chunks, size = [], 0
                for chunk in response.iter_bytes():
                    if deadline is not None and clock() > deadline:
                        raise FetchError(f"over the time limit ({max_seconds:g} s)")
                    size += len(chunk)
                    if size > max_bytes:
                        raise FetchError(f"over {max_bytes} bytes")
                    chunks.append(chunk)
                return Fetched(
                    url, content_type.lower(), response.charset_encoding, b"".join(chunks)
                )
        except RefusedAddress as error:  # raised before the socket connects
            raise FetchError(f"refused {url}: {error}") from error
        except httpx.TimeoutException as error:
            raise FetchError("timed out") from error
        except httpx.HTTPError as error:
            raise FetchError(f"cannot be fetched: {error}") from error
    raise FetchError(f"more than {MAX_REDIRECTS} redirects")
