"""Nothing crashes the receipt: file names that are not UTF-8, or hold control characters.

A name is shown as it is when it is valid UTF-8, printable and does not start with a double quote;
otherwise in git's C-quoted form (`"tests/bad\\377.py"`), which decodes back to the exact bytes.
The receipt JSON, its digest, Markdown, terminal text and annotations all use that one form, so
`receipt inspect` recomputes the same digest and no two names can look alike.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from bot.cli import main
from bot.engine.gitpath import display_path, unquote
from bot.engine.receipt import Receipt, canonical_bytes, digest_of, render_json
from bot.engine.render.annotations import receipt_annotations
from bot.engine.render.markdown import render_markdown
from bot.engine.render.terminal import render_terminal
from tests.content.helpers import checksummed
from tests.gitrepo import GitRepo, check

TOKEN = checksummed("ghp", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5")
POLICY = "version: 1\npaths:\n  protect: ['tests/**']\nlocality: {reformat: forbid}\n"

# name on disk (bytes) -> how the receipt shows it
NAMES = {
    b"tests/bad\xff.py": '"tests/bad\\377.py"',
    b"src/caf\xe9.py": '"src/caf\\351.py"',  # Latin-1, not UTF-8
    b'"bad\\377.py"': '"\\"bad\\\\377.py\\""',  # a real name that looks like a quoted one
    b"tests/bad\\xff.py": "tests/bad\\xff.py",  # what backslashreplace would have made of the first
    b"src/\x1b[2Jclear.py": '"src/\\033[2Jclear.py"',
    "src/rev\u202eyp.txt".encode(): '"src/rev\\342\\200\\256yp.txt"',
    "src/ünïcode ok.py".encode(): "src/ünïcode ok.py",
    # characters that render as nothing though Python calls them printable: letters (Hangul
    # fillers) and marks (the grapheme joiner, variation selectors, Khmer inherent vowels)
    "src/\u3164.py".encode(): '"src/\\343\\205\\244.py"',
    "src/admin\u034f.py".encode(): '"src/admin\\315\\217.py"',
    "src/a\ufe0f.py".encode(): '"src/a\\357\\270\\217.py"',
    "src/a\U000e0100.py".encode(): '"src/a\\363\\240\\204\\200.py"',
    "src/a\u17b4.py".encode(): '"src/a\\341\\236\\264.py"',
    b"src/new\nline.py": '"src/new\\nline.py"',
    b'src/tab\tand "quote".py': '"src/tab\\tand \\"quote\\".py"',
    b"-rf --no-preserve-root.py": "-rf --no-preserve-root.py",
    "src/caf\u00e9 \u2800 \u3000.py".encode(): '"src/caf\u00e9 \u2800 \\343\\200\\200.py"',
}


def _assert_clean(text: str) -> None:
    assert not any(0xD800 <= ord(c) <= 0xDFFF for c in text)
    assert "\x1b" not in text and "\u202e" not in text


def _assert_round_trip(receipt: Receipt) -> None:
    body = receipt.as_json()
    canonical_bytes(body)  # no UnicodeEncodeError
    reread = json.loads(render_json(body))
    assert digest_of(reread) == reread["digest"] == body["digest"]
    for text in (render_json(body), render_markdown(receipt), render_terminal(receipt)):
        _assert_clean(text)
    for note in receipt_annotations(receipt):
        _assert_clean(json.dumps(note.as_github(), ensure_ascii=False))


@pytest.fixture
def odd(repo: GitRepo) -> GitRepo:
    repo.write(".github/receipt.yml", POLICY)
    repo.write("tests/ok.py", "x = 1\n")
    repo.write(b"src/fmt\xfe.py", "x = f(1,2)\n")
    repo.commit("base")
    repo.branch("pr")
    for name in NAMES:
        repo.write(name, f"key = '{TOKEN}'\n")
    repo.write(b"src/fmt\xfe.py", "x = f(1, 2)\n")  # formatting only
    repo.commit("odd names")
    return repo


def test_odd_names_are_shown_in_one_lossless_form(odd: GitRepo) -> None:
    receipt = check(odd)
    _assert_round_trip(receipt)
    secrets = sorted(v.path for v in receipt.scope if v.rule.value == "secret")
    assert secrets == sorted(NAMES.values())
    protected = sorted(v.path for v in receipt.scope if v.rule.value == "protected-path")
    assert protected == ['"tests/bad\\377.py"', "tests/bad\\xff.py"]
    assert [f["path"] for f in receipt.as_json()["locality"]["formatting_only"]] == ['"src/fmt\\376.py"']
    message = next(v.message for v in receipt.scope if v.path == '"tests/bad\\377.py"')
    assert message.startswith('"tests/bad\\377.py" is protected by paths.protect[0]')
    for raw, shown in NAMES.items():
        assert display_path(os.fsdecode(raw)) == shown
        assert os.fsencode(unquote(shown)) == raw


def test_the_cli_writes_and_inspects_such_a_receipt(
    odd: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "receipt.json"
    md = tmp_path / "summary.md"
    assert (
        main(["check", "--repo", str(odd.root), "--no-tests", "--json", str(out), "--markdown", str(md)]) == 1
    )
    capsys.readouterr()
    assert main(["inspect", str(out), "--repo", str(odd.root)]) == 0
    assert "MISMATCH" not in capsys.readouterr().out


def test_side_effects_with_odd_names(repo: GitRepo) -> None:
    repo.write("a.txt", "x\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("b.txt", "y\n")
    repo.commit("pr")
    script = (
        "import os\n"
        "open(b'out\\xff.txt', 'w').close()\n"
        "os.makedirs(b'dir\\xfe/sub')\n"
        "open(b'esc\\x1b[31m.txt', 'w').close()\n"
        "os.symlink(b'target\\xfd', b'link\\xfc')\n"
    )
    receipt = check(repo, test_command=f"{sys.executable} -c {_shell_quote(script)}")
    _assert_round_trip(receipt)
    effects = sorted(v.path for v in receipt.scope if v.rule.value == "side-effect")
    assert effects == ['"dir\\376"', '"esc\\033[31m.txt"', '"link\\374"', '"out\\377.txt"']
    for violation in receipt.scope:
        assert violation.message.startswith(f"The test run created {violation.path} ")


def test_a_manifest_file_with_an_odd_name(repo: GitRepo, tmp_path: Path) -> None:
    repo.write("a.txt", "x\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("a.txt", "y\n")
    repo.commit("pr")
    policy = tmp_path / os.fsdecode(b"policy\xff.yml")
    policy.write_text("version: 1\n")
    receipt = check(repo, manifest_file=policy)
    _assert_round_trip(receipt)
    assert receipt.as_json()["manifest"]["path"] == display_path(str(policy))
    assert receipt.as_json()["manifest"]["path"].endswith('policy\\377.yml"')


def test_explain_prints_the_shown_form(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", os.fsdecode(b"tests/x\xff.py")]) == 0
    assert '"tests/x\\377.py"' in capsys.readouterr().out


def _shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
