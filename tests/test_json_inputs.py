"""Every reader of JSON from outside (`inspect`, the artifact `publish` trusts nothing of, the event
payload, traces, task sets, the sandbox's report) goes through one bounded reader: deep nesting, non-objects, NaN and lone surrogates are a
clear error (exit 2), never a traceback."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from action.event import EventError, load_event
from action.publish import Refusal, load_artifact
from bot import jsonread
from bot.cli import main
from bot.jsonread import MAX_DEPTH, JsonInputError, load_json_object
from bot.local import sandbox
from bot.replay.errors import ReplayError
from bot.replay.tasks import read_task_set
from bot.replay.traces import parse_events

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


def _earlier(data: bytes) -> dict[str, Any]:
    """The reader before its one search: `json.loads` on the bytes, then every string walked."""
    try:
        value = json.loads(data, parse_constant=jsonread._no_constant)
    except RecursionError:
        raise JsonInputError(f"x is nested more than {MAX_DEPTH} levels deep") from None
    except ValueError as exc:
        raise JsonInputError(f"x is not JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise JsonInputError(f"x is {jsonread._kind(value)}, not a JSON object")
    jsonread._check(value, "x")
    return value


def _outcome(read: Callable[[bytes], dict[str, Any]], data: bytes) -> object:
    try:
        return ("value", read(data))
    except JsonInputError as exc:
        return ("error", exc.problem)


_PIECES = ["\\ud800", "\\uDBFF", "\\udc00", "\\uDfFf", "\\ud83d\\ude00", "\\\\ud800", "\\\\\\ud800", "\\u00fc",
           "\\ud7ff", "\\ue000", "\ud800", "\udfff", "\U0001f600", "ü", "a", "\\n", "\\\\", "\\\""]  # fmt: skip
_text = st.lists(st.sampled_from(_PIECES), max_size=4).map("".join)
_json = st.recursive(
    st.sampled_from(["null", "true", "1.5", "-7"]) | _text.map(lambda t: '"' + t + '"'),
    lambda inner: (
        st.lists(inner, max_size=3).map(lambda xs: "[" + ",".join(xs) + "]")
        | st.lists(st.tuples(_text, inner), max_size=3).map(
            lambda kv: "{" + ",".join(f'"{k}":{v}' for k, v in kv) + "}"
        )
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(
    body=_json,
    depth=st.integers(0, MAX_DEPTH + 2),
    kind=st.sampled_from("ol"),
    encoding=st.sampled_from(
        ["utf-8", "utf-8-sig", "utf-16-le", "utf-16-be", "utf-16", "utf-32", "utf-32-le"]
    ),
)
def test_the_one_search_reads_as_the_walk_over_every_string(
    body: str, depth: int, kind: str, encoding: str
) -> None:
    """Surrogates escaped (lone, paired, behind an escaped backslash) and raw (as the bytes decode
    them), at every depth around the limit, in every encoding `json` detects: the reader answers as
    it did when it walked every string."""
    text = (
        '{"a":'
        + ('{"k":' if kind == "o" else "[") * depth
        + body
        + ("}" if kind == "o" else "]") * depth
        + "}"
    )
    data = text.encode(encoding, "surrogatepass")
    assert _outcome(lambda d: load_json_object(d, "x"), data) == _outcome(_earlier, data)


# The other readers of JSON from outside: an agent's trace (JSON Lines), a task set, the report the
# sandbox's supervisor hands back. Before, each caught only ValueError, and `[` 100,000 times was a
# RecursionError out of the parser.

DEEP_LINE = b"[" * 100_000


def test_a_trace_line_too_deep_is_skipped_like_any_line_that_is_no_object() -> None:
    events, skipped = parse_events(
        b'{"type": "a"}\n' + DEEP_LINE + b'\n[1]\n{"a": NaN}\nnot json\n{"type": "b"}\n'
    )
    assert events == [{"type": "a"}, {"type": "b"}] and skipped == 4


def test_a_task_set_line_too_deep_is_an_error_naming_the_line() -> None:
    with pytest.raises(ReplayError) as err:
        read_task_set(b"\n" + DEEP_LINE + b"\n", "tasks.jsonl")
    assert str(err.value) == "tasks.jsonl:2 is nested more than 64 levels deep"
    with pytest.raises(ReplayError, match=r"tasks\.jsonl:1 is not JSON: "):
        read_task_set(b"{not json\n", "tasks.jsonl")
    with pytest.raises(ReplayError, match=r"tasks\.jsonl:1 is a list, not a JSON object"):
        read_task_set(b"[1]\n", "tasks.jsonl")


@pytest.mark.parametrize("data", [DEEP_LINE, b"[1]", b"{oops", b'{"a": NaN}', b"\xff"])
def test_a_sandbox_report_that_cannot_be_used_is_an_empty_one(data: bytes) -> None:
    assert sandbox._report(data) == {}


def test_a_sandbox_report_is_read() -> None:
    assert sandbox._report(b'{"mode": "namespace", "notes": ["x"]}') == {"mode": "namespace", "notes": ["x"]}
    assert sandbox._report(b"") == {}
