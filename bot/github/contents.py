"""Repository contents at a commit: trees, blobs and single files, read through the API."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from githubkit import GitHub

from bot.github.errors import NotFound, UnexpectedResponse, translated
from bot.github.repo import RepoRef


@dataclass(frozen=True, slots=True)
class TreeEntry:
    mode: str
    type: str  # "blob", "tree" or "commit" (a submodule)
    sha: str
    size: int | None


@dataclass(frozen=True, slots=True)
class Tree:
    """Every entry of a commit's tree by path; `truncated` when GitHub did not list them all."""

    sha: str
    entries: dict[str, TreeEntry]
    truncated: bool


def _decode(data: Any, what: str) -> bytes:
    if (
        not isinstance(data, dict)
        or data.get("encoding") != "base64"
        or not isinstance(data.get("content"), str)
    ):
        raise UnexpectedResponse(200, f"{what}: no base64 content in the answer")
    try:
        return base64.b64decode(data["content"], validate=False)
    except (binascii.Error, ValueError) as exc:
        raise UnexpectedResponse(200, f"{what}: content is not base64: {exc}") from exc


def get_tree(gh: GitHub[Any], repo: RepoRef, commit: str, *, recursive: bool = True) -> Tree:
    """The tree of `commit` (or of a tree SHA), recursive by default (one request)."""
    with translated():
        if recursive:
            data = gh.rest.git.get_tree(repo.owner, repo.name, commit, recursive="1").json()
        else:
            data = gh.rest.git.get_tree(repo.owner, repo.name, commit).json()
    try:
        entries = {
            str(e["path"]): TreeEntry(str(e["mode"]), str(e["type"]), str(e["sha"]), e.get("size"))
            for e in data["tree"]
        }
        return Tree(str(data["sha"]), entries, bool(data.get("truncated", False)))
    except (KeyError, TypeError) as exc:
        raise UnexpectedResponse(200, f"tree of {commit}: unexpected shape ({exc})") from exc


def get_blob(gh: GitHub[Any], repo: RepoRef, sha: str) -> bytes:
    with translated():
        data = gh.rest.git.get_blob(repo.owner, repo.name, sha).json()
    return _decode(data, f"blob {sha}")


def read_file(gh: GitHub[Any], repo: RepoRef, ref: str, path: str) -> bytes | None:
    """The bytes of the file at `path` in commit `ref`; None when there is no file there.

    Files above 1 MB come back without content from the contents API; those are read as blobs.
    """
    try:
        with translated():
            data = gh.rest.repos.get_content(repo.owner, repo.name, quote(path), ref=ref).json()
    except NotFound:
        return None
    if not isinstance(data, dict) or data.get("type") != "file":
        return None
    if data.get("encoding") == "none" or (data.get("content") == "" and data.get("size")):
        return get_blob(gh, repo, str(data["sha"]))
    return _decode(data, f"{path} at {ref}")
