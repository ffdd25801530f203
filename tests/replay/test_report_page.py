"""The HTML report in a real headless browser: it renders its plots and tables, runs no script,
loads nothing, shows hostile task titles as text, and carries every number the JSON report does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bot.replay.html import render_html
from tests.browser import browser

# Every element of the page holding a value of the report, with where it sits.
_COLLECT = """
return Array.from(document.querySelectorAll('[data-key]')).map(e => {
  const table = e.closest('table'), row = e.closest('tr'), cell = e.closest('td');
  return [table && table.id, row && row.dataset.task, row && row.dataset.arm, row && row.dataset.attempt,
          cell && cell.dataset.arm, e.dataset.key, e.dataset.value];
});
"""


def leaves(body: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every value of a JSON object by its dotted path; lists are values, empty objects have none."""
    for key, value in body.items():
        if isinstance(value, dict):
            yield from leaves(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def shown(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


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
        arms = driver.find_elements(By.CSS_SELECTOR, "#arms th[data-arm]")
        assert [a.get_attribute("data-arm") for a in arms] == [
            "gold",
            "over",
            "tests",
            "hard",
            "crash",
        ]  # the run's order
        hard = driver.find_element(By.CSS_SELECTOR, "#arms td[data-arm='hard'] [data-key='functional_rate']")
        assert hard.text == "50.0%"
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
        found = driver.execute_script(_COLLECT)
        driver.save_screenshot(str(tmp_path / "report.png"))
    page_values: dict[tuple[Any, ...], str] = {}
    for table, task, row_arm, attempt, cell_arm, key, value in found:
        place = (table, task, row_arm, attempt, cell_arm, key)
        assert place not in page_values, place  # one value in one place
        page_values[place] = value
    expected: dict[tuple[Any, ...], str] = {}
    for arm, summary in body["arms"].items():
        for key, value in leaves(summary):
            expected["arms", None, None, None, arm, key] = shown(value)
    for comparison in body["comparisons"]:
        for key, value in leaves(comparison):
            expected["comparisons", None, comparison["arm"], None, None, key] = shown(value)
    for row in body["tasks"]:
        for arm, cell in row["arms"].items():
            for key, value in leaves(cell):
                expected["matrix", row["task"], None, None, arm, key] = shown(value)
    for row in body["attempts"]:
        place = ("attempts", row["task"], row["arm"], str(row["attempt"]), None)
        for key, value in leaves({k: v for k, v in row.items() if k not in ("task", "arm", "attempt")}):
            expected[(*place, key)] = shown(value)
    # every trace number is there per attempt, and per arm: the five the issue names among them
    assert {k[-1] for k in expected if k[0] == "attempts"} >= {
        "trace.read_before_edit", "trace.tests_after_last_edit", "trace.edits_per_failed_test_run",
        "trace.reverted_after_failure", "trace.diff_within_tool_edits",
    }  # fmt: skip
    assert page_values == expected
