"""Measure the content rules: precision and recall against labelled examples, findings on clean
code, and speed beside detect-secrets 1.5.0 in the same run.

    .venv/bin/pip install -e '.[bench]' --config-settings editable_mode=compat  # detect-secrets 1.5.0
    .venv/bin/python bench/content_rules.py  # --files N for a quicker, smaller run

Labelled sets (tests/data/secrets/, vendored with their licenses):
- Nosey Parker's rule files: every `examples` entry is a secret, every `negative_examples` entry is
  not one for that rule (some are secrets of another shape, so "negatives flagged" overstates the
  false positives of any broad detector). receipt ports 25 of these rules (the formats gitleaks
  lacks), which gives it the advantage on their examples: the set is also scored without them.
- detect-secrets' own plugin tests: the (payload, should_flag) pairs written as literals. They were
  written for detect-secrets, which therefore starts with an advantage on them; many positives are
  test values (`AKIAZZZZZZZZZZZZZZZZ`), so the set is also scored without those (`placeholder_shaped`).
- bandit's example files for the dangerous-construct rules: the lines its functional tests count
  for the constructs receipt covers (the same table as tests/content/test_pyconstructs.py).

Each example is one new file in one change; both tools read the same diff. Clean corpus: the `.py`
files of the Python standard library on this machine outside its `test` package, as one change of
new files under `Lib/`. Timing: the best of five runs of receipt (one of detect-secrets, which is
slow), on one core, on that same change, the garbage collector set as `receipt check` sets it; MB/s
is of added text (added lines with their newlines). The load average is printed: other processes
on the machine slow every figure alike.
"""

from __future__ import annotations

import argparse
import ast
import gc
import os
import re
import sys
import sysconfig
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.cli import tune_gc
from bot.engine.change import Change, change_from_diff
from bot.engine.content._noseyparker_rules import PORTED
from bot.engine.content.added import AddedFile, added_files
from bot.engine.content.checksums import crc32_base62
from bot.engine.content.dangerous import DangerousRule, worth_parsing
from bot.engine.content.filekinds import Kind
from bot.engine.content.secrets import SecretsRule
from bot.engine.diff import Diff
from bot.engine.findings import Violation
from bot.engine.manifest import Manifest, parse_manifest
from bot.engine.rules import CONTENT_RULES, content_violations
from tests.content.test_pyconstructs import BANDIT_LABELS as CONSTRUCT_LABELS
from tests.datafiles import SECRETS

# The policy the speed runs use: every rule on, and banned patterns to match (one of them built to
# make backtracking engines explode).
SPEED_POLICY = """\
version: 1
content:
  banned:
    - {id: no-requests, pattern: '^\\s*import requests\\b', paths: ["Lib/**"]}
    - {id: no-print, pattern: '\\bprint\\('}
    - {id: nested, pattern: '^(\\w+\\s?)+$'}
  banned_imports:
    - {module: requests}
    - {module: child_process}
"""
NAMES = ("example.txt", "example.cfg", "example.py")
# bandit rates these lines (see the module docstring): the table the tests hold them to, plus the
# declared encoding receipt reports on its own (`python-source-encoding`: latin-1 is no UTF-8).
BANDIT_LABELS: dict[str, set[tuple[str, int]]] = {
    name: set(pairs) for name, pairs in CONSTRUCT_LABELS.items()
} | {"trojansource_latin1.py": {("python-source-encoding", 2)}}


def new_files_diff(files: Iterable[tuple[str, str]]) -> str:
    """A git diff adding each (path, text) as a new file (empty files, which add no line, left out)."""
    out = []
    for path, text in files:
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if not lines:
            continue
        out.append(
            f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..1111111\n"
            f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n"
        )
        out.append("".join(f"+{line}\n" for line in lines))
    return "".join(out)


def receipt_secrets(diff: str) -> list[Violation]:
    return list(SecretsRule().scan(change_from_diff(diff.encode("utf-8", "surrogateescape")), Manifest()))


