import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding.claims import extract_claims
from grounding.index import ChunkRecord, KBIndex

RECORDS = [
    ChunkRecord(
        file="kb/pricing.md",
        text="## Månadspriser\n- Basic: 99 kr/månad\n- Premium: 399 kr/månad",
        start_line=7,
        end_line=9,
        heading="Priser > Månadspriser",
        category="pricing",
        keywords=("pris", "kostar"),
        title="Priser",
        chunk_id=1,
    ),
    ChunkRecord(
        file="kb/pricing.md",
        text="## Studentrabatt\nStudenter får 25 % rabatt på Premium.",
        start_line=11,
        end_line=12,
        heading="Priser > Studentrabatt",
        category="pricing",
        keywords=("pris", "kostar"),
        title="Priser",
        chunk_id=2,
    ),
    ChunkRecord(
        file="kb/contact.md",
        text="## Kundtjänst\n- Telefon: +46 8 123 45 67\n- Öppettider: 08:00–17:00",
        start_line=3,
        end_line=5,
        heading="Kontakt > Kundtjänst",
        category="contact",
        keywords=("kontakt", "öppettider"),
        title="Kontakt",
        chunk_id=3,
    ),
    ChunkRecord(
        file="kb/billing/late.md",
        text="## Försenad betalning\n- Påminnelseavgift: 60 kr\n- Dröjsmålsränta: 8 procentenheter",
        start_line=5,
        end_line=7,
        heading="Fakturor > Försenad betalning",
        category="billing",
        keywords=("faktura", "ränta"),
        title="Fakturor",
        chunk_id=4,
    ),
    ChunkRecord(
        file="kb/en/pricing.md",
        text="## Monthly prices\n- Premium: 399 SEK/month",
        start_line=6,
        end_line=7,
        heading="Prices > Monthly prices",
        category="pricing",
        language="en",
        keywords=("price", "cost"),
        title="Prices",
        chunk_id=5,
    ),
]


@pytest.fixture(scope="module")
def index() -> KBIndex:
    return KBIndex(RECORDS, version=7)


def test_search_returns_snippets_best_first(index):
    """The chunk naming the asked-for things ranks first, as a Snippet with its metadata."""
    results = index.search("Vad kostar premium per månad?", top_k=5, threshold=0.0)
    assert results[0].file == "kb/pricing.md"
    assert results[0].start_line == 7
    assert results[0].heading == "Priser > Månadspriser"
    assert results[0].category == "pricing"
    assert results[0].chunk_id == 1
    assert "- Premium: 399 kr/månad" in results[0].text
    scores = [s.score for s in results]
    assert scores == sorted(scores, reverse=True)
    assert all(score > 0 for score in scores)


def test_threshold_drops_chunks_weak_against_the_best(index):
    """Nothing scoring below ``threshold`` times the best chunk's score is returned."""
    everything = index.search("premium", top_k=5, threshold=0.0)
    assert len(everything) >= 2
    share = (everything[0].score + everything[-1].score) / 2 / everything[0].score
    kept = index.search("premium", top_k=5, threshold=share)
    assert kept and all(s.score >= share * everything[0].score for s in kept)
    assert len(kept) < len(everything)
    assert index.search("premium", top_k=5, threshold=1.0)[0] == everything[0]
    assert index.search("premium", top_k=5, threshold=1.01) == []


def test_threshold_is_relative_so_a_small_kb_answers_plain_questions():
    """The same question finds its line in a 2-chunk KB and in that KB among 1,000 others.

    BM25 scores shrink with the corpus (IDF): the line scores far lower in
    the small KB, yet both searches return it.
    """
    line = ChunkRecord("kb/villkor.md", "Dröjsmålsränta: 8,5 % över referensräntan.", 3, 3)
    other = ChunkRecord("kb/kontakt.md", "Kundtjänst nås på telefon.", 1, 1)
    filler = [
        ChunkRecord(f"kb/f{n}.md", f"Avsnitt {n} om leverans och avtal.", 1, 1) for n in range(1000)
    ]
    question = "Hur hög är dröjsmålsräntan?"
    small = KBIndex([line, other]).search(question, top_k=5, threshold=0.2)
    large = KBIndex([line, other, *filler]).search(question, top_k=5, threshold=0.2)
    assert [s.file for s in small] == [s.file for s in large] == ["kb/villkor.md"]
    assert small[0].score < large[0].score


def test_top_k_limits_results(index):
    """At most top_k snippets come back."""
    assert len(index.search("premium", top_k=1, threshold=0.0)) == 1
    assert index.search("premium", top_k=0, threshold=0.0) == []


def test_unrelated_query_finds_nothing(index):
    """A query sharing no term with the KB returns no snippet, even at threshold 0."""
    assert index.search("Vad är huvudstaden i Frankrike?", top_k=5, threshold=0.0) == []
    assert index.search("", top_k=5, threshold=0.0) == []


