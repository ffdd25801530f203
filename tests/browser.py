"""A real headless browser for page tests (Debian's chromium and chromium-driver, through selenium).

`browser()` is a context manager yielding a WebDriver; it skips the test, with the reason, when the
browser or its driver is absent, and fails it instead when RECEIPT_REQUIRE_SERVICES=1 (CI installs
them). Shared by the replay report's tests and the App's receipt-page tests.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
DRIVER = ("/usr/bin/chromedriver",)
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)  # fmt: skip


def _first(paths: tuple[str, ...]) -> str | None:
    return next((p for p in paths if Path(p).is_file() and os.access(p, os.X_OK)), None)


def _unavailable(reason: str) -> None:
    if os.environ.get("RECEIPT_REQUIRE_SERVICES") == "1":
        pytest.fail(f"{reason} (RECEIPT_REQUIRE_SERVICES=1)")
    pytest.skip(reason)


@contextmanager
def browser(width: int = 1280, height: int = 1600) -> Iterator[Any]:
    binary, driver = _first(CHROMIUM), _first(DRIVER)
    if binary is None or driver is None:
        _unavailable(
            "headless chromium or chromedriver is not installed (apt-get install chromium chromium-driver)"
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="receipt-browser-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(binary)
    for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    session = webdriver.Chrome(service=Service(executable_path=str(driver)), options=options)
    try:
        yield session
    finally:
        session.quit()
        shutil.rmtree(profile, ignore_errors=True)