class DetectSecrets:
    """detect-secrets 1.5.0's scan_diff with its default plugins and filters, minus is_invalid_file
    (which drops every file not on disk, that is every file of a diff)."""

    def __init__(self) -> None:
        from detect_secrets.core import scan
        from detect_secrets.settings import default_settings, get_settings

        self._context = default_settings()
        self._context.__enter__()
        get_settings().disable_filters("detect_secrets.filters.common.is_invalid_file")
        scan.get_filters.cache_clear()
        self._scan_diff = scan.scan_diff

    def findings(self, diff: str) -> list[object]:
        return list(self._scan_diff(diff))


@dataclass
class Score:
    positives: int = 0
    found: int = 0
    negatives: int = 0
    flagged: int = 0

    @property
    def recall(self) -> float:
        return self.found / self.positives if self.positives else 0.0

    @property
    def precision(self) -> float:
        return self.found / (self.found + self.flagged) if self.found + self.flagged else 0.0


def nosey_parker_examples(leave_out: frozenset[str] = frozenset()) -> tuple[list[str], list[str]]:
    """Every rule's examples (positive) and negative examples, but for the rules `leave_out` names."""
    positives: list[str] = []
    negatives: list[str] = []
    for path in sorted((SECRETS / "noseyparker" / "rules").glob("*.yml")):
        for rule in yaml.safe_load(path.read_text("utf-8"))["rules"]:
            if rule["id"] in leave_out:
                continue
            positives += rule.get("examples") or []
            negatives += rule.get("negative_examples") or []
    return positives, negatives


def detect_secrets_examples() -> tuple[list[str], list[str]]:
    """(payload, should_flag) literals from parametrized plugin tests, but for public IPs (not a
    credential) and the heuristic filters' own tests."""
    positives: list[str] = []
    negatives: list[str] = []
    skip = {"ip_public_test.py", "heuristic_filter_test.py"}
    for path in sorted((SECRETS / "detect-secrets" / "plugin_tests").glob("*_test.py")):
        if path.name in skip:
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
                continue
            if "should_flag" not in str(node.args[0].value) or len(node.args) < 2:
                continue
            for pair in getattr(node.args[1], "elts", []):
                try:
                    payload, flag = ast.literal_eval(pair)
                except (ValueError, TypeError, SyntaxError):
                    continue  # built at run time (str.format): not a literal label
                (positives if flag else negatives).append(payload)
    return positives, negatives


_REPEATED = re.compile(r"(.)\1{5,}")


def placeholder_shaped(text: str) -> bool:
    """A test value rather than a credential: a run of six equal characters (`AKIAZZZZZZZZZZZZZZZZ`,
    `AP6xxxxxxxxxx`) or a literal `username:password`. receipt does not report these by design."""
    return _REPEATED.search(text) is not None or "username:password" in text


def score(flags: Callable[[str], bool], positives: Sequence[str], negatives: Sequence[str]) -> Score:
    return Score(
        positives=len(positives),
        found=sum(1 for text in positives if flags(text)),
        negatives=len(negatives),
        flagged=sum(1 for text in negatives if flags(text)),
    )


def labelled_secrets(tool: DetectSecrets | None) -> None:
    ds_positives, ds_negatives = detect_secrets_examples()
    np_positives, np_negatives = nosey_parker_examples()
    not_ported = nosey_parker_examples(leave_out=frozenset(PORTED))
    sets = {
        "Nosey Parker": (np_positives, np_negatives),
        "Nosey Parker, but for the rules receipt ports from it": not_ported,
        "detect-secrets plugin tests": (ds_positives, ds_negatives),
        "detect-secrets plugin tests without placeholders": (
            [p for p in ds_positives if not placeholder_shaped(p)],
            ds_negatives,
        ),
        "both sets together": (np_positives + ds_positives, np_negatives + ds_negatives),
    }
    print("## Secrets: labelled examples (each example one new file)\n")
    print("| set | file name | tool | recall | precision | negatives flagged |")
    print("|---|---|---|---|---|---|")
    for set_name, (positives, negatives) in sets.items():
        for name in NAMES:
            tools: list[tuple[str, Callable[[str], bool]]] = [
                ("receipt", lambda t, n=name: bool(receipt_secrets(new_files_diff([(n, t)]))))
            ]
            if tool is not None:
                tools.append(
                    ("detect-secrets", lambda t, n=name: bool(tool.findings(new_files_diff([(n, t)]))))
                )
            for tool_name, flags in tools:
                s = score(flags, positives, negatives)
                print(
                    f"| {set_name} ({s.positives}+/{s.negatives}-) | {name} | {tool_name} "
                    f"| {s.recall:.1%} ({s.found}) | {s.precision:.1%} | {s.flagged} |"
                )
    print()


