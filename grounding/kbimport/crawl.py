"""A site, page by page: same-site links, depth and page limits, robots.txt, a polite delay.

| rule | how |
|---|---|
| start | a page URL (its links are followed) or a sitemap (``.xml``: its ``<loc>`` URLs, depth 0) |
| links | ``<a href>`` of fetched HTML pages (lxml), fragments dropped, same scheme, host and port only |
| depth, pages | ``max_depth`` links from the start, at most ``max_pages`` pages fetched |
| robots.txt | fetched once per site; a URL it disallows for our User-Agent is skipped and reported |
| delay | ``delay`` seconds between two requests to the site |
| time | each page at most ``page_seconds`` in all; the whole crawl at most ``run_seconds``: the URLs left are reported ``over the run's time limit`` |
| bounds per page | :mod:`grounding.kbimport.fetch` |
"""

import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from urllib import robotparser
from urllib.parse import urldefrag, urljoin, urlsplit

import httpx
import lxml.etree
import lxml.html

from grounding.kbimport.extract import HTML_TYPES
from grounding.kbimport.fetch import Fetched, FetchError, fetch, same_site

_XML_TYPES = frozenset({"application/xml", "text/xml"})


@dataclass(frozen=True, slots=True)
class Visit:
    """One URL of the crawl: its page, or why it has none."""

    url: str
    page: Fetched | None = None
    error: str | None = None  # fetch failed: the page keeps its previous version
    skipped: str | None = None  # never fetched: off-site, robots.txt, the page limit


@dataclass
class CrawlLimits:
    max_pages: int
    max_depth: int
    max_bytes: int
    delay: float
    page_seconds: float | None = None
    run_seconds: float | None = None


def links_of(page: Fetched) -> list[str]:
    """The same-site links of an HTML page, absolute and without fragments."""
    if page.content_type not in HTML_TYPES or not page.data.strip():
        return []
    try:
        document = lxml.html.fromstring(page.data)
    except (lxml.etree.ParserError, ValueError):
        return []
    found = []
    for href in document.xpath("//a/@href"):
        url, _ = urldefrag(urljoin(page.url, str(href).strip()))
        if urlsplit(url).scheme in ("http", "https"):
            found.append(url)
    return found


def sitemap_urls(data: bytes) -> list[str]:
    parser = lxml.etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    root = lxml.etree.fromstring(data, parser=parser)
    return [loc.text.strip() for loc in root.iter("{*}loc") if loc.text]


def crawl(
    client: httpx.Client,
    start: str,
    limits: CrawlLimits,
    *,
    user_agent: str,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[Visit]:
    """Every URL the crawl meets, in breadth-first order."""
    run_end = None if limits.run_seconds is None else clock() + limits.run_seconds

    def seconds_left() -> float | None:
        left = None if run_end is None else max(run_end - clock(), 0.0)
        if limits.page_seconds is None:
            return left
        return limits.page_seconds if left is None else min(left, limits.page_seconds)

    robots = _robots(client, start, limits.max_bytes, seconds_left())
    queue: deque[tuple[str, int]] = deque()
    seen: set[str] = set()
    if urlsplit(start).path.lower().endswith(".xml"):
        try:
            sitemap = fetch(
                client,
                start,
                max_bytes=limits.max_bytes,
                types=_XML_TYPES,
                max_seconds=seconds_left(),
                clock=clock,
            )
            urls = sitemap_urls(sitemap.data)
        except (FetchError, lxml.etree.XMLSyntaxError) as error:
            yield Visit(start, error=f"sitemap: {error}")
            return
        depth_limit = 0
        for url in urls:
            queue.append((url, 0))
    else:
        depth_limit = limits.max_depth
        queue.append((start, 0))
    fetched = 0
    while queue:
        url, depth = queue.popleft()
        if url in seen:
            continue
        seen.add(url)
        if not same_site(url, start):
            yield Visit(url, skipped="leaves the site")
            continue
        if robots is not None and not robots.can_fetch(user_agent, url):
            yield Visit(url, skipped="disallowed by robots.txt")
            continue
        if fetched >= limits.max_pages:
            yield Visit(url, skipped=f"over the page limit ({limits.max_pages})")
            continue
        if run_end is not None and clock() >= run_end:
            yield Visit(url, skipped=f"over the run's time limit ({limits.run_seconds:g} s)")
            continue
        if fetched:
            sleep(limits.delay)
        fetched += 1
        try:
            page = fetch(
                client,
                url,
                max_bytes=limits.max_bytes,
                site=start,
                max_seconds=seconds_left(),
                clock=clock,
            )
        except FetchError as error:
            yield Visit(url, error=str(error))
            continue
        yield Visit(url, page=page)
        if depth < depth_limit:
            for link in links_of(page):
                if link not in seen:
                    queue.append((link, depth + 1))  # an off-site one is reported, not fetched


def _robots(
    client: httpx.Client, start: str, max_bytes: int, max_seconds: float | None
) -> robotparser.RobotFileParser | None:
    parts = urlsplit(start)
    url = f"{parts.scheme}://{parts.netloc}/robots.txt"
    try:
        page = fetch(
            client,
            url,
            max_bytes=max_bytes,
            types=frozenset({"text/plain"}),
            max_seconds=max_seconds,
        )
    except FetchError:
        return None  # no robots.txt: everything is allowed
    parser = robotparser.RobotFileParser(url)
    parser.parse(page.data.decode("utf-8", errors="replace").splitlines())
    return parser
