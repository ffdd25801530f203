"""`suppression` on the shapes it misattributed on maintainers' own commits
(docs/precision-review.md), and the near misses beside them that must still fire.

Each shape is reconstructed from the public repository's file it was found in (repo@commit:path,
shortened); the findings were reviewed by hand with tools/precision.py.
"""

from __future__ import annotations

import pytest

from bot.engine.content.suppressions import SuppressionsRule
from bot.engine.findings import Violation
from tests.content.helpers import change_of, scan, where
from tests.gitrepo import GitRepo

RULE = SuppressionsRule()


def _found(repo: GitRepo, path: str, head: str, base: str | None = None) -> list[tuple[str, int, str]]:
    found: list[Violation] = scan(RULE, change_of(repo, {path: head}, None if base is None else {path: base}))
    return where(found)


# pallets/flask@6f2014d353:src/flask/wrappers.py — the `[override]` of the def moved onto another
# property's decorator; the two new `[no-any-return]` are the markers the change adds
_FLASK_BASE = '''class Request(RequestBase):
    routing_exception = None

    @property
    def max_content_length(self) -> int | None:  # type: ignore[override]
        """Read-only view of the ``MAX_CONTENT_LENGTH`` config key."""
        if current_app:
            return current_app.config["MAX_CONTENT_LENGTH"]  # type: ignore[no-any-return]
        else:
            return None
'''
_FLASK_HEAD = '''class Request(RequestBase):
    routing_exception = None

    @property
    def max_content_length(self) -> int | None:
        """The maximum number of bytes that will be read during this request."""
        if self._max_content_length is not None:
            return self._max_content_length
        return current_app.config["MAX_CONTENT_LENGTH"]  # type: ignore[no-any-return]

    @property
    def max_form_memory_size(self) -> int | None:
        """The maximum size in bytes any non-file form field may be."""
        return current_app.config["MAX_FORM_MEMORY_SIZE"]  # type: ignore[no-any-return]

    @property  # type: ignore[override]
    def max_form_parts(self) -> int | None:
        """The maximum number of fields that may be present."""
        return current_app.config["MAX_FORM_PARTS"]  # type: ignore[no-any-return]
'''

# urllib3/urllib3@901dafbae7:src/urllib3/contrib/pyopenssl.py — the ignore on `set_passwd_cb` is
# new; the same line keeps its ignore with another code, which silences an error the base's did not
_URLLIB3_BASE = """            if password is not None:
                if not isinstance(password, bytes):
                    password = password.encode("utf-8")  # type: ignore[assignment]
                self._ctx.set_passwd_cb(lambda *_: password)
            self._ctx.use_privatekey_file(keyfile or certfile)
        except OpenSSL.SSL.Error as e:
            raise ssl.SSLError(f"Unable to load certificate chain: {e!r}") from e

    def set_alpn_protocols(self, protocols: list[bytes | str]) -> None:
        protocols = [util.util.to_bytes(p, "ascii") for p in protocols]
        return self._ctx.set_alpn_protos(protocols)  # type: ignore[no-any-return]
"""
_URLLIB3_HEAD = _URLLIB3_BASE.replace(
    "set_passwd_cb(lambda *_: password)", "set_passwd_cb(lambda *_: password)  # type: ignore[arg-type]"
).replace("# type: ignore[no-any-return]", "# type: ignore[arg-type]")

# pypa/pip@1be21eac83:src/pip/_vendor/platformdirs/unix.py — the S108 marker kept on a rewritten
# path; the PTH111 marker on the new `fonts` is the one the change adds
_PIP_BASE = """def user_data_dir(self) -> str:
    path = os.path.expanduser("~/.local/share")  # noqa: PTH111
    return self._append_app_name_and_version(path)

def user_runtime_dir(self) -> str:
    path = f"/tmp/runtime-{getuid()}"  # noqa: S108
    return path
"""
_PIP_HEAD = """def user_data_dir(self) -> str:
    return self._append_app_name_and_version(os.path.expanduser("~/.local/share"))  # noqa: PTH111

def user_fonts_dir(self) -> str:
    return f"{os.path.expanduser('~/.local/share')}/fonts"  # noqa: PTH111  # API returns str, not Path

def user_runtime_dir(self) -> str:
    path = f"/tmp/run/user/{getuid()}"  # noqa: S108
    return path
"""


