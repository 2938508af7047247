"""Importing a company's existing help pages and documents into the KB as markdown.

| module | what it does | I/O |
|---|---|---|
| ``documents`` | URL → category, file name, front matter, cleaning: the import's rules | none |
| ``extract`` | HTML → markdown (trafilatura), PDF and DOCX → markdown (markitdown) | none (bytes in, text out) |
| ``confine`` | the addresses the importer may connect to: public ones, checked as the socket connects | network (DNS) |
| ``fetch`` | one page over HTTP with every bound (size, time, redirects, content type, site) | network |
| ``crawl`` | a site: same-site links, depth and page limits, robots.txt, a polite delay, sitemaps | network |
| ``writer`` | the KB files and the manifest: unchanged pages untouched, vanished pages removed | files |
"""

import os

# onnxruntime (markitdown -> magika) sends usage events to its vendor's collector
# (mobile.events.data.microsoft.com) unless this is set before it loads: the product
# connects to no host it was not told to use (tests/config/test_outbound_connections.py).
os.environ["ORT_DISABLE_TELEMETRY"] = "1"
