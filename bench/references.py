"""What `references` adds to a receipt on a typical change: the same check with it on and off.

    .venv/bin/python bench/references.py [--repeat N] [--modules N]

Builds a synthetic repository of Python packages (by default 400 modules of about 60 lines, each
importing and calling functions and methods of others, as an application's code does) and a change
that edits five of them: one renames a function, one drops a keyword argument, one adds a required
parameter to a method, two edit bodies only. In the same run and each in its own process, it times
`receipt check --no-tests` with `tests.references: false` (the baseline) and with the check on,
interpreter start included, and prints the added time as a fraction of the receipt's. It then times
the two steps in-process: reading the head tree's modules (`python_tree`) and the analysis
(`analyze`), beside `evaluate` as a whole.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.receipt_check import measure

_GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}  # fmt: skip
_PACKAGES = 20


def _git(root: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | _GIT_ENV
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def _module(i: int, modules: int, *, edited: bool = False, shared: bool = False) -> str:
    """Module i: a class and three functions, calling into the two modules before it. Names are
    the module's own (`load_7`), as in an application; `shared` gives every module the same names
    (`load`, `put`), so every module mentions what changed: the worst case for the prefilter."""
    a, b = (i - 1) % modules, (i - 2) % modules
    own = "" if shared else f"_{i}"
    of_a, of_b = ("", "") if shared else (f"_{a}", f"_{b}")
    pa, pb = a % _PACKAGES, b % _PACKAGES
    rename = edited and i == 0
    keyword = edited and i == 1
    required = edited and i == 2
    body_only = edited and i in (3, 4)
    load = f"load_data{own}" if rename else f"load{own}"
    encoding = "" if keyword else 'encoding="utf-8", '
    ttl = ", *, ttl" if required else ""
    lines = [
        f'"""Module {i}."""\n\nfrom app.pkg{pa}.mod{a} import load{of_a} as load_{a}, Store as Store_{a}\n',
        f"from app.pkg{pb} import mod{b}\nfrom . import helpers\n\n\n",
        "class Store:\n    def __init__(self, name, size=1):\n",
        "        self.name = name\n        self.size = size\n\n",
        f"    def put{own}(self, key, value{ttl}):\n        return (key, value)\n\n",
        "    def get(self, key, default=None):\n        return default\n\n\n",
        f"def {load}(path, {encoding}strict=False):\n",
        f"    return helpers.clean(path){' + 1' if body_only else ''}\n\n\n",
        f"def save{own}(store, key, value):\n    store.put{own}(key, value)\n    return store.get(key)\n\n\n",
        f"def run(paths):\n    store = Store_{a}('s', size=2)\n",
        f"    for path in paths:\n        value = load_{a}(path, encoding='utf-8')\n",
        f"        store.put{of_a}(path, value)\n        mod{b}.save{of_b}(store, path, value)\n",
        f"    return {'[p for p in paths]' if body_only else 'store'}\n",
    ]
    return "".join(lines)


def build(root: Path, modules: int, *, shared: bool = False) -> None:
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    (root / "app").mkdir()
    (root / "app" / "__init__.py").write_text("")
    for p in range(_PACKAGES):
        package = root / "app" / f"pkg{p}"
        package.mkdir()
        (package / "__init__.py").write_text("")
        (package / "helpers.py").write_text("def clean(path):\n    return path\n")
    for i in range(modules):
        (root / "app" / f"pkg{i % _PACKAGES}" / f"mod{i}.py").write_text(_module(i, modules, shared=shared))
    (root / ".github").mkdir()
    (root / ".github" / "receipt.yml").write_text("version: 1\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    _git(root, "checkout", "-q", "-b", "off")
    (root / ".github" / "receipt.yml").write_text("version: 1\ntests:\n  references: false\n")
    _git(root, "commit", "-q", "-am", "references off")
    _git(root, "checkout", "-q", "-b", "pr", "main")
    for branch in ("pr", "off-pr"):
        if branch == "off-pr":
            _git(root, "checkout", "-q", "-b", branch, "off")
        for i in range(5):
            path = root / "app" / f"pkg{i % _PACKAGES}" / f"mod{i}.py"
            path.write_text(_module(i, modules, edited=True, shared=shared))
        _git(root, "commit", "-q", "-am", "change five modules")


def _in_process(root: Path) -> dict[str, float]:
    from bot.engine import evaluate
    from bot.engine.references.analysis import analyze
    from bot.gather import Request, Revisions, gather
    from bot.gather.core import python_tree
    from bot.local.git import Git
    from bot.local.source import LocalSource

    git = Git.open(root)
    head, base = git.resolve("pr"), git.resolve("main")
    revisions = Revisions(base, head, git.merge_base(base, head))
    source = LocalSource(git)
    started = time.perf_counter()
    inputs = gather(source, revisions, git.diff(revisions.merge_base, head), Request())
    gathered = time.perf_counter() - started
    assert inputs.python is not None
    started = time.perf_counter()
    python_tree(source, inputs.change, inputs.manifest, head)
    read = time.perf_counter() - started
    started = time.perf_counter()
    result = analyze(inputs.change, inputs.python)
    analysis = time.perf_counter() - started
    started = time.perf_counter()
    receipt = evaluate(inputs)
    evaluated = time.perf_counter() - started
    assert result is not None and receipt.references is not None
    return {
        "gather": gathered, "read": read, "analyze": analysis, "evaluate": evaluated,
        "findings": len(result.findings), "readers": result.readers,
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--modules", type=int, default=400)
    parser.add_argument("--shared-names", action="store_true", help="every module uses the changed names")
    args = parser.parse_args()
    command = [sys.executable, "-m", "bot.cli", "check", "--no-tests", "--json", os.devnull]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, median of {args.repeat} runs")
    with tempfile.TemporaryDirectory(prefix="receipt-bench-") as scratch:
        root = Path(scratch) / "repo"
        build(root, args.modules, shared=args.shared_names)
        off = [measure([*command, "--base", "off", "--head", "off-pr"], root) for _ in range(args.repeat)]
        on = [measure([*command, "--base", "main", "--head", "pr"], root) for _ in range(args.repeat)]
        off_s, on_s = statistics.median(r.seconds for r in off), statistics.median(r.seconds for r in on)
        kind = "names every module uses" if args.shared_names else "names of their own"
        print(
            f"{args.modules} modules ({kind}), 5 changed: receipt check without references {off_s:.3f} s, ",
            end="",
        )
        print(f"with {on_s:.3f} s: +{on_s - off_s:.3f} s, {(on_s - off_s) / on_s:.1%} of the receipt's time")
        steps = [_in_process(root) for _ in range(args.repeat)]
        keys = ("gather", "read", "analyze", "evaluate")
        middle = {k: statistics.median(s[k] for s in steps) for k in keys}
        print(
            "in-process: gather {gather:.3f} s (of which reading the tree's modules {read:.3f} s), "
            "evaluate {evaluate:.3f} s (of which analyze {analyze:.3f} s)".format(**middle)
        )
        print(f"findings {steps[0]['findings']}, modules read as callers {steps[0]['readers']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