@pytest.mark.parametrize(
    ("path", "base", "head", "expected"),
    [
        ("src/flask/wrappers.py", _FLASK_BASE, _FLASK_HEAD, [14, 19]),
        ("src/urllib3/contrib/pyopenssl.py", _URLLIB3_BASE, _URLLIB3_HEAD, [4, 11]),
        ("src/pip/_vendor/platformdirs/unix.py", _PIP_BASE, _PIP_HEAD, [5]),
    ],
)
def test_a_kept_or_moved_marker_is_not_the_one_reported(
    repo: GitRepo, path: str, base: str, head: str, expected: list[int]
) -> None:
    assert [line for _, line, _ in _found(repo, path, head, base)] == expected


def test_a_marker_moved_to_other_code_in_another_hunk_still_counts(repo: GitRepo) -> None:
    filler = "".join(f"k{i} = {i}\n" for i in range(10))
    base = "a = '/tmp/x'  # noqa: S108\n" + filler + "b = 2\n"
    head = "a = '/tmp/x'\n" + filler + "b = open('/tmp/y')  # noqa: S108\n"
    assert _found(repo, "a.py", head, base) == [("a.py", 12, "noqa")]


def test_rewriting_a_line_cannot_hide_a_second_new_marker(repo: GitRepo) -> None:
    base = "x = f()  # noqa: E501\n"
    head = "x = g()  # noqa: E501\ny = h()  # noqa: E501\n"
    assert _found(repo, "a.py", head, base) == [("a.py", 2, "noqa")]


# pypa/pip@19064ced2e:tools/vendoring/patches/requests.patch — lines the patch removes from the
# vendored code, markers included: the patch's text, not a marker of this repository's code
_PATCH = "\n".join([
    "diff --git a/src/pip/_vendor/requests/__init__.py b/src/pip/_vendor/requests/__init__.py",
    "--- a/src/pip/_vendor/requests/__init__.py",
    "+++ b/src/pip/_vendor/requests/__init__.py",
    "@@ -48,13 +48,6 @@ from .exceptions import RequestsDependencyWarning",
    " ",
    "-try:",
    "-    from chardet import __version__ as chardet_version  # type: ignore[import-not-found]",
    "-except ImportError:",
    "-    chardet_version = None",
    "+chardet_version = None",
    "     import ssl  # noqa: F401",
    "",
])  # fmt: skip


def test_a_patch_files_removed_and_context_lines_are_its_text(repo: GitRepo) -> None:
    assert _found(repo, "tools/vendoring/patches/requests.patch", _PATCH) == []


def test_a_marker_a_patch_adds_to_the_code_it_patches_counts(repo: GitRepo) -> None:
    head = _PATCH + "+    import simplejson as json  # type: ignore[import-not-found]\n"
    assert _found(repo, "tools/vendoring/patches/requests.patch", head) == [
        ("tools/vendoring/patches/requests.patch", 12, "type-ignore")
    ]


@pytest.mark.parametrize(
    ("path", "line"),
    [
        # aio-libs/yarl@0c9db0f366:.pre-commit-config.yaml and :pyproject.toml — prose naming the marker
        (".pre-commit-config.yaml", "        # must be opted in with `# noqa: PLC0415` + a comment."),
        ("pyproject.toml", "# imports must be opted into explicitly with `# noqa: PLC0415` and a"),
        ("tox.ini", "# add `# type: ignore` where mypy is wrong"),
        (".github/workflows/ci.yml", "      # keep `# pragma: no cover` for platform branches"),
    ],
)
def test_a_python_marker_in_a_configuration_comment_silences_nothing(
    repo: GitRepo, path: str, line: str
) -> None:
    assert _found(repo, path, f"key: 1\n{line}\n") == []


@pytest.mark.parametrize(
    ("path", "line", "marker"),
    [
        ("config.yml", "token: abc  # gitleaks:allow", "gitleaks-allow"),  # gitleaks reads every file
        ("rules.yaml", "x: 1  # nosemgrep: some.rule", "nosemgrep"),
        (".github/workflows/ci.yml", "      # shellcheck disable=SC2086", "lint-ignore"),
        ("stubs/mod.pyi", "def f() -> int: ...  # type: ignore[override]", "type-ignore"),
        ("src/conf.py", "# imports must be opted into explicitly with `# noqa: PLC0415` and a", "noqa"),
    ],
)
def test_markers_their_tools_read_there_still_fire(repo: GitRepo, path: str, line: str, marker: str) -> None:
    assert _found(repo, path, f"key = 1\n{line}\n") == [(path, 2, marker)]
