"""The frames a turn's events become."""

from chat.events import Response

NUMBER = {
    "start": 9,
    "end": 21,
    "text": "399 kr/månad",
    "file": "kb/pricing.md",
    "line": 18,
    "fact": "0a1b2c3d",
    "title": "Priser och abonnemang",
}


def test_a_response_with_numbers_names_each_numbers_line_in_its_frame():
    """``numbers`` maps each number of the text to its KB line, as the page links it."""
    response = Response("Premium: 399 kr/månad.", "m1", True, "done", numbers=[NUMBER])

    frame = response.frame()

    assert frame["numbers"] == [NUMBER]
    assert frame["text"][NUMBER["start"] : NUMBER["end"]] == NUMBER["text"]


def test_a_response_without_numbers_has_no_numbers_key():
    """An answer with no number (or a withheld one) sends the frame as before."""
    assert "numbers" not in Response("Hej!", "m1", True, "done").frame()