def dangerous_on_bandit() -> None:
    examples = sorted((SECRETS / "bandit" / "examples").glob("*.py"))
    found: set[tuple[str, str, int]] = set()
    for path in examples:
        text = path.read_bytes().decode("utf-8", "replace")
        diff = new_files_diff([(path.name, text)])
        found |= {
            (v.path, v.id, v.line or 0)
            for v in DangerousRule().scan(change_from_diff(diff.encode()), Manifest())
        }
    labels = {(name, rule_id, line) for name, pairs in BANDIT_LABELS.items() for rule_id, line in pairs}
    print(f"## Dangerous constructs: bandit's {len(examples)} example files\n")
    print("| construct | labelled | found | true | recall | precision |")
    print("|---|---|---|---|---|---|")
    for construct in sorted({rule_id for _, rule_id, _ in labels | found}):
        want = {x for x in labels if x[1] == construct}
        got = {x for x in found if x[1] == construct}
        hit = len(want & got)
        print(
            f"| {construct} | {len(want)} | {len(got)} | {hit} | {hit / len(want) if want else 0:.0%} "
            f"| {hit / len(got) if got else 0:.0%} |"
        )
    hit = len(labels & found)
    print(
        f"| all | {len(labels)} | {len(found)} | {hit} | {hit / len(labels):.1%} | {hit / len(found):.1%} |"
    )
    for extra in sorted(found - labels):
        print(f"- not labelled: {extra}")
    for missed in sorted(labels - found):
        print(f"- missed: {missed}")
    print()


# str.splitlines breaks lines at these too, and so does unidiff inside detect-secrets, which then
# cannot parse the diff: the corpus has them replaced by spaces, for both tools alike.
_LINE_BREAKS = str.maketrans(dict.fromkeys("\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029", " "))


def stdlib_corpus(limit: int | None) -> str:
    root = Path(sysconfig.get_paths()["stdlib"])
    paths = sorted(
        p for p in root.rglob("*.py") if p.relative_to(root).parts[0] not in ("test", "site-packages")
    )
    paths = paths[:limit] if limit else paths
    texts = ((p.relative_to(root).as_posix(), p.read_text("utf-8", "replace")) for p in paths)
    return new_files_diff((f"Lib/{name}", text.translate(_LINE_BREAKS)) for name, text in texts)


def best_of(
    runs: int, work: Callable[..., object], setup: Callable[[], object] | None = None
) -> tuple[float, object]:
    """The least time of `runs` runs of `work` (given, when there is a `setup`, what an untimed call
    of it returns each run). What the process already holds (the other tool's modules, the corpus)
    is frozen out of the garbage collector's passes first: otherwise each run's collections walk it
    too, and a figure depends on what ran before it (seen: a third slower after detect-secrets'
    labelled runs)."""
    gc.collect()
    gc.freeze()
    best, result = float("inf"), None
    for _ in range(runs):
        arguments = () if setup is None else (setup(),)
        started = time.perf_counter()
        result = work(*arguments)
        best = min(best, time.perf_counter() - started)
    return best, result


