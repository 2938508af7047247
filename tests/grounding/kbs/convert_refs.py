#!/usr/bin/env python3
"""Draft a KB's cases_ref.jsonl from its cases.jsonl: the mechanical part of the cited form.

The format is ../../../../shared/grounding-dev/REFERENCED.md's (beside the repository: shared/
grounding-dev/REFERENCED.md). This script only drafts; a person reads every withheld case and
every line it prints, and fixes the file by hand. Standard library only; it reuses the number
reading of check_refs.py beside it, so both see the same numbers.

- grounded: each support line ("file.md: line text", several joined by ';', '+' or '|') is
  found in its file (markdown markup tolerated, '...' gaps allowed); each number of the answer
  cites the support line whose digits hold it; a number repeated from a wh-question cites [Q].
  Number words, 12-hour clocks and month names are converted and, where the converted value is
  on the line, written as HAND entries for check_refs.py (--write-hand).
- withheld: a draft only. Each number cites the KB line that best matches its clause, the
  question and the values the support names (the true fact); a swap is written twice, the
  _cited_source variant citing the best line that holds the answer's number itself.

Usage: python3 convert_refs.py KB [--force] [--write-hand]
Prints what it could not place (UNPLACED) and every drafted withheld reference (DRAFT).
"""

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_refs as cr  # noqa: E402

MONTHS = {
    "januari": 1,
    "january": 1,
    "jan": 1,
    "februari": 2,
    "february": 2,
    "feb": 2,
    "mars": 3,
    "march": 3,
    "mar": 3,
    "april": 4,
    "apr": 4,
    "maj": 5,
    "may": 5,
    "juni": 6,
    "june": 6,
    "jun": 6,
    "juli": 7,
    "july": 7,
    "jul": 7,
    "augusti": 8,
    "august": 8,
    "aug": 8,
    "september": 9,
    "sep": 9,
    "sept": 9,
    "oktober": 10,
    "october": 10,
    "okt": 10,
    "oct": 10,
    "november": 11,
    "nov": 11,
    "december": 12,
    "dec": 12,
}
MONTH_RE = re.compile(r"\b(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\b\.?", re.I)
WORD_VALUES = {
    "en": 1,
    "ett": 1,
    "one": 1,
    "två": 2,
    "two": 2,
    "tre": 3,
    "three": 3,
    "fyra": 4,
    "four": 4,
    "fem": 5,
    "five": 5,
    "sex": 6,
    "six": 6,
    "sju": 7,
    "seven": 7,
    "åtta": 8,
    "eight": 8,
    "nio": 9,
    "nine": 9,
    "tio": 10,
    "ten": 10,
    "elva": 11,
    "eleven": 11,
    "tolv": 12,
    "twelve": 12,
    "tretton": 13,
    "thirteen": 13,
    "fjorton": 14,
    "fourteen": 14,
    "femton": 15,
    "fifteen": 15,
    "sexton": 16,
    "sixteen": 16,
    "sjutton": 17,
    "seventeen": 17,
    "arton": 18,
    "eighteen": 18,
    "nitton": 19,
    "nineteen": 19,
    "tjugo": 20,
    "twenty": 20,
    "trettio": 30,
    "thirty": 30,
    "fyrtio": 40,
    "forty": 40,
    "femtio": 50,
    "fifty": 50,
    "sextio": 60,
    "sixty": 60,
    "sjuttio": 70,
    "seventy": 70,
    "åttio": 80,
    "eighty": 80,
    "nittio": 90,
    "ninety": 90,
    "tredje": 3,
    "third": 3,
    "fjärde": 4,
    "fourth": 4,
    "femte": 5,
    "fifth": 5,
    "sjätte": 6,
    "sixth": 6,
    "sjunde": 7,
    "seventh": 7,
    "åttonde": 8,
    "eighth": 8,
    "nionde": 9,
    "ninth": 9,
    "tionde": 10,
    "tenth": 10,
}
SCALES = {
    "hundra": 100,
    "hundred": 100,
    "tusen": 1000,
    "thousand": 1000,
    "miljon": 10**6,
    "miljoner": 10**6,
    "million": 10**6,
    "millions": 10**6,
}
MORPH = sorted(list(WORD_VALUES) + list(SCALES), key=len, reverse=True)

