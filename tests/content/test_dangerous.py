from __future__ import annotations

import pytest

from bot.engine.change import Change, FileTexts
from bot.engine.content.dangerous import DangerousRule
from bot.engine.findings import RuleId, Violation
from tests.content.helpers import change_of, manifest, scan, where
from tests.gitrepo import GitRepo
from tests.texts import keyed

RULE = DangerousRule()


def _dangerous(
    repo: GitRepo, head: dict[str, str], base: dict[str, str] | None = None, **kw: bool
) -> list[Violation]:
    change = change_of(repo, head, base, **kw)
    found = scan(RULE, change)
    assert all(v.rule is RuleId.DANGEROUS for v in found)
    assert found == scan(DangerousRule(parse_whole_files=True), change)  # the selection changes nothing
    return found


def test_python_constructs_on_added_lines_fire_and_mentions_do_not(repo: GitRepo) -> None:
    source = (
        "import pickle\n"
        "import subprocess\n"
        '"""Never call eval(text) or os.system(cmd) here."""\n'
        "# eval(x) would be wrong\n"
        "def load(blob, name):\n"
        "    message = 'pickle.loads(blob) is unsafe'\n"
        "    subprocess.run(f'tar xf {name}', shell=True)\n"
        "    return pickle.loads(blob)\n"
    )
    found = _dangerous(repo, {"src/store.py": source})
    assert where(found) == [
        ("src/store.py", 7, "python-subprocess-shell"),
        ("src/store.py", 8, "python-pickle"),
    ]
    assert found[0].message.startswith("subprocess.run() runs a command built at run time through the shell")
    assert "content.dangerous: false" in found[0].message
    assert "line alone" not in found[0].message


def test_constructs_already_in_the_file_are_not_reported(repo: GitRepo) -> None:
    base = {"app.py": "import os\n\ndef run(cmd):\n    os.system(cmd)\n    return 1\n"}
    head = {"app.py": "import os\n\ndef run(cmd):\n    os.system(cmd)\n    return 2\n"}
    assert _dangerous(repo, head, base) == []


def test_a_construct_made_dangerous_by_an_added_line_is_reported_there(repo: GitRepo) -> None:
    base = {"app.py": "import subprocess\n\nsubprocess.run(\n    cmd,\n    check=True,\n)\n"}
    head = {"app.py": "import subprocess\n\nsubprocess.run(\n    cmd,\n    shell=True,\n)\n"}
    assert where(_dangerous(repo, head, base)) == [("app.py", 5, "python-subprocess-shell")]


def test_an_alias_imported_before_the_change_is_followed(repo: GitRepo) -> None:
    base = {"app.py": "from pickle import loads as lp\n\n\ndef f(b):\n    return None\n"}
    head = {"app.py": "from pickle import loads as lp\n\n\ndef f(b):\n    return lp(b)\n"}
    assert where(_dangerous(repo, head, base)) == [("app.py", 5, "python-pickle")]


@pytest.mark.parametrize(
    ("source", "construct"),
    [
        ("from os import system as run\n\nrun(cmd)\n", "python-os-system"),
        ("from subprocess import getoutput as g\ng(cmd)\n", "python-subprocess-shell"),
        ("from builtins import eval as e\ne(text)\n", "python-eval"),
        ("from importlib import __import__ as load\nload(name)\n", "python-import-variable"),
    ],
)
def test_a_call_renamed_by_an_added_import_is_found_in_a_new_file(
    repo: GitRepo, source: str, construct: str
) -> None:
    assert where(_dangerous(repo, {"new.py": source})) == [("new.py", source.count("\n"), construct)]


def test_a_call_in_a_field_of_a_multiline_template_string_is_found(repo: GitRepo) -> None:
    source = 'import os\nreport = f"""\nresult: {eval(expression)}\n{os.system(cmd)}\n"""\n'
    assert where(_dangerous(repo, {"t.py": source})) == [
        ("t.py", 3, "python-eval"),
        ("t.py", 4, "python-os-system"),
    ]


def test_a_change_with_nothing_that_could_be_a_construct_is_not_parsed(repo: GitRepo) -> None:
    base = {"app.py": "import json\n\n\ndef f(b):\n    return None\n"}
    head = {"app.py": "import json\n\n\ndef f(b):\n    return json.loads(b)\n", "new.py": "x = 1\n"}
    assert _dangerous(repo, head, base) == []


def test_a_construct_the_diff_does_not_add_is_never_reported(repo: GitRepo) -> None:
    """New text that disagrees with the diff (a gatherer's mistake) cannot put a finding on a line
    the change does not add."""
    change = change_of(repo, {"a.py": "eval(a)\n"}, texts=False)
    inconsistent = Change(
        change.diff, change.digest, keyed(change.diff, {"a.py": FileTexts("", "eval(a)\neval(b)\n")})
    )
    assert where(scan(RULE, inconsistent)) == [("a.py", 1, "python-eval")]


def test_without_the_new_text_each_added_statement_is_judged_alone(repo: GitRepo) -> None:
    base = {"app.py": "import os\n\n\ndef f(cmd):\n    return 0\n"}
    head = {
        "app.py": "import os\n\n\ndef f(cmd):\n"
        "    os.system(cmd)\n"
        '    doc = """\n'
        "    eval(text)\n"
        '    """\n'
        "    return eval(\n"
        "        cmd)\n"
        "    # eval(cmd); os.system(cmd)\n"
    }
    found = _dangerous(repo, head, base, texts=False)
    assert where(found) == [("app.py", 5, "python-os-system"), ("app.py", 9, "python-eval")]
    assert found[0].message.endswith(
        "(Judged from this statement alone: the file's new text was not available or does not parse.)"
    )