def clean_corpus_and_speed(tool: DetectSecrets | None, limit: int | None) -> None:
    load = os.getloadavg()
    tune_gc()  # the collector as `receipt check` sets it, which every figure below then measures
    diff = stdlib_corpus(limit)
    data = diff.encode("utf-8", "surrogateescape")
    change = change_from_diff(data)
    files = added_files(change)
    added = sum(len(f.data) + 1 for file in files for f in file.fragments)
    lines = change.diff.added
    manifest = parse_manifest(SPEED_POLICY)

    def secrets_only(c: Change = change) -> list[Violation]:
        return list(SecretsRule().scan(c, manifest))

    def all_rules(policy: Manifest = manifest, diff: Diff = change.diff) -> list[Violation]:
        fresh = Change(diff, change.digest, change.texts)  # fragments rebuilt each run, once for all rules
        built = added_files(fresh)
        return [v for rule in CONTENT_RULES for v in rule.scan(fresh, policy, built, built)]

    secrets_only()  # compile the ruleset before timing

    def built() -> tuple[Change, tuple[AddedFile, ...]]:
        """A fresh change and its added text built (untimed), with no prefilter answer yet."""
        fresh = Change(change.diff, change.digest, change.texts)
        return fresh, added_files(fresh)

    t_build, _ = best_of(5, lambda: added_files(Change(change.diff, change.digest, change.texts)))
    per_rule = {
        type(rule).__name__: best_of(5, lambda cf, r=rule: list(r.scan(cf[0], manifest, cf[1], cf[1])), built)
        for rule in CONTENT_RULES
    }
    t_secrets, found = best_of(5, lambda: secrets_only(Change(change.diff, change.digest, change.texts)))
    t_all, everything = best_of(5, all_rules)
    t_default, _ = best_of(5, lambda: all_rules(Manifest()))
    # The same scan on the files dangerous must parse (a candidate construct in their added text)
    # and on the others: where the time goes.
    parsed = {f.path for f in files if f.kind is Kind.PYTHON and worth_parsing(f)}
    split: dict[str, tuple[int, float, float]] = {}
    for name, keep in (("with", True), ("without", False)):
        part = Diff(tuple(f for f in change.diff.files if (f.path in parsed) == keep))
        size = sum(len(f.data) + 1 for file in added_files(Change(part, "")) for f in file.fragments)
        seconds, _ = best_of(5, lambda d=part: all_rules(Manifest(), d))
        split[name] = (len(part.files), size, seconds)
    t_end_to_end, _ = best_of(5, lambda: secrets_only(change_from_diff(data)))
    whole_files = DangerousRule(parse_whole_files=True)
    t_whole, whole_found = best_of(5, lambda: list(whole_files.scan(change, manifest, files, files)))
    assert isinstance(found, list) and isinstance(everything, list)

    print(f"## Clean corpus: Python {sys.version.split()[0]} standard library outside `test`\n")
    print(f"{len(change.diff.files)} new files, {lines:,} added lines, {added / 1e6:.1f} MB of added text.\n")
    print(f"- receipt secret findings: **{len(found)}**")
    for v in found:
        print(f"  - {v.path}:{v.line} {v.id}")
    ds_time = None
    if tool is not None:
        ds_time, ds_found = best_of(1, lambda: tool.findings(diff))
        assert isinstance(ds_found, list)
        print(f"- detect-secrets 1.5.0 findings: **{len(ds_found)}**")
    print(
        "- other content findings (not secrets; the standard library does use eval, pickle, "
        "subprocess and noqa, and the speed policy bans `print(`): "
        + ", ".join(
            f"{rule}: {len(v)}"
            for rule, (_, v) in per_rule.items()
            if rule != "SecretsRule" and isinstance(v, list)
        )
    )
    selected_found = per_rule["DangerousRule"][1]
    print(
        "- dangerous findings the same as parsing each candidate file whole (the reference): "
        + ("**yes**" if selected_found == whole_found else "**NO**")
    )
    print("\n## Speed (one core, same added lines)\n")
    print("Load average before timing: " + ", ".join(f"{x:.2f}" for x in load) + ".\n")
    print("| what | seconds | MB/s of added text | µs per added line |")
    print("|---|---|---|---|")

    def row(name: str, seconds: float) -> None:
        print(f"| {name} | {seconds:.3f} | {added / 1e6 / seconds:.1f} | {seconds / lines * 1e6:.2f} |")

    row("receipt, building the added text of the parsed change (every rule reads it)", t_build)
    row("receipt, secrets (content.secrets) on the parsed change", t_secrets)
    row("receipt, secrets, from diff bytes (parsing the diff included)", t_end_to_end)
    row(
        "receipt, the content scan as installed (default policy: no banned patterns) on the parsed change",
        t_default,
    )
    for name, (count, size, seconds) in split.items():
        print(
            f"| … on the {count} files {name} a candidate construct for `dangerous` to parse "
            f"({size / 1e6:.1f} MB) | {seconds:.3f} | {size / 1e6 / seconds:.1f} | |"
        )
    row("receipt, all six content rules (three banned patterns, two banned imports), parsed change", t_all)
    for name, (seconds, _) in per_rule.items():
        row(f"receipt, {name} alone, the added text built", seconds)
    row("receipt, DangerousRule parsing each candidate file whole (the reference)", t_whole)
    if ds_time is not None:
        row("detect-secrets 1.5.0 scan_diff (from diff text)", ds_time)
        print(
            f"\ndetect-secrets / receipt secrets: **{ds_time / t_secrets:.0f}×** on the parsed change, "
            f"**{ds_time / t_end_to_end:.0f}×** from diff bytes (both parse the same diff with unidiff)."
        )
    print()