# what may follow a number before its reference: units, periods, bounds (REFERENCED.md)
UNIT_WORDS = (
    r"m/s|km/h|arbetstimmar|arbetstimme|kr/\S+|öre/\S+|sek/\S+|€/\S+|procentenheter|"
    r"procentenhet|percentage points|års ålder|years of age|år gammal|years old|medlemmar|"
    r"members|anställda|employees|doser|doses|butiker|shops|stores|parkeringsplatser|"
    r"spaces|kurser|courses|banor|courts|stugor|cabins|fordon|vehicles|hundar|dogs|"
    r"behandlingar|treatments|klasser|classes|stationer|stations|laddare|chargers|sidor|"
    r"pages|kr|kronor|kronors|sek|eur|euro|€|\$|usd|nok|dkk|öre|%|procent|procents|"
    r"percent|per cent|min|minuter|minuters|minute|minutes|mins?|h|tim|timme|timmar|"
    r"timmars|hour|hours|dag|dagar|dagars|day|days|vecka|veckor|veckors|week|weeks|månad|"
    r"månader|månaders|mån|month|months|år|års|year|years|st|styck|stycken|pieces?|"
    r"personer|person|people|pers|gäster|guests|platser|places|seats|kg|g|gram|hg|l|liter|"
    r"litres|liters|ml|cl|dl|cm|mm|m|meter|metres|meters|km|mil|m²|kvm|kvadratmeter|sq m|"
    r"kwh|kw|w|(?-i:A)|°c|°|grader|degrees|celsius|bitar|delar|exemplar|copies|lektioner|"
    r"lessons|tillfällen|sessions|gånger|times|nätter|natt|nights|night|bäddar|beds|holes|"
    r"hål|timmen|dagen|dygn|dygnet|kilo|kilos|kilometer|kilometres|kilometers|miles|slag|"
    r"stycket|deltagare|participants|elever|students|barn|children|vuxna|adults|bankdagar|"
    r"arbetsdagar|vardagar|working days|business days|banking days|kalenderdagar|pass|"
    r"klipp|besök|visits|agents?|users?|användare|gb|tb|mb|mbit/s|gbit/s|spelare|players|"
    r"bilar|cars|mg|µg|rader|stolar|chairs|rum|rooms"
)
UNIT_RE = re.compile(r"(?:\s|\u00a0)?(?:" + UNIT_WORDS + r")(?![\wåäöÅÄÖ])", re.I)
PERIOD_RE = re.compile(
    r"\s(?:per|/|i|om|a|an|each|every|varje|in|the)\s(?:\w+\s)?"
    r"(?:månad|månaden|mån|månader|år|året|vecka|veckan|veckor|dag|dagen|dygn|dygnet|timme|timmen|"
    r"natt|natten|halvår|halvåret|kvartal|kvartalet|termin|terminen|säsong|säsongen|season|term|quarter|"
    r"month|year|week|day|hour|night|person|personen|gäst|guest|agent|elev|student|"
    r"barn|child|vuxen|adult|st|styck|kg|kilo|km|kilometer|mil|m²|kvm|kvadratmeter|meter|metre|"
    r"m|order|ordern|tillfälle|session|lektion|lesson|besök|visit|bokning|booking|hund|dog|bil|"
    r"car|båt|boat|plagg|garment|paket|parcel|kWh|kwh|tur|trip|resa|pass|kort|card|klipp|"
    r"användare|user|seat|plats|biljett|ticket|person och år|person and year|skada|tvist|avi|"
    r"faktura|invoice|påbörjad [^\W\d]+|started [^\W\d]+)(?![\wåäöÅÄÖ])",
    re.I,
)
BOUND_RE = re.compile(
    r"\s(?:eller (?:mer|fler|äldre|yngre|mindre|längre|senare|tidigare|mer än|över)|"
    r"or (?:more|older|younger|less|longer|later|earlier|over|above|under)|och uppåt|"
    r"and over|and older|och äldre|och över|or fewer)(?![\wåäöÅÄÖ])",
    re.I,
)
CLOCK_RE = re.compile(
    r"\s?(?:[ap]\.?m\.?)(?![A-Za-z])(?:\s(?:CET|CEST|UTC|GMT))?|\s(?:CET|CEST|UTC)", re.I
)
JOIN_RE = re.compile(
    r"^(?:\s*(?:[ap]\.?m\.?)?\s*(?:[–—\-/]|to|till|until|tills|and|och|through|thru)\s*"
    r"(?:kl\.?\s*)?|\s*[ap]\.?m\.?\s*[–—\-]\s*|\s)$",
    re.I,
)
STOP = set(
    [
        "och",
        "att",
        "det",
        "som",
        "en",
        "ett",
        "är",
        "av",
        "för",
        "på",
        "i",
        "med",
        "till",
        "om",
        "den",
        "de",
        "har",
        "vi",
        "du",
        "ni",
        "kan",
        "the",
        "a",
        "an",
        "of",
        "for",
        "in",
        "on",
        "to",
        "and",
        "is",
        "are",
        "be",
        "you",
        "we",
        "our",
        "your",
        "it",
        "at",
        "by",
        "or",
        "as",
        "with",
        "from",
        "this",
        "that",
        "can",
        "if",
        "not",
        "no",
        "ja",
        "nej",
        "yes",
        "jag",
        "min",
        "mitt",
        "mina",
        "vår",
        "vårt",
        "våra",
        "er",
        "ert",
        "era",
        "man",
        "när",
        "hur",
        "vad",
        "vilken",
        "vilka",
        "vem",
        "var",
        "får",
        "ska",
        "skall",
        "gäller",
        "kostar",
        "cost",
        "costs",
        "does",
        "do",
        "what",
        "how",
        "when",
        "which",
        "who",
        "much",
        "many",
        "mycket",
        "många",
        "kl",
        "inte",
        "also",
        "även",
        "eller",
        "but",
        "så",
    ]
)


