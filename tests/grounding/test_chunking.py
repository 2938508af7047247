import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from grounding.chunking import chunk_markdown, first_heading, parse_front_matter

PRICING = """---
title: Priser
category: pricing
keywords: pris, kostar, abonnemang
lang: sv
---
# Priser

Alla priser per månad.

## Basic
- Basic: 99 kr/månad

## Premium
- Premium: 399 kr/månad
"""


def test_front_matter_fields_and_lists_are_parsed():
    """Scalar keys become fields, keywords a list, and the fences are counted as lines."""
    front = parse_front_matter(PRICING)
    assert front.get("title") == "Priser"
    assert front.get("category") == "pricing"
    assert front.get("lang") == "sv"
    assert front.get_list("keywords") == ("pris", "kostar", "abonnemang")
    assert front.line_count == 6


def test_bracketed_keyword_list_is_parsed():
    """``keywords: [a, "b"]`` is the same list as ``keywords: a, b``."""
    front = parse_front_matter('---\nkeywords: [faktura, "ränta"]\n---\nText\n')
    assert front.get_list("keywords") == ("faktura", "ränta")


def test_unclosed_front_matter_is_ordinary_text():
    """An opening fence without a closing one is not front matter."""
    front = parse_front_matter("---\ntitle: X\nbody\n")
    assert front.fields == {} and front.line_count == 0


def test_text_without_front_matter_has_none():
    """A file starting with a heading has empty front matter."""
    assert parse_front_matter("# Rubrik\n\nText\n").line_count == 0


def test_front_matter_never_appears_in_chunks():
    """No chunk contains the front matter keys or fences."""
    chunks = chunk_markdown(PRICING)
    assert chunks
    for chunk in chunks:
        assert "category:" not in chunk.text
        assert "keywords:" not in chunk.text
        assert not chunk.text.startswith("---")


def test_sections_become_chunks_with_heading_paths_and_file_lines():
    """Each section is a chunk; lines are 1-based file lines, front matter included."""
    chunks = chunk_markdown(PRICING)
    assert [c.heading for c in chunks] == ["Priser", "Priser > Basic", "Priser > Premium"]
    premium = chunks[-1]
    assert premium.text == "## Premium\n- Premium: 399 kr/månad"
    lines = PRICING.split("\n")
    assert lines[premium.start_line - 1] == "## Premium"
    assert lines[premium.end_line - 1] == "- Premium: 399 kr/månad"
    assert [c.ordinal for c in chunks] == [0, 1, 2]


def test_heading_only_sections_are_skipped_but_stay_in_the_path():
    """A heading directly followed by a subheading yields no chunk of its own."""
    chunks = chunk_markdown("# A\n## B\ntext under b\n")
    assert [(c.heading, c.text) for c in chunks] == [("A > B", "## B\ntext under b")]


def test_sibling_heading_replaces_the_previous_one_in_the_path():
    """A new heading of the same level closes the previous one."""
    chunks = chunk_markdown("# A\n## B\nb\n## C\nc\n# D\nd\n")
    assert [c.heading for c in chunks] == ["A > B", "A > C", "D"]


def test_hash_lines_inside_code_fences_are_not_headings():
    """A ``# comment`` in a fenced code block belongs to the section around it."""
    chunks = chunk_markdown("# Kod\n```\n# inte en rubrik\n```\n")
    assert len(chunks) == 1
    assert chunks[0].heading == "Kod"
    assert "# inte en rubrik" in chunks[0].text


def test_long_section_is_windowed_with_overlap_on_line_boundaries():
    """A long section becomes chunks of at most ``size`` characters that overlap by whole lines."""
    body = "\n".join(f"Rad {i}: {'ord ' * 8}".strip() for i in range(60))
    chunks = chunk_markdown(f"# Lång\n{body}\n", size=300, overlap=80)
    assert len(chunks) > 3
    for chunk in chunks:
        assert len(chunk.text) <= 300
        assert chunk.heading == "Lång"
    for before, after in itertools.pairwise(chunks):
        assert after.start_line <= before.end_line  # overlap
        assert after.end_line > before.end_line  # progress
        overlap_text = "\n".join(after.text.split("\n")[: before.end_line - after.start_line + 1])
        assert 0 < len(overlap_text) <= 80
        assert before.text.endswith(overlap_text)


def test_overlong_line_is_cut_into_pieces_of_that_line():
    """A single line longer than ``size`` is cut at spaces; every piece keeps its line number."""
    line = " ".join(["ord"] * 200)
    chunks = chunk_markdown(f"# X\n{line}\n", size=100, overlap=20)
    pieces = [c for c in chunks if c.start_line == 2]
    assert len(pieces) > 1
    assert all(len(c.text) <= 100 and c.end_line == 2 for c in pieces)
    assert " ".join(c.text for c in pieces) == line


def test_first_heading_skips_front_matter():
    """The title fallback is the first heading after the front matter."""
    assert first_heading(PRICING) == "Priser"
    assert first_heading("bara text") == ""


_line = st.one_of(
    st.just(""),
    st.builds(lambda n, t: "#" * n + " " + t, st.integers(1, 3), st.text("abc ", min_size=1)),
    st.text(alphabet="abcdefgh åäö:-0123456789", min_size=1, max_size=120),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_line, max_size=40), st.integers(60, 400), st.integers(0, 80))
def test_chunks_are_file_lines_within_size(lines, size, overlap):
    """Chunks quote the file at their line numbers, never exceed ``size`` and keep every line."""
    text = "\n".join(lines)
    file_lines = text.split("\n")
    chunks = chunk_markdown(text, size=size, overlap=overlap)
    covered = set()
    for chunk in chunks:
        assert len(chunk.text) <= size
        assert 1 <= chunk.start_line <= chunk.end_line <= len(file_lines)
        chunk_lines = chunk.text.split("\n")
        overlong = (
            chunk.start_line == chunk.end_line and len(file_lines[chunk.start_line - 1]) > size
        )
        if len(chunk_lines) == chunk.end_line - chunk.start_line + 1 and not overlong:
            assert chunk_lines == file_lines[chunk.start_line - 1 : chunk.end_line]
        else:  # a piece of one overlong line
            assert chunk.start_line == chunk.end_line
            assert chunk.text in file_lines[chunk.start_line - 1]
        covered.update(range(chunk.start_line, chunk.end_line + 1))
    front_matter_lines = parse_front_matter(text).line_count  # "---" lines open a file
    for number, line in enumerate(file_lines, start=1):
        is_heading = line.startswith("#") and " " in line and line.lstrip("#").startswith(" ")
        if line.strip() and not is_heading and number > front_matter_lines:
            assert number in covered
