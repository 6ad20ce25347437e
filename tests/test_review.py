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
from typing import Any

import pytest
from conftest import REPO, load_script

from a2.written.process import InProcess
from grader.classroom.groups import cluster
from grader.classroom.groups.marks import member_mark, prints_of, read_snapshot, resolve
from grader.classroom.groups.store import OVERRIDE, MarkStore
from grader.classroom.groups_command import build_groups
from grader.classroom.reports.group_files import write_snapshot
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


def _fetch(url: str) -> tuple[str, Any]:
    """The body and headers of a GET, its connection closed (an open one is a ResourceWarning later)."""
    with urllib.request.urlopen(url) as response:
        return response.read().decode(), response.headers


def test_the_server_listens_on_loopback_only_and_refuses_foreign_posts(server):
    out, url = server
    assert url.startswith("http://127.0.0.1:")
    page, headers = _fetch(url + "/")
    assert "groups marked" in page and "Review queue" in page
    assert "http://" not in page.replace(url, "")
    # The one script is the server's own file (no inline script, nothing from elsewhere), so a strict CSP holds.
    assert page.count("<script") == 1 and '<script src="/review.js" defer></script>' in page
    assert page.count("src=") == 1
    csp = headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    script, script_headers = _fetch(url + "/review.js")
    assert script_headers["Content-Type"].startswith("text/javascript") and "keydown" in script
    store = MarkStore.open(out)
    before = len(store.journal)
    fp = next(line.split('id="mark-')[1].split('"')[0] for line in _fetch(url + "/q/1a")[0].split("\n")
              if 'id="mark-' in line)
    data = f"token=forged&fingerprint={fp}&points=1&back=/q/1a".encode()
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(urllib.request.Request(url + "/mark", data=data, headers={"Origin": url}))
    with refused.value:
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
    WebDriverWait(browser, seconds).until(lambda _: _gone(form, ec))
    WebDriverWait(browser, seconds).until(lambda b: b.execute_script("return document.readyState") == "complete")


def _gone(element, ec) -> bool:
    """Selenium's staleness test, plus chromedriver's other word for the same event: asked about a
    node while the page unloads, it may answer "Node with given id does not belong to the document"
    (a WebDriverException) instead of a stale reference (seen once under load)."""
    from selenium.common.exceptions import WebDriverException

    try:
        return ec.staleness_of(element)(None)
    except WebDriverException as exc:
        if "does not belong to the document" in str(exc):
            return True
        raise


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


# -- rubric items, the question, code checks, a batch that changes (issue 38) ----------------------------------

@pytest.fixture(scope="module")
def class20(tmp_path_factory) -> Path:
    out, _ = bench_groups.graded_written_class(tmp_path_factory.mktemp("review20"), count=20, seed=7, grading_seed=11)
    build_groups(out, fingerprint=cluster.child_fingerprinter(InProcess()))
    return out


def _serve(out: Path):
    srv = make_server(out, port=0, who="ta-bea")
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}"


def _wait_load(browser, old, seconds: float = 20) -> None:
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, seconds).until(ec.staleness_of(old))
    WebDriverWait(browser, seconds).until(lambda b: b.execute_script("return document.readyState") == "complete")


def _key(browser, key: str, *, reloads: bool) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    main = browser.find_element(By.TAG_NAME, "main")
    ActionChains(browser).send_keys(key).perform()
    if reloads:
        _wait_load(browser, main)


def _points_cli(out: Path, name: str) -> dict[str, str]:
    """`grader points` run as a TA runs it: the 1a column per submission."""
    from click.testing import CliRunner

    from grader.cli import main

    target = out / name
    result = CliRunner().invoke(main, ["points", str(out), "--out", str(target)])
    assert result.exit_code == 0, result.output
    with open(target, newline="", encoding="utf-8") as f:
        return {r["submission"]: r.get("1a", "") for r in csv.DictReader(f)}


