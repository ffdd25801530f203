"""Past the text limit excess is not measured, says so, and fails closed when the policy gates on it."""

from __future__ import annotations

import pytest

from bot.engine import excess
from bot.engine.change import FileTexts
from bot.engine.manifest import ExcessPolicy
from bot.engine.patching import parse_reference
from bot.engine.render.excess_text import headline
from bot.local.git import Git
from tests.gitrepo import GitRepo
from tests.texts import change_with_texts


@pytest.fixture
def change(repo: GitRepo):  # type: ignore[no-untyped-def]
    repo.write("a.py", "x = 1\n" * 50)
    base = repo.commit("base")
    repo.write("a.py", "x = 2\n" + "x = 1\n" * 49)
    head = repo.commit("head")
    git = Git(repo.root)
    data = git.diff(base, head)
    texts = {"a.py": FileTexts(base="x = 1\n" * 50, head="x = 2\n" + "x = 1\n" * 49)}
    return change_with_texts(data, texts), data


def test_a_change_past_the_limit_is_not_measured(change, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    parsed, data = change
    assert excess.measure_excess(parsed).distance is not None
    monkeypatch.setattr(excess, "TEXT_LIMIT", 100)
    result = excess.measure_excess(parsed, parse_reference(data, "fix.patch"))
    assert (result.distance, result.excess, result.formatting_share, result.added_complexity) == (None,) * 4
    assert result.too_large == 1200 and result.files == 1
    assert result.reference is not None and result.reference.source == "fix.patch"
    assert headline(result) == (
        "Not measured: the 1 file this change touches hold 1,200 characters of text, more than the excess "
        "metrics read in one receipt."
    )
    assert result.not_measured == (
        "the changed files hold 1,200 characters of text, above the 100 the excess metrics read in one receipt"
    )
    assert not excess.judge_excess(result, ExcessPolicy()).alarm
    gated = excess.judge_excess(result, ExcessPolicy(max_distance=0.5))
    assert gated.alarm and gated.alarm_reasons == (
        "excess could not be measured: the changed files hold 1,200 characters of text, above the 100 the "
        "excess metrics read in one receipt, so the limits the policy sets cannot be checked",
    )
