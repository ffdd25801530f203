"""Where the processes of one `receipt serve` keep their metrics: the web process serves
`/metrics`, the worker process counts jobs and GitHub's answers. prometheus-client's multiprocess
mode has every process write its values to files in one directory, and the web process reads
them all; the mode is chosen when prometheus_client is first imported, so the directory is set
in the environment (which the worker process inherits) before that."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager
from pathlib import Path

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
_PREFIX = "receipt-metrics-"
_OWNER = "owner"  # the server's pid, so a later server knows the directory is abandoned


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def remove_abandoned(parent: Path) -> list[Path]:
    """Remove the directories of servers that died without their `finally` (kill -9, a crash):
    a server restarted in a loop would otherwise leave one a start. A directory whose owner
    cannot be read (being made, or not ours) is left alone."""
    removed = []
    for folder in parent.glob(_PREFIX + "*"):
        try:
            pid = int((folder / _OWNER).read_text(encoding="ascii"))
        except (OSError, ValueError):
            continue
        if not _alive(pid):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def fresh_folder() -> str:
    """A new directory for this server's processes, its owner recorded; abandoned ones removed."""
    parent = Path(tempfile.gettempdir())
    remove_abandoned(parent)
    folder = tempfile.mkdtemp(prefix=_PREFIX, dir=parent)
    (Path(folder) / _OWNER).write_text(str(os.getpid()), encoding="ascii")
    return folder


@contextmanager
def shared_metrics(environ: MutableMapping[str, str] = os.environ) -> Iterator[str]:
    """A fresh directory for this server's processes, removed at the end; an operator's own
    (PROMETHEUS_MULTIPROC_DIR already set) is used and left as it is."""
    given = environ.get(MULTIPROC_ENV)
    if given:
        yield given
        return
    if "prometheus_client" in sys.modules:
        raise RuntimeError("prometheus_client was imported before its multiprocess directory was chosen")
    folder = fresh_folder()
    environ[MULTIPROC_ENV] = folder
    try:
        yield folder
    finally:
        environ.pop(MULTIPROC_ENV, None)
        shutil.rmtree(folder, ignore_errors=True)
