"""The scripts of a `package.json`: the string values of its top-level `scripts` object, each with
its key and where its text starts. npm runs each with `sh -c`, so each is shell; no other string of
the file is (a `description` that mentions `curl … | sh` runs nothing). A file that is not JSON,
or whose top level is not an object, has no scripts npm would run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from bot.engine.lazyre import lazy

_TOKEN = lazy(rb'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')
# npm runs these on `npm install` (prepare also when the package is installed from git).
INSTALL_HOOKS = frozenset({"preinstall", "install", "postinstall", "prepare"})


@dataclass(frozen=True, slots=True)
class Script:
    key: str
    command: str
    offset: int  # of the value's opening quote in the text


def npm_scripts(data: bytes) -> list[Script]:
    try:
        document = json.loads(data)
    except ValueError:
        return []
    if not isinstance(document, dict) or not isinstance(document.get("scripts"), dict):
        return []
    found: list[Script] = []
    stack: list[bytes] = []
    key: str | None = None
    expect_key = False
    inside = -1  # the depth of the scripts object while in it
    for token in _TOKEN().finditer(data):
        text = token.group()
        if text in (b"{", b"["):
            if text == b"{" and len(stack) == 1 and key == "scripts":
                inside = 2
            stack.append(text)
            expect_key = text == b"{"
        elif text in (b"}", b"]"):
            inside = -1 if len(stack) == inside else inside
            stack.pop()
            expect_key = False
        elif text in (b",", b":"):
            expect_key = text == b"," and stack[-1] == b"{"
        elif expect_key:
            key = json.loads(text)
        elif len(stack) == inside and key is not None:
            found.append(Script(key, json.loads(text), token.start()))
    return found
