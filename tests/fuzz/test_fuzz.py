"""Property-based fuzzing of every parser the receipt runs on input a pull request controls, seeded
from real diffs of this repository's history (tests/data/fuzz). Each property is a contract of
tests/fuzz/contracts.py: a result, or the documented error, positioned.

The number of examples is small in `make test` (a couple of minutes on two cores for the whole
suite); RECEIPT_FUZZ_EXAMPLES raises it. The deadline is a hang detector, not a speed test.
"""

from __future__ import annotations

import os
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine import schema
from bot.engine.manifest_spec import SPEC
from tests.fuzz import contracts

EXAMPLES = int(os.environ.get("RECEIPT_FUZZ_EXAMPLES", "200"))
settings.register_profile(
    "fuzz",
    max_examples=EXAMPLES,
    deadline=timedelta(seconds=20),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=os.environ.get("RECEIPT_FUZZ_RANDOM") is None,  # the same examples on every run
)
fuzz = settings.get_profile("fuzz")

SEEDS = contracts.seed_diffs()
SEED_LINES = sorted({line for seed in SEEDS for line in seed.splitlines(keepends=True)})
# Fragments that make parsers take their rare paths.
SPECIAL_LINES = [
    b"@@ -1 +1 @@\n", b"@@ -1000000000000,1 +1000000000000,1 @@\n", b"@@ -0,0 +0,0 @@\n", b"\n",
    b"\\ No newline at end of file\n", b"--- a/x\n", b"+++ b/x\n", b"--- /dev/null\n", b"+++ /dev/null\n",
    b"diff --git a/x b/x\n", b'diff --git "a/\\303\\274" "b/\\303\\274"\n', b"new file mode 120000\n",
    b"deleted file mode 100644\n", b"new file mode 160000\n", b"index 0000000..1111111 100644\n",
    b"rename from x\n", b"rename to y\n", b"Binary files a/x and b/x differ\n", b"GIT binary patch\n",
    b"+\xff\xfe\n", b"+\x00\n", b"-\r\n", b" \xe2\x80\xae\n",
]  # fmt: skip


# A hunk header's numbers: small, far beyond any file, and too long to read as an integer at all
# (Python refuses past 4,300 digits).
_HUNK_NUMBERS = st.one_of(
    st.integers(0, 100).map(str),
    st.sampled_from(["1000000000000", "9" * 18, "0" * 18 + "1", "1" * 19, "1" * 4301, "9" * 5000]),
)


@st.composite
def mutated_diffs(draw: st.DrawFn) -> bytes:
    """A real diff with lines deleted, duplicated, swapped or replaced, bytes flipped, and hunk
    headers renumbered."""
    lines = draw(st.sampled_from(SEEDS)).splitlines(keepends=True)
    for _ in range(draw(st.integers(0, 8))):
        if not lines:
            break
        at = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["delete", "duplicate", "insert", "flip", "truncate", "renumber"]))
        headers = [i for i, line in enumerate(lines) if line.startswith(b"@@ -")]
        if action == "renumber" and headers:
            old, old_len, new, new_len = (draw(_HUNK_NUMBERS) for _ in range(4))
            lines[draw(st.sampled_from(headers))] = f"@@ -{old},{old_len} +{new},{new_len} @@\n".encode()
            continue
        if action == "delete":
            del lines[at]
        elif action == "duplicate":
            lines.insert(at, lines[at])
        elif action == "insert":
            lines.insert(at, draw(st.sampled_from(SPECIAL_LINES + SEED_LINES[:400])))
        elif action == "flip":
            line = bytearray(lines[at])
            if line:
                line[draw(st.integers(0, len(line) - 1))] = draw(st.integers(0, 255))
            lines[at] = bytes(line)
        else:
            lines = lines[:at]
    return b"".join(lines)


@fuzz
@given(mutated_diffs())
def test_the_diff_parser(data: bytes) -> None:
    contracts.check_diff(data)