def norm_text(s):
    s = s.replace("\u00a0", " ").replace("**", "").replace("__", "").replace("`", "")
    s = re.sub(r"^\s*(?:#+|[-*+]|\d+\.)\s+", "", s)
    s = s.replace("|", " ")
    return re.sub(r"\s+", " ", s).strip().lower()


def words(s):
    return [w for w in re.findall(r"[a-zåäöéü]+", s.lower()) if w not in STOP and len(w) > 1]


def stem(w):
    return w[:5] if len(w) > 5 else w


def word_value(word):
    """Integer of a numeral word ("fyrtiofem", "twenty-one", "tvåhundra"), or None."""
    w = word.lower().replace("-", "")
    total, cur, pos = 0, 0, 0
    while pos < len(w):
        for m in MORPH:
            if w.startswith(m, pos):
                break
        else:
            return None
        if m in SCALES:
            cur = max(cur, 1) * SCALES[m]
            if SCALES[m] >= 1000:
                total, cur = total + cur, 0
        else:
            cur += WORD_VALUES[m]
        pos += len(m)
    return total + cur


class KB:
    def __init__(self, name):
        self.name = name
        self.path = os.path.join(HERE, name)
        self.files = cr.load_kb(self.path)
        self.ctx = {}  # (file, line) -> context words (headings, table header)
        self.header = {}  # (file, line of a table row) -> line of its table's header
        for f, lines in self.files.items():
            heads = {}
            header = None
            for i, line in enumerate(lines, 1):
                m = re.match(r"^(#+)\s+(.*)", line)
                if m:
                    lvl = len(m.group(1))
                    heads = {k: v for k, v in heads.items() if k < lvl}
                    heads[lvl] = m.group(2)
                    header = None
                st = line.strip()
                if st.startswith("|"):
                    if header is None:
                        header = st
                        header_line = i
                    else:
                        self.header[(f, i)] = header_line
                else:
                    header = None
                bold = re.match(r"^\*\*(.+?)\*\*", st)
                if bold and not st.startswith("|") and len(st) < 90 and st.endswith("**"):
                    heads[9] = bold.group(1)
                self.ctx[(f, i)] = " ".join(
                    list(heads.values()) + ([header] if header and header != st else [])
                )
        self.names = [re.compile(p) for p in cr.NAMES["*"] + cr.NAMES.get(name, [])]

    def all_lines(self):
        for f, lines in self.files.items():
            for i, line in enumerate(lines, 1):
                if line.strip() and not re.match(r"^\|[\s:\-|]+\|?$", line.strip()):
                    yield f, i, line

    def resolve_file(self, fname):
        if fname in self.files:
            return fname
        for f in self.files:
            if f.endswith("/" + fname) or os.path.basename(f) == os.path.basename(fname):
                return f
        return None

    def find_line(self, fname, text):
        """The line of fname (or of every file) best matching text; (file, line, score)."""
        text = re.sub(
            r"\((?:header|under|rubrik|heading|column|kolumn)[^)]*\)?", " ", text, flags=re.I
        )
        text = re.sub(r"\(header[^)]*$", " ", text, flags=re.I)
        t = norm_text(text)
        frags = [x.strip(" .,;:") for x in re.split(r"\.\.\.|…", t) if len(x.strip(" .,;:")) > 2]
        cands = [fname] if fname else list(self.files)
        best = (None, None, 0.0)
        tw = set(re.findall(r"[0-9a-zåäöéü]+", t))
        for f in cands:
            for i, line in enumerate(self.files[f], 1):
                nl = norm_text(line)
                if not nl:
                    continue
                if frags and all(fr in nl for fr in frags):
                    sc = 2.0 + len(t) / (len(nl) + 1) * 0.01
                else:
                    lw = set(re.findall(r"[0-9a-zåäöéü]+", nl))
                    sc = len(tw & lw) / (len(tw) or 1)
                if sc > best[2]:
                    best = (f, i, sc)
        return best