def test_a_ta_marks_a_class_of_twenty_with_rubric_items_and_one_change_rescores_every_answer(class20, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from grader.classroom.groups.store import norm

    out = tmp_path / "out"
    shutil.copytree(class20, out)
    srv, url = _serve(out)
    browser = _driver(tmp_path)
    shots = SHOTS or tmp_path
    shots.mkdir(parents=True, exist_ok=True)
    try:
        browser.set_window_size(1366, 900)
        browser.get(url + "/q/1a")
        head = browser.find_element(By.ID, "question")
        assert "naive-softmax loss" in head.text and "2 points (TA-graded)" in head.text   # the question, its points
        assert "reference answer (TAs only)" in head.text and head.find_elements(By.TAG_NAME, "math")
        for points, description, comment in (("2", "the one-hot y collapses the sum to -log ŷ_o", ""),
                                             ("-0.5", "does not say why the other terms vanish", "say that y_w = 0 there"),
                                             ("1", "names the one-hot y only", "")):
            form = browser.find_element(By.ID, "new-item-1a")
            form.find_element(By.NAME, "points").send_keys(points)
            form.find_element(By.NAME, "description").send_keys(description)
            form.find_element(By.NAME, "comment").send_keys(comment)
            _submit_and_wait(browser, form)
        assert [e.get_attribute("value") for e in browser.find_elements(By.CSS_SELECTOR, "[id^='item-1a-'] [name=points]")] \
            == ["2", "-0.5", "1"]
        groups = {g["fingerprint"]: g for g in read_snapshot(out / "groups" / "groups.json") if g["slot"] == "1a"}
        order = [e.get_attribute("id") for e in browser.find_elements(By.CSS_SELECTOR, ".group.ta")]
        assert set(order) == set(groups) and len(order) >= 3
        # Keyboard marking: the keys of each group's items, "n" to the next group without points.
        plan = {fp: (("1",), ("1", "2"), ("3",))[n % 3] for n, fp in enumerate(order)}
        for n, fp in enumerate(order):
            if n:
                _key(browser, "n", reloads=False)
                assert browser.find_element(By.CSS_SELECTOR, ".group.current").get_attribute("id") == fp
            for key in plan[fp]:
                _key(browser, key, reloads=True)
        browser.execute_script("window.scrollTo(0, 0)")
        browser.save_screenshot(str(shots / "review_question_and_items_1a.png"))
        browser.execute_script("document.getElementById(arguments[0]).scrollIntoView()", order[1])
        browser.save_screenshot(str(shots / "review_rubric_items_1a.png"))
        assert not browser.find_elements(By.CSS_SELECTOR, ".group.ta.todo")
        # One answer alone: the second answer of the first group with two different texts gets item 3 only.
        fp_alone = next(fp for fp in order if plan[fp] != ("3",) and len({norm(m["text"]) for m in groups[fp]["members"]}) > 1)
        alone = groups[fp_alone]["members"][-1]
        card = browser.find_element(By.ID, fp_alone)
        browser.execute_script("arguments[0].open = true", card.find_element(By.CSS_SELECTOR, "details.alone"))
        form = browser.find_element(By.ID, f"alone-{fp_alone}")
        Select(form.find_element(By.NAME, "answer")).select_by_value(alone["submission"])
        form.find_element(By.CSS_SELECTOR, "input[name=item][value='3']").click()
        _submit_and_wait(browser, form)
        before = _points_cli(out, "before.csv")
        # The policy changes: item 1 is worth 1.5, not 2.
        form = browser.find_element(By.ID, "item-1a-1")
        field = form.find_element(By.NAME, "points")
        field.clear()
        field.send_keys("1.5")
        _submit_and_wait(browser, form)
        assert "re-scored" in browser.find_element(By.CLASS_NAME, "notice").text
        browser.save_screenshot(str(shots / "review_rubric_item_changed.png"))
    finally:
        browser.quit()
        srv.shutdown()
        srv.server_close()
    after = _points_cli(out, "after.csv")
    alone_text = norm(alone["text"])
    expected_before, expected_after = {}, {}
    for fp, g in groups.items():
        for m in g["members"]:
            keys = ("3",) if fp == fp_alone and norm(m["text"]) == alone_text else plan[fp]
            worth = {"1": (2.0, 1.5), "2": (-0.5, -0.5), "3": (1.0, 1.0)}
            expected_before[m["submission"]] = f"{sum(worth[k][0] for k in keys):g}"
            expected_after[m["submission"]] = f"{sum(worth[k][1] for k in keys):g}"
    assert len(expected_after) == 20
    assert {k: before[k] for k in expected_before} == expected_before
    assert {k: after[k] for k in expected_after} == expected_after            # `grader points` reads the new points
    changed = {k for k in after if after[k] != before[k]}
    assert changed == {k for k, v in expected_after.items() if v != expected_before[k]} and changed
    journal = [m for m in MarkStore.open(out).journal if "item 1 changed" in m.source]
    assert journal and all(m.who == "ta-bea" for m in journal)                # the change is in the journal
    from click.testing import CliRunner

    from grader.cli import main

    assert CliRunner().invoke(main, ["grades", str(out)]).exit_code == 0       # and the grade book has it
    with open(out / "final_grades.csv", newline="", encoding="utf-8") as f:
        assert {r["submission"]: r["1a"] for r in csv.DictReader(f)} == {**after, **expected_after}


def test_a_code_check_on_the_review_list_is_decided_in_review_and_reaches_the_grade_book(batch, tmp_path):
    from click.testing import CliRunner
    from selenium.webdriver.common.by import By

    from grader.cli import main

    out = tmp_path / "out"
    shutil.copytree(batch, out)
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        first = next(csv.DictReader(f))
    with open(out / "review_queue.csv", "a", newline="", encoding="utf-8") as f:
        csv.writer(f).writerow([first["submission"], first["names"], "train_uas", "training reaches the dev UAS floor",
                                "0", "2", "not run: the grading ran out of its time budget before this check", "", ""])
    assert CliRunner().invoke(main, ["grades", str(out)]).exit_code == 0
    with open(out / "final_grades.csv", newline="", encoding="utf-8") as f:
        auto_before = float(next(r for r in csv.DictReader(f) if r["submission"] == first["submission"])["autograder"])
    srv, url = _serve(out)
    browser = _driver(tmp_path)
    try:
        browser.get(url + "/")
        link = browser.find_element(By.LINK_TEXT, "Code checks on the review list")
        link.click()
        _wait_load(browser, link)
        form = browser.find_element(By.CSS_SELECTOR, "form[id^='check-']")
        assert "out of its time budget" in browser.find_element(By.TAG_NAME, "main").text
        form.find_element(By.NAME, "points").send_keys("2")
        form.find_element(By.NAME, "reason").send_keys("trained to 0.87 UAS when run alone with a longer budget")
        _submit_and_wait(browser, form)
        assert "decided: 2 / 2" in browser.find_element(By.TAG_NAME, "main").text
        browser.save_screenshot(str((SHOTS or tmp_path) / "review_code_checks.png"))
    finally:
        browser.quit()
        srv.shutdown()
        srv.server_close()
    assert CliRunner().invoke(main, ["grades", str(out)]).exit_code == 0
    with open(out / "final_grades.csv", newline="", encoding="utf-8") as f:
        row = next(r for r in csv.DictReader(f) if r["submission"] == first["submission"])
    assert float(row["autograder"]) == auto_before + 2
    feedback = (out / "feedback" / f"{first['submission']}.md").read_text(encoding="utf-8")
    assert "train_uas: changed by a TA from 0 to 2 points: trained to 0.87 UAS" in feedback


def test_the_server_notices_a_batch_that_changed_under_it_and_keeps_every_mark(batch, tmp_path):
    from grader.classroom.review import Review

    out = tmp_path / "out"
    shutil.copytree(batch, out)
    review = Review(out, who="ta-cy")
    page = review.question("1a")
    stale = next(g for g in review.groups if g["slot"] == "1a" and g["ta"])
    # A late submission arrives (a copy of one answer set under a new key) and the batch is regrouped.
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    source = stale["members"][0]["submission"]
    shutil.copytree(out / "submissions" / source, out / "submissions" / "late_one")
    with open(out / "grades.csv", "a", newline="", encoding="utf-8") as f:
        csv.writer(f).writerow(["late_one", "Late Student", "999", "late@x", "graded",
                                next(r["total"] for r in rows if r["submission"] == source)])
    build_groups(out, fingerprint=cluster.child_fingerprinter(InProcess()))
    assert "changed while this page was open" not in page
    review.post("mark", {"token": review.token, "fingerprint": stale["fingerprint"], "points": "1.5",
                         "comment": "kept", "back": "/q/1a"})
    page = review.question("1a")
    assert "changed while this page was open" in page and "11 submissions" in page and review.generation == 1
    late = next(g for g in review.groups if any(m["submission"] == "late_one" for m in g["members"]) and g["slot"] == "1a")
    assert resolve(review.store, late).mark.points == 1.5                   # the late answer has the mark too
    # A regrouping merges two groups while a page showing them is open: the form of the vanished
    # group is still saved, and its mark reaches its answers in the merged group.
    groups = read_snapshot(out / "groups" / "groups.json")
    one, two = [g for g in groups if g["slot"] == "1a" and g["fingerprint"] != stale["fingerprint"]][:2]
    merged = {**one, "members": one["members"] + two["members"]}
    merged["fingerprint"] = prints_of([merged])[0].fingerprint
    review.store.remember(prints_of([merged]))
    write_snapshot([g for g in groups if g not in (one, two)] + [merged], out / "groups" / "groups.json")
    review.post("mark", {"token": review.token, "fingerprint": two["fingerprint"], "points": "0.5",
                         "comment": "from the page before the merge", "back": "/q/1a"})
    assert "changed while this page was open" in review.question("1a") and review.generation == 2
    shown = next(g for g in review.groups if g["fingerprint"] == merged["fingerprint"])
    kept = [member_mark(review.store, shown, m["text"], resolve(review.store, shown)) for m in shown["members"]]
    assert [k.points for k, m in zip(kept, shown["members"]) if m in two["members"]] == [0.5] * len(two["members"])


def test_every_written_question_has_its_text_and_a_reference_answer_from_the_assignment():
    """The text comes from the assignment's own data (a2/written/questions.yaml), which says what the
    template's quoted questions say; the reference answer from reference/answers.md."""
    from grader import assignment
    from grader.run.rubric import load_rubric

    registry = assignment.registry()
    template = (REPO / "student_template" / "answers.md").read_text(encoding="utf-8")
    quoted = " ".join(line.lstrip("> ").strip() for line in template.splitlines() if line.startswith(">"))
    for part in load_rubric().written:
        text = registry.question_text(part.id)
        assert text and " ".join(text.split()) in " ".join(quoted.split()), part.id
        assert len(registry.reference_answer(part.id, REPO / "reference")) > 20, part.id
    assert registry.question_text("no_such_question") == ""


def test_an_item_change_leaves_alone_a_mark_changed_since_in_the_spreadsheet(batch, tmp_path):
    """A group whose mark a TA changed in groups.csv after the rubric items gave it is not re-scored
    when an item changes: the later mark stands; the groups that still carry the item are re-scored."""
    from grader.classroom.review import Review

    out = tmp_path / "out"
    shutil.copytree(batch, out)
    review = Review(out, who="ta-dee")
    ta = [g for g in review.groups if g["slot"] == "1a" and g["ta"]][:2]
    post = {"token": review.token, "back": "/q/1a"}
    review.post("item", {**post, "slot": "1a", "points": "2", "description": "full answer", "comment": ""})
    for g in ta:
        review.post("mark", {**post, "fingerprint": g["fingerprint"], "item": ["1"], "points": "", "comment": ""})
    table = out / "groups" / "groups.csv"
    with open(table, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        if r["fingerprint"] == ta[1]["fingerprint"]:
            r["points"], r["comment"] = "0.5", "regraded by hand"
    with open(table, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    review.post("item", {**post, "slot": "1a", "number": "1", "points": "1.5", "description": "full answer", "comment": ""})
    first, second = (resolve(review.store, g).mark for g in ta)
    assert (first.points, first.source) == (1.5, "grader review: item 1 changed")
    assert (second.points, second.comment) == (0.5, "regraded by hand")
    assert "marked outside the rubric items" in review.question("1a")


def test_an_answer_marked_alone_leaves_no_group_without_points(batch, tmp_path):
    """A group marked as a whole, then one of its answers marked alone with other points: every
    answer has points, so neither `grader points` nor `grader grades` may say the group is without
    points (they did: the differing marks read as a group still to mark). A group with an answer no
    TA marked is still named."""
    from click.testing import CliRunner

    from grader.classroom.review import Review
    from grader.cli import main

    out = tmp_path / "out"
    shutil.copytree(batch, out)
    review = Review(out, who="ta-eve")
    ta = [g for g in review.groups if g["slot"] == "1a" and g["ta"]]
    split = next(g for g in ta if len({m["text"].strip().lower() for m in g["members"]}) > 1)
    post = {"token": review.token, "back": "/q/1a"}
    for g in ta:
        review.post("mark", {**post, "fingerprint": g["fingerprint"], "points": "2", "comment": ""})
    review.post("mark", {**post, "fingerprint": split["fingerprint"], "answer": split["members"][-1]["submission"],
                         "points": "0.5", "comment": "only the one-hot step"})
    for command in ("points", "grades"):
        result = CliRunner().invoke(main, [command, str(out)])
        assert result.exit_code == 0, result.output
        assert "1a: " not in result.output and "without points" in result.output, (command, result.output)  # others are
    with open(out / "ta_points.csv", newline="", encoding="utf-8") as f:
        got = {r["submission"]: r["1a"] for r in csv.DictReader(f)}
    assert got[split["members"][-1]["submission"]] == "0.5" and got[split["members"][0]["submission"]] == "2"
    # Control: an answer no TA has marked keeps its group named (one answer of a fresh batch alone).
    fresh = tmp_path / "fresh"
    shutil.copytree(batch, fresh)
    review = Review(fresh, who="ta-eve")
    review.post("mark", {**post, "token": review.token, "fingerprint": split["fingerprint"],
                         "answer": split["members"][-1]["submission"], "points": "0.5", "comment": ""})
    result = CliRunner().invoke(main, ["points", str(fresh)])
    assert f"1a: {len(ta)} groups without points" in result.output, result.output


def test_the_index_says_auto_graded_not_zero_of_zero_groups(batch, tmp_path):
    """The fresh-clone walk's index read "1b_i: 0 of 0 groups marked (auto-graded)"."""
    from grader.classroom.review import Review

    shutil.copytree(batch, tmp_path / "out")
    page = Review(tmp_path / "out", who="ta-fay").index()
    assert "0 of 0" not in page
    assert '1b_i</a>: <span class="progress">auto-graded: verdicts to read' in page
    assert '1a</a>: <span class="progress">0 of ' in page
