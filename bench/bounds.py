"""Hostile inputs against a named baseline in the same run: what the limits of bot/engine/bounds.py
buy. Run: `.venv/bin/python bench/bounds.py [PART...]` (every part: a few minutes on one core).

`distance` compares the token distance with rapidfuzz's whole table (what every comparison was
before MAX_EDIT_CELLS); `memory` runs `receipt check` on generated repositories and prints each
run's peak resident memory, and with `--tree DIR` runs another checkout's receipt instead (its own
`.venv` if it has one), to compare two versions on the same inputs.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from rapidfuzz.distance import Levenshtein

from bot.engine.change import change_from_diff
from bot.engine.content.added import AddedFile, added_files
from bot.engine.content.secrets import default_scanner, file_findings
from bot.engine.distance import edit_count, layout_count
from bot.engine.globs import compile_glob
from bot.engine.patching import apply_file, parse_reference
from bot.engine.tokens import Tokenizer

ROOT = Path(__file__).resolve().parents[1]


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def _added(lines: list[str]) -> bytes:
    body = "".join("+" + line + "\n" for line in lines)
    header = "diff --git a/c.py b/c.py\nnew file mode 100644\nindex 0000000..1111111\n"
    return f"{header}--- /dev/null\n+++ b/c.py\n@@ -0,0 +1,{len(lines)} @@\n{body}".encode()


def _file(data: bytes) -> AddedFile:
    (file,) = list(added_files(change_from_diff(data)))
    return file


def secrets() -> None:
    scanner = default_scanner()
    n = range(20_000)
    cases = {
        "clean code (baseline)": [f"value_{i} = compute(value_{i - 1}, {i})" for i in n],
        "a candidate per line": [f'token_{i} = "Zx9{i:06d}qWeRtYuIoP"' for i in n],
        "a stopword candidate per line": [f'apikey_{i} = "accessorZx9{i:06d}qWe"' for i in n],
        # each password runs past its literal: read again inside it (literals.py)
        "a netrc literal per line": [f'w("machine h{i}.io login u password Xk9{i:06d}qW\\n")' for i in n],
        "a URL credential per line": [f'u_{i} = "https://u:Xk9{i:06d}qW@h{i}.example.com/"' for i in n],
    }
    base = None
    for name, lines in cases.items():
        data = _added(lines)
        file_findings(scanner, _file(data))  # compiles what the case needs
        file = _file(data)  # fresh: a fragment's prefilter answers are memoized
        took = timed(lambda: file_findings(scanner, file))  # noqa: B023
        rate = len(data) / 1024 / took
        base = base or took
        print(f"  secrets, {name:<30} {rate:8.0f} KB/s, {took / len(lines) * 1e6:5.1f} us a line", end=" ")
        print(f"({took / base:.0f}x the baseline's time)")


def diff_memory() -> None:
    typical = "    value = compute(value, 1)  # a typical line of code"
    for name, line in (("60-byte lines", typical), ("1-byte lines", "x")):
        data = _added([line] * 200_000)
        tracemalloc.start()
        change_from_diff(data)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        size = f"{len(data) / 1e6:5.1f} MB -> peak {peak / 1e6:5.1f} MB"
        print(f"  diff parse, {name:<14} {size} ({peak / len(data):.1f}x)")


def far_hunk() -> None:
    base = "x\n" * 100_000
    near = parse_reference(b"--- a/f\n+++ b/f\n@@ -50000,1 +50000,1 @@\n-x\n+y\n", "p").diff.files[0]
    far = parse_reference(b"--- a/f\n+++ b/f\n@@ -99999,2 +99999,2 @@\n x\n-z\n+y\n", "p").diff.files[0]
    t_near = timed(lambda: apply_file(base, near))

    def missing() -> None:
        with contextlib.suppress(ValueError):
            apply_file(base, far)

    t_far = timed(missing)
    print(f"  patch on 100,000 lines: hunk in place {t_near * 1e3:.1f} ms (baseline),", end=" ")
    print(f"hunk found nowhere {t_far * 1e3:.1f} ms")


def globs() -> None:
    hostile = compile_glob("*a" * 20 + "*b")
    plain = compile_glob("src/**/*.py")
    path = "a" * 4000
    t_plain = timed(lambda: [plain.match_file(path) for _ in range(100)])
    t_hostile = timed(lambda: [hostile.match_file(path) for _ in range(100)])
    print(f"  glob x100 on a 4,000-character name: src/**/*.py {t_plain * 1e3:.1f} ms (baseline),", end=" ")
    print(f"*a*a...*b {t_hostile * 1e3:.1f} ms")


def lexers() -> None:
    from pygments.lexers import find_lexer_class

    cases = [
        ("Makefile", "Makefile", "x " * 4000),
        ("a.cs", "C#", "a\n" * 2000),
        ("site.conf", "ApacheConf", "<" * 4000),
    ]
    for path, lexer, text in cases:
        cls = find_lexer_class(lexer)
        assert cls is not None
        list(cls().get_tokens("x"))  # its regexes compiled
        t_pygments = timed(lambda: list(cls().get_tokens(text)))  # noqa: B023
        t_ours = timed(lambda: Tokenizer().pair(path, text, text + "x"))  # noqa: B023
        print(
            f"  {len(text):,} chars of {text[:2]!r} as {path}: Pygments {t_pygments:.3f} s (baseline),",
            end=" ",
        )
        print(f"line lexer {t_ours:.4f} s")


def _tokens(count: int, seed: int) -> list[str]:
    """Lines of Python-like code, `count` tokens: names from a vocabulary, shared punctuation."""
    rng = random.Random(seed)
    words = [f"name{i}" for i in range(3000)]
    out: list[str] = []
    while len(out) < count:
        out += [rng.choice(words) for _ in range(rng.randint(2, 6))] + ["=", "(", ")", "\n"]
    return out[:count]


def _edited(tokens: list[str], edits: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = list(tokens)
    for _ in range(edits):
        out[rng.randrange(len(out))] = "edited"
    return out


def distance() -> None:
    """One file's token distance, as the excess field reads it (the count and the written view's
    alignment), against rapidfuzz's whole table, which is what every comparison was before."""
    for count in (75_000, 150_000, 300_000):
        left = _tokens(count, 1)
        cases = {"a rewrite": _tokens(count, 2), "1% of tokens edited": _edited(left, count // 100, 3)}
        for name, right in cases.items():
            ids: dict[str, int] = {}
            a, b = [ids.setdefault(t, len(ids)) for t in left], [ids.setdefault(t, len(ids)) for t in right]
            whole = timed(lambda: Levenshtein.distance(a, b))  # noqa: B023
            exact = Levenshtein.distance(a, b)
            found = edit_count(left, right)
            t_count = timed(lambda: edit_count(left, right))  # noqa: B023
            blanks = [" "] * len(left)
            t_layout = timed(lambda: layout_count(left, blanks, right, blanks))  # noqa: B023
            how = "in blocks" if found.estimated else "exact"
            print(f"  {count:,} tokens, {name:<20} whole table {whole:6.2f} s (baseline); now count", end=" ")
            print(f"{t_count:5.2f} s + alignment {t_layout:5.2f} s, {how}:", end=" ")
            print(f"{found.edits:,} edits (exact {exact:,})")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def _peak(tree: Path, base: dict[str, str], head: dict[str, str]) -> tuple[float, float, int]:
    """`receipt check` of a pull request that changes `base` into `head`, run from `tree`: seconds,
    peak resident memory in MB (of the process and the children it waited for), exit status."""
    with tempfile.TemporaryDirectory() as scratch:
        repo = Path(scratch)
        _git(repo, "init", "-q", "-b", "main")
        _git(repo, "config", "user.email", "bench@example.com")
        _git(repo, "config", "user.name", "bench")
        for files, message in ((base, "base"), (head, "pr")):
            if message == "pr":
                _git(repo, "checkout", "-q", "-b", "pr")
            for name, text in {"README": "x\n", **files}.items():
                (repo / name).write_text(text)
            _git(repo, "add", "-A")
            _git(repo, "commit", "-qm", message)
        python = tree / ".venv" / "bin" / "python"
        command = [str(python if python.exists() else sys.executable), "-m", "bot.cli", "check"]
        command += ["--repo", str(repo), "--base", "main", "--head", "pr", "--no-tests", "--json", os.devnull]
        start = time.perf_counter()
        child = subprocess.Popen(command, cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)},
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        _, status, usage = os.wait4(child.pid, 0)
        return time.perf_counter() - start, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def memory(tree: Path = ROOT) -> None:
    """Peak memory of whole receipts on what the limits allow: one-line files (a string literal),
    a new file of a million lines, a diff of a million lines, and the 4 rewritten 2 MiB files of the
    distance bound."""

    def line(megabytes: int) -> str:
        return "k = '" + "abcd efgh " * 100_000 * megabytes + "'\n"

    code = "".join(f"v{i % 997} = foo(a, b{i % 13}) + bar[c] * 3\n" for i in range(990_000))
    half = (2 << 20) // 4 - 2
    cases = {
        "one line of 8 MB": ({}, {"conf.py": line(8)}),
        "one line of 32 MB": ({}, {"conf.py": line(32)}),
        "one line of 60 MB": ({}, {"conf.py": line(60)}),
        "a new file of 990,000 lines (35 MB)": ({"big.txt": "start\n"}, {"big.txt": "start\n" + code}),
        "499,000 lines rewritten (a diff of 1M lines)": (
            {"x.txt": "".join(f"a{i} = f(x)\n" for i in range(499_000))},
            {"x.txt": "".join(f"b{i} = f(x)\n" for i in range(499_000))},
        ),
        "4 files of 2 MiB rewritten": (
            {f"f{i}.txt": "a b " * half for i in range(4)},
            {f"f{i}.txt": "c d " * half for i in range(4)},
        ),
    }
    for name, (base, head) in cases.items():
        took, peak, status = _peak(tree, base, head)
        print(f"  receipt check, {name:<44} {took:6.1f} s, peak {peak:6.0f} MB (exit {status})")


PARTS: dict[str, Callable[[], None]] = {
    "secrets": secrets,
    "diff_memory": diff_memory,
    "far_hunk": far_hunk,
    "globs": globs,
    "lexers": lexers,
    "distance": distance,
    "memory": memory,
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("parts", nargs="*", help=f"parts to run, of {', '.join(PARTS)} (default: all)")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose receipt `memory` runs")
    args = parser.parse_args(argv)
    unknown = [name for name in args.parts if name not in PARTS]
    if unknown:
        parser.error(f"no part {unknown[0]!r}")
    for name in args.parts or list(PARTS):
        if name == "memory":
            memory(args.tree.resolve())
        else:
            PARTS[name]()


if __name__ == "__main__":
    main()
