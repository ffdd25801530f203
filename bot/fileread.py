"""Reading a file someone names (a manifest, a reference patch, a receipt, an event payload): at most
one byte more than its reader accepts. Each reader already refuses input over its limit with its own
message; read whole first, a file of gigabytes, or a device or pipe that never ends (`/dev/zero`),
would fill memory before the reader could say so.
"""

from __future__ import annotations

from pathlib import Path


def read_limited(path: Path, limit: int) -> bytes:
    """The first `limit + 1` bytes of the file at most: enough for its reader to tell it is over
    `limit`. OSError as opening or reading it raises one."""
    with path.open("rb") as handle:
        return handle.read(limit + 1)
