"""A real headless browser for every page receipt serves: Debian's chromium driven by selenium
through chromium-driver (no browser download: the system one). Tests skip with the reason when the
browser is absent, and fail instead when RECEIPT_REQUIRE_SERVICES=1 (CI)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = (
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--window-size=1280,1600",
)  # fmt: skip


def _missing() -> str | None:
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (os.path.exists(path) or shutil.which(os.path.basename(path))):
            return f"{path} is not installed (apt-get install chromium chromium-driver)"
    return None


@contextmanager
def browser() -> Iterator[object]:
    """A fresh headless chromium session (its own profile), closed afterwards."""
    missing = _missing()
    if missing:
        if os.environ.get("RECEIPT_REQUIRE_SERVICES") == "1":
            pytest.fail(f"a browser test needs chromium: {missing}")
        pytest.skip(missing)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="receipt-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium") or CHROMIUM
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver_path = (
        CHROMEDRIVER if os.path.exists(CHROMEDRIVER) else shutil.which("chromedriver") or CHROMEDRIVER
    )
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
