"""The rules ported from Nosey Parker (tools/gen_noseyparker_rules.py → _noseyparker_rules.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from bot.engine.content._noseyparker_rules import RULES, SOURCE
from bot.engine.content.added import Fragment
from bot.engine.content.secrets import default_scanner
from tests.datafiles import SECRETS

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import gen_noseyparker_rules as generator

FOLDER = SECRETS / "noseyparker"


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("(?x)\n\\b\n(abc_[a-z]{4})  (?# the token )\n(?: $ | [^a-z] )\n", "\\b(abc_[a-z]{4})(?:$|[^a-z])"),
        ("(?xi)a b # a comment\nc", "(?i)abc"),
        ("(?x)(?i)a [ b]", "(?i)a[b]"),
        ("(?x)a\\ b", "a\\ b"),
        ("(?i:x y)", "(?i:x y)"),  # not verbose: whitespace is text
        ("aio\\_[a-z]{1,1024}", "aio_[a-z]{1,}"),
    ],
)
def test_verbose_patterns_are_compacted_for_re2(pattern: str, expected: str) -> None:
    assert generator.compact(pattern) == expected


def test_the_generated_rules_are_current(tmp_path: Path) -> None:
    output = tmp_path / "rules.py"
    assert generator.main([str(FOLDER), "--output", str(output)]) == 0
    committed = Path(generator.OUTPUT).read_text("utf-8")
    assert output.read_text("utf-8") == committed
    assert (FOLDER / "SOURCE").read_text("utf-8").strip() == SOURCE
    assert "Apache License" in committed


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        ({"pattern": "(g)(sk_[a-z]{3})", "examples": ["gsk_ABC"]}, "misses its example 'gsk_ABC'"),
        ({"pattern": "(g)(sk_[a-z]{3})", "negative_examples": ["gsk_abc"]}, "matches its negative example"),
        ({"pattern": "gsk_(?<=x)"}, "RE2 rejects"),
        ({"pattern": "(gsk_)"}, "no group 2 in"),
    ],
)
def test_a_port_that_its_examples_refute_stops_the_generator(rule: dict[str, object], problem: str) -> None:
    with pytest.raises(generator.PortError, match=problem):
        generator._checked({"id": "np.x.1", **rule}, generator.Choice("x", ("gsk_",), secret_group=2))


def test_a_chosen_rule_missing_upstream_stops_the_generator(tmp_path: Path) -> None:
    with pytest.raises(generator.PortError, match="holds no rules/ folder"):
        generator.render(tmp_path)
    (tmp_path / "rules").mkdir()
    with pytest.raises(generator.PortError, match="chosen rules not in"):
        generator.render(tmp_path)


def _examples(key: str) -> dict[str, list[str]]:
    """Each ported rule's `examples` or `negative_examples`, by receipt's id for it."""
    by_id = {}
    for path in sorted((FOLDER / "rules").glob("*.yml")):
        for rule in yaml.safe_load(path.read_text("utf-8"))["rules"]:
            if rule["id"] in generator.CHOSEN:
                by_id[generator.CHOSEN[rule["id"]].id] = rule.get(key) or []
    return by_id


def _detectors_on(text: str) -> set[str]:
    fragment = Fragment(text, range(1, text.count("\n") + 2))
    return {f.detector for f in default_scanner().scan("config/settings.txt", fragment)}


@pytest.mark.parametrize("rule_id", sorted(p.id for p in RULES))
def test_each_ported_rule_reports_one_of_its_examples_and_none_of_its_negatives(rule_id: str) -> None:
    assert any(rule_id in _detectors_on(example) for example in _examples("examples")[rule_id])
    for example in _examples("negative_examples")[rule_id]:
        assert rule_id not in _detectors_on(example)


@pytest.mark.parametrize(
    "text",
    [
        "docker login -p dckr_pat_tooShort123",
        'TAVILY_API_KEY = "tvly-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"',  # a placeholder
        "GROQ_API_KEY=gsk_your_key_here",
        "machine example.com login user password ${NETRC_PASSWORD}",  # a template
        "dp.st.dev.short",
        "https://outlook.office.com/webhook/not-a-guid",
    ],
)
def test_near_misses_of_ported_rules_stay_quiet(text: str) -> None:
    assert _detectors_on(text) == set()