def groups(text, kb):
    """Numbers of a text as check_refs reads them, joined into one number where they form one
    (a range, a date, a phone number, a clock range, a number word with its scale)."""
    toks = cr.number_tokens(text, kb.name) + cr.word_numbers(text, kb.name)
    toks.sort()
    phones = cr.phone_runs(text)
    out = []
    for s, e, t in toks:
        if out:
            ps, pe, _ = out[-1]
            between = text[pe:s]
            inphone = any(a <= ps and e <= b for a, b, _ in phones)
            month_between = re.fullmatch(
                r"\s*(?:" + MONTH_RE.pattern + r")\s*,?\s*(?:(?:[–—\-]|to|till|until)\s*)?",
                between,
                re.I,
            ) or (
                re.fullmatch(
                    r"\s*(?:" + MONTH_RE.pattern + r")\s*,?\s*(?:och|and)\s*", between, re.I
                )
                and re.search(r"(?:mellan|between)\s+\S*$", text[:ps], re.I)
            )
            both_words = not t[0].isdigit() and not text[ps].isdigit()
            ranged = JOIN_RE.match(between) and not re.search(r"\b(?:and|och)\b", between, re.I)
            mellan = re.fullmatch(
                r"(?:\s*[ap]\.?m\.?)?\s+(?:and|och)\s+(?:kl\.?\s*)?", between, re.I
            ) and re.search(r"(?:mellan|between|från|from)\s+(?:kl\.?\s*)?\S*$", text[:ps], re.I)
            if re.search(r"\.\s", between) and not inphone:
                out.append((s, e, t))  # "kl. 8 till kl. 20": a reference each
                continue
            if (
                inphone
                or month_between
                or (ranged and between.strip() != "")
                or mellan
                or (both_words and between == " ")
                or (between == "/")
                or (re.fullmatch(r"/\S*\s?", between) and len(between) < 4)
            ):
                out[-1] = (ps, e, text[ps:e])
                continue
            if (
                re.fullmatch(r",?\s", between)
                and re.fullmatch(r"(?:19|20)\d\d", t)
                and re.search(r"(?:" + MONTH_RE.pattern + r")\s*\S*$", text[:ps], re.I)
            ):
                out[-1] = (ps, e, text[ps:e])  # "September 30, 2027"
                continue
            if between == " " and re.fullmatch(r"\d{3}", text[ps:pe]) and re.fullmatch(r"\d{2}", t):
                out[-1] = (ps, e, text[ps:e])  # a postcode, "903 26"
                continue
            if between == " " and (re.fullmatch(r"\d{4}", t) and re.search(r"/\d+$", text[ps:pe])):
                out[-1] = (ps, e, text[ps:e])
                continue
        out.append((s, e, t))
    # a month name, a clock word or a year right after the last number belongs to it
    res = []
    for s, e, _t in out:
        res.append((s, e))
    return res


def ref_position(text, e):
    """Where the reference goes after a number ending at e: after its unit, period, bound and
    clock words, before the punctuation that ends the clause."""
    pos = e
    for _ in range(6):
        moved = False
        for rx in (CLOCK_RE, UNIT_RE, PERIOD_RE, BOUND_RE):
            m = rx.match(text, pos)
            if m and m.end() > pos:
                pos = m.end()
                moved = True
        m = re.match(r"\s?(?:" + MONTH_RE.pattern + r")(?:\s\d{4})?", text[pos:], re.I)
        if m and pos == e:
            pos += m.end()
            moved = True
        m = re.match(r"(?::[ea]|st|nd|rd|th)(?![\wåäö])", text[pos:]) if pos == e else None
        if m:
            pos += m.end()
            moved = True
        if pos > e:
            m = re.match(r"['’]s?(?![\wåäö])", text[pos:])
            if m:
                pos += m.end()
        m = re.match(r"-[a-zåäö]+", text[pos:])
        if m:
            pos += m.end()
            moved = True
        if not moved:
            break
    # never past a clause end
    while pos > e and text[pos - 1] in ".,;:!?)":
        pos -= 1
    return pos


def group_values(text, s, e):
    """Every numeric reading of a group's numbers, as sets (one per token)."""
    sub = text[s:e]
    out = []
    for m in cr.TOKEN_RE.finditer(sub):
        out.append(cr.token_values(text, s + m.start(), s + m.end(), m.group(0)))
    return out


def on_line(text, s, e, line, folder):
    """True when check_refs would accept every number of text[s:e] on line (digits only)."""
    vals, phones = cr.line_values(line)
    prun = [(a, b) for a, b, k in cr.phone_runs(text) if k in phones]
    sub_toks = [(a, b, t) for a, b, t in cr.number_tokens(text, folder) if s <= a and b <= e]
    sub_words = [(a, b, t) for a, b, t in cr.word_numbers(text, folder) if s <= a and b <= e]
    if sub_words:
        return False
    for a, b, t in sub_toks:
        if any(x <= a and b <= y for x, y in prun):
            continue
        if not (cr.token_values(text, a, b, t) & vals):
            return False
    return bool(sub_toks)