def test_definite_form_finds_base_form(index):
    """ "dröjsmålsräntan" finds the line "Dröjsmålsränta: ..."."""
    results = index.search("Hur hög är dröjsmålsräntan?", top_k=5, threshold=0.0)
    assert results[0].file == "kb/billing/late.md"


def test_compound_finds_its_parts(index):
    """ "telefonnummer" finds the line "Telefon: ..."."""
    results = index.search("Vilket telefonnummer har ni?", top_k=5, threshold=0.0)
    assert results[0].file == "kb/contact.md"


@pytest.mark.parametrize(
    ("question", "file"),
    [("Vad kostar det att flytta?", "kb/avgifter.md"), ("När har ni öppet?", "kb/kontakt.md")],
)
def test_a_word_the_kb_lacks_finds_the_compounds_it_begins(question, file):
    """ "flytta" finds "Flyttavgift" and "öppet" finds "Öppettider": a compound's first part."""
    records = [
        ChunkRecord("kb/avgifter.md", "- Flyttavgift: 395 kr\n- Startavgift: 0 kr", 1, 2),
        ChunkRecord("kb/kontakt.md", "## Öppettider\nVardagar: 08:00–18:00", 1, 2),
        ChunkRecord("kb/villkor.md", "Uppsägningstid: en månad.", 1, 1),
    ]
    assert [s.file for s in KBIndex(records).search(question, top_k=5, threshold=0.0)] == [file]


@pytest.mark.parametrize(
    "question", ["Vad kostar det för tredje barnet?", "Price for the third child?"]
)
def test_an_ordinal_word_finds_its_digit(question):
    """ "tredje"/"third" also search for "3": a table row "Barn 3" answers them."""
    records = [
        ChunkRecord("kb/avgift.md", "| Barn | Avgift |\n| Barn 1 | 1 200 kr |", 1, 2),
        ChunkRecord("kb/avgift.md", "| Barn 3 | 572 kr |", 3, 3),
    ]
    found = KBIndex(records).search(question, top_k=1, threshold=0.0)
    assert [s.start_line for s in found] == [3]


def test_a_known_term_is_not_widened_to_longer_words():
    """A term the KB has searches for itself only: "avgift" does not also mean "avgifter"."""
    records = [
        ChunkRecord("kb/a.md", "Avgift: 10 kr", 1, 1),
        ChunkRecord("kb/b.md", "Avgiftsfri leverans", 1, 1),
    ]
    index = KBIndex(records)
    assert index._query_ids(["avgift"]) == [index._term_ids["avgift"]]


def test_category_ranks_its_chunks_first(index):
    """With a category its chunks come first; other matches still follow."""
    results = index.search("premium", top_k=5, threshold=0.0, category="billing")
    # billing has no premium: the pricing chunks are all there is
    assert {s.category for s in results} == {"pricing"}
    results = index.search("kr", top_k=5, threshold=0.0, category="billing")
    assert results[0].file == "kb/billing/late.md"
    assert {s.file for s in results} == {"kb/billing/late.md", "kb/pricing.md"}


def test_category_without_results_falls_back_to_all(index):
    """A wrong category guess never hides the answer."""
    results = index.search("telefon", top_k=5, threshold=0.0, category="pricing")
    assert [s.file for s in results] == ["kb/contact.md"]
    unknown = index.search("telefon", top_k=5, threshold=0.0, category="nonexistent")
    assert [s.file for s in unknown] == ["kb/contact.md"]


@pytest.mark.parametrize(
    ("query", "category"),
    [
        ("Vad kostar det?", "pricing"),  # keyword
        ("What does it cost?", "pricing"),  # English keyword
        ("Hur hög är räntan?", "billing"),  # keyword in definite form
        ("Vilka öppettider har ni?", "contact"),
        ("billing question", "billing"),  # folder name
        ("Hej där", None),  # nothing
    ],
)
def test_detect_category_from_keywords_and_folders(index, query, category):
    """Front matter keywords, category names and folder names select a category."""
    assert index.detect_category(query) == category


def test_detect_category_tie_is_none(index):
    """Two categories named equally often: no guess."""
    assert index.detect_category("pris och kontakt") is None


def test_detect_category_ignores_compound_parts():
    """A compound containing another category's keyword does not select that category."""
    records = [
        ChunkRecord("kb/a.md", "Organisation och administratörer", 1, 1, category="business",
                    keywords=("organisation",)),
        ChunkRecord("kb/b.md", "Organisationsnummer: 556677-8899", 1, 1, category="contact"),
    ]  # fmt: skip
    assert KBIndex(records).detect_category("Vad är ert organisationsnummer?") is None


