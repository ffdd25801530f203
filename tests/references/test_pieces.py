"""A changed module read a top-level statement at a time: what the two versions share is not parsed,
and whenever the statements they do not share cannot prove that no name changed, both versions are
read whole, so the receipt says exactly what reading them whole says."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from bot.engine.pychunks import statement_chunks
from bot.engine.references import changes, definitions
from bot.engine.references.analysis import _interesting, _Progress
from bot.engine.references.changes import Proofs, changed_names, matched, unchanged
from bot.engine.references.definitions import ModuleInfo, module_info
from bot.engine.references.modules import ModuleMap
from bot.engine.references.words import mentions
from bot.engine.references.world import World
from bot.engine.tokens import Tokenizer, parse_python
from tests.gitrepo import GitRepo
from tests.references.helpers import change, found, references


def _function(name: str, body: str = "return a", params: str = "a") -> str:
    lines = "".join(f"    v{i} = compute(a, {i})\n" for i in range(40))
    return f"def {name}({params}):\n{lines}    {body}\n\n\n"


LONG = "import os\n\n\n" + "".join(_function(f"f{i}") for i in range(10))


def _edited(text: str) -> str:
    """`text` with one line of the first function's body changed."""
    return text.replace("compute(a, 7)", "compute(a, 8)", 1)


def _whole_changed(base: str, head: str) -> set[str] | None:
    """The names reading both versions whole finds changed; None when the base does not parse (the
    whole comparison skips the module then)."""
    before, after = module_info("m.py", base), module_info("m.py", head)
    if before is None:
        return None
    assert after is not None
    return changed_names(before, after)


