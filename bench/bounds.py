"""Hostile inputs against a named baseline in the same run: what the limits of bot/engine/bounds.py
buy. Run: `.venv/bin/python bench/bounds.py` (about a minute on one core)."""

from __future__ import annotations

import contextlib
import time
import tracemalloc
from collections.abc import Callable

from bot.engine.change import change_from_diff
from bot.engine.content.added import AddedFile, added_files
from bot.engine.content.secrets import default_scanner, file_findings
from bot.engine.globs import compile_glob
from bot.engine.patching import apply_file, parse_reference
from bot.engine.tokens import Tokenizer


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


def main() -> None:
    for part in (secrets, diff_memory, far_hunk, globs, lexers):
        part()


if __name__ == "__main__":
    main()
