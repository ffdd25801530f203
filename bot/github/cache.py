"""Trees and blobs shared across jobs: content-addressed by SHA, so never stale, bounded in bytes."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any


class ObjectCache:
    """A least-recently-used map from (repository, SHA, kind) to an immutable git object."""

    def __init__(self, max_bytes: int = 256 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[tuple[str, str, str], tuple[Any, int]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str, str]) -> Any | None:
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return None
            self._items.move_to_end(key)
            return found[0]

    def put(self, key: tuple[str, str, str], value: Any, size: int) -> None:
        if size > self.max_bytes // 4:
            return  # one huge object would evict everything else
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._size -= old[1]
            self._items[key] = (value, size)
            self._size += size
            while self._size > self.max_bytes and self._items:
                _, (_, dropped) = self._items.popitem(last=False)
                self._size -= dropped
