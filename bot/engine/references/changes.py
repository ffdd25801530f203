"""Which names a change to one module may change the meaning of, for its callers.

`changed_names` compares what two versions of a module define. Reading a large module whole for
an edit of a few lines costs most of `references` on a large change, so `unchanged` first tries to
prove, from the top-level statements the two versions do not share (pychunks.py cuts them), that
no name changed: a statement both versions hold defines the same on both sides, so only the others
need parsing. Whatever it cannot prove sends the caller back to reading both versions whole.

The proof holds when every statement the versions do not share parses alone, no name they bind
is even a word of the statements they share (so no binding of it is among those: a redefinition,
a `global` in a shared function; shared text that is not ASCII could spell a name another way,
which Python normalizes, and is not searched), and compared as modules of their own they differ
in no name. Shared statements keep their order on both sides. A statement that fails alone, or a
change found there, is left to the whole comparison: it decides whether a version parses at all,
what its shared statements bind, and where its definitions are. So is a module the versions share
less than half of: reading its pieces would save little, and a change found would be read twice.
A shared statement is never parsed: if it does not parse alone, neither version parses, and the
whole comparison skips the module, as a proof of no change does. Like excess, this relies on each
cut being a statement boundary, so that a version parses exactly when all its pieces do.

A base function edited in its body alone is not parsed either (`_same_def`): what it defines is
read off its head twin, whose header text it repeats. If it does not parse, neither does its whole
version, which the whole comparison skips too. So is a small module that is one function in both
versions, edited in its body alone: only its head version is parsed.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Callable

from bot.engine.pychunks import statement_chunks
from bot.engine.references.definitions import Binding, ModuleInfo, described
from bot.engine.references.words import mentions
from bot.engine.tokens import Tokenizer, parse_python

Chunks = Callable[[str], list[str]]  # `statement_chunks`, or a memo of it
Parse = Callable[[str], ast.Module | None]  # `parse_python`, or a memo of it

# Where pychunks.py may cut: a line at column 0 that is not blank, indented or a comment.
_CUT = re.compile(r"\n[^ \t\f\n#]")
# How a module that is one function begins, if nothing (a comment, a blank line) comes before it.
_DEF_STARTS = ("def ", "async def ")


def _fingerprint(sites: tuple[Binding, ...]) -> tuple[object, ...]:
    """What a caller can tell of a name's bindings: its kind, a def's parameters and decorators,
    where an import reads from, which class an assignment instantiates."""
    out: list[object] = []
    for b in sites:
        if isinstance(b.node, ast.FunctionDef | ast.AsyncFunctionDef):
            out.append((b.kind, ast.dump(b.node.args), [ast.dump(d) for d in b.node.decorator_list]))
        else:
            func = b.value.func if isinstance(b.value, ast.Call) else None
            out.append((b.kind, b.module, b.name, b.level, ast.dump(func) if func is not None else None))
    return tuple(out)


def _class_shape(node: ast.ClassDef) -> list[str]:
    parts = [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]
    return [ast.dump(p) for p in parts] + [ast.dump(s) for s in node.body if isinstance(s, ast.AnnAssign)]


def changed_names(base: ModuleInfo, head: ModuleInfo) -> set[str]:
    """Names whose meaning to a caller may differ between the two versions of one module."""
    names = {
        n
        for n, sites in base.bindings.items()
        if _fingerprint(sites) != _fingerprint(head.bindings.get(n, ()))
    }
    for qualname, cls in base.classes.items():
        new = head.classes.get(qualname)
        if new is None:
            continue
        members = {
            m
            for m in {*cls.members, *new.members}
            if _fingerprint(cls.members.get(m, ())) != _fingerprint(new.members.get(m, ()))
        }
        names |= members | (cls.instance_attributes - new.instance_attributes)
        if members & {"__init__", "__new__"} or _class_shape(cls.node) != _class_shape(new.node):
            names.add(cls.node.name)
    return names


def matched(base: list[str], head: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(base only, head only, shared) pieces: shared ones are a common subsequence of the two
    lists, so they keep their order on both sides. Greedy and linear: a piece moved far may leave
    more pieces unshared than needed, never a piece shared that is not."""
    positions: defaultdict[str, list[int]] = defaultdict(list)
    for k, piece in enumerate(head):
        positions[piece].append(k)
    consumed: defaultdict[str, int] = defaultdict(int)  # how many of a piece's positions lie behind
    base_only: list[str] = []
    head_only: list[str] = []
    shared: list[str] = []
    j = 0  # the first head piece not yet passed
    for piece in base:
        at = positions.get(piece, [])
        seen = consumed[piece]
        while seen < len(at) and at[seen] < j:
            seen += 1
        if seen == len(at):
            consumed[piece] = seen
            base_only.append(piece)
            continue
        consumed[piece] = seen + 1
        head_only += head[j : at[seen]]
        shared.append(piece)
        j = at[seen] + 1
    return base_only, head_only + head[j:], shared


def _trees(pieces: list[str], parse: Parse | None = None) -> list[ast.Module] | None:
    """Each of `pieces` parsed alone (by `parse`, else `parse_python`); None when one does not parse."""
    trees: list[ast.Module] = []
    for piece in pieces:
        tree = parse_python(piece) if parse is None else parse(piece)
        if tree is None:
            return None
        trees.append(tree)
    return trees


