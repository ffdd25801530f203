"""Receipt pages, read in a real headless browser; capability URLs that leak nothing."""

from __future__ import annotations

import httpx
from selenium.webdriver.common.by import By

from tests.browser import browser
from tests.fakegithub.harness import AppWorld
from tests.server.appprocess import AppHost
from tests.server.test_app import _completed


def test_the_receipt_page_shows_the_fields_findings_and_policy(github_app: AppWorld, host: AppHost) -> None:
    host.serve(RECEIPT_GITHUB_WEB_URL="https://github.com")
    github_app.push({"package-lock.json": "{}\n", "docs/<b>x</b>.md": "<script>alert(1)</script>\n"})
    github_app.send_pull_request("synchronize")
    [run] = _completed(github_app, github_app.pull.head_sha)
    with browser() as driver:
        driver.get(run["details_url"])
        assert driver.title == "receipt: failure"
        fields = driver.find_element(By.ID, "fields").text
        assert "scope" in fields and "fail" in fields and "locality" in fields
        verdict = driver.find_element(By.ID, "verdict").text
        assert "scope failed" in verdict
        files = [h.text for h in driver.find_elements(By.CSS_SELECTOR, "section.file h3")]
        assert "package-lock.json" in files and "docs/<b>x</b>.md" in files, "names shown as text, not markup"
        assert not driver.find_elements(By.TAG_NAME, "script")
        policy = driver.find_element(By.ID, "policy").text
        assert ".github/receipt.yml" in policy and github_app.pull.head_sha in policy
        link = driver.find_element(By.CSS_SELECTOR, "section.file a")
        assert link.get_attribute("href").startswith("https://github.com/acme/widgets/blob/")
        driver.get(run["details_url"].replace("?token=", "?token=x"))
        body = driver.find_element(By.TAG_NAME, "body").text
        assert "not found" in body and "acme" not in body and "package-lock" not in body


def test_a_wrong_or_missing_token_gets_nothing(github_app: AppWorld, host: AppHost) -> None:
    host.serve()
    github_app.send_pull_request("opened")
    [run] = _completed(github_app, github_app.pull.head_sha)
    url, token = run["details_url"].split("?token=")
    good = httpx.get(f"{url}.json", params={"token": token})
    assert good.status_code == 200 and good.json()["subject"]["head"] == github_app.pull.head_sha
    assert good.headers["cache-control"] == "no-store" and good.headers["referrer-policy"] == "no-referrer"
    unknown = url.rsplit("/", 1)[0] + "/" + "0" * 32
    for target, params in ((url, {}), (url, {"token": token[:-1]}), (f"{url}.json", {"token": "x" * 43}),
                           (unknown, {"token": token})):  # fmt: skip
        answer = httpx.get(target, params=params)
        assert answer.status_code == 404 and answer.json() == {"error": "not found"}
