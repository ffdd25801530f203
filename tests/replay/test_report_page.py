"""The HTML report in a real headless browser: it renders its plots and tables, runs no script,
loads nothing, shows hostile task titles as text, and carries every number the JSON report does."""

from __future__ import annotations

import itertools
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
        panels = {
            p.get_attribute("data-panel"): p
            for p in driver.find_elements(By.CSS_SELECTOR, "#plot-differences g.panel")
        }
        assert list(panels) == ["rates", "excess", "added_complexity"]  # a scale each
        spans = {name: float(p.get_attribute("data-span")) for name, p in panels.items()}
        excess_bounds = [abs(c["excess"][k]) for c in body["comparisons"] for k in ("low", "high", "difference")
                         if c["excess"][k] is not None]  # fmt: skip
        assert spans == {"rates": 1.0, "excess": max(excess_bounds), "added_complexity": 1.0}
        assert spans["excess"] < 0.5  # the excess differences use the width, not a sliver of a ±1 axis
        widest = [
            float(e.get_attribute("cx"))
            for e in panels["excess"].find_elements(By.CSS_SELECTOR, "circle.estimate")
            + panels["added_complexity"].find_elements(By.CSS_SELECTOR, "circle.estimate")
        ]
        assert max(widest) == 740.0 or min(widest) == 250.0  # the widest difference reaches its panel's edge
        assert [t.text for t in panels["excess"].find_elements(By.CSS_SELECTOR, "text.tick")] == [
            f"{-spans['excess']:+.3g}",
            "+0",
            f"{spans['excess']:+.3g}",
        ]
        labels = driver.find_elements(By.CSS_SELECTOR, "#plot-matrix text.task")
        assert [t.text for t in labels] == ["pr-3", "pr-4"]  # every row names its task
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


def test_a_tall_matrix_labels_every_kth_task_without_overlap() -> None:
    """400 tasks: rows of 3 px, so every 4th task is labelled, 12 px apart; long ids are cut."""
    import re

    from bot.replay.html import matrix_plot

    tasks = [
        {"task": f"pr-{n}" if n % 7 else f"commit-{n:040d}", "arms": {"a": {"attempts": 1, "faithful": 1,
         "functional": 1, "infrastructure": 0, "errors": 0}}}
        for n in range(400)
    ]  # fmt: skip
    svg = matrix_plot({"run": {"arms": [{"name": "a"}]}, "tasks": tasks})
    labels = re.findall(
        r'<g><title>([^<]*)</title><text class="task" x="[\d.]+" y="([\d.]+)" text-anchor="end">([^<]*)</text>',
        svg,
    )
    assert [whole for whole, _, _ in labels] == [t["task"] for t in tasks[::4]]
    ys = [float(y) for _, y, _ in labels]
    assert min(b - a for a, b in itertools.pairwise(ys)) == 12.0
    assert max(len(shown) for _, _, shown in labels) == 24 and labels[0][2] == tasks[0]["task"][:23] + "…"
    assert len(re.findall(r'<rect class="cell"', svg)) == 400
