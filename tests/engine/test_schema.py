from __future__ import annotations

import pytest
import yaml

from bot.engine.regex import RegexError, compile_re2, re2_problem
from bot.engine.schema import (
    Boolean,
    ConfigIssue,
    Either,
    Field,
    Integer,
    ListOf,
    Mapping_,
    Number,
    String,
    Walk,
    compose,
)


def _node(text: str) -> yaml.Node:
    node = compose(text)
    assert node is not None
    return node


def test_unbounded_numbers_have_plain_schemas() -> None:
    assert Integer().json_schema() == {"type": "integer", "maximum": 2**53 - 1}  # exact in every JSON reader
    assert Number().json_schema() == {"type": "number"}
    assert Number(maximum=2).json_schema() == {"type": "number", "maximum": 2}
    walk = Walk()
    assert Number().validate(_node("-3"), "n", walk) == -3.0
    assert Integer().validate(_node("-3"), "n", walk) == -3
    assert walk.issues == []


def test_either_nests_and_reports_its_expectation() -> None:
    inner = Either(options=(Boolean(),), expected="a flag")
    outer = Either(options=(inner, ListOf(String())), expected="a flag or names")
    walk = Walk()
    assert outer.accepts(_node("true")) and outer.accepts(_node("[a]"))
    assert not outer.accepts(_node("{a: 1}"))
    assert outer.validate(_node("true"), "x", walk) is True
    assert outer.validate(_node("{a: 1}"), "x", walk) is not None
    assert walk.issues == [ConfigIssue(1, 1, "x", "expected a flag or names, got a mapping")]


def test_issue_rendering_without_key_path() -> None:
    assert ConfigIssue(3, 4, "", "boom").render("f.yml") == "f.yml:3:4: boom"
    assert ConfigIssue(3, 4, "a.b", "boom").render("f.yml") == "f.yml:3:4: a.b: boom"


def test_mapping_schema_without_required_keys() -> None:
    spec = Mapping_(fields={"a": Field(Integer())}, description="thing")
    assert spec.json_schema() == {
        "type": "object",
        "properties": {"a": {"type": "integer", "maximum": 2**53 - 1}},
        "additionalProperties": False,
        "description": "thing",
    }


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("[", "missing ]: ["),
        (
            "(?=x)",
            "invalid perl operator: (?= (RE2 has no backreferences or lookaround; rewrite without them)",
        ),
        (
            "(a)\\1",
            "invalid escape sequence: \\1 (RE2 has no backreferences or lookaround; rewrite without them)",
        ),
    ],
)
def test_re2_problems(pattern: str, problem: str) -> None:
    assert re2_problem(pattern) == problem
    with pytest.raises(RegexError) as err:
        compile_re2(pattern)
    assert err.value.pattern == pattern


def test_re2_compiles_linear_patterns() -> None:
    assert re2_problem(r"^\s*import requests\b") is None
    assert compile_re2("(a+)+$").search("a" * 100_000 + "b") is None
