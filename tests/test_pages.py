"""The class's pages as a reader meets them (issue 38): the totals plot spans the scores, the
similarity pair page fits a laptop screen (1366 px, headless chromium) and names the files it did
not compare, the summary says "1 submission"."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from grader.classroom.reports.plots import histogram_edges
from grader.classroom.reports.similarity_html import index_page, pair_page
from grader.classroom.similarity.detect import Pair
from grader.classroom.similarity.sources import Document


def test_the_totals_plot_spans_the_scores_not_zero_to_the_maximum():
    edges = histogram_edges([70, 71, 73, 74, 76, 76], 76)
    assert 60 <= edges[0] <= 69 and edges[-1] == 76 and len(edges) - 1 == 76 - edges[0]    # one bin per point
    assert histogram_edges([5, 40, 76], 76)[0] == 0                            # a spread class keeps 0
    assert histogram_edges([], 94)[0] == 0


def _pair() -> Pair:
    long = "    return " + " + ".join(f"weights_{n} * inputs_{n}" for n in range(40)) + "\n"
    text = "def forward(self, x):\n" + long * 30
    a = Document("alice", "parser_model.py", text, names=("Alice A",))
    b = Document("bob", "parser_model.py", text, names=("Bob B",))
    return Pair(a, b, "parser_model.py", 0.9, 0.9, 0.9, 400, text, text, ((0, len(text)),), ((0, len(text)),))


def test_the_similarity_pages_name_the_files_not_compared():
    page = pair_page(_pair(), 1, ("sgd.py", "run.py"))
    assert "Not compared: sgd.py, run.py" in page
    index = index_page([_pair()], ["p.html"], threshold=0.5, submissions=1, known=(), not_compared=("sgd.py",))
    assert "Not compared: sgd.py" in index and "1 submission compared" in index


def test_the_similarity_pair_page_fits_a_laptop_screen(tmp_path: Path):
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium comes with the test extra")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    browser, driver = shutil.which("chromium") or shutil.which("chromium-browser"), shutil.which("chromedriver")
    if browser is None or driver is None:
        if os.environ.get("CI"):
            pytest.fail("chromium and chromium-driver are not installed; .ci/run installs them with apt-get")
        pytest.skip("chromium and chromium-driver are not installed")
    os.environ["SE_OFFLINE"] = "true"
    options = Options()
    options.binary_location = browser
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1366,768"):
        options.add_argument(flag)
    page = tmp_path / "pair.html"
    page.write_text(pair_page(_pair(), 1, ("sgd.py",)), encoding="utf-8")
    chrome = webdriver.Chrome(service=Service(executable_path=driver), options=options)
    try:
        chrome.get(page.as_uri())
        width = chrome.execute_script("return document.documentElement.clientWidth")
        sides = chrome.find_elements(By.CSS_SELECTOR, ".side")
        rects = [chrome.execute_script("return arguments[0].getBoundingClientRect().toJSON()", s) for s in sides]
        shots = Path(os.environ.get("A2GRADER_SCREENSHOTS") or tmp_path)
        shots.mkdir(parents=True, exist_ok=True)
        chrome.save_screenshot(str(shots / "similarity_pair_1366.png"))
        scrolls = chrome.execute_script("return document.documentElement.scrollWidth")
    finally:
        chrome.quit()
    assert len(rects) == 2 and rects[1]["right"] <= width                     # the right pane is on the screen
    assert abs(rects[0]["width"] - rects[1]["width"]) < 2 and scrolls <= width  # two equal panes, no page scroll


def test_the_summary_says_one_submission_and_one_check_in_the_singular():
    import io

    from rich.console import Console

    from grader.classroom import gradebook
    from grader.classroom.reports import summary
    from grader.run.results import PASSED, CheckResult, GradeReport, Outcome

    check = CheckResult("a", "p", "a", "1.1", 2.0, 2.0, "visible", Outcome(1, 1, (), status=PASSED), 0.1)
    graded = gradebook.GradedSubmission(gradebook.Submission("s1", Path("s1")), gradebook.GRADED,
                                        GradeReport("s1", 7, (check,), 1.0))
    crashed = gradebook.GradedSubmission(gradebook.Submission("s2", Path("s2")), gradebook.FAILED,
                                         GradeReport("s2", 7, (check,), 1.0))
    stats = gradebook.summarize([graded, crashed], [gradebook.Column("a", "1.1", "a", 2.0)], seed=7)
    text = summary.to_markdown(stats)
    assert "2 submissions (" in text and "1 check worth 2 points" in text and "Totals of the 1 graded submission:" in text
    console = Console(file=io.StringIO(), width=200)
    summary.render(stats, console)
    out = console.file.getvalue()
    assert "1 graded submission (seed 7)" in out and "1 grading failed and is not counted: s2" in out
    assert "(s)" not in text + out
