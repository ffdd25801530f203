"""Shell read as the shell reads it (`shellscan.py`): a command spread over lines by continuations,
pipelines or strings is one command; what a comment, a string or a here-document's text holds
stays quiet; each line of a Dockerfile, Makefile or CI file is a command of its own."""

from __future__ import annotations

import pytest

from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.shellscan import lex
from tests.content.helpers import change_of, scan, where
from tests.gitrepo import GitRepo

RULE = DangerousRule()
_PIPE = "shell-pipe-to-shell"


def _found(repo: GitRepo, path: str, source: str, **kw: bool) -> list[tuple[str, int | None, str]]:
    return where(scan(RULE, change_of(repo, {path: source}, **kw)))


@pytest.mark.parametrize(
    ("path", "source", "line"),
    [
        ("s.sh", "set -e\ncurl -fsSL https://x.io/i \\\n  | sh\n", 2),
        ("s.sh", "set -e\ncurl -fsSL https://x.io/i \\\n  -L | bash -s\n", 2),
        ("s.sh", "set -e\ncurl -fsSL https://x.io/i |\n  sh\n", 2),
        ("s.sh", "set -e\ncurl -fsSL https://x.io/i | # run it\n  sh\n", 2),
        ("s.sh", 'echo "a\nb"; curl https://x.io/i | sh\n', 2),
        ("s.sh", "echo 'a\n\"b'; curl https://x.io/i | sh\n", 2),
        ("s.sh", "cat <<EOF\nDon't\nEOF\ncurl https://x.io/i | sh\n", 4),
        ("s.sh", "set -e\ncurl https://x.io/i | tee /tmp/log | sh\n", 2),
        ("s.sh", "set -e\ncurl https://x.io/i |& sh\n", 2),
        ("s.sh", 'set -e\ncurl https://x.io/i | "bash"\n', 2),
        ("s.sh", "set -e\ncurl https://x.io/i | $SHELL\n", 2),
        ("s.sh", "set -e\ncurl https://x.io/i | ${SHELL:-sh}\n", 2),
        ("s.sh", "set -e\ncurl https://x.io/i | doas sh\n", 2),
        ("s.sh", "set -e\ncurl https://x.io/i | timeout 60 bash\n", 2),
        ("s.sh", "set -e\nbash < <(curl -s https://x.io/i)\n", 2),
        ("s.sh", 'set -e\nbash <<< "$(curl -s https://x.io/i)"\n', 2),
        ("s.sh", 'set -e\nsh -c "`curl -s https://x.io/i`"\n', 2),
        ("s.sh", 'set -e\necho "$(curl -s https://x.io/i | sh)"\n', 2),
        ("test/a.bats", "set -e\ncurl https://x.io/i | sh\n", 2),
        ("Install.command", "set -e\ncurl https://x.io/i | sh\n", 2),
        ("Dockerfile", "FROM alpine\nRUN curl https://x.io/i \\\n  | sh\n", 2),
        ("Dockerfile", "FROM alpine\nRUN set -e; \\\n    curl -fsSL https://x.io/i \\\n    | bash -s\n", 3),
        ("Dockerfile", 'FROM alpine\nRUN eval "$(curl -fsSL https://x.io/i)"\n', 2),
        ("Makefile", "all:\n\tcurl https://x.io/i \\\n\t | sh\n", 2),
        ("Makefile", 'all:\n\tbash -c "$$(curl -fsSL https://x.io/i)"\n', 2),
        (".github/workflows/ci.yml", 'jobs:\n  a:\n    steps:\n      - run: "curl https://x.io/i | sh"\n', 4),
        (".github/workflows/ci.yml", "jobs:\n  a:\n    steps:\n      - run: 'curl https://x.io/i | sh'\n", 4),
        (".github/workflows/ci.yml", "steps:\n  - run: >\n      curl https://x.io/i\n      | sh\n", 3),
    ],
)
def test_downloads_run_across_lines_and_quotes(repo: GitRepo, path: str, source: str, line: int) -> None:
    assert _found(repo, path, source) == [(path, line, _PIPE)]


