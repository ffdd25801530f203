"""The HTML report in a real headless browser: it renders its plots and tables, runs no script,
loads nothing, and shows hostile task titles as text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bot.replay.html import render_html
from tests.browser import browser


def test_the_report_page_in_a_browser(replayed: dict[str, Any], tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    body = json.loads(replayed["report_file"].read_text())
    body["tasks"][0]["title"] = "<script>document.title='owned'</script><img src=x onerror=alert(1)>"
    page = tmp_path / "report.html"
    page.write_text(render_html(body), encoding="utf-8")
    with browser() as driver:
        driver.get(page.as_uri())
        assert driver.title == "receipt replay report"
        assert driver.find_elements(By.TAG_NAME, "script") == []
        assert driver.find_elements(By.TAG_NAME, "img") == []
        assert "<script>document.title='owned'</script>" in driver.find_element(By.ID, "matrix").text
        arms = driver.find_elements(By.CSS_SELECTOR, "#arms tr[data-arm]")
        assert [r.get_attribute("data-arm") for r in arms] == [
            "gold",
            "over",
            "tests",
            "hard",
            "crash",
        ]  # the run's order
        hard = driver.find_element(By.CSS_SELECTOR, "#arms tr[data-arm='hard']")
        assert hard.find_element(By.CLASS_NAME, "functional").text == "50.0%"
        assert len(driver.find_elements(By.CSS_SELECTOR, "#plot-excess circle.dot")) == 7  # passing attempts
        assert len(driver.find_elements(By.CSS_SELECTOR, "#plot-matrix rect.cell")) == 10
        # four comparisons, four metrics each; crash shares no passing task for excess and complexity
        assert len(driver.find_elements(By.CSS_SELECTOR, "#plot-differences line.interval")) == 4 * 4 - 2
        box = driver.find_element(By.ID, "plot-differences").rect
        assert box["width"] > 700 and box["height"] > 300  # laid out, not collapsed
        assert "Gate: fail" in driver.find_element(By.ID, "gate").text
        assert "critical task pr-3 regresses" in driver.find_element(By.ID, "gate").text
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []
        driver.save_screenshot(str(tmp_path / "report.png"))
