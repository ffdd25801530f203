from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.engine.change import Change, FileTexts
from bot.engine.content.added import AddedFile, Fragment, added_files, files_of_kind
from bot.engine.content.filekinds import Kind, kind_of
from tests.content.helpers import change_of
from tests.gitrepo import GitRepo
from tests.texts import keyed


def test_each_hunk_is_one_fragment_of_its_added_lines(repo: GitRepo) -> None:
    base = "".join(f"line {i}\n" for i in range(1, 31))
    head = base.replace("line 3\n", "line 3\nnew a\nnew b\n").replace("line 25\n", "changed 25\n")
    change = change_of(repo, {"notes.cfg": head}, {"notes.cfg": base})
    [file] = added_files(change)
    assert file.path == "notes.cfg"
    assert [f.text for f in file.fragments] == ["new a\nnew b", "changed 25"]
    assert [list(f.numbers) for f in file.fragments] == [[4, 5], [27]]
    assert file.added_numbers() == frozenset({4, 5, 27})
    assert file.head == head
    assert file.kind is Kind.CONFIG


def test_a_new_file_is_one_fragment_and_its_text_is_rebuilt_without_texts(repo: GitRepo) -> None:
    change = change_of(repo, {"tool.py": "import os\nos.system(cmd)\n"}, texts=False)
    [file] = added_files(change)
    assert file.fragments[0].text == "import os\nos.system(cmd)"
    assert list(file.fragments[0].numbers) == [1, 2]
    assert file.head == "import os\nos.system(cmd)\n"
    assert file.kind is Kind.PYTHON


def test_a_modified_file_without_texts_has_no_head(repo: GitRepo) -> None:
    change = change_of(repo, {"a.py": "x = 1\ny = 2\n"}, {"a.py": "x = 1\n"}, texts=False)
    [file] = added_files(change)
    assert file.head is None
    assert file.fragments[0].text == "y = 2"


def test_binary_deleted_symlinks_and_pure_deletions_have_no_added_text(repo: GitRepo) -> None:
    repo.write("gone.txt", "bye\n")
    repo.write("keep.txt", "a\nb\n")
    repo.commit("base")
    repo.branch("pr")
    repo.remove("gone.txt")
    repo.write("keep.txt", "a\n")
    repo.write("blob.bin", b"\x00\x01\x02")
    repo.symlink("link", "keep.txt")
    repo.commit("head")
    from bot.gather import build_change
    from bot.local.check import resolve_revisions
    from bot.local.git import Git
    from bot.local.source import LocalSource

    git = Git.open(repo.root)
    revisions = resolve_revisions(git, "main", "pr")
    change = build_change(LocalSource(git), git.diff(revisions.merge_base, revisions.head), revisions)
    assert {f.path for f in change.diff.files} == {"gone.txt", "keep.txt", "blob.bin", "link"}
    assert added_files(change) == ()


def test_the_first_line_decides_an_extensionless_file(repo: GitRepo) -> None:
    change = change_of(repo, {"bin/deploy": '#!/usr/bin/env bash\neval "$1"\n'}, texts=False)
    [file] = added_files(change)
    assert file.kind is Kind.SHELL
    assert [f.path for f in files_of_kind(change, Kind.SHELL)] == [file.path]
    assert list(files_of_kind(change, Kind.PYTHON)) == []


def test_a_modified_extensionless_file_reads_its_first_line_from_the_hunk(repo: GitRepo) -> None:
    change = change_of(repo, {"run": "#!/bin/sh\necho hi\n"}, {"run": "echo hi\n"}, texts=False)
    [file] = added_files(change)
    assert file.kind is Kind.SHELL


def test_an_extensionless_file_whose_first_line_the_diff_does_not_show_is_read_as_shell(
    repo: GitRepo,
) -> None:
    """Without its `#!` line, an extensionless file is what a shell would run it as."""
    base = "#!/usr/bin/perl\n" + "".join(f"print {i};\n" for i in range(10))
    change = change_of(repo, {"run": base + "echo hi\n"}, {"run": base}, texts=False)
    [file] = added_files(change)
    assert file.kind is Kind.SHELL


def test_a_first_line_the_change_keeps_is_read_from_the_hunk(repo: GitRepo) -> None:
    """A hunk that starts the file shows its first lines as context: the `#!` line, as the file's
    text would (the same kind with and without texts)."""
    head, base = {"run": "#!/usr/bin/perl\necho hi\n"}, {"run": "#!/usr/bin/perl\n"}
    [file] = added_files(change_of(repo, head, base, texts=False))
    assert file.kind is Kind.OTHER


def test_texts_win_over_the_diff(repo: GitRepo) -> None:
    change = change_of(repo, {"a.py": "x = 1\n"}, texts=False)
    with_texts = Change(change.diff, change.digest, keyed(change.diff, {"a.py": FileTexts("", "y = 2\n")}))
    assert added_files(with_texts)[0].head == "y = 2\n"


def test_fragment_offsets_map_to_lines() -> None:
    fragment = Fragment("ab\nçd\n\nlast", [10, 11, 12, 13])
    assert fragment.data == "ab\nçd\n\nlast".encode()
    assert [fragment.index_at(i) for i in (0, 2, 3, 6, 7, 8, 11)] == [0, 0, 1, 1, 2, 3, 3]
    assert [fragment.index_at(i) for i in (11, 0, 7, 3)] == [3, 0, 2, 1]  # asked out of order too
    assert fragment.line_at(4) == 11
    assert fragment.line_bounds(4) == (3, 6)
    assert fragment.line_bounds(2) == (0, 2)  # the newline belongs to the line it ends
    assert fragment.line_bounds(7) == (7, 7)
    assert fragment.line_bounds(9) == (8, 12)
    assert fragment.lines_around(1, 4) == (0, 6)
    assert fragment.lines_around(3, 3) == (3, 6)


