"""Elliptical follow-ups: "Och standard?" after "Vad kostar premium?".

Pure: no ORM, no I/O. A short message that leans on the previous question is
searched together with it, so retrieval stays in the previous turn's topic;
the LLM still gets the customer's own words (and the history) as the question.
Acknowledgements (``ja``, ``ok tack``) are grounding's ``is_follow_up`` and are
answered from the previous query alone.

| message | previous query | retrieval query |
|---|---|---|
| a connector first (``_CONNECTOR``), at most 6 words | some | previous + message |
| at most 2 words | some | previous + message |
| anything else | some | the message |
| anything | none | the message |

Connectors: och, men, än, samt, plus, också, vad sägs om, hur är det med,
gäller det, samma för; and, but, also, what about, how about, same for.
"""

import re

_CONNECTOR = re.compile(
    r"^\s*(?:och|men|än|samt|plus|också|and|but|also|what about|how about|"
    r"vad sägs om|hur är det med|gäller det|same for|samma för)(?!\w)",
    re.IGNORECASE,
)
MAX_CONNECTED_WORDS = 6
MAX_BARE_WORDS = 2


def is_elliptical(text: str) -> bool:
    """Whether ``text`` is too short or too dependent to be searched on its own."""
    count = len(text.split())
    if count == 0:
        return False
    if count <= MAX_BARE_WORDS:
        return True
    return count <= MAX_CONNECTED_WORDS and _CONNECTOR.match(text) is not None


def retrieval_query(text: str, previous_query: str | None) -> str:
    """What to search for ``text``, given the previous turn's query."""
    if previous_query and is_elliptical(text):
        return f"{previous_query} {text}"
    return text
