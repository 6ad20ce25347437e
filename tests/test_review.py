"""grader review (grader/classroom/review.py): marking answer groups in a real browser, headless chromium
driven by chromedriver through selenium: open, mark, reload, the marks are kept; math is MathML;
auto-graded groups are read only with an override that needs a reason."""

from __future__ import annotations

import csv
import os
import shutil
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from conftest import REPO, load_script

from a2.written.process import InProcess
from grader.classroom.groups import cluster
from grader.classroom.groups.build import build_groups
from grader.classroom.groups.store import OVERRIDE, MarkStore
from grader.classroom.reports.review_html import mathml, render_answer
from grader.classroom.review import make_server

SHOTS = Path(os.environ.get("A2GRADER_SCREENSHOTS", "")) if os.environ.get("A2GRADER_SCREENSHOTS") else None



bench_groups = load_script("bench_groups", REPO / "bench" / "groups.py")


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> Path:
    out, _ = bench_groups.graded_written_class(tmp_path_factory.mktemp("review"), count=10, seed=2, grading_seed=11)
    build_groups(out, fingerprint=cluster.child_fingerprinter(InProcess()))
    return out


@pytest.fixture()
def server(batch: Path, tmp_path: Path):
    out = tmp_path / "out"
    shutil.copytree(batch, out)
    srv = make_server(out, port=0, who="ta-alice")
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield out, f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


def test_math_is_mathml_and_student_markup_never_passes_through():
    shown = render_answer(r"so $\frac{\partial J}{\partial v_c} = U(\hat y - y)$ <b>x</b>", formula=False)
    assert "<math" in shown and "<mfrac>" in shown and "&lt;b&gt;x&lt;/b&gt;" in shown
    assert mathml(r"a \text{<script>alert(1)</script>}") is None or "<script" not in mathml(r"a \text{<script>x</script>}")
    hostile = render_answer(r"$a \text{<script>alert(1)</script>}$ $\href{javascript:x}{y}$", formula=False)
    assert "<script" not in hostile and "javascript:x\"" not in hostile
    assert "<math" in render_answer(r"U(\hat{y} - y)", formula=True)


def test_the_server_listens_on_loopback_only_and_refuses_foreign_posts(server):
    out, url = server
    assert url.startswith("http://127.0.0.1:")
    page = urllib.request.urlopen(url + "/").read().decode()
    assert "groups marked" in page and "Review queue" in page
    assert "http://" not in page.replace(url, "") and "<script" not in page and "src=" not in page
    store = MarkStore.open(out)
    before = len(store.journal)
    fp = next(line.split('id="mark-')[1].split('"')[0] for line in urllib.request.urlopen(url + "/q/1a").read().decode()
              .split("\n") if 'id="mark-' in line)
    data = f"token=forged&fingerprint={fp}&points=1&back=/q/1a".encode()
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(urllib.request.Request(url + "/mark", data=data))
    assert refused.value.code == 400 and "another session" in refused.value.read().decode()
    assert len(MarkStore.open(out).journal) == before


def _driver(tmp: Path):
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium comes with the test extra")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        if os.environ.get("CI"):
            pytest.fail("chromium and chromium-driver are not installed; .ci/run installs them with apt-get")
        pytest.skip("chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)")
    os.environ["SE_OFFLINE"] = "true"          # Selenium Manager must not look for drivers online
    options = Options()
    options.binary_location = browser
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                 f"--user-data-dir={tmp / 'profile'}", "--window-size=1300,1500"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)


def _submit_and_wait(browser, form, seconds: float = 20) -> None:
    """Press the form's button and wait until the page it posted from is gone and the next one has loaded:
    a reload sent before the post's redirect arrives would race the mark (the CI saw that once)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(browser, seconds).until(ec.staleness_of(form))
    WebDriverWait(browser, seconds).until(lambda b: b.execute_script("return document.readyState") == "complete")


def test_marking_in_headless_chromium_survives_a_reload(server, tmp_path: Path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    out, url = server
    browser = _driver(tmp_path)
    try:
        browser.get(url + "/")
        assert "1a" in browser.find_element(By.TAG_NAME, "main").text
        start = browser.find_element(By.XPATH, "//main//li[a[text()='1a']]").text
        assert "0 of " in start
        link = browser.find_element(By.LINK_TEXT, "1a")
        link.click()
        WebDriverWait(browser, 20).until(ec.staleness_of(link))
        form = browser.find_elements(By.CSS_SELECTOR, "form[id^='mark-']")[0]
        fp = form.get_attribute("id")[len("mark-"):]
        form.find_element(By.NAME, "points").send_keys("1.5")
        form.find_element(By.NAME, "comment").send_keys("names both terms; no justification")
        _submit_and_wait(browser, form)
        browser.refresh()
        form = browser.find_element(By.ID, f"mark-{fp}")
        assert form.find_element(By.NAME, "points").get_attribute("value") == "1.5"
        assert form.find_element(By.NAME, "comment").get_attribute("value") == "names both terms; no justification"
        assert "marked by ta-alice" in form.text
        assert "1 of " in browser.find_element(By.TAG_NAME, "h2").text
        # A mark above the item's points is refused on the page, and nothing is recorded.
        other = browser.find_elements(By.CSS_SELECTOR, "form[id^='mark-']")[1]
        browser.execute_script("arguments[0].removeAttribute('max')", other.find_element(By.NAME, "points"))
        other.find_element(By.NAME, "points").send_keys("9")
        _submit_and_wait(browser, other)
        assert "worth 0 to 2 points; got 9" in browser.find_element(By.CLASS_NAME, "error").text
        # An auto-graded question: read only, verdicts shown, math drawn as MathML.
        browser.get(url + "/q/1b_i")
        assert not browser.find_elements(By.CSS_SELECTOR, "form[id^='mark-']")
        assert "auto:" in browser.find_element(By.TAG_NAME, "main").text
        assert browser.find_elements(By.TAG_NAME, "math")
        shot = (SHOTS or tmp_path) / "review_1b_i.png"
        browser.save_screenshot(str(shot))
        override = browser.find_elements(By.CSS_SELECTOR, "form[id^='override-']")[0]
        browser.execute_script("arguments[0].closest('details').open = true", override)
        override.find_element(By.NAME, "points").send_keys("1")
        override.find_element(By.NAME, "reason").send_keys("right, written with the other convention")
        _submit_and_wait(browser, override)
        browser.refresh()
        assert "overridden: 1 / 2 (right, written with the other convention)" in browser.find_element(By.TAG_NAME, "main").text
        browser.get(url + "/q/1a")
        browser.save_screenshot(str((SHOTS or tmp_path) / "review_1a.png"))
    finally:
        browser.quit()
    store = MarkStore.open(out)
    marks = [m for m in store.journal if m.kind != OVERRIDE]
    assert [(m.points, m.comment, m.who, m.source) for m in marks] == \
        [(1.5, "names both terms; no justification", "ta-alice", "grader review")]
    assert [m.comment for m in store.journal if m.kind == OVERRIDE] == ["right, written with the other convention"]
    with open(out / "groups" / "groups.csv", newline="", encoding="utf-8") as f:
        row = next(r for r in csv.DictReader(f) if r["fingerprint"] == fp)
    assert row["points"] == "1.5" and row["marked_by"] == "ta-alice"       # the CSV agrees with the browser
    assert shot.stat().st_size > 10_000