def test_a_file_that_does_not_parse_is_judged_line_by_line(repo: GitRepo) -> None:
    source = 'import os\nprint "python 2"\nos.system(cmd)\nexec code\n'
    assert where(_dangerous(repo, {"old.py": source})) == [("old.py", 3, "python-os-system")]


@pytest.mark.parametrize(
    ("path", "line", "rule_id"),
    [
        ("web/app.js", "const result = eval(userInput);", "js-eval"),
        ("web/app.ts", "const f = new Function('a', body);", "js-new-function"),
        ("web/run.js", "child_process.exec(`convert ${file} out.png`);", "js-child-process-exec"),
        ("web/run.mjs", "await cp.execSync(`git log ${ref}`)", "js-child-process-exec"),
        ("scripts/setup.sh", 'eval "$(ssh-agent -s)"', "shell-eval"),
        ("scripts/setup.sh", 'if true; then eval "$CMD"; fi', "shell-eval"),
        (
            "scripts/setup.sh",
            "curl -fsSL https://get.example.com | sudo -E bash -s --",
            "shell-pipe-to-shell",
        ),
        ("Dockerfile", "RUN wget -qO- https://example.com/install.sh | sh", "shell-pipe-to-shell"),
        (".github/workflows/ci.yml", "      - run: curl -sL https://x.io/i | bash", "shell-pipe-to-shell"),
        ("Makefile", "\tbash <(curl -s https://x.io/i)", "shell-pipe-to-shell"),
        ("install.sh", 'sh -c "$(curl -fsSL https://x.io/i)"', "shell-pipe-to-shell"),
    ],
)
def test_text_constructs_fire(repo: GitRepo, path: str, line: str, rule_id: str) -> None:
    found = _dangerous(repo, {path: f"# first line\n{line}\n"})
    assert where(found) == [(path, 2, rule_id)]


def test_bare_exec_needs_child_process_in_the_file(repo: GitRepo) -> None:
    with_import = "const { exec } = require('child_process');\nexec(`rm -rf ${dir}`);\n"
    without = "exec(`rm -rf ${dir}`);\n"
    found = _dangerous(repo, {"a.js": with_import, "b.js": without})
    assert where(found) == [("a.js", 2, "js-child-process-exec")]


def test_bare_exec_reads_the_whole_new_text_for_child_process(repo: GitRepo) -> None:
    base = {"a.js": "const { exec } = require('child_process');\n\n"}
    head = {"a.js": "const { exec } = require('child_process');\n\nexec(`ls ${d}`);\nexec(`ls ${e}`);\n"}
    assert where(_dangerous(repo, head, base)) == [
        ("a.js", 3, "js-child-process-exec"),
        ("a.js", 4, "js-child-process-exec"),
    ]
    assert _dangerous(GitRepo.create(repo.root.parent / "other"), head, base, texts=False) == []


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("web/app.js", "// never eval(userInput)"),
        ("web/app.js", "/**\n * eval(userInput) in a doc comment\n */"),
        ("web/app.js", "const msg = 'do not eval(x)';"),
        ("web/app.js", "const s = `eval(${x})`;"),
        ("web/app.js", r"const s = 'it\'s \\ fine: eval(x)';"),
        ("web/app.js", "model.eval(batch);"),
        ("web/app.js", "const evaluate = (x) => x;"),
        ("web/app.js", "child_process.execFile('ls', [dir]);"),
        ("web/app.js", "child_process.exec('ls -l');"),
        ("scripts/setup.sh", "# eval is evil"),
        ("scripts/setup.sh", 'echo "eval $x"'),
        ("scripts/setup.sh", "evaluate_things"),
        ("scripts/setup.sh", "curl -fsSL https://x.io/a.tgz -o a.tgz  # | sh"),
        ("scripts/setup.sh", "curl -fsSL https://x.io/sums | shasum -c"),
        ("scripts/setup.sh", "curl https://x.io/i.sh -o i.sh && sha256sum -c i.sh.sha256 && sh i.sh"),
        ("README.md", "curl -fsSL https://get.example.com | bash"),
        ("docs/notes.txt", "eval(x)"),
    ],
)
def test_text_near_misses(repo: GitRepo, path: str, line: str) -> None:
    assert _dangerous(repo, {path: f"{line}\n"}) == []


def test_several_matches_on_one_long_line_are_each_judged(repo: GitRepo) -> None:
    line = "a = 1; " * 500 + "eval(x); // eval(y) " + "eval(z)"
    found = _dangerous(repo, {"a.js": f"{line}\n"})
    assert where(found) == [("a.js", 1, "js-eval")]


def test_the_manifest_can_turn_dangerous_constructs_off(repo: GitRepo) -> None:
    change = change_of(repo, {"a.py": "eval(x)\n", "a.js": "eval(x)\n"})
    assert len(scan(RULE, change)) == 2
    assert scan(RULE, change, manifest("content:\n  dangerous: false\n")) == []
