"""The in-memory BM25 index of the knowledge base.

Pure: built from chunk records (the selectors load them from the database),
no ORM and no I/O. One instance is immutable after construction, so threads
share it freely; a reindex builds a new instance.

A search costs one sparse-matrix lookup per query term (bm25s) and numpy
work over the score vector; nothing loops over the chunks in Python. What
passes is relative to the best hit (see ``search``), never an absolute score:
docs/grounding.md ("Retrieval") has the measurements.
"""

import bisect
import threading
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

import bm25s
import numpy as np

from grounding.lexicon import merged
from grounding.lookup import FactLookup, FactTable
from grounding.snippets import Snippet
from grounding.text import (
    LANGUAGES,
    STOPWORDS,
    SWEDISH,
    normalize_word,
    query_terms,
    split_compound,
    words,
)

# Lucene's defaults; on the shipped KB they rank every test question's file
# in the top 5 with a wider margin over the threshold than bm25s' k1=1.5.
BM25_K1 = 1.2
BM25_B = 0.75
# How much more a chunk of the question's detected category counts in the ranking.
CATEGORY_BOOST = 1.5
# Up to this many chunks per query term, scores are added by indexed assignment (_scores).
_SHORT_POSTINGS = 256
_LANGUAGE_FOLDERS = frozenset(LANGUAGES)
# A query term the KB lacks searches for the KB's terms it begins (a compound's first part):
# "flytt" finds "flyttavgift", "öppet" finds "öppettid". Shorter terms begin too many words.
_MIN_PREFIX = 4
_MAX_EXPANSIONS = 8
# An ordinal word also searches for its digit: "tredje barnet" meets a table's "Barn 3". One
# that is also another word ("andra": "other") adds a term to the query; it removes none.
_ORDINALS: dict[str, int] = merged("ordinal_words")


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    """One chunk with what retrieval needs of its document."""

    file: str  # "kb/pricing.md"
    text: str
    start_line: int
    end_line: int
    heading: str = ""
    category: str = ""
    language: str = SWEDISH
    title: str = ""
    source_url: str = ""  # an imported document's page
    keywords: tuple[str, ...] = ()
    chunk_id: int | None = None


def _folders(file: str) -> list[str]:
    """Folder names between ``kb/`` and the file name, language folders left out."""
    parts = PurePosixPath(file).parts[1:-1]
    return [part for part in parts if part.lower() not in _LANGUAGE_FOLDERS]


def _documents(records: Sequence[ChunkRecord]) -> dict[str, str]:
    """Each file's text as far as its chunks hold it, every line at its own line number.

    Chunks overlap and leave out little but front matter and blank lines, so
    the lines they hold, put back at their numbers (gaps left blank), read as
    the file does for facts.
    """
    lines: dict[str, dict[int, str]] = defaultdict(dict)
    for record in records:
        for offset, text in enumerate(record.text.split("\n")):
            lines[record.file][record.start_line + offset] = text
    return {
        file: "\n".join(numbered.get(n, "") for n in range(1, max(numbered) + 1))
        for file, numbered in lines.items()
    }


def _phrase(text: str) -> tuple[frozenset[str], ...]:
    """A keyword phrase as, per word, the set of its terms in either language."""
    return tuple(
        frozenset(normalize_word(word, language) for language in LANGUAGES)
        for word in words(text.replace("-", " ").replace("_", " "))
        if word not in STOPWORDS
    )