def converted_values(txt):
    """Values of a text with number words, month names and 12-hour clocks turned into digits."""
    vals = set()
    for m in cr.TOKEN_RE.finditer(txt):
        v = cr.values(m.group(0))
        vals |= v
        tag = cr.clock_tag(txt, m.end())
        if tag:
            for x in v:
                try:
                    h = float(x)
                except ValueError:
                    continue
                hh = int(h)
                if tag == "pm" and hh < 12:
                    hh += 12
                if tag == "am" and hh == 12:
                    hh = 0
                mins = round((h - int(h)) * 100)
                vals |= cr.values(f"{hh}.{mins:02d}")
    for m in MONTH_RE.finditer(txt):
        vals.add(str(MONTHS[m.group(1).lower()]))
    for w in re.findall(r"[A-Za-zåäöÅÄÖ-]+", txt) + re.findall(r"[A-Za-zåäöÅÄÖ]+", txt):
        v = word_value(w) if w.lower() not in ("en", "ett", "one", "a") else None
        if v:
            vals.add(str(v))
    if re.search(r"\bhalvtimme|half an hour|halv timme\b", txt, re.I):
        vals.add("30")
    return vals


def hand_ok(text, s, e, line):
    """A conversion check_refs leaves to a person: every number of text[s:e], converted, is a
    converted value of the line. Returns a description or None."""
    sub = text[s:e]
    want = set()
    tag_end = cr.clock_tag(text, e)
    for m in cr.TOKEN_RE.finditer(sub):
        v = cr.values(m.group(0))
        tag = cr.clock_tag(text, s + m.end())
        if (
            not tag
            and tag_end
            and (re.search(r"[.:]", m.group(0)) or re.fullmatch(r"\d{1,2}", m.group(0)))
        ):
            v = converted_values(m.group(0) + " " + tag_end)  # "5:30 to 6:30 pm"
            want.add(frozenset(v))
            continue
        if tag:
            v = converted_values(m.group(0) + " " + tag)
            v = {x for x in v if x not in cr.values(m.group(0))} or v
        want.add(frozenset(v))
    joined = re.sub(r"[\s-]+", "", re.sub(r"[0-9.,:]", "", sub))
    if " " in sub.strip() and cr.NUMBER_WORDS.search(sub) and word_value(joined):
        want.add(frozenset({str(word_value(joined))}))  # "tre hundra" = 300
        sub_words = []
    else:
        sub_words = list(re.finditer(r"[A-Za-zåäöÅÄÖ-]+", sub))
    for m in sub_words:
        w = m.group(0)
        if w.lower() in ("en", "ett", "one", "a"):
            continue
        if cr.NUMBER_WORDS.fullmatch(w) or word_value(w):
            v = word_value(w)
            if v:
                want.add(frozenset({str(v)}))
    if MONTH_RE.search(sub):
        for m in MONTH_RE.finditer(sub):
            want.add(frozenset({str(MONTHS[m.group(1).lower()])}))
    lv = converted_values(line)
    if not want or not all(w & lv for w in want):
        return None
    kinds = []
    if cr.NUMBER_WORDS.search(sub) or cr.NUMBER_WORDS.search(line):
        kinds.append("number word")
    if re.search(r"[0-9]\s?[ap]\.?m", text[s : e + 5], re.I) or re.search(
        r"[0-9]\s?[ap]\.?m", line, re.I
    ):
        kinds.append("12-hour vs 24-hour clock")
    if MONTH_RE.search(sub) or MONTH_RE.search(line):
        kinds.append("month as a name vs digits")
    if not kinds:
        kinds.append("notation")
    return " + ".join(kinds)


def hand_key(ans, s, e):
    """The number as written, long enough that its last occurrence in the answer is this one
    (check_refs finds a HAND number by its last occurrence in the text before its reference)."""
    end = e
    while ans.rfind(ans[s:end]) != s and end < len(ans):
        m = re.match(r"\s*\S+", ans[end:])
        end += m.end() if m else 1
    return ans[s:end]


def split_support(support, kb):
    """[(file or None, text)] of a support field."""
    if not support:
        return []
    names = sorted(
        set(list(kb.files) + [os.path.basename(f) for f in kb.files]), key=len, reverse=True
    )
    rx = re.compile(
        r"(?<![\w/-])(" + "|".join(re.escape(n) for n in names) + r")(?:\s*\([^)]*\))?\s*:?"
    )
    pieces = []
    ms = list(rx.finditer(support))
    if not ms:
        return [(None, p) for p in re.split(r"\s(?:;|\+|\|\s(?=[A-ZÅÄÖ]))\s", support) if p.strip()]
    for j, m in enumerate(ms):
        end = ms[j + 1].start() if j + 1 < len(ms) else len(support)
        body = support[m.end() : end].strip().rstrip(";+").strip()
        f = kb.resolve_file(m.group(1))
        for part in re.split(r"\s(?:;|\+|/)\s", body):
            if part.strip():
                pieces.append((f, part))
    return pieces


