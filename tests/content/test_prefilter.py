"""The shared prefilter: groups answered per fragment, light groups in one pass, heavy ones alone,
and the registry's rules all reading the same answers."""

from __future__ import annotations

import pytest

from bot.engine.content._gitleaks_rules import GLOBAL_ALLOWLIST
from bot.engine.content.added import Fragment
from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.patternset import PatternSet
from bot.engine.content.prefilter import Prefilter
from bot.engine.content.secrets import SecretScanner, SecretsRule, default_detectors
from bot.engine.content.suppressions import SuppressionsRule
from bot.engine.rules import CONTENT_RULES


def _fragment(text: str) -> Fragment:
    return Fragment(text, range(1, text.count("\n") + 2))


def test_each_group_is_numbered_on_its_own() -> None:
    prefilter = Prefilter({"a": ["x", "y", "z"], "b": ["y"], "empty": []}, own_pass=("b",))
    fragment = _fragment("y z")
    assert prefilter.present(fragment, "a") == [1, 2]
    assert prefilter.present(fragment, "b") == [0]
    assert prefilter.present(fragment, "empty") == ()
    assert prefilter.present(_fragment("none"), "a") == ()
    assert prefilter.patterns("a") == ("x", "y", "z")


def test_an_unknown_group_is_named() -> None:
    with pytest.raises(KeyError, match="no group 'c' \\(it has a, b\\)"):
        Prefilter({"a": ["x"], "b": ["y"]}).present(_fragment("x"), "c")


def test_a_fragment_is_read_once_per_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[bytes] = []
    original = PatternSet.present

    def counted(self: PatternSet, data: bytes) -> list[int]:
        reads.append(data)
        return original(self, data)

    monkeypatch.setattr(PatternSet, "present", counted)
    prefilter = Prefilter({"light": ["x"], "other": ["y"], "heavy": ["z"]}, own_pass=("heavy",))
    fragment = _fragment("x y z")
    for group in ("light", "other", "light", "other"):
        prefilter.present(fragment, group)
    assert len(reads) == 1
    prefilter.present(fragment, "heavy")
    prefilter.present(fragment, "heavy")
    assert len(reads) == 2


def test_only_heavy_groups_make_only_their_own_passes() -> None:
    prefilter = Prefilter({"heavy": ["z"]}, own_pass=("heavy",))
    assert prefilter.present(_fragment("z"), "heavy") == [0]


def test_the_registry_rules_share_one_prefilter() -> None:
    secrets, dangerous, suppressions = CONTENT_RULES[:3]
    assert isinstance(secrets, SecretsRule) and secrets.scanner is not None
    assert isinstance(dangerous, DangerousRule) and isinstance(suppressions, SuppressionsRule)
    assert secrets.scanner._prefilter is dangerous.prefilter is suppressions.prefilter


def test_a_scanner_refuses_a_prefilter_made_for_other_detectors() -> None:
    other = Prefilter({"secret-keywords": ["(?i)nope"], "secret-common": []})
    with pytest.raises(ValueError, match="group 'secret-keywords' is not this scanner's"):
        SecretScanner(default_detectors(), GLOBAL_ALLOWLIST, other)
    with pytest.raises(KeyError, match="no group 'secret-keywords'"):
        SecretScanner([], GLOBAL_ALLOWLIST, Prefilter({}))
    assert SecretScanner([], GLOBAL_ALLOWLIST).scan("a.txt", _fragment("x")) == []
