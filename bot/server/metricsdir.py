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

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


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
    folder = tempfile.mkdtemp(prefix="receipt-metrics-")
    environ[MULTIPROC_ENV] = folder
    try:
        yield folder
    finally:
        environ.pop(MULTIPROC_ENV, None)
        shutil.rmtree(folder, ignore_errors=True)
