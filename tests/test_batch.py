"""grader batch: finding submissions, grading them in parallel, resuming, and the class reports."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml
from conftest import REFERENCE, REPO, load_script
from rich.console import Console

from grader.classroom import batch, gradebook, roster
from grader.classroom.reports import summary
from grader.reports import jsonout
from grader.run.results import (
    ERROR,
    NOT_IMPLEMENTED,
    PARTIAL,
    PASSED,
    Charge,
    CheckResult,
    GradeReport,
    ManualItem,
    Outcome,
    Proof,
    WrittenRead,
)
from grader.run.rubric import load_rubric

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
#: Two fast checks (no training, no torch model): enough to exercise the batch machinery.
FAST_CHECKS = ("w2v_sigmoid", "pp_init")



make_class = load_script("make_class", REPO / "tools" / "make_class.py")


def _class(folder: Path, *, count: int, layout: str = "gradescope", seed: int = 0) -> dict[str, dict]:
    make_class.write_class(folder, make_class.plan_class(count=count, seed=seed), layout=layout)
    return yaml.safe_load((folder / "class_key.yml").read_text())


def _read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


# -- finding the submissions ---------------------------------------------------------------------


def test_discover_reads_gradescope_metadata_and_keeps_listed_missing_folders(tmp_path: Path):
    key = _class(tmp_path / "export", count=6)
    meta_path = tmp_path / "export" / roster.METADATA_FILE
    meta = yaml.safe_load(meta_path.read_text())
    meta["submission_99"] = {":submitters": [{":name": "Gone Student", ":sid": "1"}]}
    meta_path.write_text(yaml.safe_dump(meta))
    (tmp_path / "export" / "__MACOSX").mkdir()
    found = {s.key: s for s in roster.discover(tmp_path / "export")}
    assert set(found) == set(key) | {"submission_99"}
    group = next(s for s in found.values() if len(s.names) == 2)
    assert len(group.sids) == 2 and all("@example.edu" in e for e in group.emails)
    assert found["submission_99"].names == ("Gone Student",) and not found["submission_99"].path.exists()


def test_discover_takes_folders_and_zips_without_metadata(tmp_path: Path):
    key = _class(tmp_path / "zips", count=6, layout="zips")
    (tmp_path / "zips" / "extra").mkdir()
    (tmp_path / "zips" / ".hidden").mkdir()
    found = roster.discover(tmp_path / "zips")
    assert [s.key for s in found] == sorted([*key, "extra"])
    assert all(s.path.suffix == ".zip" for s in found if s.key != "extra")
    assert all(not s.names for s in found)


def test_discover_refuses_one_submission_and_bad_metadata(tmp_path: Path):
    one = tmp_path / "one"
    one.mkdir()
    (one / "word2vec.py").write_text("")
    with pytest.raises(gradebook.BatchError, match="grader grade"):
        roster.discover(one)
    bad = tmp_path / "bad"
    (bad / "s1").mkdir(parents=True)
    (bad / roster.METADATA_FILE).write_text("- just\n- a list\n")
    with pytest.raises(gradebook.BatchError, match="submission_metadata.yml"):
        roster.discover(bad)


# -- the result model round trip and the class summary -----------------------------------------


def _result(key: str, scores: dict[str, tuple[float, str, tuple[str, ...]]], status: str = gradebook.GRADED):
    checks = tuple(CheckResult(cid, "p", cid, f"1.{i}", 2.0, score, "visible",
                               Outcome(int(st == PASSED), 1, feedback, status=st), 0.1)
                   for i, (cid, (score, st, feedback)) in enumerate(scores.items(), 1))
    return gradebook.GradedSubmission(gradebook.Submission(key, Path(key)), status, GradeReport(key, 7, checks, 1.0))


def _every_field_report() -> GradeReport:
    """A report in which every field of every part is set off its default somewhere."""
    proof = Proof("sigmoid(x=[0.5, -1.25])", (0.6, 0.2), (0.622459, 0.222700))
    checks = (
        CheckResult("w2v_neg_loss", "word2vec", "negative sampling loss", "1.4", 3.0, 1.5, "visible",
                    Outcome(2, 4, ("- loss got 0.1, expected 0.2",), status=PARTIAL,
                            charged=(Charge("w2v_sigmoid", 2, (proof,)),),
                            review="score raised by 1 point(s) because check 1.1 (sigmoid) fails"), 0.123456789),
        CheckResult("train_uas", "parser", "dev UAS", "5.9", 4.0, 0.0, "after_due_date",
                    Outcome(0, 1, ("run.py: train is not implemented yet",), status=NOT_IMPLEMENTED,
                            leaderboard=(("dev UAS", 81.25),), ran=False), 2.5, "code", tags=("training", "uas")),
        CheckResult("1d", "written", "∂J/∂u_w", "6.4", 2.0, 2.0, "hidden",
                    Outcome(1, 1, ("read: (ŷ_w − y_w) v_c",)), 0.01, "written",
                    WrittenRead("(\\hat{y}_w - y_w) v_c", "(ŷ_w − y_w) v_c", "answers.md, line 40",
                                "two answers disagree", ("the true ∂J/∂u_w is (ŷ_w − y_w) v_c",), "visible",
                                ("Read from answers.md, line 40: (ŷ_w − y_w) v_c",), "after_due_date")),
    )
    manual = (ManualItem("1a", "why softmax", "6.1", 1.0, "after_due_date", "Because the outputs sum to 1.",
                         True, "answers.md, line 12", ("found under the heading (a)",)),
              ManualItem("3g", "more features", "6.9", 2.0, "hidden", "", False))
    return GradeReport("s07", 7, checks, 12.3456789, ("the upload had a __MACOSX folder",), manual,
                       ("run.py: train",))


def test_report_round_trips_through_its_json():
    """report -> JSON (the batch's report.json, `grader grade --json`) -> report is the same report:
    manual items, written items' why and why_visibility, charges, stubs and timings included."""
    original = _every_field_report()
    parts = [original, *original.checks, *original.manual, *(c.outcome for c in original.checks),
             *(c.written for c in original.checks if c.written), *(ch for c in original.checks for ch in c.outcome.charged)]
    for kind in {type(part) for part in parts}:   # a field added later must join the sample (and the JSON)
        unset = [f.name for f in dataclasses.fields(kind) if f.default is not dataclasses.MISSING
                 and all(getattr(part, f.name) == f.default for part in parts if type(part) is kind)]
        assert not unset, f"{kind.__name__} fields the sample leaves at their default: {unset}"
    rebuilt = gradebook.report_from_json(json.loads(json.dumps(jsonout.to_json(original))))
    assert rebuilt == original
    assert rebuilt.manual[0].text == "Because the outputs sum to 1." and rebuilt.checks[2].written.why
    assert gradebook.report_from_json(json.loads(json.dumps(jsonout.to_json(rebuilt)))) == original


def test_summary_groups_failures_that_differ_only_in_numbers():
    rubric_like = [gradebook.Column(cid, n, cid, 2.0) for cid, n in (("a", "1.1"), ("b", "1.2"))]
    fail = "- sigmoid(x) got {0}, expected 0.5"
    results = [
        _result("s1", {"a": (2.0, PASSED, ()), "b": (0.0, "failed", ("0/1", fail.format(0.25)))}),
        _result("s2", {"a": (2.0, PASSED, ()), "b": (0.0, "failed", ("0/1", fail.format(0.75)))}),
        _result("s3", {"a": (0.0, ERROR, ("a.py was not found",)), "b": (0.0, ERROR, ("b.py raised",))}),
        _result("s4", {"a": (0.0, ERROR, ("crash",)), "b": (0.0, ERROR, ("crash",))}, status=gradebook.FAILED),
    ]
    stats = gradebook.summarize(results, rubric_like, seed=7)
    a, b = stats.checks
    assert stats.counted == 3 and stats.failed_keys == ("s4",) and stats.totals == (2.0, 2.0, 0.0)
    assert a.pass_rate == pytest.approx(2 / 3) and a.mean_score == pytest.approx(4 / 3)
    assert b.pass_rate == 0 and b.common_failure_count == 2 and b.common_failure.startswith("sigmoid(x) got 0.25")
    text = summary.to_markdown(stats)
    assert "| 1.2 |" in text and "2 of 3 failing" in text and "s4" in text
    console = Console(file=io.StringIO(), width=160)
    summary.render(stats, console)
    assert "not counted: s4" in console.file.getvalue()


# -- running batches -------------------------------------------------------------------------


@pytest.mark.slow
def test_batch_grades_resumes_and_writes_reports(tmp_path: Path):
    key = _class(tmp_path / "class", count=6, seed=1)
    # An unreadable upload next to them: graded as 0, with the reason.
    (tmp_path / "class" / "garbage.zip").write_bytes(b"this is not a zip")
    out = tmp_path / "out"
    outcome = batch.run_batch(tmp_path / "class", out, workers=2, seed=11, only=FAST_CHECKS)
    assert outcome.graded_now == 7 and outcome.resumed == 0
    by_key = {r.submission.key: r for r in outcome.results}
    assert by_key["garbage"].status == gradebook.UNREADABLE and "not a readable zip" in by_key["garbage"].message
    for folder, what in key.items():
        result = by_key[folder]
        assert result.status == gradebook.GRADED, result.message
        assert [c.id for c in result.report.checks] == list(FAST_CHECKS)
        assert result.report.seed == 11
        if what["kind"] in ("correct", "alternative", "nested"):
            assert result.report.score == result.report.max_score, (folder, what, result.report.checks)
        if what["kind"] in ("empty", "template"):
            assert result.report.score == 0, (folder, what)
        results_json = json.loads((out / "submissions" / folder / "results.json").read_text())
        assert results_json["score"] == result.report.score

    rows = _read_csv(out / batch.CSV_FILE)
    assert [r["submission"] for r in rows] == sorted([*key, "garbage"])
    assert set(FAST_CHECKS) <= set(rows[0]) and {"names", "sids", "total", "status"} <= set(rows[0])
    assert {r["status"] for r in rows} == {gradebook.GRADED, gradebook.UNREADABLE}
    text = (out / batch.SUMMARY_FILE).read_text()
    assert all(f"`{c}`" in text for c in FAST_CHECKS) and "seed 11" in text
    for name in ("totals.png", "pass_rate.png"):
        assert (out / batch.PLOTS_DIR / name).read_bytes().startswith(PNG_MAGIC)

    # Resume: only the submission whose report is gone is graded again, with the recorded seed.
    redo = sorted(key)[2]
    (out / "submissions" / redo / batch.REPORT_FILE).unlink()
    again = batch.run_batch(tmp_path / "class", out, workers=2, only=FAST_CHECKS)
    assert (again.graded_now, again.resumed) == (1, 6) and again.settings.seed == 11
    assert {r.submission.key: r.report.score for r in again.results} == \
           {r.submission.key: r.report.score for r in outcome.results}
    with pytest.raises(gradebook.BatchError, match="seed 11, not 12"):
        batch.run_batch(tmp_path / "class", out, seed=12, only=FAST_CHECKS)
    with pytest.raises(gradebook.BatchError, match="repeat the first run's --quick or --only"):
        batch.run_batch(tmp_path / "class", out, only=FAST_CHECKS[:1])


@pytest.mark.slow
def test_a_grading_that_runs_out_of_time_fails_alone_and_is_retried(tmp_path: Path):
    classdir, out = tmp_path / "class", tmp_path / "out"
    for name in ("alice", "bob"):
        (classdir / name).mkdir(parents=True)
        (classdir / name / "word2vec.py").write_bytes((REFERENCE / "word2vec.py").read_bytes())
    outcome = batch.run_batch(classdir, out, workers=2, seed=3, only=FAST_CHECKS[:1], timeout=0.2)
    assert {r.status for r in outcome.results} == {gradebook.FAILED}, \
        [(r.status, r.message, r.report.seconds) for r in outcome.results]
    first = outcome.results[0]
    assert "longer than 0.2 s" in first.message and first.report.checks[0].score == 0
    assert (out / "submissions" / first.submission.key / "results.json").is_file()
    assert outcome.summary.counted == 0 and outcome.summary.failed_keys == ("alice", "bob")
    rows = _read_csv(out / batch.CSV_FILE)
    assert {r["status"] for r in rows} == {gradebook.FAILED}
    # Failed gradings are graded again on the next run.
    again = batch.run_batch(classdir, out, workers=2, only=FAST_CHECKS[:1])
    assert again.graded_now == 2
    assert {r.status for r in again.results} == {gradebook.GRADED}, [r.message for r in again.results]
    assert [r.report.score for r in again.results] == [1.0, 1.0]


def test_batch_options_are_checked(tmp_path: Path):
    _class(tmp_path / "class", count=6)
    with pytest.raises(gradebook.BatchError, match="unknown check id"):
        batch.run_batch(tmp_path / "class", tmp_path / "out", only=["no_such_check"])
    with pytest.raises(gradebook.BatchError, match="--workers must be at least 1"):
        batch.run_batch(tmp_path / "class", tmp_path / "out", workers=0)


@pytest.mark.slow
def test_cli_batch_on_twenty_bundled_submissions(tmp_path: Path):
    """`grader batch` on the 20-submission class of tools/make_class.py (quick checks): every
    kind of submission gets the score it deserves, and the CSV, summary and plots are written."""
    classdir, out = tmp_path / "class", tmp_path / "out"
    made = subprocess.run([sys.executable, str(REPO / "tools" / "make_class.py"), "--out", str(classdir)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert made.returncode == 0, made.stderr
    key = yaml.safe_load((classdir / "class_key.yml").read_text())
    assert len(key) == 20
    run = subprocess.run([sys.executable, "-m", "grader", "batch", str(classdir), "--out", str(out),
                          "--quick", "--workers", "2", "--seed", "1"],
                         capture_output=True, text=True, timeout=900, check=False)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "20 graded now" in run.stdout

    rubric = load_rubric()
    quick = set(batch.quick_checks(rubric))
    columns = {c.id: c.points for c in gradebook.scored_items(rubric) if c.id in quick}
    code = {s.id for s in rubric.checks} & set(columns)
    written = set(columns) - code
    assert written, "the written questions' auto-graded shares are graded too"
    rows = {r["submission"]: r for r in _read_csv(out / batch.CSV_FILE)}
    assert set(rows) == set(key)
    meta = yaml.safe_load((classdir / roster.METADATA_FILE).read_text())
    for folder, what in key.items():
        row = rows[folder]
        assert row["status"] == gradebook.GRADED
        assert row["names"] == "; ".join(s[":name"] for s in meta[folder][":submitters"])
        failing = {c for c in columns if float(row[c]) < columns[c]}
        if what["kind"] in ("empty", "template"):
            assert failing == set(columns), (folder, what)
            continue
        assert not failing & written, (folder, what)   # every other one has the reference's answers.md
        if what["kind"] in ("correct", "alternative", "nested"):
            assert not failing, (folder, what)
        elif what["kind"] == "syntax_error":
            assert failing == {c for c in code if c.startswith("w2v_")}, (folder, what)
        else:
            assert failing == set(what["fails"]) & code, (folder, what)
    text = (out / batch.SUMMARY_FILE).read_text()
    assert "20 submissions (20 graded)" in text and all(f"`{c}`" in text for c in columns)
    for name in ("totals.png", "pass_rate.png"):
        assert (out / batch.PLOTS_DIR / name).read_bytes().startswith(PNG_MAGIC)



def test_make_class_is_deterministic_and_has_every_kind(tmp_path: Path):
    a = make_class.plan_class(count=20, seed=0)
    b = make_class.plan_class(count=20, seed=0)
    assert [(m.folder, m.kind, m.description, m.files) for m in a] == \
           [(m.folder, m.kind, m.description, m.files) for m in b]
    assert {m.kind for m in a} == {*make_class.FIXED_KINDS, "buggy"}
    correct = next(m for m in a if m.kind == "correct")
    assert correct.files["word2vec.py"] == (REFERENCE / "word2vec.py").read_bytes()
    make_class.write_class(tmp_path / "z", a[:6], layout="zips")
    with zipfile.ZipFile(tmp_path / "z" / f"{a[0].folder}.zip") as zf:
        assert sorted(zf.namelist()) == sorted(a[0].files)
