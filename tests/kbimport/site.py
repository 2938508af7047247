"""A small company website served from this process, for the import tests: no internet.

Fjällby Camping: pages with navigation, a cookie banner and a footer to strip, a price
table, a page that changes between imports (``version``), a page that disappears
(``gone``), a redirect loop, a 404, a page over the size cap, a PDF and a DOCX (made here,
byte by byte), an image-only PDF, a link off the site and one that robots.txt disallows.
"""

import io
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHROME_TOP = """<!doctype html><html lang="sv"><head><meta charset="utf-8">
<title>{title} – Fjällby Camping</title></head><body>
<header><nav><a href="/">Hem</a> · <a href="/priser">Priser</a>
· <a href="/oppettider">Öppettider</a>
· <a href="/nyheter">Nyheter</a> · <a href="/kulturochfritid/aktiviteter">Aktiviteter</a>
· <a href="javascript:alert('nav')">Logga in</a></nav></header>
<div id="cookie-banner" class="cookie-consent">Vi använder kakor för statistik.
<button>Godkänn alla kakor</button></div>
<main><article>"""
CHROME_BOTTOM = """</article></main>
<footer><p>Fjällby Camping AB · Org.nr 556677-8899 · Fjällvägen 12, 840 93 Fjällby</p>
<p><a href="/integritet">Integritetspolicy</a> · <a href="https://example.org/partner">Partner</a></p>
</footer></body></html>"""

PAGES = {
    "/": (
        "Välkommen",
        """<h1>Välkommen till Fjällby Camping</h1>
<p>Fjällby Camping ligger vid sjön Storvattnet, 12 km från Fjällby centrum. Här hittar du
priser, öppettider och villkor för din vistelse.</p>
<ul><li><a href="/priser">Priser för stugor och tältplatser</a></li>
<li><a href="/oppettider">Öppettider och kontakt</a></li>
<li><a href="/gammal-kampanj">Vårkampanj</a></li>
<li><a href="/loop-a">Karta</a></li><li><a href="/saknas">Fiskekort</a></li>
<li><a href="/stor">Alla evenemang</a></li><li><a href="/privat/personal">Personal</a></li>
<li><a href="/dokument/villkor.pdf">Bokningsvillkor (PDF)</a></li>
<li><a href="/dokument/avbokning.docx">Avbokningsregler (Word)</a></li>
<li><a href="/dokument/karta.pdf">Karta (PDF)</a></li>
<li><a href="/logo.png">Vår logga</a></li>
<li><a href="javascript:void(0)" onclick="alert(1)">Chatta med oss</a></li></ul>
<script>document.write('<p>Skript som inte ska med</p>')</script>""",
    ),
    "/priser": (
        "Priser",
        """<h1>Priser</h1>
<p>Priserna gäller säsongen 2027 och inkluderar moms.</p>
<h2>Stugor</h2>
<table><thead><tr><th>Stuga</th><th>Per natt</th><th>Per vecka</th><th>Bäddar</th></tr></thead>
<tbody>
<tr><td>Liten stuga</td><td>650 kr</td><td>3 900 kr</td><td>2</td></tr>
<tr><td>Familjestuga</td><td>950 kr</td><td>5 700 kr</td><td>4</td></tr>
<tr><td>Stor stuga</td><td>1 350 kr</td><td>8 100 kr</td><td>6</td></tr>
</tbody></table>
<h2>Tält och husvagn</h2>
<table><thead><tr><th>Plats</th><th>Per natt</th></tr></thead>
<tbody><tr><td>Tältplats</td><td>220 kr</td></tr>
<tr><td>Husvagnsplats med el</td><td>340 kr</td></tr></tbody></table>
<h2>Tillägg</h2>
<ul><li>Slutstädning: 450 kr</li><li>Sänglinne: 95 kr per person</li>
<li>Hund: 60 kr per natt</li><li>Kanothyra: 300 kr per dag</li></ul>
<p>Barn under 4 år bor gratis. Pensionärer får 10 % rabatt på stugor.</p>""",
    ),
    "/oppettider": (
        "Öppettider",
        """<h1>Öppettider och kontakt</h1>
<p>Receptionen har öppet måndag–fredag 08.00–20.00 och lördag–söndag 09.00–18.00.</p>
<p>Incheckning sker från kl. 15.00 och utcheckning senast kl. 11.00.</p>
<p>Telefon till receptionen: 0640-123 45. Jourtelefon nattetid: 070-555 12 34.</p>
<p>Säsongen pågår från 1 maj till 30 september 2027.</p>""",
    ),
    "/kulturochfritid/aktiviteter": (
        "Aktiviteter",
        """<h1>Aktiviteter</h1>
<p>Guidad fjällvandring varje tisdag kl. 10.00. Turen är 8 km lång och kostar 150 kr per vuxen.</p>
<p>Bastun vid sjön är öppen 17.00–21.00 och kostar 50 kr per person.</p>""",
    ),
    "/gammal-kampanj": (
        "Vårkampanj",
        """<h1>Vårkampanj</h1>
<p>Boka en stuga före 1 april och få 15 % rabatt på hela vistelsen.</p>""",
    ),
    "/privat/personal": ("Personal", "<h1>Personal</h1><p>Schema för personalen: 07.00–16.00.</p>"),
}
NEWS = {
    1: """<h1>Nyheter</h1><p>Från 1 juni 2027 har kiosken öppet 08.00–21.00 varje dag.</p>""",
    2: """<h1>Nyheter</h1><p>Från 1 juni 2027 har kiosken öppet 08.00–22.00 varje dag.</p>
<p>Nytt för i år: elcykelhyra för 250 kr per dag.</p>""",
}
ROBOTS = "User-agent: *\nDisallow: /privat/\n"


