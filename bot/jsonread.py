"""The one reader of JSON that came from outside (a receipt to inspect, an artifact, an event payload).

Such a file may have been written by a pull request's code: it is read whole only when it is small
enough, and accepted only as an object of plain JSON that every later step can handle — no deeper
than MAX_DEPTH (Python's parser and encoder recurse, and stop with RecursionError far deeper than any
real receipt or payload goes), no NaN or Infinity (no canonical JSON holds them), no lone surrogate
(no UTF-8 encoder takes one). Anything else is a JsonInputError saying what is wrong.
"""

from __future__ import annotations

import json
import re
from typing import Any

from bot.engine.errors import ReceiptError

MAX_DEPTH = 64
MAX_PAYLOAD_BYTES = 25 << 20  # GitHub caps webhook payloads at 25 MB
_SURROGATE = re.compile("[\ud800-\udfff]")
# The only way a parsed string holds a surrogate the text does not hold as itself: an escape of one
# (a pair the parser joins into one character, a lone one it keeps). A preceding backslash that
# escapes this one's backslash is not looked at: the text is then only read string by string.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class JsonInputError(ReceiptError, ValueError):
    """JSON input that cannot be used; `problem` names the input and what is wrong with it."""

    title = "unreadable JSON"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _kind(value: Any) -> str:
    return {list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


def _check_depth(value: Any, what: str) -> None:
    """Depth alone, as `_check` counts it (the object is level 1, its values level 2, …: a container
    at level MAX_DEPTH may hold nothing), level by level, visiting only containers."""
    level, depth = [value], 1
    while level:
        deeper: list[Any] = []
        for item in level:
            children = item.values() if isinstance(item, dict) else item
            if children and depth >= MAX_DEPTH:
                raise JsonInputError(f"{what} is nested more than {MAX_DEPTH} levels deep")
            deeper += [child for child in children if isinstance(child, dict | list)]
        level, depth = deeper, depth + 1


def _holds_surrogate(text: str) -> bool:
    """Whether the text holds a surrogate as itself (`surrogatepass` decodes one from the bytes):
    UTF-8's strict encoder takes every character but those."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _check(value: Any, what: str) -> None:
    """Depth and strings, iteratively: a walk that recursed would fail where the parser did not."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if depth > MAX_DEPTH:
            raise JsonInputError(f"{what} is nested more than {MAX_DEPTH} levels deep")
        if isinstance(item, dict):
            for key, child in item.items():
                _check_text(key, what)
                pending.append((child, depth + 1))
        elif isinstance(item, list):
            pending.extend((child, depth + 1) for child in item)
        elif isinstance(item, str):
            _check_text(item, what)


def _check_text(text: str, what: str) -> None:
    bad = _SURROGATE.search(text)
    if bad is not None:
        raise JsonInputError(f"{what} holds U+{ord(bad.group()):04X}, a lone surrogate, not a character")


def load_json_object(data: bytes, what: str, *, max_bytes: int | None = None) -> dict[str, Any]:
    """`data` as a JSON object; JsonInputError naming `what` when it is not one we can use."""
    if max_bytes is not None and len(data) > max_bytes:
        raise JsonInputError(f"{what} is larger than {max_bytes:,} bytes")
    try:
        # what json.loads does with bytes, the text kept to be searched once, below
        text = data.decode(json.detect_encoding(data), "surrogatepass")
    except UnicodeDecodeError as exc:
        raise JsonInputError(f"{what} is not JSON: {exc}") from exc
    return json_object(text, what)


def json_object(text: str, what: str) -> dict[str, Any]:
    """`text` as a JSON object (one line of JSON Lines, say); JsonInputError naming `what` when it is
    not one we can use."""
    try:
        value = json.JSONDecoder(parse_constant=_no_constant).decode(text)
    except RecursionError:
        raise JsonInputError(f"{what} is nested more than {MAX_DEPTH} levels deep") from None
    except ValueError as exc:  # JSONDecodeError among them
        raise JsonInputError(f"{what} is not JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise JsonInputError(f"{what} is {_kind(value)}, not a JSON object")
    if not _holds_surrogate(text) and _SURROGATE_ESCAPE.search(text) is None:
        _check_depth(value, what)  # no string can hold a surrogate: one search instead of each
    else:
        _check(value, what)
    return value
