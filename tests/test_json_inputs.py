"""Every reader of JSON from outside (`inspect`, the artifact `publish` trusts nothing of, the event
payload) goes through one bounded reader: deep nesting, non-objects, NaN and lone surrogates are a
clear error (exit 2), never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from action.event import EventError, load_event
from action.publish import Refusal, load_artifact
from bot.cli import main
from bot.jsonread import MAX_DEPTH, JsonInputError, load_json_object

DEEP = b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
JUST_TOO_DEEP = b'{"a": ' + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH + b"}"

BAD = [
    (DEEP, "x is nested more than 64 levels deep"),
    (JUST_TOO_DEEP, "x is nested more than 64 levels deep"),
    (b"[1]", "x is a list, not a JSON object"),
    (b'"s"', "x is a string, not a JSON object"),
    (b"3", "x is a number, not a JSON object"),
    (b"null", "x is null, not a JSON object"),
    (b"true", "x is a boolean, not a JSON object"),
    (b'{"a": NaN}', "x is not JSON: NaN is not a JSON number"),
    (b'{"a": -Infinity}', "x is not JSON: -Infinity is not a JSON number"),
    (b'{"a": "\\ud800"}', "x holds U+D800, a lone surrogate, not a character"),
    (b'{"\\udfff": 1}', "x holds U+DFFF, a lone surrogate, not a character"),
    (
        b"{not json",
        "x is not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
    ),
    (b"\xff\xfe{}", "x is not JSON: "),
    (b'{"a": ' + b"1" * 5000 + b"}", "x is not JSON: "),
]


@pytest.mark.parametrize(("data", "problem"), BAD)
def test_the_reader_names_what_is_wrong(data: bytes, problem: str) -> None:
    with pytest.raises(JsonInputError) as err:
        load_json_object(data, "x")
    assert err.value.problem.startswith(problem)


def test_what_the_reader_accepts() -> None:
    nested = b'{"a": ' + b"[" * (MAX_DEPTH - 1) + b"]" * (MAX_DEPTH - 1) + b"}"
    assert load_json_object(nested, "x")["a"]
    assert load_json_object(b'{"\\u00fc": ["\\ud83d\\ude00", 1.5, null]}', "x") == {"ü": ["😀", 1.5, None]}
    with pytest.raises(JsonInputError, match="x is larger than 10 bytes"):
        load_json_object(b'{"a": "0123456789"}', "x", max_bytes=10)


@pytest.mark.parametrize(("data", "problem"), BAD[:11])
def test_inspect_rejects_it_with_exit_2(
    data: bytes, problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "x"
    path.write_bytes(data)
    assert main(["inspect", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"receipt: error: {path}{problem[1:]}") and "Traceback" not in err


@pytest.mark.parametrize(("data", "problem"), BAD[:11])
def test_publish_refuses_such_an_artifact(data: bytes, problem: str, tmp_path: Path) -> None:
    path = tmp_path / "receipt.json"
    path.write_bytes(data)
    with pytest.raises(Refusal) as err:
        load_artifact(path)
    assert err.value.reason.startswith("the receipt" + problem[1:])


@pytest.mark.parametrize(("data", "problem"), BAD[:11])
def test_an_event_payload_like_it_is_an_event_error(data: bytes, problem: str, tmp_path: Path) -> None:
    path = tmp_path / "event.json"
    path.write_bytes(data)
    with pytest.raises(EventError) as err:
        load_event("pull_request", path)
    assert str(err.value).startswith(f"the event payload {path}{problem[1:]}")
