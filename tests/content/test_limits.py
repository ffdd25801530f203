from __future__ import annotations

import pytest

from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.limits import MAX_PER_FILE
from bot.engine.content.suppressions import SuppressionsRule
from bot.engine.content.unicode import InvisibleUnicodeRule
from bot.engine.rules import ContentRule
from tests.content.helpers import change_of, scan
from tests.gitrepo import GitRepo


@pytest.mark.parametrize(
    ("rule", "path", "line", "what"),
    [
        (DangerousRule(), "gen.js", "eval(x);", "dangerous construct(s)"),
        (SuppressionsRule(), "gen.py", "x = 1  # noqa", "suppression marker(s)"),
        (InvisibleUnicodeRule(), "gen.txt", "a\u200bb", "invisible-character finding(s)"),
    ],
)
def test_a_file_lists_at_most_a_hundred_findings_of_a_rule(
    repo: GitRepo, rule: ContentRule, path: str, line: str, what: str
) -> None:
    found = scan(rule, change_of(repo, {path: f"{line}\n" * (MAX_PER_FILE + 7)}))
    assert len(found) == MAX_PER_FILE + 1
    assert (found[0].line, found[0].id) == (None, "more")
    assert found[0].message == f"7 more {what} in this file are not listed (the first 100 are)."
    assert [v.line for v in found[1:]] == list(range(1, MAX_PER_FILE + 1))