@pytest.mark.parametrize(
    ("start", "end", "lines"),
    [
        (0, 1, [(0, 0, 2)]),
        (0, 3, [(0, 0, 2)]),  # ends with the first line's newline
        (0, 4, [(0, 0, 2), (1, 3, 6)]),
        (4, 4, [(1, 3, 6)]),
        (2, 12, [(0, 0, 2), (1, 3, 6), (2, 7, 7), (3, 8, 12)]),
        (9, 12, [(3, 8, 12)]),
    ],
)
def test_fragment_lists_the_lines_a_span_touches(
    start: int, end: int, lines: list[tuple[int, int, int]]
) -> None:
    fragment = Fragment("ab\nçd\n\nlast", [10, 11, 12, 13])
    assert list(fragment.lines_in(start, end)) == lines


@pytest.mark.parametrize(
    ("path", "first", "kind"),
    [
        ("a/b.py", None, Kind.PYTHON),
        ("x.PYW", None, Kind.PYTHON),
        ("web/app.tsx", None, Kind.JAVASCRIPT),
        ("lib.mjs", None, Kind.JAVASCRIPT),
        ("lib/util.es6", None, Kind.JAVASCRIPT),
        ("src/app.es", None, Kind.JAVASCRIPT),
        ("modules/Services.jsm", None, Kind.JAVASCRIPT),
        ("src/pages/index.astro", None, Kind.MARKUP),
        ("docs/intro.mdx", None, Kind.OTHER),
        ("s.zsh", None, Kind.SHELL),
        ("Dockerfile", None, Kind.DOCKERFILE),
        ("docker/Dockerfile.dev", None, Kind.DOCKERFILE),
        ("api.Dockerfile", None, Kind.DOCKERFILE),
        ("rules.mk", None, Kind.MAKEFILE),
        ("GNUmakefile", None, Kind.MAKEFILE),
        (".github/workflows/ci.yml", None, Kind.CI),
        (".github/actions/setup/action.yaml", None, Kind.CI),
        (".gitlab-ci.yml", None, Kind.CI),
        ("config/ci.yml", None, Kind.CONFIG),
        ("pyproject.toml", None, Kind.CONFIG),
        ("tox.ini", None, Kind.CONFIG),
        ("patches/requests.patch", None, Kind.PATCH),
        ("fix.diff", None, Kind.PATCH),
        ("README.md", None, Kind.DOCUMENT),
        ("docs/guide.rst", None, Kind.DOCUMENT),
        ("notes.txt", None, Kind.DOCUMENT),
        ("setup.cfg", "#!/bin/sh", Kind.CONFIG),
        ("tool", "#!/usr/bin/env -S python3.12 -u", Kind.PYTHON),
        ("tool", "#!/usr/local/bin/node", Kind.JAVASCRIPT),
        ("tool", "#!/bin/dash", Kind.SHELL),
        ("tool", "#!/usr/bin/perl", Kind.OTHER),
        ("tool", "echo hi", Kind.SHELL),
        ("tool", None, Kind.SHELL),
    ],
)
def test_kind_of(path: str, first: str | None, kind: Kind) -> None:
    assert kind_of(path, first) is kind


def test_an_evaluation_builds_the_added_text_once_and_hands_it_to_every_rule(
    repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No state outlives an evaluation or is shared between two: the App's worker threads
    evaluating at once each build their change's added text exactly once."""
    import threading

    from bot.engine.content import added as module
    from bot.engine.manifest import Manifest
    from bot.engine.rules import CONTENT_RULES, content_violations

    builds: list[int] = []
    build = module._build

    def counted(change: Change) -> tuple[AddedFile, ...]:
        builds.append(id(change))
        return build(change)

    monkeypatch.setattr(module, "_build", counted)
    seen: list[tuple[object, object]] = []

    class Recording:
        def __init__(self, one_pass: bool) -> None:
            self.one_pass = one_pass

        def scan(
            self, change: Change, manifest: Manifest, files: object = None, added: object = None
        ) -> list[object]:
            seen.append((files, added))
            return []

    change = change_of(repo, {"a.py": "x = 1\n", "b.txt": "y\n"})
    content_violations(change, Manifest(), rules=(*CONTENT_RULES, Recording(True), Recording(False)))
    assert builds == [id(change)]
    (whole, whole_added), (share, share_added) = seen
    assert whole is whole_added is share_added and list(share) == list(whole)  # type: ignore

    changes = [change_of(GitRepo.create(tmp_path / f"r{k}"), {f"t{k}.py": f"v = {k}\n"}) for k in range(2)]
    builds.clear()

    def evaluate_many(change: Change) -> None:
        for _ in range(10):
            content_violations(change, Manifest())

    threads = [threading.Thread(target=evaluate_many, args=(c,)) for c in changes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(builds) == sorted([id(c) for c in changes for _ in range(10)])


@given(st.text(alphabet="ab\n", max_size=30), st.lists(st.integers(0, 30), max_size=12))
def test_line_bounds_asked_in_any_order_are_those_of_a_fresh_search(text: str, offsets: list[int]) -> None:
    """`line_bounds` remembers the last line it found; asked in any order, it answers as a search would."""
    fragment = Fragment(text, list(range(1, text.count("\n") + 2)))
    data = fragment.data
    for offset in (o for o in offsets if o <= len(data)):
        end = data.find(b"\n", offset)
        assert fragment.line_bounds(offset) == (
            data.rfind(b"\n", 0, offset) + 1,
            len(data) if end < 0 else end,
        )
