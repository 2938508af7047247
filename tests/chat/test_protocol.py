"""Parsing of client frames: every bad input maps to one stable error code."""

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chat.protocol import (
    Cancel,
    ConfirmAction,
    ErrorCode,
    GiveFeedback,
    ProtocolError,
    RejectAction,
    SendMessage,
    parse_frame,
)

LIMITS = {"max_frame_bytes": 64 * 1024, "max_text_chars": 2000}


def parse(text=None, data=None):
    return parse_frame(text, data, **LIMITS)


def code_of(text=None, data=None) -> str:
    with pytest.raises(ProtocolError) as info:
        parse(text, data)
    return info.value.code


def test_message_with_and_without_id():
    """A message carries its text and the client's optional id."""
    assert parse('{"type":"message","id":"m1","text":"Hej"}') == SendMessage(text="Hej", id="m1")
    assert parse('{"type":"message","text":"Hej"}') == SendMessage(text="Hej", id=None)


def test_every_client_type_parses():
    """cancel, confirm_action, reject_action and feedback parse into their commands."""
    assert parse('{"type":"cancel"}') == Cancel()
    assert parse('{"type":"confirm_action","suggestionId":"a1"}') == ConfirmAction("a1")
    assert parse('{"type":"reject_action","suggestionId":"a1"}') == RejectAction("a1")
    assert parse('{"type":"feedback","messageId":"m1","rating":"down","comment":"fel"}') == (
        GiveFeedback(message_id="m1", rating="down", comment="fel")
    )


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("{not json", ErrorCode.INVALID_JSON),
        ("", ErrorCode.INVALID_JSON),
        ("[1,2]", ErrorCode.INVALID_MESSAGE),
        ('"text"', ErrorCode.INVALID_MESSAGE),
        ("null", ErrorCode.INVALID_MESSAGE),
        ('{"type":"shout"}', ErrorCode.UNKNOWN_TYPE),
        ('{"text":"no type"}', ErrorCode.UNKNOWN_TYPE),
        ('{"type":5}', ErrorCode.UNKNOWN_TYPE),
        ('{"type":"message"}', ErrorCode.INVALID_MESSAGE),
        ('{"type":"message","text":5}', ErrorCode.INVALID_MESSAGE),
        ('{"type":"message","text":""}', ErrorCode.INVALID_MESSAGE),
        ('{"type":"message","text":"   "}', ErrorCode.INVALID_MESSAGE),
        ('{"type":"message","text":"hi","id":7}', ErrorCode.INVALID_MESSAGE),
        ('{"type":"confirm_action"}', ErrorCode.INVALID_MESSAGE),
        ('{"type":"confirm_action","suggestionId":[]}', ErrorCode.INVALID_MESSAGE),
        ('{"type":"reject_action","suggestionId":""}', ErrorCode.INVALID_MESSAGE),
        ('{"type":"feedback","messageId":"m1","rating":"meh"}', ErrorCode.INVALID_MESSAGE),
        ('{"type":"feedback","rating":"up"}', ErrorCode.INVALID_MESSAGE),
    ],
)
def test_bad_frames_get_stable_codes(frame, code):
    """Each kind of malformed frame is refused with its own code."""
    assert code_of(frame) == code


def test_text_over_limit_is_too_large():
    """A text of 2001 characters is refused; 2000 is accepted."""
    ok = json.dumps({"type": "message", "text": "a" * 2000})
    assert parse(ok).text == "a" * 2000
    assert code_of(json.dumps({"type": "message", "text": "a" * 2001})) == ErrorCode.TOO_LARGE


def test_frame_over_byte_cap_is_too_large():
    """A frame over 64 KiB is refused before it is parsed."""
    frame = json.dumps({"type": "cancel", "pad": "x" * (64 * 1024)})
    assert code_of(frame) == ErrorCode.TOO_LARGE


def test_binary_frames_are_refused():
    """Binary frames get their own code, oversize ones too_large."""
    assert code_of(None, b"\x00\x01") == ErrorCode.BINARY_NOT_SUPPORTED
    assert code_of(None, b"x" * (64 * 1024 + 1)) == ErrorCode.TOO_LARGE


def test_error_frame_names_the_message_id():
    """An invalid message with an id names that id in its error."""
    with pytest.raises(ProtocolError) as info:
        parse('{"type":"message","id":"m9","text":""}')
    assert info.value.frame()["messageId"] == "m9"


@given(st.text(max_size=300))
def test_arbitrary_text_never_crashes(text):
    """Any text frame parses or raises ProtocolError, nothing else."""
    try:
        parse(text)
    except ProtocolError as exc:
        assert exc.frame()["type"] == "error"


@given(st.dictionaries(st.text(max_size=10), st.one_of(st.none(), st.integers(), st.text())))
def test_arbitrary_objects_never_crash(obj):
    """Any JSON object parses or raises ProtocolError."""
    with contextlib.suppress(ProtocolError):
        parse(json.dumps(obj))


def test_json_nested_too_deep_is_invalid_json():
    """30,000 nested arrays: invalid_json, not a RecursionError turned internal_error."""
    assert code_of("[" * 30_000 + "]" * 30_000) == ErrorCode.INVALID_JSON


@pytest.mark.parametrize("bad", ["\\u0000", "\\ud800", "a\\udfffb"])
def test_text_the_database_cannot_store_is_invalid_message(bad):
    """NUL and lone surrogates in text are refused at the protocol, and the frame can be sent."""
    frame = '{"type":"message","id":"m1","text":"hej ' + bad + '"}'
    with pytest.raises(ProtocolError) as info:
        parse(frame)
    assert info.value.code == ErrorCode.INVALID_MESSAGE
    assert info.value.frame()["messageId"] == "m1"
    json.dumps(info.value.frame()).encode()  # encodable: the client gets its error


@pytest.mark.parametrize("bad", ["\\u0000", "\\ud800"])
def test_id_the_database_cannot_store_is_invalid_message_and_not_echoed(bad):
    """A lone surrogate as a message id: invalid_message, without the id in the error."""
    with pytest.raises(ProtocolError) as info:
        parse('{"type":"message","id":"m' + bad + '","text":"hej"}')
    assert info.value.code == ErrorCode.INVALID_MESSAGE
    frame = info.value.frame()
    assert "messageId" not in frame
    frame_text = json.dumps(frame, ensure_ascii=False)
    frame_text.encode()  # would raise on a lone surrogate


@pytest.mark.parametrize(
    "frame",
    [
        '{"type":"confirm_action","suggestionId":"a\\u0000"}',
        '{"type":"feedback","messageId":"m\\ud800","rating":"up"}',
        '{"type":"feedback","messageId":"m1","rating":"up","comment":"x\\u0000"}',
    ],
)
def test_other_fields_refuse_unstorable_text(frame):
    assert code_of(frame) == ErrorCode.INVALID_MESSAGE