_RANDOM30 = "q7Zt2LmW9xK4pR8vN3bC6yF1hJ5sD0"
TOKEN = f"ghp_{_RANDOM30}{crc32_base62(_RANDOM30)}"
HOSTILE_POLICY = """\
version: 1
content:
  banned:
    - {id: nested, pattern: '^(a+)+$', paths: [input.txt]}
    - {id: alternation, pattern: '(a|aa)*c', paths: [input.txt]}
    - {id: quadratic, pattern: '(x+x+)+y', paths: [input.txt]}
  banned_imports:
    - {module: requests}
"""


def _replaced(path: str, old: bytes, new: bytes) -> bytes:
    """A diff replacing every line of `old` (lines ending in newlines) by `new`, in one hunk."""
    count_old, count_new = old.count(b"\n"), new.count(b"\n")
    header = f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n"
    header += f"--- a/{path}\n+++ b/{path}\n@@ -1,{count_old} +1,{count_new} @@\n"
    removed = b"".join(b"-" + line + b"\n" for line in old.split(b"\n")[:count_old])
    return header.encode() + removed + b"".join(b"+" + line + b"\n" for line in new.split(b"\n")[:count_new])


def _one_file(path: str, data: bytes) -> bytes:
    """A diff adding `data` (lines ending in newlines) as the new file `path`, bytes as they are."""
    count = data.count(b"\n")
    header = f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..1111111\n"
    header += f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{count} @@\n"
    return header.encode() + b"".join(b"+" + line + b"\n" for line in data.split(b"\n")[:count])


