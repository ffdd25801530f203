"""The edit-fidelity corpus (400 tasks of "When Models Edit Too Much") and the variants built from it.

Shared by the acceptance tests and `bench/edit_fidelity.py`. For every task, C (the buggy version)
sits in one base commit and each variant is a branch changing only that task's file:

- `gold/N`: the head holds G, the canonical fix;
- `reformatted/N`: G with other quotes, spacing, wrapping and comments (same AST);
- `guard/N`: G with a guard clause added at the top of `task_func`.
"""

from __future__ import annotations

import ast
import io
import json
import os
import subprocess
import tokenize
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.datafiles import EDIT_FIDELITY

TASKS_FILE = EDIT_FIDELITY / "corrupted_solutions_manual_easy_400.jsonl"
VECTORS_FILE = EDIT_FIDELITY / "vectors-py311.jsonl"
VARIANTS = ("gold", "reformatted", "guard")
_STAMP = "1767225600 +0000"  # fixed dates: the same corpus gives the same commits


@dataclass(frozen=True)
class Task:
    task_id: str
    buggy: str  # C
    gold: str  # G

    @property
    def path(self) -> str:
        return "tasks/" + self.task_id.lower().replace("/", "_") + ".py"

    @property
    def slug(self) -> str:
        return self.task_id.rsplit("/", 1)[-1]


def load_tasks() -> list[Task]:
    with TASKS_FILE.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return [Task(r["task_id"], r["corrupted_solution"], r["canonical_solution"]) for r in rows]


def load_vectors() -> dict[str, dict[str, float]]:
    with VECTORS_FILE.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return {r["task_id"]: r for r in rows}


# --- variants -------------------------------------------------------------------------------------


def _offsets(text: str) -> list[int]:
    """Offsets of tokenize's rows (1-based), with one more for the end marker after the last line."""
    starts = [0, 0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    return [*starts, len(text)]


def _swap_quotes(token: str) -> str:
    """'x' <-> "x" for a one-line string literal whose body holds no quote or backslash."""
    prefix = token[: len(token) - len(token.lstrip("rRbBuUfF"))]
    body = token[len(prefix) :]
    if len(body) < 2 or body[:3] in ("'''", '"""') or body[0] != body[-1]:
        return token
    inner = body[1:-1]
    if any(c in inner for c in "'\"\\\n"):
        return token
    other = '"' if body[0] == "'" else "'"
    return f"{prefix}{other}{inner}{other}"


def reformat(source: str) -> str:
    """The same program written differently: quotes swapped, spaces added, a call wrapped, comments."""
    starts = _offsets(source)
    edits: list[tuple[int, int, str]] = []
    depth = 0
    wrapped_line = 0
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        start = starts[tok.start[0]] + tok.start[1]
        end = starts[tok.end[0]] + tok.end[1]
        if tok.type == tokenize.STRING:
            swapped = _swap_quotes(tok.string)
            if swapped != tok.string:
                edits.append((start, end, swapped))
        elif tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
            edits.append((end, end, " "))
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth -= 1
            edits.append((start, start, " "))
        elif tok.type == tokenize.OP and tok.string == "," and depth and wrapped_line != tok.start[0]:
            wrapped_line = tok.start[0]
            edits.append((end, end, "\n" + " " * 12))
        elif tok.type == tokenize.NEWLINE:
            edits.append((start, start, "  # reformatted"))
    out = source
    for start, end, text in sorted(edits, reverse=True):
        out = out[:start] + text + out[end:]
    return "# Reformatted: quotes, spacing, wrapping and comments only.\n\n" + out


def _task_func(tree: ast.Module) -> ast.FunctionDef:
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "task_func")


def add_guard(source: str) -> str:
    """G with `if ARG is None: raise ValueError(...)` before the first statement of task_func."""
    with warnings.catch_warnings():  # the corpus has invalid escapes in non-raw strings
        warnings.simplefilter("ignore")
        func = _task_func(ast.parse(source))
    body = func.body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and len(body) > 1:
        body = body[1:]
    first = body[0]
    lines = source.splitlines(keepends=True)
    line = lines[first.lineno - 1]
    indent = line[: len(line) - len(line.lstrip())]
    unit = "\t" if "\t" in indent else "    "
    params = [a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)]
    test = f"{params[0]} is None" if params else "not __debug__"
    guard = f"{indent}if {test}:\n{indent}{unit}raise ValueError('guard: {test}')\n"
    return "".join([*lines[: first.lineno - 1], guard, *lines[first.lineno - 1 :]])


def variant(task: Task, name: str) -> str:
    if name == "gold":
        return task.gold
    if name == "reformatted":
        return reformat(task.gold)
    return add_guard(task.gold)


# --- the repository -------------------------------------------------------------------------------


def _data(payload: bytes) -> Iterator[bytes]:
    yield b"data %d\n" % len(payload)
    yield payload
    yield b"\n"


def _commit(ref: str, mark: int, message: str, parent: int | None, files: dict[str, int]) -> Iterator[bytes]:
    yield f"commit {ref}\nmark :{mark}\n".encode()
    for role in ("author", "committer"):
        yield f"{role} Corpus <corpus@example.com> {_STAMP}\n".encode()
    yield from _data(message.encode())
    if parent is not None:
        yield f"from :{parent}\n".encode()
    for path, blob in sorted(files.items()):
        yield f"M 100644 :{blob} {path}\n".encode()


def _git(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | {
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": "/nonexistent",
        "LC_ALL": "C",
    }
    done = subprocess.run(["git", *args], cwd=root, env=env, input=stdin, capture_output=True, check=False)
    if done.returncode:
        raise RuntimeError(f"git {' '.join(args)} failed: {done.stderr.decode()}")
    return done.stdout


def build_repository(root: Path, tasks: list[Task], variants: tuple[str, ...] = VARIANTS) -> Path:
    """One repository: C of every task on `main`, a branch `VARIANT/N` per task and variant.

    Written by one `git fast-import`, then `patches/N.patch` holds `git diff main gold/N` for each
    task: the reference patch C → G as git writes it.
    """
    root.mkdir(parents=True, exist_ok=True)
    _git(root, "init", "-q", "-b", "main")
    stream: list[bytes] = []
    mark = 0
    blobs: dict[str, int] = {}
    base_files: dict[str, int] = {}
    heads: list[tuple[str, str, int]] = []

    def blob(text: str) -> int:
        nonlocal mark
        if text not in blobs:
            mark += 1
            blobs[text] = mark
            stream.append(f"blob\nmark :{mark}\n".encode())
            stream.extend(_data(text.encode("utf-8")))
        return blobs[text]

    for task in tasks:
        base_files[task.path] = blob(task.buggy)
        for name in variants:
            heads.append((f"{name}/{task.slug}", task.path, blob(variant(task, name))))
    mark += 1
    base = mark
    stream.extend(_commit("refs/heads/main", base, "C: every task's buggy version", None, base_files))
    for ref, path, head_blob in heads:
        mark += 1
        stream.extend(_commit(f"refs/heads/{ref}", mark, ref, base, {path: head_blob}))
    _git(root, "fast-import", "--quiet", stdin=b"".join(stream))
    patches = root / "patches"
    patches.mkdir()
    for task in tasks:
        diff = _git(root, "diff", "--no-color", "--no-ext-diff", "main", f"gold/{task.slug}", "--")
        (patches / f"{task.slug}.patch").write_bytes(diff)
    return root