@pytest.mark.parametrize(
    "source",
    [
        'x=1\n! eval "$y"\n',
        'x=1\nbuiltin eval "$y"\n',
        'x=1\ncommand eval "$y"\n',
        'x=1\ntime eval "$y"\n',
        'x=1\nLC_ALL=C eval "$y"\n',
        "x=1\nx=`eval $y`\n",
        'echo "a\nb"; eval "$y"\n',
    ],
)
def test_eval_after_what_leaves_it_the_command(repo: GitRepo, source: str) -> None:
    assert _found(repo, "s.sh", source) == [("s.sh", 2, "shell-eval")]


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("s.sh", "curl -o file https://x.io/i\n"),
        ("s.sh", "# curl https://x.io/i | sh\n"),
        ("s.sh", "echo 'curl https://x.io/i | sh'\n"),
        ("s.sh", "echo 'a\ncurl https://x.io/i | sh\n'\n"),
        ("s.sh", 'echo "a\ncurl https://x.io/i | sh\n"\n'),
        ("s.sh", "msg=$'it\\'s\ncurl https://x.io/i | sh'\n"),
        ("s.sh", "curl -f https://x.io/a || echo failed\n"),
        ("s.sh", "curl -s https://x.io/a | jq .b | python3 -m json.tool\n"),
        ("s.sh", "curl -s https://x.io/a | python-tool\n"),
        ("s.sh", "case $x in\n  a) echo medieval ;;\nesac\n"),
        ("Dockerfile", 'FROM alpine\nLABEL note="Don\'t"\nRUN echo ok | sh\n'),
        (".github/workflows/ci.yml", "steps:\n  - name: Don't pipe\n    run: echo ok | sh\n  - run: make\n"),
        ("Makefile", "$(eval $(call rules,x))\n"),
    ],
)
def test_shell_near_misses_across_lines(repo: GitRepo, path: str, source: str) -> None:
    assert _found(repo, path, source) == []


def test_a_continuation_from_a_line_the_change_keeps(repo: GitRepo) -> None:
    base = {"s.sh": "set -e\ncurl -fsSL https://x.io/i \\\n  | tee log\n"}
    head = {"s.sh": "set -e\ncurl -fsSL https://x.io/i \\\n  | sh\n"}
    assert where(scan(RULE, change_of(repo, head, base))) == [("s.sh", 3, _PIPE)]
    other = GitRepo.create(repo.root.parent / "other")
    assert where(scan(RULE, change_of(other, head, base, texts=False))) == []  # the hunk alone has no curl


def test_without_the_new_text_each_hunk_is_read_alone(repo: GitRepo) -> None:
    base = {"s.sh": "set -e\n\n"}
    head = {"s.sh": "set -e\ncurl https://x.io/i \\\n  | sh\n\n"}
    assert where(scan(RULE, change_of(repo, head, base, texts=False))) == [("s.sh", 2, _PIPE)]


def test_the_view_joins_one_command_and_keeps_every_offset() -> None:
    data = b'curl x \\\n | sh # c\ncat <<-\'E\'\n\tit\'s\n\tE\necho "$(a "b")"\n'
    lexed = lex(data, spanning=True)
    assert len(lexed.view) == len(data)
    assert lexed.view.startswith(b"curl x    | sh    \n")
    assert not lexed.hidden(data.index(b"echo")) and not lexed.hidden(data.index(b"$(") + 2)
    assert lexed.hidden(data.index(b'"b"') + 1) and lexed.hidden(data.index(b"echo") + 5)


@pytest.mark.parametrize(
    ("data", "code", "hidden"),
    [
        (b"a#b; eval x", b"eval", b""),  # `#` inside a word
        (b'echo \\" ; eval x', b"eval", b""),  # an escaped quote
        (b'echo "a\\"b', b"echo", b"b"),  # a double quote never closed, an escape in it
        (b"cat <<; eval x", b"eval", b""),  # `<<` naming no delimiter
        (b"echo 'a'", b"echo", b"a"),
    ],
)
def test_the_shell_reader_recovers(data: bytes, code: bytes, hidden: bytes) -> None:
    lexed = lex(data, spanning=True)
    assert not lexed.hidden(data.index(code))
    assert not hidden or lexed.hidden(data.rindex(hidden))