def _described(pieces: list[str], trees: list[ast.Module]) -> ModuleInfo | None:
    """What `pieces` define read as one module of their own; None when they nest too deeply to read."""
    body = [stmt for tree in trees for stmt in tree.body]
    module = ast.Module(body=body, type_ignores=[])
    return described("", module, globals_possible=any("global" in p for p in pieces))


def _alone(pieces: list[str], parse: Parse | None = None) -> ModuleInfo | None:
    """What `pieces` define read as one module of their own, each parsed alone (by `parse`, else
    `parse_python`); None when one does not parse (or they nest too deeply to read)."""
    trees = _trees(pieces, parse)
    return None if trees is None else _described(pieces, trees)


# A line at column 0 that holds code, or a character that can put one there (a form feed resets
# the column, a lone CR ends a line) or end a line where the tree's line numbers do not.
_TOP_LEVEL = re.compile(r"\n[^ \t\n#]|[\f\r]")


def _same_def(base: str, head: str, tree: ast.Module) -> bool:
    """Whether `base`, if it parses alone at all, defines what `head` (parsed alone: `tree`) does,
    without parsing it: `head` is one function, `base` begins with the same text up to where the
    body starts (after white space, so the header's last token ends there too) and holds no other
    top-level statement, nor `global`, nor text Python could normalize into one. The parser reads a
    def's name, parameters, annotations and decorators off that text alone, and a def binds nothing
    else of the module. A `base` that does not parse leaves its whole version unparsed too, which
    the whole comparison skips (nothing a caller relied on), as it does a module proven unchanged."""
    if len(tree.body) != 1 or not isinstance(func := tree.body[0], ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    if not (base.isascii() and head.isascii()) or "global" in base or "global" in head or "\r" in head:
        return False
    if _TOP_LEVEL.search(base) is not None:
        return False
    first = func.body[0]
    start = 0
    for _ in range(first.lineno - 1):  # ASCII without CR: lines end at LF, columns count characters
        start = head.index("\n", start) + 1
    header = head[: start + first.col_offset]
    return header[-1] in " \t\n" and base.startswith(header)


def _base_trees(
    base_only: list[str], head_only: list[str], head_trees: list[ast.Module], parse: Parse | None
) -> list[ast.Module] | None:
    """The trees of the base's own statements: a function whose edit is in its body alone is read
    off its head twin (the same place in `head_only`), the others parsed."""
    trees: list[ast.Module] = []
    for k, piece in enumerate(base_only):
        if k < len(head_only) and _same_def(piece, head_only[k], head_trees[k]):
            trees.append(head_trees[k])
            continue
        parsed = _trees([piece], parse)
        if parsed is None:
            return None
        trees += parsed
    return trees


def unchanged(base: str, head: str, chunks: Chunks | None = None, parse: Parse | None = None) -> bool:
    """True when no name of the module changes meaning between `base` and `head`, proven from
    the statements they do not share; False when that cannot be proven this way. `chunks` and
    `parse` are memos of `statement_chunks` and `parse_python` (`Proofs`), else those."""
    if base != head and _CUT.search(base) is None and _CUT.search(head) is None:
        # One statement each (a small module): cutting would only cost. A function edited in its
        # body alone is proven from its head version's tree, which excess then reads too.
        if not head.startswith(_DEF_STARTS):
            return False
        tree = (parse_python if parse is None else parse)(head)
        return tree is not None and _same_def(base, head, tree)
    cut = statement_chunks if chunks is None else chunks
    base_only, head_only, shared = matched(cut(base), cut(head))
    shared_text = "".join(shared)
    if 2 * len(shared_text) < max(len(base), len(head)):
        return False  # little to save, and a change found below would cost a whole reading more
    if not shared_text.isascii():
        return False
    head_trees = _trees(head_only, parse)
    if head_trees is None:
        return False
    base_trees = _base_trees(base_only, head_only, head_trees, parse)
    if base_trees is None:
        return False
    before, after = _described(base_only, base_trees), _described(head_only, head_trees)
    if before is None or after is None:
        return False
    if mentions(shared_text, {*before.bindings, *after.bindings}):
        return False
    try:
        return not changed_names(before, after)
    except RecursionError:
        return False


class Proofs:
    """`unchanged` answered for a module's two versions while excess reads them (evaluation.py):
    with its tokenizer's memos, each text is cut and each statement the versions do not share is
    parsed once for both; excess then reads those statements' complexity off the same trees.
    `unchanged` is a function of the two texts alone, so an answer kept is the one asked for; a
    pair not seen is proven when asked. Answers are kept, not trees: one file's at a time."""

    def __init__(self) -> None:
        self._known: dict[tuple[str, str], bool] = {}

    def read(self, path: str, base: str, head: str, tokenizer: Tokenizer) -> bool | None:
        """Whether a changed file's module is unchanged in meaning, read with the tokenizer excess
        reads its texts with; None for a file `references` does not compare (excess.Visitor)."""
        if path.endswith(".py") and base and head:  # the modules `references` compares
            return unchanged(base, head, tokenizer.pieces, tokenizer.tree)
        return None

    def keep(self, base: str, head: str, note: bool | None) -> None:
        """What `read` answered for the two texts, wherever it ran."""
        if note is not None:
            self._known[base, head] = note

    def unchanged(self, base: str, head: str) -> bool:
        known = self._known.pop((base, head), None)
        return unchanged(base, head) if known is None else known