@fuzz
@given(st.binary(max_size=2000))
def test_the_diff_parser_on_any_bytes(data: bytes) -> None:
    contracts.check_diff(data)


_KEYS = ["version", "paths", "allow", "protect", "defaults", "budgets", "per_path", "files", "content",
         "banned", "id", "pattern", "tests", "timeout_minutes", "ignore_side_effects", "excess",
         "max_distance", "applies_to", "branches", "authors", "locality", "reformat", "hunks"]  # fmt: skip
_SCALARS = ["1", "0", "-1", "true", "maybe", "!!bool x", "!!int _", "!!float 1e", "9" * 400, ".nan",
            "'[z-a]'", "'src/**'", "'*a*a*a*b'", "'\\\\'", '"\\ud800"', "!!binary AAAA", "~", "'(?=x)'",
            "'\\pL{1000}'", "&a [x]", "*a", "!!python/object:os.system x", "'" + "?" * 5000 + "'", "[]", "{}",
            "[" * 40 + "]" * 40, "forbid", "!!timestamp 2020-13-45", "0x", "1:2:x"]  # fmt: skip
# Numbers in every notation YAML 1.1 reads, some too long to write in decimal (Python refuses past
# 4,300 digits): what a number field reads.
_NUMBERS = ["0x" + "F" * 4000, "-0b" + "1" * 15000, "0" + "7" * 5000, "1:" * 3000 + "1", "9" * 5000,
            "!!int 0x" + "f" * 4000, "0x1F", "010", "1_000_", "190:20:30", "1_0.5", "1:30.5", "-.inf",
            "!!float 1e400", "9007199254740992", "+7", "-0"]  # fmt: skip
_SCALARS += _NUMBERS


@st.composite
def manifests(draw: st.DrawFn) -> bytes:
    """YAML built from the manifest's own keys and hostile values, nested a few levels."""

    def node(depth: int) -> str:
        kind = draw(st.sampled_from(["scalar", "list", "map"] if depth < 4 else ["scalar"]))
        if kind == "scalar":
            return draw(st.sampled_from(_SCALARS))
        if kind == "list":
            return "[" + ", ".join(node(depth + 1) for _ in range(draw(st.integers(0, 3)))) + "]"
        items = [f"{draw(st.sampled_from(_KEYS))}: {node(depth + 1)}" for _ in range(draw(st.integers(0, 3)))]
        return "{" + ", ".join(items) + "}"

    lines = ["version: 1"] if draw(st.booleans()) else []
    for _ in range(draw(st.integers(0, 5))):
        lines.append(f"{draw(st.sampled_from(_KEYS))}: {node(0)}")
    return "\n".join(lines).encode("utf-8", "surrogatepass")


def _valid_scalars(spec: schema.Spec) -> list[str]:
    if isinstance(spec, schema.Boolean):
        return ["true", "false"]
    if isinstance(spec, schema.Integer):
        return ["0", "3", "9007199254740991"]
    if isinstance(spec, schema.Number):
        return ["0", "0.25", "1"]
    if isinstance(spec, schema.Date):
        return ["2030-01-01"]
    if isinstance(spec, schema.Choice):
        return [str(v) for v in spec.values]
    return ["'src/**'", "x", "'[z-a]'", "'^a+$'"]


