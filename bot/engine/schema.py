"""A small declarative schema over YAML nodes: one description gives both validation and JSON Schema.

Validation walks the composed YAML tree rather than loaded Python values so every problem keeps the
line and column it came from, and collects every problem instead of stopping at the first.
"""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml
import yaml.reader
from yaml.composer import ComposerError
from yaml.constructor import SafeConstructor

from bot.engine.days import Day
from bot.engine.patterns import OverLimit, PatternStore

JSON = dict[str, Any]
MAX_NODES = 20_000
MAX_DEPTH = 32  # nesting of lists and mappings; the manifest's own schema needs six
MAX_SAFE_INTEGER = 2**53 - 1  # the largest integer every JSON reader of a receipt keeps exactly

_TAG = "tag:yaml.org,2002:"
_TYPE_NAMES = {
    f"{_TAG}str": "a string", f"{_TAG}int": "an integer", f"{_TAG}float": "a number",
    f"{_TAG}bool": "a boolean", f"{_TAG}null": "null", f"{_TAG}map": "a mapping",
    f"{_TAG}seq": "a list", f"{_TAG}timestamp": "a date", f"{_TAG}binary": "binary data",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class ConfigIssue:
    """One problem in a configuration file. Lines and columns are 1-based."""

    line: int
    column: int
    key_path: str
    problem: str
    limit: bool = False  # a limit on size or cost was reached, rather than a value being wrong

    def render(self, file: str) -> str:
        where = f"{self.key_path}: " if self.key_path else ""
        return f"{file}:{self.line}:{self.column}: {where}{self.problem}"


class Invalid:
    """The value of a node that failed validation (its issue is already recorded)."""


INVALID = Invalid()


@dataclass
class Walk:
    issues: list[ConfigIssue] = field(default_factory=list)
    visited: int = 0
    patterns: PatternStore = field(default_factory=PatternStore)  # what refine_with compiles goes here
    over_limit: bool = False

    def report(self, node: yaml.Node, path: str, problem: str, *, limit: bool = False) -> Invalid:
        mark = node.start_mark
        self.issues.append(ConfigIssue(mark.line + 1, mark.column + 1, path, problem, limit))
        return INVALID

    def report_limit(self, node: yaml.Node, path: str, problem: str) -> Invalid:
        """A limit is reported where it was first reached, once: every value after it is over too."""
        if not self.over_limit:
            self.over_limit = True
            self.report(node, path, problem, limit=True)
        return INVALID


def describe(node: yaml.Node) -> str:
    return _TYPE_NAMES.get(node.tag, f"a value tagged {node.tag}")


def _shown(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _value(value: object) -> str:
    """A value read from a manifest, as a message shows it: a long number cut short like a text."""
    if isinstance(value, str):
        return _shown(value)
    text = str(value)  # an integer has at most MAX_DIGITS digits: always writable
    return text if len(text) <= 40 else _shown(text)


class _NotPlain(ValueError):
    """A number written in one of YAML 1.1's other notations, or too long to be any value here."""


# Digits of a decimal integer read at most: far past any value a manifest holds (a float's range
# needs 309), and below the least limit an interpreter may set on converting integers to and from
# text (640 digits, `sys.set_int_max_str_digits`), so describing the value can never fail.
MAX_DIGITS = 600
_DECIMAL = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
# Every integer YAML 1.1 reads (PyYAML's resolver): binary, octal, decimal, hexadecimal, base 60.
_YAML_INTEGER = re.compile(
    r"[-+]?(?:0b[0-1_]+|0[0-7_]+|(?:0|[1-9][0-9_]*)|0x[0-9a-fA-F_]+|[1-9][0-9_]*(?::[0-5]?[0-9])+)"
)


def _notation(text: str, integer: bool) -> str:
    """What YAML 1.1 reads a number written other than in plain decimal digits as."""
    digits = text.lstrip("+-")
    if integer and digits.startswith(("0b", "0x")):
        return "binary" if digits[1] == "b" else "hexadecimal"
    if ":" in digits:
        return "base 60 (1:30 is 90)"
    if integer and digits[:1] == "0" and digits[1:]:
        return "octal (010 is 8)"
    return "a number with its '_' dropped"


def _not_plain(text: str, kind: str) -> _NotPlain:
    notation = _notation(text, kind == "integer")
    return _NotPlain(
        f"{_shown(text)} is not a plain decimal {kind}: YAML 1.1 reads it as {notation}; "
        "write it in decimal digits"
    )


def _integer(text: str) -> int:
    """A YAML integer's value, read only from plain decimal digits: YAML 1.1's other notations are
    refused rather than read as a surprise (`files: 010` is 8, `1:30` is 90), and so is a number of
    more than MAX_DIGITS digits (hexadecimal or base 60 could otherwise spell an integer too long to
    write in decimal, and describing it would fail). _NotPlain for those, ValueError for text that
    is no integer (an explicit `!!int x`)."""
    if _DECIMAL.fullmatch(text):
        digits = len(text.lstrip("+-"))
        if digits > MAX_DIGITS:
            raise _NotPlain(f"{_shown(text)} has {digits:,} digits, more than any value here can")
        return int(text)
    if _YAML_INTEGER.fullmatch(text):
        raise _not_plain(text, "integer")
    raise ValueError(text)


def _scalar(node: yaml.Node) -> Any:
    """The node's value as YAML reads it, numbers only from plain decimal notation (`_integer`);
    _NotPlain for another notation, any other exception for text its tag cannot read."""
    if node.tag == f"{_TAG}int":
        return _integer(node.value)
    if node.tag == f"{_TAG}float" and ("_" in node.value or ":" in node.value):
        raise _not_plain(node.value, "number")
    return SafeConstructor().construct_object(node, deep=True)


class Spec(ABC):
    description: str = ""

    def validate(self, node: yaml.Node, path: str, walk: Walk) -> Any:
        walk.visited += 1
        if walk.visited > MAX_NODES:
            return walk.report_limit(node, path, f"too many values (the limit is {MAX_NODES})")
        return self.check(node, path, walk)

    @abstractmethod
    def check(self, node: yaml.Node, path: str, walk: Walk) -> Any: ...

    @abstractmethod
    def schema(self) -> JSON: ...

    def json_schema(self) -> JSON:
        out = self.schema()
        if self.description:
            out["description"] = self.description
        return out

    @abstractmethod
    def accepts(self, node: yaml.Node) -> bool:
        """Whether this spec is the right branch of an Either for `node`."""


class ScalarSpec(Spec):
    tags: tuple[str, ...] = ()
    expected: str = ""

    def check(self, node: yaml.Node, path: str, walk: Walk) -> Any:
        if not isinstance(node, yaml.ScalarNode) or node.tag not in self.tags:
            return walk.report(node, path, f"expected {self.expected}, got {describe(node)}")
        try:
            value = _scalar(node)
        except _NotPlain as exc:
            return walk.report(node, path, str(exc))
        except Exception:  # PyYAML's constructors fail on bad text in many ways (KeyError for `!!bool x`)
            return walk.report(node, path, f"unreadable value: {_shown(node.value)} is not {describe(node)}")
        try:
            problem = self.refine(value, walk)
        except OverLimit as exc:
            return walk.report_limit(node, path, exc.problem)
        return walk.report(node, path, problem) if problem else value

    def refine(self, value: Any, walk: Walk) -> str | None:
        return None

    def accepts(self, node: yaml.Node) -> bool:
        return isinstance(node, yaml.ScalarNode) and node.tag in self.tags


@dataclass
class Boolean(ScalarSpec):
    description: str = ""
    tags: tuple[str, ...] = (f"{_TAG}bool",)
    expected: str = "true or false"

    def schema(self) -> JSON:
        return {"type": "boolean"}


@dataclass
class Integer(ScalarSpec):
    description: str = ""
    minimum: int | None = None
    maximum: int = MAX_SAFE_INTEGER
    tags: tuple[str, ...] = (f"{_TAG}int",)
    expected: str = "an integer"

    def refine(self, value: Any, walk: Walk) -> str | None:
        if self.minimum is not None and value < self.minimum:
            return f"must be at least {self.minimum}, got {_value(value)}"
        if value > self.maximum:
            return f"must be at most {self.maximum}, got {_shown(str(value))}"
        return None

    def schema(self) -> JSON:
        out: JSON = {"type": "integer"}
        if self.minimum is not None:
            out["minimum"] = self.minimum
        out["maximum"] = self.maximum
        return out


@dataclass
class Number(ScalarSpec):
    description: str = ""
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    tags: tuple[str, ...] = (f"{_TAG}int", f"{_TAG}float")
    expected: str = "a number"

    def refine(self, value: Any, walk: Walk) -> str | None:
        try:
            number = float(value)
        except OverflowError:  # an integer no float holds
            return f"must be a finite number, got {_shown(str(value))}"
        if not math.isfinite(number):
            return f"must be a finite number, got {_value(value)}"
        if self.minimum is not None:
            if self.exclusive_minimum and number <= self.minimum:
                return f"must be greater than {self.minimum}, got {_value(value)}"
            if number < self.minimum:
                return f"must be at least {self.minimum}, got {_value(value)}"
        if self.maximum is not None and number > self.maximum:
            return f"must be at most {self.maximum}, got {_value(value)}"
        return None

    def check(self, node: yaml.Node, path: str, walk: Walk) -> Any:
        value = super().check(node, path, walk)
        return value if isinstance(value, Invalid) else float(value)

    def schema(self) -> JSON:
        out: JSON = {"type": "number"}
        if self.minimum is not None:
            out["exclusiveMinimum" if self.exclusive_minimum else "minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out


@dataclass
class String(ScalarSpec):
    """A non-empty string; `refine_with` returns a problem or None (compiles a glob or regex)."""

    description: str = ""
    refine_with: Callable[[str, Walk], str | None] | None = None
    tags: tuple[str, ...] = (f"{_TAG}str",)
    expected: str = "a string"
    max_length: int = 4096

    def refine(self, value: Any, walk: Walk) -> str | None:
        if not value.strip():
            return "must not be empty"
        if len(value) > self.max_length:
            return f"longer than {self.max_length} characters"
        if walk.over_limit:
            return None  # patterns are not compiled past a limit; the manifest is already invalid
        return self.refine_with(value, walk) if self.refine_with else None

    def schema(self) -> JSON:
        return {"type": "string", "minLength": 1, "maxLength": self.max_length}


@dataclass
class Date(ScalarSpec):
    """A calendar date, YYYY-MM-DD (YAML reads one unquoted as a date, quoted as a string)."""

    description: str = ""
    tags: tuple[str, ...] = (f"{_TAG}timestamp", f"{_TAG}str")
    expected: str = "a date (YYYY-MM-DD)"

    def check(self, node: yaml.Node, path: str, walk: Walk) -> Any:
        """The text as written, read by Day (YAML's own reading of a timestamp is not needed)."""
        if not isinstance(node, yaml.ScalarNode) or node.tag not in self.tags:
            return walk.report(node, path, f"expected {self.expected}, got {describe(node)}")
        try:
            return Day.parse(node.value)
        except ValueError as exc:
            return walk.report(node, path, str(exc))

    def schema(self) -> JSON:
        return {"type": "string", "format": "date"}


@dataclass
class Choice(ScalarSpec):
    values: tuple[str | int, ...] = ()
    description: str = ""
    tags: tuple[str, ...] = (f"{_TAG}str", f"{_TAG}int")
    expected: str = "one of the listed values"

    def __post_init__(self) -> None:
        self.expected = "one of " + ", ".join(str(v) for v in self.values)

    def refine(self, value: Any, walk: Walk) -> str | None:
        if value not in self.values:
            return f"expected {self.expected}, got {_value(value)}"
        return None

    def schema(self) -> JSON:
        return {"enum": list(self.values)}


@dataclass
class ListOf(Spec):
    item: Spec
    description: str = ""
    min_items: int = 0
    unique: bool = False
    unique_key: str | None = None

    def accepts(self, node: yaml.Node) -> bool:
        return isinstance(node, yaml.SequenceNode)

    def check(self, node: yaml.Node, path: str, walk: Walk) -> Any:
        if not isinstance(node, yaml.SequenceNode):
            return walk.report(node, path, f"expected a list, got {describe(node)}")
        if len(node.value) < self.min_items:
            return walk.report(node, path, f"needs at least {self.min_items} entries")
        out: list[Any] = []
        seen: dict[Any, int] = {}
        for i, child in enumerate(node.value):
            value = self.item.validate(child, f"{path}[{i}]", walk)
            out.append(value)
            where = f"{path}[{i}]"
            if self.unique_key is not None:
                where += f".{self.unique_key}"
                # an entry invalid for another reason still has its key: an entry repeating it repeats it
                value = _key_text(child, self.unique_key)
            if not (self.unique or self.unique_key) or not isinstance(value, str | int):
                continue
            if value in seen:
                walk.report(child, where, f"repeats entry {seen[value]} ({value!r})")
            else:
                seen[value] = i
        return INVALID if any(isinstance(v, Invalid) for v in out) else out

    def schema(self) -> JSON:
        out: JSON = {"type": "array", "items": self.item.json_schema()}
        if self.min_items:
            out["minItems"] = self.min_items
        if self.unique:
            out["uniqueItems"] = True
        return out


def _key_text(node: yaml.Node, key: str) -> str | None:
    """The text of a mapping node's string value at `key`, as written."""
    if not isinstance(node, yaml.MappingNode):
        return None
    for key_node, value_node in node.value:
        if (
            key_node.value == key
            and isinstance(value_node, yaml.ScalarNode)
            and value_node.tag == f"{_TAG}str"
        ):
            return str(value_node.value)
    return None


@dataclass
class Field:
    spec: Spec
    required: bool = False


@dataclass
class Mapping_(Spec):
    fields: Mapping[str, Field]
    description: str = ""
    check_whole: Callable[[dict[str, Any]], str | None] | None = None

    def accepts(self, node: yaml.Node) -> bool:
        return isinstance(node, yaml.MappingNode)

    def check(self, node: yaml.Node, path: str, walk: Walk) -> Any:
        if not isinstance(node, yaml.MappingNode):
            return walk.report(node, path, f"expected a mapping, got {describe(node)}")
        out: dict[str, Any] = {}
        nodes: dict[str, yaml.Node] = {}
        failed = False
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, str) or key_node.tag != f"{_TAG}str":
                walk.report(key_node, path, f"keys must be strings, got {describe(key_node)}")
                failed = True
                continue
            child_path = f"{path}.{key}" if path else key
            if key in nodes:
                walk.report(key_node, child_path, "duplicate key")
                failed = True
                continue
            nodes[key] = value_node
            spec = self.fields.get(key)
            if spec is None:
                walk.report(key_node, child_path, f"unknown key; expected one of: {self._keys()}")
                failed = True
                continue
            value = spec.spec.validate(value_node, child_path, walk)
            failed = failed or isinstance(value, Invalid)
            out[key] = value
        for key, spec in self.fields.items():
            if spec.required and key not in nodes:
                walk.report(node, path, f"missing required key {key!r}")
                failed = True
        if failed:
            return INVALID
        problem = self.check_whole(out) if self.check_whole else None
        return walk.report(node, path, problem) if problem else out

    def _keys(self) -> str:
        return ", ".join(self.fields)

    def schema(self) -> JSON:
        props = {k: f.spec.json_schema() for k, f in self.fields.items()}
        out: JSON = {"type": "object", "properties": props, "additionalProperties": False}
        required = [k for k, f in self.fields.items() if f.required]
        if required:
            out["required"] = required
        return out


@dataclass
class Either(Spec):
    """The first option that accepts the node's kind validates it."""

    options: Sequence[Spec]
    expected: str
    description: str = ""

    def accepts(self, node: yaml.Node) -> bool:
        return any(o.accepts(node) for o in self.options)

    def check(self, node: yaml.Node, path: str, walk: Walk) -> Any:
        for option in self.options:
            if option.accepts(node):
                return option.check(node, path, walk)
        return walk.report(node, path, f"expected {self.expected}, got {describe(node)}")

    def schema(self) -> JSON:
        return {"anyOf": [o.json_schema() for o in self.options]}


class YamlSyntaxError(ValueError):
    def __init__(self, issue: ConfigIssue) -> None:
        super().__init__(issue.problem)
        self.issue = issue


_SURROGATE = re.compile("[\ud800-\udfff]")


class _TooDeep(ComposerError):
    """Nesting past MAX_DEPTH: PyYAML composes recursively, and would exhaust Python's stack."""


class _NotText(ComposerError):
    """A scalar that is no Unicode text."""


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader, composing no deeper than MAX_DEPTH and only scalars that are text.

    A double-quoted scalar can spell a lone surrogate (`"\\ud800"`), which is no character: no UTF-8
    encoder (RE2, a receipt's JSON, a terminal) accepts it, so it is an error where it is written."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise _TooDeep(None, None, f"nested deeper than {MAX_DEPTH} levels (the limit)", mark)
            node: yaml.Node | None = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if isinstance(node, yaml.ScalarNode) and (bad := _SURROGATE.search(node.value)):
            problem = f"U+{ord(bad.group()):04X} is a lone surrogate, not a character"
            raise _NotText(None, None, problem, node.start_mark)
        return node


def compose(text: str) -> yaml.Node | None:
    """The YAML node tree of one document; syntax errors become a ConfigIssue with a position."""
    try:
        return yaml.compose(text, Loader=_BoundedLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = " ".join(p for p in (exc.context, exc.problem) if p)
        limit = isinstance(exc, _TooDeep)
        plain = limit or isinstance(exc, _NotText)
        issue = ConfigIssue(line, column, "", problem if plain else f"YAML syntax: {problem}", limit)
        raise YamlSyntaxError(issue) from exc
    except yaml.reader.ReaderError as exc:
        before = text[: exc.position]
        line, column = before.count("\n") + 1, exc.position - (before.rfind("\n") + 1) + 1
        problem = f"character U+{exc.character:04X} is not allowed in YAML: {exc.reason}"
        raise YamlSyntaxError(ConfigIssue(line, column, "", problem)) from exc