# Each builds a change at scale k (k = 1: the size the issue names); linear time doubles from 1 to 2.
HOSTILE: dict[str, Callable[[int], bytes]] = {
    "a line of 1 MB (JavaScript, one eval, one token)": lambda k: _one_file(
        "big.js", ("let a = 1; " * 95_000 * k + f'const t = "{TOKEN}"; eval(x);\n').encode()
    ),
    "a line of 1 MB of matches (eval, it.skip)": lambda k: _one_file(
        "big.test.js", ("eval(x); it.skip(y); " * 50_000 * k + "\n").encode()
    ),
    "a Python file of 100,000 added lines": lambda k: _one_file(
        "huge.py",
        "".join(
            "result = eval(expression)\n" if i == 50_000 else f"value_{i} = {i}\n" for i in range(100_000 * k)
        ).encode(),
    ),
    "NUL bytes (100,000 lines)": lambda k: _one_file(
        "blob.dat", b"a\x00b\x00c\n" * 100_000 * k + f"token = {TOKEN}\x00\n".encode()
    ),
    "invalid UTF-8 (100,000 lines)": lambda k: _one_file(
        "latin1.py",
        b"x = '\xed\xa0\x80\xff'  # caf\xe9\n" * 50_000 * k + b"eval(x)\n" + b"\xff\xfe\n" * 50_000 * k,
    ),
    "a Python file of 100,000 eval calls (the worst case: every statement parsed)": lambda k: _one_file(
        "evals.py", b"x = 'abc'; eval(x)\n" * 100_000 * k
    ),
    "100,000 kept markers (every line with a `# noqa` edited, the marker kept)": lambda k: _replaced(
        "kept.py",
        "".join(f"value_{i} = {i}  # noqa: E501\n" for i in range(100_000 * k)).encode(),
        "".join(f"value_{i} = {i + 1}  # noqa: E501\n" for i in range(100_000 * k)).encode(),
    ),
    "a Python file of 100,000 mixed-script identifiers (every line tokenized)": lambda k: _one_file(
        "mixed.py", "".join(f"p\u0430ypal_{i} = {i}\n" for i in range(100_000 * k)).encode()
    ),
    "a Python file of 100,000 imports of a banned module": lambda k: _one_file(
        "imports.py", "".join(f"import requests.m{i}\n" for i in range(100_000 * k)).encode()
    ),
    "a shell line of 1 MB of assignments (alias and variable uses)": lambda k: _one_file(
        "assign.sh", b"alias e=eval\nv=eval\n: ;" + b"X=e v=x " * 125_000 * k + b'e "$x"; $v "$y"\n'
    ),
    "patterns that explode backtracking engines (200,000 characters a line)": lambda k: _one_file(
        "input.txt", b"a" * 200_000 * k + b"!\n" + b"x" * 200_000 * k + b"\n" + b"a" * 30 + b"\n"
    ),
}


def hostile_inputs() -> None:
    """Each hostile change at scale 1 and 2, parsed and scanned by every content rule (the hostile
    patterns as banned patterns): the ratio of the times is about 2 for linear work, 4 for quadratic.
    The garbage collector is set as `receipt check` sets it: with the default thresholds, a change
    that makes a million syntax-tree nodes is collected over and over, and the more it holds the
    longer each pass (a ratio near 3 for a linear scan)."""
    policy = parse_manifest(HOSTILE_POLICY)
    tune_gc()

    def scan(diff: bytes) -> list[Violation]:
        return content_violations(change_from_diff(diff), policy)

    print("## Hostile input (diff parse and all six rules, best of three, collector as in receipt check)\n")
    print("| input | size | seconds | at twice the size | ratio | findings |")
    print("|---|---|---|---|---|---|")
    for name, build in HOSTILE.items():
        once, twice = build(1), build(2)
        t1, found = best_of(3, lambda d=once: scan(d))
        t2, _ = best_of(3, lambda d=twice: scan(d))
        assert isinstance(found, list)
        # A file lists its first 100 findings of a rule and counts the rest in one more ("more").
        ids = Counter(v.id for v in found)
        listed = ", ".join(f"{rule_id} ×{n}" if n > 1 else rule_id for rule_id, n in sorted(ids.items()))
        print(f"| {name} | {len(once) / 1e6:.1f} MB | {t1:.3f} | {t2:.3f} | {t2 / t1:.2f} | {listed} |")
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, help="only the first N files of the clean corpus")
    parser.add_argument("--no-detect-secrets", action="store_true", help="receipt only")
    args = parser.parse_args(argv)
    tool = None if args.no_detect_secrets else DetectSecrets()
    labelled_secrets(tool)
    dangerous_on_bandit()
    clean_corpus_and_speed(tool, args.files)
    hostile_inputs()
    return 0


if __name__ == "__main__":
    sys.exit(main())