@st.composite
def schema_manifests(draw: st.DrawFn) -> bytes:
    """Manifests shaped by the schema itself, every key where it belongs, each value valid or
    hostile: a hostile value then reaches the code that reads values of its kind (a number field,
    a glob, a date) instead of failing at an unknown key first."""

    def value(spec: schema.Spec, depth: int) -> str:
        if isinstance(spec, schema.Either):
            return value(draw(st.sampled_from(list(spec.options))), depth)
        if isinstance(spec, schema.Mapping_):
            required = [k for k, f in spec.fields.items() if f.required]
            chosen = draw(st.lists(st.sampled_from(sorted(spec.fields)), unique=True, max_size=4))
            keys = required + [k for k in chosen if k not in required]
            return "{" + ", ".join(f"{k}: {value(spec.fields[k].spec, depth + 1)}" for k in keys) + "}"
        if isinstance(spec, schema.ListOf):
            count = draw(st.integers(0, 3 if depth < 4 else 1))
            return "[" + ", ".join(value(spec.item, depth + 1) for _ in range(count)) + "]"
        if draw(st.integers(0, 3)):
            return draw(st.sampled_from(_valid_scalars(spec)))
        numeric = isinstance(spec, schema.Integer | schema.Number | schema.Choice)
        return draw(st.sampled_from(_NUMBERS if numeric and draw(st.booleans()) else _SCALARS))

    return value(SPEC, 0).encode("utf-8", "surrogatepass")


@fuzz
@given(st.one_of(manifests(), schema_manifests()))
def test_the_manifest_loader(text: bytes) -> None:
    contracts.check_manifest(text)


@fuzz
@given(st.text(max_size=300))
def test_the_manifest_loader_on_any_text(text: str) -> None:
    contracts.check_manifest(text.encode("utf-8", "surrogatepass"))


_GLOB_PIECES = st.sampled_from(
    ["*", "**", "?", "/", "[", "]", "!", "\\", "a", "z-a", "[:alpha:]", " ", "#", ".", "ü"]
)
_REGEX_PIECES = st.sampled_from(
    [
        "(",
        ")",
        "[",
        "]",
        "*",
        "+",
        "?",
        "{2,5}",
        "{1000}",
        "\\",
        "\\pL",
        "(?i)",
        "(?=",
        "|",
        "^",
        "$",
        "a",
        ".",
        "\\1",
    ]
)


@fuzz
@given(st.lists(_GLOB_PIECES, max_size=30).map("".join), st.text(max_size=200))
def test_globs(pattern: str, path: str) -> None:
    contracts.check_glob(pattern, path)


@fuzz
@given(st.lists(_REGEX_PIECES, max_size=30).map("".join), st.binary(max_size=500))
def test_re2_compilation(pattern: str, text: bytes) -> None:
    contracts.check_regex(pattern, text)


_TEXT_LINES = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "\n", " x\n", "a", "é\n", "\r\n"]), max_size=30)


@fuzz
@given(mutated_diffs(), _TEXT_LINES.map("".join))
def test_the_reference_patch_parser_and_applier(patch: bytes, base: str) -> None:
    contracts.check_patch(patch, base)


@fuzz
@given(_TEXT_LINES.map("".join), _TEXT_LINES.map("".join))
def test_a_patch_difflib_writes_applies_exactly(base: str, changed: str) -> None:
    contracts.check_round_trip(base, changed)


_PATHS = st.sampled_from(["a.py", "a.js", "Makefile", "a.c", "NOTICE", "x.sql", "a.md", "s.sh", "a.cs"])
_CODE = st.lists(
    st.sampled_from(
        ["x = 1", "def f(:", '"""', "/*", "*/", "//", "#", "'", "\\", "\t", "${", "<", "a\n", "\n", "é"]
    ),
    max_size=60,
).map("".join)


@fuzz
@given(_PATHS, _CODE, _CODE)
def test_the_token_distance(path: str, left: str, right: str) -> None:
    contracts.check_tokens(path, left, right)


@fuzz
@given(mutated_diffs(), st.one_of(st.none(), manifests()), _CODE)
def test_content_rules_and_the_whole_evaluation(diff: bytes, manifest: bytes | None, head: str) -> None:
    contracts.check_evaluation(diff, manifest, head)


def test_every_seed_is_a_diff_the_parser_reads() -> None:
    assert len(SEEDS) >= 10
    for seed in SEEDS:
        assert contracts.check_diff(seed) is not None