def test_version_and_categories(index):
    """The index carries its version and its categories."""
    assert index.version == 7
    assert index.categories == {"pricing", "contact", "billing"}
    assert len(index) == len(RECORDS)


def _located(index: KBIndex, written: str) -> list[tuple[str, int, str]]:
    """(file, line, text) of every fact found under the value of ``written``."""
    (claim,) = extract_claims(written)
    return [(fact.file, fact.line, fact.text) for fact in index.facts.by_value(claim.key)]


def test_facts_by_value_find_every_line_stating_it(index):
    """The KB-wide lookup lists file, line and text of each line stating the value."""
    located = _located(index, "399 kr")
    assert ("kb/pricing.md", 9, "- Premium: 399 kr/månad") in located
    assert all(file != "kb/contact.md" for file, _, _ in located)


def test_facts_by_value_match_phone_numbers_in_any_written_form(index):
    """A phone number written with dashes finds the KB line written with spaces."""
    assert _located(index, "+46-8-123-45-67") == [
        ("kb/contact.md", 4, "- Telefon: +46 8 123 45 67")
    ]


def test_facts_by_value_of_an_unknown_number_is_empty(index):
    """A number that the KB never mentions has no fact."""
    assert _located(index, "4711") == []


def test_a_line_in_two_overlapping_chunks_is_one_fact():
    """A line shared by two overlapping chunks gives its fact once."""
    records = [
        ChunkRecord("kb/a.md", "Rad ett\nPris: 250 kr", 1, 2),
        ChunkRecord("kb/a.md", "Pris: 250 kr\nRad tre", 2, 3),
    ]
    assert _located(KBIndex(records), "250 kr") == [("kb/a.md", 2, "Pris: 250 kr")]


def test_empty_index_answers_nothing():
    """An index without chunks finds nothing and detects no category."""
    empty = KBIndex([])
    assert empty.search("premium", top_k=5, threshold=0.0) == []
    assert empty.detect_category("Vad kostar premium?") is None
    assert _located(empty, "99") == []
    assert len(empty) == 0


def test_index_of_stopwords_only_answers_nothing():
    """Chunks without a single search term build an index that finds nothing."""
    index = KBIndex([ChunkRecord("kb/a.md", "och är det", 1, 1)])
    assert index.search("och", top_k=5, threshold=0.0) == []


@settings(max_examples=60, deadline=None)
@given(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzåäö premiumtelefonräntakostar?", max_size=60),
    st.integers(0, 6),
    st.floats(0, 1.2),
)
def test_search_results_are_ordered_bounded_and_above_threshold(index, query, top_k, threshold):
    """For any query: at most top_k results, best first, none below threshold x the best."""
    results = index.search(query, top_k=top_k, threshold=threshold)
    everything = index.search(query, top_k=len(index), threshold=0.0)
    assert len(results) <= top_k
    scores = [s.score for s in results]
    assert scores == sorted(scores, reverse=True)
    assert all(score >= threshold * everything[0].score and score > 0 for score in scores)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_scores_are_bm25s_own(index, data):
    """The indexed-add scoring gives exactly bm25s's scores, repeated terms included."""
    term_ids = sorted(index._term_ids.values())
    ids = data.draw(st.lists(st.sampled_from(term_ids), min_size=1, max_size=8))
    expected = index._bm25.get_scores(ids)
    got = index._scores(ids)
    assert got.dtype == expected.dtype
    assert got.tolist() == expected.tolist()


def test_scores_of_a_term_in_many_chunks_are_bm25s_own():
    """A term in more chunks than the indexed-add path takes still scores as bm25s does."""
    records = [
        ChunkRecord(
            file=f"kb/f{n}.md",
            text=f"Molnet lagrar filer. Ord{n} nummer {n}.",
            start_line=1,
            end_line=1,
            heading="Moln",
            chunk_id=n,
        )
        for n in range(300)
    ]
    index = KBIndex(records)
    common = index._term_ids["moln"]
    rare = index._term_ids["ord7"]
    assert index._bm25.scores["indptr"][common + 1] - index._bm25.scores["indptr"][common] > 256
    for ids in ([common], [common, rare], [rare, common, common]):
        assert index._scores(ids).tolist() == index._bm25.get_scores(ids).tolist()


def test_facts_of_an_index_built_from_records_are_the_files_facts():
    """Without stored facts, index.facts holds what extract_facts finds in the files."""
    from grounding.services import SourceFile, source_facts, source_records

    text = "# Priser\n\n- Premium: 399 kr/månad\n\n## Kontakt\n\nTelefon: 08-123 45 67\n"
    source = SourceFile(path="kb/pricing.md", text=text, content_hash="x")
    index = KBIndex(source_records(source))
    expected = source_facts(source)
    found = [fact for line in range(1, 100) for fact in index.facts.on_line("kb/pricing.md", line)]
    assert expected and found == expected