class KBIndex:
    """BM25 over chunk records, with category detection and the KB's facts."""

    def __init__(
        self,
        records: Sequence[ChunkRecord],
        *,
        version: int = 0,
        facts: FactLookup | None = None,
    ) -> None:
        self.version = version
        self.records: tuple[ChunkRecord, ...] = tuple(records)
        self._facts = facts
        self._facts_lock = threading.Lock()
        self._vocabulary: frozenset[str] = frozenset()
        self._term_ids: dict[str, int] = {}
        self._bm25: bm25s.BM25 | None = None
        self._sorted_terms: list[str] = []
        if self.records:
            self._build_bm25()
        self._category_of = np.array([r.category for r in self.records], dtype=object)
        self._masks = {
            category: (self._category_of == category).astype(np.float32)
            for category in {r.category for r in self.records}
            if category
        }
        # What a category's chunks are ranked by: their score times this.
        self._boosts = {
            category: 1 + (CATEGORY_BOOST - 1) * mask for category, mask in self._masks.items()
        }
        self._category_phrases = self._build_category_phrases()
        # Phrases by the terms of their first word: a query only looks at those it can match.
        self._phrases_by_term: dict[str, list[tuple[str, tuple[frozenset[str], ...]]]] = (
            defaultdict(list)
        )
        for category, phrases in self._category_phrases.items():
            for phrase in phrases:
                for term in phrase[0]:
                    self._phrases_by_term[term].append((category, phrase))

    def __len__(self) -> int:
        return len(self.records)

    @property
    def facts(self) -> FactLookup:
        """Every fact of the KB, by value, by lines and by qualifier (a ``FactLookup``).

        The selectors pass the facts ``reindex_kb`` stored. An index built
        straight from records (tests, benchmarks) extracts them on first use
        from the files as its records restore them.
        """
        if self._facts is None:
            with self._facts_lock:
                if self._facts is None:
                    self._facts = FactTable.from_documents(_documents(self.records))
        return self._facts

    @property
    def categories(self) -> frozenset[str]:
        return frozenset(self._masks)

    @property
    def vocabulary(self) -> frozenset[str]:
        """Every search term of the indexed chunks (compound parts included)."""
        return self._vocabulary

    # --- building ---------------------------------------------------------------

    def _indexed_text(self, record: ChunkRecord) -> str:
        # The heading path and title put a section's subject on every chunk of it.
        parts = [record.heading, record.text]
        if record.title and record.title not in record.heading:
            parts.insert(0, record.title)
        return "\n".join(parts)

    def _build_bm25(self) -> None:
        # The same terms as text.document_terms, with each text split into words once.
        content = [
            [w for w in words(self._indexed_text(r)) if w not in STOPWORDS] for r in self.records
        ]
        base = [
            [normalize_word(w, r.language) for w in ws]
            for ws, r in zip(content, self.records, strict=True)
        ]
        vocabulary = {term for terms in base for term in terms}
        splits: dict[str, tuple[str, ...]] = {}
        corpus = []
        for record, content_words, terms in zip(self.records, content, base, strict=True):
            if record.language == SWEDISH:
                for word in content_words:
                    parts = splits.get(word)
                    if parts is None:
                        parts = splits[word] = split_compound(word, vocabulary)
                    terms.extend(parts)
            corpus.append(terms)
        if not any(corpus):
            return  # only stopwords: nothing can match, and bm25s needs a vocabulary
        self._bm25 = bm25s.BM25(k1=BM25_K1, b=BM25_B)
        self._bm25.index(corpus, show_progress=False)
        self._term_ids = {t: i for t, i in self._bm25.vocab_dict.items() if t}
        self._vocabulary = frozenset(self._term_ids)
        self._sorted_terms = sorted(self._term_ids)

    def _build_category_phrases(self) -> dict[str, set[tuple[frozenset[str], ...]]]:
        phrases: dict[str, set[tuple[frozenset[str], ...]]] = defaultdict(set)
        for record in self.records:
            if not record.category:
                continue
            for text in (record.category, *record.keywords, *_folders(record.file)):
                phrase = _phrase(text)
                if phrase:
                    phrases[record.category].add(phrase)
        return dict(phrases)

    # --- queries ----------------------------------------------------------------

    def detect_category(self, query: str) -> str | None:
        """The category whose keywords cover most words of the query; None on none or a tie.

        Only whole query words count, not compound parts: "organisationsnummer"
        must not pick the category whose keyword is "organisation".
        """
        query_words = [
            frozenset(normalize_word(word, language) for language in LANGUAGES)
            for word in words(query)
            if word not in STOPWORDS
        ]
        if not query_words:
            return None
        candidates = {
            (category, phrase)
            for terms in query_words
            for term in terms
            for category, phrase in self._phrases_by_term.get(term, ())
        }
        covered: dict[str, set[int]] = defaultdict(set)
        for category, phrase in candidates:
            positions = [
                [i for i, terms in enumerate(query_words) if terms & word] for word in phrase
            ]
            if all(positions):
                covered[category].update(i for found in positions for i in found)
        best = max((len(found) for found in covered.values()), default=0)
        if best == 0:
            return None
        winners = [category for category, found in covered.items() if len(found) == best]
        return winners[0] if len(winners) == 1 else None

    def search(
        self, query: str, *, top_k: int, threshold: float, category: str | None = None
    ) -> list[Snippet]:
        """The best chunks for ``query``, best first, none under ``threshold`` x the best score.

        ``threshold`` is relative (0 keeps every chunk sharing a term with the
        query, 1 only the best ones): a BM25 score's scale grows with the
        corpus (its IDFs) and its lengths, so an absolute floor that fits one
        KB drops plain questions on a small one. A chunk sharing no term with
        the query scores 0 and is never returned.

        A detected ``category`` ranks its chunks ahead (their scores count
        ``CATEGORY_BOOST`` times more) without hiding a chunk of another
        category that matches the question well: a keyword can point at the
        wrong folder. ``Snippet.score`` stays the plain BM25 score.
        """
        if self._bm25 is None or top_k <= 0:
            return []
        terms = query_terms(query, self._vocabulary)
        terms += [str(_ORDINALS[word]) for word in words(query) if word in _ORDINALS]
        ids = self._query_ids(terms)
        if not ids:
            return []
        scores = self._scores(ids)
        boost = self._boosts.get(category) if category else None
        ranking = scores if boost is None else scores * boost
        found = self._top(scores, ranking, top_k, threshold)
        return [self._snippet(position, score) for position, score in found]

    def _query_ids(self, terms: list[str]) -> list[int]:
        """The index's term ids for query ``terms``, with the KB terms an unknown term begins.

        Swedish writes compounds as one word: a question's "flytta" (stem
        "flytt") meets the KB's "Flyttavgift" only as its first part. A term
        the KB lacks (of ``_MIN_PREFIX`` letters or more) therefore searches
        for up to ``_MAX_EXPANSIONS`` KB terms starting with it, found by
        bisection in the sorted vocabulary.
        """
        ids: dict[int, None] = {}
        for term in terms:
            found = self._term_ids.get(term)
            if found is not None:
                ids[found] = None
            elif len(term) >= _MIN_PREFIX and not term.isdigit():
                start = bisect.bisect_left(self._sorted_terms, term)
                for known in self._sorted_terms[start : start + _MAX_EXPANSIONS]:
                    if not known.startswith(term):
                        break
                    ids.setdefault(self._term_ids[known])
        return list(ids)

    def _scores(self, term_ids: list[int]) -> np.ndarray:
        """Every chunk's BM25 score for the query ``term_ids``, as ``BM25.get_scores`` gives.

        The same sums of bm25s's precomputed per-term scores, in the same order
        and type. A term found in few chunks (a question's usual terms) is
        added by indexed assignment, a fraction of ``np.add.at``'s cost at that
        size (a term's chunks are distinct, so both give the same sums).
        """
        matrix = self._bm25.scores
        data, indices, indptr = matrix["data"], matrix["indices"], matrix["indptr"]
        scores = np.zeros(matrix["num_docs"], dtype=self._bm25.dtype)
        for term in term_ids:
            start, end = indptr[term], indptr[term + 1]
            if end - start > _SHORT_POSTINGS:
                np.add.at(scores, indices[start:end], data[start:end])
            else:
                scores[indices[start:end]] += data[start:end]
        return scores

    def _top(
        self, scores: np.ndarray, ranking: np.ndarray, top_k: int, threshold: float
    ) -> list[tuple[int, float]]:
        # A chunk sharing no term with the query scores 0 and is never support.
        top = float(scores.max()) if scores.size else 0.0
        if top <= 0:
            return []
        candidates = np.flatnonzero((scores >= threshold * top) & (scores > 0))
        if candidates.size > top_k:
            best = np.argpartition(-ranking[candidates], top_k - 1)[:top_k]
            candidates = candidates[best]
        # Best first; equal ranks keep KB order so results are stable. At most
        # top_k are left: Python sorts so few faster than numpy's call overhead.
        positions = candidates.tolist()
        ranks = ranking[candidates].tolist()
        plain = scores[candidates].tolist()
        order = sorted(range(len(positions)), key=lambda i: (-ranks[i], positions[i]))
        return [(positions[i], plain[i]) for i in order]

    def _snippet(self, position: int, score: float) -> Snippet:
        record = self.records[position]
        return Snippet(
            file=record.file,
            text=record.text,
            start_line=record.start_line,
            heading=record.heading,
            score=score,
            category=record.category,
            chunk_id=record.chunk_id,
        )