def place(answer, assign, kb):
    """The answer with ' [ref]' after each group; assign is [(s, e, ref)]."""
    out = answer
    inserts = []
    assign = sorted(assign)
    phones = cr.phone_runs(answer)
    for j, (s, e, ref) in enumerate(assign):
        pos = ref_position(answer, e)
        if any(a <= s and e <= b for a, b, _ in phones):
            pos = e  # a phone number takes no unit words
        if j + 1 < len(assign) and pos > assign[j + 1][0]:
            pos = e
        inserts.append((pos, ref))
    for pos, ref in sorted(inserts, reverse=True):
        out = out[:pos] + f" [{ref}]" + out[pos:]
    return out


def line_ref(f, i):
    return f"{f}:{i}"


def shape(text, s, e):
    """What kind of number text[s:e] is: phone, clock range, date, or the unit word after it."""
    sub = text[s:e]
    if any(a <= s and e <= b for a, b, _ in cr.phone_runs(text)) or cr.phone_runs(sub):
        return ("phone", None)
    if re.search(r"[0-9][.:][0-9]{2}\s*[–-]|[0-9]\s*[–-]\s*[0-9]{1,2}[.:][0-9]{2}", sub) or (
        re.search(r"\bkl\.?\s*$", text[max(0, s - 5) : s])
    ):
        return ("clock", None)
    if MONTH_RE.search(sub) or re.search(r"\d{4}-\d{2}-\d{2}", sub):
        return ("date", None)
    m = re.match(r"\s?([^\s.,;:!?)]+)", text[e:])
    return ("unit", stem(m.group(1).lower()) if m else None)


def line_has_shape(line, shp):
    kind, unit = shp
    if kind == "phone":
        return bool(cr.phone_runs(line))
    if kind == "clock":
        return bool(
            re.search(
                r"[0-9][.:][0-9]{2}|kl\.?\s*[0-9]|[0-9]\s?[ap]m|[0-9]\s*[–-]\s*[0-9]{1,2}\b", line
            )
        )
    if kind == "date":
        return bool(MONTH_RE.search(line) or re.search(r"\d{4}-\d{2}-\d{2}", line))
    if unit:
        return any(
            stem(m.group(1).lower()) == unit
            for m in re.finditer(r"[0-9]\s?([^\s.,;:!?)|0-9]+)", line)
        )
    return False


def score_line(kb, f, i, line, clause, qa, truevals, files_named, gvals=None, shp=None):
    lw = set(stem(w) for w in words(line))
    cw = set(stem(w) for w in words(kb.ctx.get((f, i), "")))
    c = set(stem(w) for w in words(clause))
    q = set(stem(w) for w in words(qa))
    sc = 2.0 * len(c & lw) + 1.5 * len(c & cw) + 0.7 * len(q & lw) + 1.0 * len(q & cw)
    lvals, _phones = cr.line_values(line)
    for tv in truevals:
        if tv & lvals:
            sc += 2.5
    if gvals and all(v & lvals for v in gvals):
        sc += 3.0
    if shp and line_has_shape(line, shp):
        sc += 2.5
    if f in files_named:
        sc += 1.5
    if not re.search(r"[0-9]", line) and not cr.NUMBER_WORDS.search(line):
        sc -= 3.0
    sc -= len(line) / 400.0
    return sc


def clause_of(answer, s, e):
    a = max(
        answer.rfind(",", 0, s),
        answer.rfind(";", 0, s),
        answer.rfind(". ", 0, s),
        answer.rfind(" och ", 0, s),
        answer.rfind(" and ", 0, s),
    )
    b = [
        x
        for x in (
            answer.find(",", e),
            answer.find(";", e),
            answer.find(". ", e),
            answer.find(" och ", e),
            answer.find(" and ", e),
        )
        if x != -1
    ]
    return answer[a + 1 if a >= 0 else 0 : min(b) if b else len(answer)]


def support_values(support, answer):
    """Numbers the support names that the answer does not hold: the true fact's values."""
    if not support:
        return []
    av = set()
    for m in cr.TOKEN_RE.finditer(answer):
        av |= cr.values(m.group(0))
    out = []
    for m in cr.TOKEN_RE.finditer(support):
        v = cr.values(m.group(0))
        if not (v & av):
            out.append(v)
    return out


CANDS = {}