# (base, head, whether the shared statements prove no change): each False case is one the
# whole comparison must decide, most because it finds a change the pieces alone would miss.
CASES = {
    "a body-only edit": (LONG, _edited(LONG), True),
    "a renamed function": (LONG, LONG.replace("def f3(", "def g3("), False),
    "a changed signature": (LONG, LONG.replace("def f3(a)", "def f3(a, b)"), False),
    "a changed import": (LONG, LONG.replace("import os", "import sys as os"), False),
    # `f1` is bound by a statement both versions share and redefined by one they do not.
    "a redefinition after a shared import": (
        "from lib import f1\n" + LONG,
        "from lib import f1\n" + _edited(LONG) + _function("f1"),
        False,
    ),
    # The same statements in another order: each side's differing statement binds `x` as the shared
    # one does, so the order of the bindings changes, which only the whole comparison sees.
    "bindings reordered across shared statements": (
        "x = 1\n" + _function("x") + LONG,
        _function("x") + "x = 1\n" + LONG,
        False,
    ),
    # `ﬁ` is `fi` to Python (NFKC): the shared text spells a bound name another way.
    "a name spelled another way in the shared text": (
        _function("ﬁ") + "fi = 1\n",
        "fi = 1\n" + _function("ﬁ"),
        False,
    ),
    "a global in a shared function": (
        _function("setup", body="global cache") + "cache = 1\n" + _function("g"),
        _function("setup", body="global cache") + "cache = 2\n" + _function("g"),
        False,
    ),
    "a global in a changed function": (
        LONG,
        LONG.replace("    return a\n", "    global f1\n    return a\n", 1),
        False,
    ),
    "a changed statement that fails alone": (LONG, LONG.replace("compute(a, 7)", "compute(a, 7", 1), False),
    "a changed statement that binds nothing and fails alone": (LONG + "main()\n", LONG + "main() +\n", False),
    "a base statement that fails alone": (LONG.replace("compute(a, 7)", "compute(a, 7", 1), LONG, False),
    # What `__all__` lists is not part of any name's meaning to the whole comparison either.
    "an `__all__` edit": ('__all__ = ["f0", "f1"]\n' + LONG, '__all__ = ["f0"]\n' + LONG, True),
    "an `__all__` the shared text also binds": (
        '__all__ = ["f0", "f1"]\n' + LONG + '__all__ += ["f2"]\n',
        '__all__ = ["f0"]\n' + LONG + '__all__ += ["f2"]\n',
        False,
    ),
    "a text that cannot be cut (CR line ends)": (
        LONG.replace("\n", "\r\n"),
        _edited(LONG).replace("\n", "\r\n"),
        False,
    ),
    "identical texts": (LONG, LONG, True),
    # A module that is one function, edited in its body alone: its head version's tree proves it.
    "a module of one function": (_function("f"), _edited(_function("f")), True),
    # its decorator's line starts a line at column 0: read whole, as any module of two lines there
    "a module of one decorated function": (
        "@cache\n" + _function("f"),
        "@cache\n" + _edited(_function("f")),
        False,
    ),
    "a module of one function, its parameters changed": (
        _function("f"),
        _edited(_function("f", params="a, b")),
        False,
    ),
    "a module of one function, renamed": (_function("f"), _edited(_function("g")), False),
    "a module of one function declaring a global": (
        _function("f", body="global x; return a"),
        _edited(_function("f", body="global x; return a")),
        False,
    ),
    "a module of one class": (
        "class C:\n    x = compute(1)\n",
        "class C:\n    x = compute(2)\n",
        False,
    ),
    "a module of one function after a comment": (
        "# f\n" + _function("f"),
        "# f\n" + _edited(_function("f")),
        False,
    ),
    "a module of one function whose head does not parse": (
        _function("f"),
        _edited(_function("f")).replace("compute(a, 8)", "compute(a, 8) +"),
        False,
    ),
    "the same module of one statement": (_function("f"), _function("f"), True),
    "a statement added after a module of one": (_function("f"), _function("f") + "x = 1\n", True),
    "a changed statement that binds nothing": (LONG + "main()\n", LONG + "main(1)\n", True),
    # Most statements changed: they are read whole at once, not once alone and again whole.
    "an edit of most statements": (LONG, LONG.replace("compute(a, 7)", "compute(a, 8)"), False),
    "repeated statements": (
        "x = 1\ny = 2\nx = 1\n" + _function("f"),
        "x = 1\nx = 1\ny = 2\n" + _function("f"),
        False,
    ),
    "a changed class body": (
        "class C:\n    def m(self, a):\n        return a\n" + LONG,
        "class C:\n    def m(self):\n        return 1\n" + LONG,
        False,
    ),
    "a class field": (
        "class C:\n    x: int\n" + LONG,
        "class C:\n    x: int\n    y: int\n" + LONG,
        False,
    ),
    # A base function whose body alone differs is read off its head twin, not parsed: each of these
    # is one the twin cannot answer for, so the base statement is parsed and the whole decides.
    "a form feed puts a statement at column 0": (
        LONG.replace("    v7 = compute(a, 7)\n", "    v7 = compute(a, 7)\n\ff0 = 1\n", 1),
        _edited(LONG),
        False,
    ),
    "a statement at column 0 after the body": (
        LONG.replace("    v7 = compute(a, 7)\n", "    v7 = compute(a, 7); \\\n\nf0 = 1\n", 1),
        _edited(LONG),
        False,
    ),
    "a default changed with the body": (LONG, _edited(LONG).replace("def f0(a)", "def f0(a=1)"), False),
    "a decorator changed with the body": (
        LONG,
        _edited(LONG).replace("def f0(", "@cache\ndef f0(", 1),
        False,
    ),
    "a base body that says global": (
        LONG.replace("    v7 = compute(a, 7)\n", "    global f1\n    v7 = compute(a, 7)\n", 1),
        _edited(LONG),
        False,
    ),
    "a base body that is not ASCII": (LONG.replace("compute(a, 7)", 'compute(a, "\u00e9")', 1), LONG, True),
    "a body on the def's own line": (
        LONG.replace(_function("f0"), "def f0(a): return compute(a, 7)\n\n\n"),
        LONG.replace(_function("f0"), "def f0(a): return compute(a, 8)\n\n\n"),
        True,
    ),
    "a header that ends where the body starts": (
        LONG.replace(_function("f0"), "def f0(a):return compute(a, 7)\n\n\n"),
        LONG.replace(_function("f0"), "def f0(a):return compute(a, 8)\n\n\n"),
        True,
    ),
    "a base twin that does not parse": (
        LONG.replace("compute(a, 7)", "compute(a, 7) +", 1),
        _edited(LONG),
        True,  # nor does the base whole: the whole comparison skips it, as it does a proof
    ),
    "an edited class beside its base": (
        "class C:\n    x = compute(1)\n    y = 2\n" + LONG,
        "class C:\n    x = compute(2)\n    y = 2\n" + LONG,
        True,
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_what_the_pieces_prove_the_whole_texts_agree_with(case: str) -> None:
    base, head, proven = CASES[case]
    assert unchanged(base, head) is proven
    if proven:
        assert not _whole_changed(base, head)


@pytest.mark.parametrize(
    "case",
    [
        "a redefinition after a shared import",
        "bindings reordered across shared statements",
        "a name spelled another way in the shared text",
        "a global in a changed function",
    ],
)
def test_each_guard_stops_a_change_the_pieces_alone_would_miss(case: str) -> None:
    """These are found only by the whole comparison: the pieces each side does not share, read as
    modules of their own, differ in no name."""
    base, head, _ = CASES[case]
    pieces = matched(statement_chunks(base), statement_chunks(head))
    alone = [changes._alone(p) for p in pieces[:2]]
    assert alone[0] is not None and alone[1] is not None
    assert not changed_names(alone[0], alone[1])
    assert _whole_changed(base, head)


def test_a_changed_module_nested_too_deeply_to_compare_is_read_whole() -> None:
    deep = "+".join(["1"] * 1500)
    head = LONG.replace("def f3(a)", f"def f3(a={deep})")
    assert not unchanged(LONG.replace("def f3(a)", f"def f3(a={deep}, b=1)"), head)
    deep_statement = "-" * 1500 + "x\n"  # parses, but binds nothing too deep to read
    assert not unchanged(LONG + deep_statement, LONG + deep_statement.replace("x", "y"))


def test_only_the_statements_the_versions_do_not_share_are_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []
    parse = parse_python

    def counting(text: str) -> object:
        parsed.append(text)
        return parse(text)

    monkeypatch.setattr(changes, "parse_python", counting)
    assert unchanged(LONG, _edited(LONG))
    # The head's edited function alone: its base twin differs in the body only, so it is read off it.
    assert parsed == [p for p in statement_chunks(_edited(LONG)) if p not in statement_chunks(LONG)]
    assert sum(map(len, parsed)) < len(LONG) / 8


def test_shared_statements_keep_their_order_and_nothing_is_shared_that_differs() -> None:
    assert matched(["a", "b", "c"], ["a", "x", "c"]) == (["b"], ["x"], ["a", "c"])
    assert matched(["x", "a", "b"], ["a", "b", "x"]) == (["a", "b"], ["a", "b"], ["x"])  # greedy
    assert matched(["a", "a", "b"], ["b", "a"]) == (["a", "b"], ["b"], ["a"])
    assert matched([], ["a"]) == ([], ["a"], [])
    rng = random.Random(19)
    for _ in range(500):
        base = rng.choices("abcd", k=rng.randrange(8))
        head = rng.choices("abcd", k=rng.randrange(8))
        base_only, head_only, shared = matched(base, head)
        assert _subsequence(shared, base) and _subsequence(shared, head)
        assert Counter(base_only) + Counter(shared) == Counter(base)
        assert Counter(head_only) + Counter(shared) == Counter(head)


def _subsequence(part: list[str], of: list[str]) -> bool:
    rest = iter(of)
    return all(p in rest for p in part)


def test_a_word_is_found_whole() -> None:
    assert mentions("x = run(1)", {"run"}) and mentions("run", {"run", "other"})
    assert not mentions("rerun(1); run_all(); _run", {"run"}) and not mentions("run", set())
    assert mentions("rerun(1); run", {"run"})
    assert mentions(
        " ".join("a" * 20 + f"{i}" for i in range(3_000)), {f"x{i}" for i in range(2_999)} | {"a" * 20 + "7"}
    )
    assert not mentions("a" * 50_000, {"a" * k for k in range(1, 3_000)})  # linear: no name is a word


def test_a_body_only_edit_of_a_large_module_reads_no_module_whole(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole: list[str] = []
    read = definitions.read_module

    def counting(path: str, text: str) -> object:
        whole.append(path)
        return read(path, text)

    def info(path: str, text: str) -> object:
        whole.append(path)
        return definitions.module_info(path, text)

    monkeypatch.setattr("bot.engine.references.world.read_module", counting)
    monkeypatch.setattr("bot.engine.references.world.module_info", info)
    receipt = change(
        repo,
        {"m.py": LONG, "use.py": "from m import f3\n\nf3(1)\n"},
        {"m.py": _edited(LONG)},
    )
    result = references(receipt)
    assert (result.changed_modules, result.readers, whole) == (1, 0, [])


def test_a_statement_redefined_after_a_shared_import_is_still_followed(repo: GitRepo) -> None:
    base, head, _ = CASES["a redefinition after a shared import"]
    receipt = change(
        repo,
        {"lib.py": _function("f1"), "m.py": base, "use.py": "from m import f1\n\nf1(1)\n"},
        {"m.py": head},
    )
    assert references(receipt).readers == 3  # every module that says `f1`, changed by the redefinition


@pytest.mark.parametrize("broken", ["compute(a, 7", "compute(a, 7) +"])
def test_a_syntax_error_in_one_changed_function_is_a_gap(repo: GitRepo, broken: str) -> None:
    receipt = change(
        repo,
        {"m.py": LONG, "use.py": "from m import f3\n\nf3(1)\n"},
        {"m.py": LONG.replace("compute(a, 7)", broken, 1)},
    )
    assert references(receipt).incomplete == "m.py does not parse here"


def test_a_syntax_error_in_a_statement_that_binds_nothing_is_a_gap(repo: GitRepo) -> None:
    receipt = change(repo, {"m.py": LONG + "main()\n"}, {"m.py": LONG + "main() +\n"})
    assert references(receipt).incomplete == "m.py does not parse here"


def test_an_import_edited_to_another_module_breaks_the_call_it_no_longer_fits(repo: GitRepo) -> None:
    receipt = change(
        repo,
        {
            "old.py": "def run(a, b):\n    return a\n",
            "new.py": "def run(a):\n    return a\n",
            "api.py": "from old import run\n\n\n" + LONG,
            "use.py": "from api import run\n\nrun(1, 2)\n",
        },
        {"api.py": "from new import run\n\n\n" + _edited(LONG)},
    )
    assert found(receipt) == [("use.py", 3, "signature", "new.run")]


def test_a_moved_module_is_compared_whole_even_beside_a_new_file_of_its_old_name() -> None:
    """A diff may report `a.py` renamed to `b.py` and a new `a.py` (a source that breaks rewrites
    apart): the text now at `a.py` is not the moved module's head, so the pieces are not asked."""
    head_texts: dict[str, str | None] = {"a.py": LONG, "b.py": LONG}
    base_texts: dict[str, str | None] = {"a.py": LONG}
    memo: dict[tuple[str, str], ModuleInfo | None] = {}
    either = ModuleMap({**head_texts, **base_texts})
    head = World(ModuleMap(head_texts), head_texts, memo, either)
    base = World(either, {**head_texts, **base_texts}, memo, either)
    names = _interesting(base, head, {"a.py": (LONG, LONG)}, {"a.py": "b.py"}, _Progress())
    assert names == {"a"}


@pytest.mark.parametrize("case", CASES)
def test_a_proof_made_while_excess_reads_the_module_is_the_one_asked_for(case: str) -> None:
    base, head, proven = CASES[case]
    proofs, tokenizer = Proofs(), Tokenizer()
    proofs.keep(base, head, proofs.read("m.py", base, head, tokenizer))
    assert proofs.unchanged(base, head) is proven
    assert proofs.unchanged(base, head) is proven  # asked again: proven again


def test_proofs_are_made_only_for_modules_on_both_sides(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[str, str]] = []
    real = changes.unchanged

    def counting(base: str, head: str, *rest: object) -> bool:
        asked.append((base, head))
        return real(base, head, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(changes, "unchanged", counting)
    proofs, tokenizer = Proofs(), Tokenizer()
    for path, base, head in (("m.pyi", LONG, _edited(LONG)), ("m.py", "", LONG), ("m.py", LONG, "")):
        assert proofs.read(path, base, head, tokenizer) is None
    assert asked == []
    proofs.read("m.py", LONG, _edited(LONG), tokenizer)
    assert asked == [(LONG, _edited(LONG))]


def test_a_proof_shares_the_tokenizers_cuts_and_trees(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(changes, "parse_python", lambda text: pytest.fail("parsed beside the tokenizer"))
    tokenizer = Tokenizer()
    Proofs().read("m.py", LONG, _edited(LONG), tokenizer)  # read through the tokenizer's memo
    assert sum(tokenizer.parsed(p) for t in (LONG, _edited(LONG)) for p in tokenizer.pieces(t)) == 1


def test_a_check_parses_each_statement_the_versions_do_not_share_once_and_compiles_none(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Excess and `references` read a changed module with one tokenizer (evaluation.py): the two
    edited statements are parsed once for both, and excess reads their units off those trees."""
    from bot.engine import tokens

    read: list[str] = []
    for name in ("parse_python", "compiled"):
        real = getattr(tokens, name)

        def counting(text: str, real: Any = real) -> object:
            read.append(text)
            return real(text)

        monkeypatch.setattr(tokens, name, counting)
    monkeypatch.setattr(changes, "parse_python", lambda text: pytest.fail(f"parsed again: {text[:40]}"))
    receipt = change(repo, {"m.py": LONG}, {"m.py": _edited(LONG)})
    assert references(receipt).changed_modules == 1 and receipt.excess.distance
    edited = [p for p in statement_chunks(_edited(LONG)) if p not in statement_chunks(LONG)]
    assert len(edited) == 1 and Counter(read)[edited[0]] == 1
    assert len(read) == len(set(read))  # nothing read twice, parsed or compiled


def _old_unchanged(base: str, head: str) -> bool:
    """`unchanged` parsing every statement the versions do not share, the base's too."""
    base_only, head_only, shared = matched(statement_chunks(base), statement_chunks(head))
    text = "".join(shared)
    before, after = changes._alone(base_only), changes._alone(head_only)
    if 2 * len(text) < max(len(base), len(head)) or not text.isascii() or before is None or after is None:
        return False
    return not mentions(text, {*before.bindings, *after.bindings}) and not changed_names(before, after)


_EDITS = (
    ("compute(a, 7)", "compute(a, 9)"),
    ("compute(a, 7)", "compute(a, 7) +"),
    ("compute(a, 7)", "compute(a, 7"),
    ("compute(a, 7)", "compute(a, '\u00e9')"),
    ("    v7 = ", "    global f2\n    v7 = "),
    ("    v7 = ", "\fv7 = "),
    ("    v7 = ", "v7 = "),
    ("    v7 = ", "    v7 = 1; \\\n"),
    ("    v7 = ", "#\n    v7 = "),
    ("(a):", "(a, b):"),
    ("(a):", "(a=1):"),
    ("(a):", "(a) -> int:"),
    ("(a):", "(a):  # note"),
    ("(a):", "(a) :"),
    ("def f", "@wraps\ndef f"),
    ("def f", "async def f"),
    ("def f", "class F"),
    ("def f", "def g"),
    ("    return a\n", ""),
    ("    return a\n", "    return a\nf1 = f0\n"),
    ("\n\n\n", "\n"),
)


def test_a_base_read_off_its_head_twin_proves_only_what_parsing_it_would() -> None:
    """Differential: random edits of both versions, each proof by the twin against the proof that
    parses the base too and against the whole comparison. A twin may answer for a base that does
    not parse, which the whole comparison skips; it never proves a change away."""
    rng = random.Random(19)
    functions = [_function(f"f{i}") for i in range(6)]
    for _ in range(400):
        base = "import os\n\n\n" + "".join(functions)
        head = base
        for _ in range(rng.randrange(1, 4)):
            old, new = rng.choice(_EDITS)
            target = rng.choice(functions)
            edited = target.replace(old, new, 1)
            if rng.random() < 0.5:
                base = base.replace(target, edited, 1)
            else:
                head = head.replace(target, edited, 1)
        proven = unchanged(base, head)
        assert proven or not _old_unchanged(base, head)  # as often as before
        if proven and not _old_unchanged(base, head):
            assert module_info("m.py", base) is None  # only where the base does not parse
        if proven:
            assert not _whole_changed(base, head)