def _pdf(lines: list[str]) -> bytes:
    """A one-page PDF with the lines as text (Helvetica, WinAnsi: å, ä and ö included)."""

    def escape(text: str) -> str:
        return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    body = "BT /F1 11 Tf 50 800 Td 16 TL\n" + "".join(f"({escape(line)}) Tj T*\n" for line in lines)
    stream = (body + "ET").encode("cp1252")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, obj in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + obj + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(
        b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    )
    return out.getvalue()


def _docx(paragraphs: list[str], table: list[list[str]]) -> bytes:
    """A minimal Word document: paragraphs, then a table whose first row is its header."""

    def run(text: str) -> str:
        return f'<w:p><w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>'

    rows = "".join(
        "<w:tr>" + "".join(f"<w:tc>{run(cell)}</w:tc>" for cell in row) + "</w:tr>" for row in table
    )
    document = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        "<w:body>"
        + "".join(run(p) for p in paragraphs)
        + f"<w:tbl>{rows}</w:tbl></w:body></w:document>"
    )
    files = {
        "[Content_Types].xml": (
            '<?xml version="1.0" encoding="UTF-8"?>'
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/'
            'vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
            'officedocument.wordprocessingml.document.main+xml"/></Types>'
        ),
        "_rels/.rels": (
            '<?xml version="1.0" encoding="UTF-8"?>'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
            'relationships/officeDocument" Target="word/document.xml"/></Relationships>'
        ),
        "word/document.xml": document,
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return out.getvalue()


VILLKOR_PDF = _pdf(
    [
        "Bokningsvillkor för Fjällby Camping",
        "Vid bokning betalas en handpenning på 20 % av priset.",
        "Resterande belopp ska vara betalt senast 30 dagar före ankomst.",
        "Minsta ålder för att boka är 18 år.",
    ]
)
KARTA_PDF = _pdf([])  # a map as an image: no text at all
AVBOKNING_DOCX = _docx(
    ["Avbokningsregler", "Avbokning görs via telefon 0640-123 45 eller e-post."],
    [
        ["Avbokning", "Återbetalning"],
        ["Mer än 30 dagar före ankomst", "100 %"],
        ["14–30 dagar före ankomst", "50 %"],
        ["Mindre än 14 dagar före ankomst", "0 %"],
    ],
)
LARGE_BYTES = 300_000


# Pages no other page links to (the crawl never meets them): a test imports one with
# ``--depth 0``. "Entré": a table whose first row is a caption spanning the columns, a
# <caption>, and a markdown link written as text in the HTML.
UNLINKED = {
    "/entre": (
        "Entré",
        """<h1>Entré till badet</h1>
<p>Badet vid Storvattnet är öppet för alla gäster under säsongen.</p>
<table><tr><td colspan="3">Priser per person</td></tr>
<tr><th>Besökare</th><th>Per dag</th><th>Per säsong</th></tr>
<tr><td>Vuxen</td><td>120 kr</td><td>900 kr</td></tr>
<tr><td>Barn</td><td>60 kr</td><td>450 kr</td></tr>
<tr><td>Pensionär</td><td>90 kr</td><td>700 kr</td></tr></table>
<table><caption>Hyra vid badet</caption>
<tr><th>Utrustning</th><th>Per timme</th></tr>
<tr><td>Solstol</td><td>40 kr</td></tr><tr><td>Parasoll</td><td>25 kr</td></tr></table>
<p>Biljetter säljs även hos [vår partner](https://partner.example/biljetter) och
<a href="https://other.example/">på deras sida</a>.</p>""",
    ),
}
GUIDE_MD = """# Guide till Fjällby

Läs [villkoren](https://other.example/villkor "Villkor") innan du bokar.
![Karta över campingen](https://other.example/karta.png)
Frågor? Se [vanliga frågor][faq] eller <https://other.example/kontakt>.

[faq]: https://other.example/faq
"""


DRIP_SECONDS = 0.05  # "/droppande": its ~1,100 bytes take about a minute


class FixtureSite:
    """The site's state: ``version`` 1 or 2 (the news page changes, the campaign page goes)."""

    def __init__(self):
        self.version = 1
        self.requests: list[str] = []
        self.user_agents: set[str] = set()

    def respond(self, path: str) -> tuple[int, dict[str, str], bytes]:
        html = "text/html; charset=utf-8"
        if path == "/robots.txt":
            return 200, {"Content-Type": "text/plain"}, ROBOTS.encode()
        if path == "/loop-a":
            return 302, {"Location": "/loop-b"}, b""
        if path == "/loop-b":
            return 302, {"Location": "/loop-a"}, b""
        if path == "/stor":
            filler = "<p>" + "Evenemang i fjällen. " * 40 + "</p>"
            page = CHROME_TOP.format(title="Evenemang") + filler * (LARGE_BYTES // len(filler) + 1)
            return 200, {"Content-Type": html}, (page + CHROME_BOTTOM).encode()
        if path == "/dokument/villkor.pdf":
            return 200, {"Content-Type": "application/pdf"}, VILLKOR_PDF
        if path == "/dokument/karta.pdf":
            return 200, {"Content-Type": "application/pdf"}, KARTA_PDF
        if path == "/dokument/avbokning.docx":
            kind = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
            return 200, {"Content-Type": kind}, AVBOKNING_DOCX
        if path == "/logo.png":
            return 200, {"Content-Type": "image/png"}, b"\x89PNG\r\n\x1a\n"
        if path == "/langsam":
            time.sleep(3)  # slower than the test's timeout
            return 200, {"Content-Type": html}, self._page("Långsam", "<p>Sent svar.</p>")
        if path == "/latin1":  # declared UTF-8, written in Latin-1
            body = "<h1>Fika</h1><p>Kaffe och bulle kostar 45 kr på caféet.</p>"
            return (
                200,
                {"Content-Type": html},
                self._page("Fika", "").replace(
                    b"</article>", body.encode("latin-1") + b"</article>"
                ),
            )
        if path == "/nyheter":
            body = NEWS[self.version]
            return 200, {"Content-Type": html}, self._page("Nyheter", body)
        if path == "/gammal-kampanj" and self.version > 1:
            return 404, {"Content-Type": html}, b"<h1>Sidan finns inte</h1>"
        if path == "/droppande":  # not linked; sent a byte every DRIP_SECONDS
            return 200, {"Content-Type": html}, self._page("Droppande", "<p>Långsamt.</p>")
        if path == "/guide.md":  # not linked: imported on its own (--depth 0)
            return 200, {"Content-Type": "text/markdown; charset=utf-8"}, GUIDE_MD.encode()
        if path in UNLINKED:
            title, body = UNLINKED[path]
            return 200, {"Content-Type": html}, self._page(title, body)
        if path in PAGES:
            title, body = PAGES[path]
            return 200, {"Content-Type": html}, self._page(title, body)
        return 404, {"Content-Type": html}, b"<h1>Sidan finns inte</h1>"

    @staticmethod
    def _page(title: str, body: str) -> bytes:
        return (CHROME_TOP.format(title=title) + body + CHROME_BOTTOM).encode("utf-8")


def serve(site: FixtureSite) -> tuple[ThreadingHTTPServer, str]:
    """Start the site on a free loopback port; returns the server and its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            site.requests.append(self.path)
            site.user_agents.add(self.headers.get("User-Agent", ""))
            status, headers, body = site.respond(self.path.split("?")[0])
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.path == "/droppande":  # a byte at a time, each read well inside the timeout
                self._drip(body)
                return
            self.wfile.write(body)

        def _drip(self, body: bytes) -> None:
            try:
                for index in range(len(body)):
                    self.wfile.write(body[index : index + 1])
                    self.wfile.flush()
                    time.sleep(DRIP_SECONDS)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the importer cut it

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"