def convert(kbname, force=False, write_hand=False):
    kb = KB(kbname)
    with open(os.path.join(kb.path, "cases.jsonl"), encoding="utf-8") as fh:
        cases = [json.loads(x) for x in fh if x.strip()]
    rows, hand, report = [], {}, []
    for src, c in enumerate(cases, 1):
        q, ans, sup = c["question"], c["answer"], c.get("support") or ""
        gs = groups(ans, kb)
        if c["expect"] == "grounded":
            pieces = split_support(sup, kb)
            slines = []
            for f, t in pieces:
                ff, ii, sc = kb.find_line(f, t)
                if ff and sc >= 0.5:
                    slines.append((ff, ii))
                else:
                    report.append(f"UNPLACED {src}: support piece not found: {f}: {t[:80]!r}")
            slines = list(dict.fromkeys(slines))
            assign = []
            for s, e in gs:
                num = ans[s:e]
                wh = re.match(
                    r"^\s*(?:vad|hur|när|var|vilken|vilket|vilka|vem|what|how|when|where|which|who)\b",
                    q,
                    re.I,
                )
                in_q = on_line(ans, s, e, q, kbname)
                if (
                    in_q
                    and wh
                    and not any(
                        on_line(ans, s, e, kb.files[f][i - 1], kbname)
                        and not on_line(ans, s, e, q, kbname)
                        for f, i in slines
                    )
                ):
                    # a key the question names ("a 20 A fuse"): [Q]
                    assign.append((s, e, "Q"))
                    continue
                hits = [(f, i) for f, i in slines if on_line(ans, s, e, kb.files[f][i - 1], kbname)]
                if len(hits) > 1:
                    cl = clause_of(ans, s, e)
                    hits.sort(
                        key=lambda fi: (
                            -score_line(kb, fi[0], fi[1], kb.files[fi[0]][fi[1] - 1], cl, q, [], [])
                        )
                    )
                if hits:
                    assign.append((s, e, line_ref(*hits[0])))
                    continue
                conv = [(f, i, hand_ok(ans, s, e, kb.files[f][i - 1])) for f, i in slines]
                conv = [x for x in conv if x[2]]
                if conv:
                    f, i, why = conv[0]
                    assign.append((s, e, line_ref(f, i)))
                    hand[(src, hand_key(ans, s, e))] = (
                        line_ref(f, i),
                        f"{why}: {kb.files[f][i - 1].strip()[:70]!r}",
                    )
                    continue
                if in_q:
                    assign.append((s, e, "Q"))
                    continue
                qh = hand_ok(ans, s, e, q)
                if qh:
                    assign.append((s, e, "Q"))
                    hand[(src, num)] = ("Q", f"{qh}: the question says {q[:70]!r}")
                    continue
                # a column's value stated in its table's header ("12 months")
                heads = [(f, kb.header[(f, i)]) for f, i in slines if (f, i) in kb.header]
                heads = [(f, h) for f, h in heads if on_line(ans, s, e, kb.files[f][h - 1], kbname)]
                if heads:
                    assign.append((s, e, line_ref(*heads[0])))
                    continue
                # a phone number written without separators
                digits = re.sub(r"[^0-9]", "", num)
                ph = [
                    (f, i)
                    for f, i in slines
                    if len(digits) >= 7
                    and cr.phone_key(num) in {k for _, _, k in cr.phone_runs(kb.files[f][i - 1])}
                ]
                if ph:
                    assign.append((s, e, line_ref(*ph[0])))
                    hand[(src, num)] = (
                        line_ref(*ph[0]),
                        "phone number without separators: "
                        + repr(
                            [
                                r
                                for r in re.findall(
                                    r"[0-9][0-9 -]{6,}[0-9]", kb.files[ph[0][0]][ph[0][1] - 1]
                                )
                            ][:1]
                        ),
                    )
                    continue
                # not on the support lines: the KB line that holds it and matches best
                cl = clause_of(ans, s, e)
                best = None
                shp = shape(ans, s, e)
                for f, i, line in kb.all_lines():
                    if on_line(ans, s, e, line, kbname):
                        sc = score_line(kb, f, i, line, cl, q + " " + sup, [], [], shp=shp)
                        if best is None or sc > best[0]:
                            best = (sc, f, i)
                if best is None:
                    for f, i, line in kb.all_lines():
                        why = hand_ok(ans, s, e, line)
                        if why:
                            sc = score_line(kb, f, i, line, cl, q + " " + sup, [], [], shp=shp)
                            if best is None or sc > best[0]:
                                best = (sc, f, i)
                    if best:
                        bline = kb.files[best[1]][best[2] - 1]
                        why = hand_ok(ans, s, e, bline)
                        hand[(src, hand_key(ans, s, e))] = (
                            line_ref(best[1], best[2]),
                            f"{why}: {bline.strip()[:70]!r}",
                        )
                if best:
                    assign.append((s, e, line_ref(best[1], best[2])))
                    taken = kb.files[best[1]][best[2] - 1].strip()[:80]
                    report.append(
                        f"FALLBACK {src}: {num!r} not on support lines {slines}; "
                        f"took {best[1]}:{best[2]} {taken!r}"
                    )
                else:
                    assign.append((s, e, "??"))
                    report.append(f"UNPLACED {src}: {num!r} in {ans!r}; support {sup[:100]!r}")
            rows.append(
                {
                    "question": q,
                    "answer": place(ans, assign, kb),
                    "expect": c["expect"],
                    "kind": c["kind"],
                    "source": src,
                }
            )
            continue
        # withheld: draft
        named = set()
        for f, _ in split_support(sup, kb):
            if f:
                named.add(f)
        truevals = support_values(sup, ans)
        qa = q + " " + ans
        swap = "swapped" in c["kind"]
        true_assign, src_assign = [], []
        for s, e in gs:
            num = ans[s:e]
            if (
                on_line(ans, s, e, q, kbname)
                and re.match(
                    r"^\s*(?:vad|hur|när|var|vilken|vilket|vilka|vem|what|how|when|where|which|who)\b",
                    q,
                    re.I,
                )
                and c["kind"] != "question_number"
            ):
                true_assign.append((s, e, "Q"))
                src_assign.append((s, e, "Q"))
                continue
            cl = clause_of(ans, s, e)
            gv = group_values(ans, s, e)
            best_true, best_src = None, None
            shp = shape(ans, s, e)
            ranked = []
            for f, i, line in kb.all_lines():
                sc = score_line(kb, f, i, line, cl, qa, truevals, named, shp=shp)
                ranked.append((sc, f, i))
                if best_true is None or sc > best_true[0]:
                    best_true = (sc, f, i)
                if gv and on_line(ans, s, e, line, kbname):
                    sc2 = score_line(kb, f, i, line, cl, qa + " " + sup, [], named, shp=shp)
                    if best_src is None or sc2 > best_src[0]:
                        best_src = (sc2, f, i)
            ranked.sort(key=lambda x: -x[0])
            CANDS.setdefault(src, []).append([line_ref(f, i) for _, f, i in ranked[:6]])
            # a number the KB states on a line about this clause is taken from that line
            if best_src and best_true and best_src[0] >= 0.6 * best_true[0] and not swap:
                true_assign.append((s, e, line_ref(best_src[1], best_src[2])))
            else:
                true_assign.append((s, e, line_ref(best_true[1], best_true[2])))
            if swap:
                pick = best_src or best_true
                src_assign.append((s, e, line_ref(pick[1], pick[2])))
        if swap:
            for variant, assign in (("_cited_source", src_assign), ("_cited_true", true_assign)):
                rows.append(
                    {
                        "question": q,
                        "answer": place(ans, assign, kb),
                        "expect": c["expect"],
                        "kind": c["kind"] + variant,
                        "source": src,
                    }
                )
        else:
            rows.append(
                {
                    "question": q,
                    "answer": place(ans, true_assign, kb),
                    "expect": c["expect"],
                    "kind": c["kind"],
                    "source": src,
                }
            )
    with open(f"/tmp/cands_{kbname}.json", "w", encoding="utf-8") as fh:
        json.dump(CANDS, fh)
    CANDS.clear()
    out = os.path.join(kb.path, "cases_ref.jsonl")
    if os.path.exists(out) and not force:
        print(f"{out} exists: not overwritten (--force)")
    else:
        with open(out, "w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    for line in report:
        print(line)
    if write_hand:
        write_hand_block(kbname, hand)
    else:
        for k, v in sorted(hand.items()):
            print(f"HAND {k!r}: {v!r},")
    return rows


# HAND entries checked by a person, not by the conversions above; kept when the block is rewritten.
MANUAL_HAND = {
    "sprakskola": {
        (36, "19 January to 16 April 2026"): (
            "term-dates.md:17",
            "month names = '19 Jan – 16 Apr' in the column headed 'Spring 2026' (checked by hand)",
        ),
    },
}


def write_hand_block(kbname, hand):
    hand = {**hand, **MANUAL_HAND.get(kbname, {})}
    p = os.path.join(HERE, "check_refs.py")
    with open(p, encoding="utf-8") as fh:
        s = fh.read()
    a = s.index("    # HAND BEGIN\n") + len("    # HAND BEGIN\n")
    b = s.index("    # HAND END\n")
    block = s[a:b]
    block = re.sub(r'    "' + re.escape(kbname) + r'": \{\n(?:        .*\n)*?    \},\n', "", block)
    if hand:
        ent = "".join(
            f"        ({k[0]}, {json.dumps(k[1], ensure_ascii=False)}): "
            f"({json.dumps(v[0], ensure_ascii=False)}, {json.dumps(v[1], ensure_ascii=False)}),\n"
            for k, v in sorted(hand.items())
        )
        block += f'    "{kbname}": {{\n{ent}    }},\n'
    with open(p, "w", encoding="utf-8") as fh:
        fh.write(s[:a] + block + s[b:])


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    for name in args:
        convert(name, force="--force" in sys.argv, write_hand="--write-hand" in sys.argv)
