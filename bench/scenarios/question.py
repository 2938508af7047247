"""The bench question's retrieval, in process, on the database the product serves.

    make python ARGS="-m bench.scenarios.question DATABASE_URL [--runs 500]"

Scenario 1's first stream includes the retrieval of its question; issue 23 holds
the rest of the first stream to its own budget, and retrieval to the grounding
issue's. So ``make bench`` reports the two apart: this is the same ``retrieve``
the turn calls (query, category, BM25, top chunks), on the same KB index, timed
without a socket, a thread hop or a database write. Prints one JSON object.
"""

import argparse
import json
import os

from bench.client import QUESTION
from bench.scenarios.grounding import _timed
from bench.stats import summary_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("database_url")
    parser.add_argument("--runs", type=int, default=500)
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = args.database_url
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from chat.followups import retrieval_query
    from grounding.retrieval import retrieve
    from grounding.selectors import current_index

    index = current_index()
    query = retrieval_query(QUESTION, None)
    timings = _timed(lambda: retrieve(index, query, previous_query=None), args.runs)
    print(json.dumps({"question": QUESTION, "ms": summary_ms(timings)}))


if __name__ == "__main__":
    main()
