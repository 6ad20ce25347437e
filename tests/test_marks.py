"""TA marks survive everything (grader/classroom/groups/store.py, grader/classroom/groups/marks.py): a spreadsheet's
CSV (byte-order mark, rows reordered), a late submission, a rerun and a regrouping; auto-graded
items are never markable; the grade book adds TA points to the autograder's."""

from __future__ import annotations

import csv
import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import REPO, load_script

from a2.written.process import InProcess
from grader.classroom.groups import cluster
from grader.classroom.groups.build import build_groups
from grader.classroom.groups.marks import SNAPSHOT, MarksError, import_table, read_snapshot
from grader.classroom.groups.store import MarkStore
from grader.cli import main
from grader.run.rubric import load_rubric

SEED = 11



bench_groups = load_script("bench_groups", REPO / "bench" / "groups.py")


def _fp() -> cluster.Fingerprinter:
    return cluster.child_fingerprinter(InProcess())


def _rows(path: Path, encoding: str = "utf-8") -> list[dict[str, str]]:
    with open(path, newline="", encoding=encoding) as f:
        return list(csv.DictReader(f))


def _save_like_a_spreadsheet(rows: list[dict[str, str]], path: Path) -> None:
    """UTF-8 with a byte-order mark, CRLF line ends, rows sorted by another column."""
    rows = sorted(rows, key=lambda r: (r["kind"], r["label"], r["group"]), reverse=True)
    with open(path, "w", newline="", encoding="utf-8-sig") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\r\n")
        writer.writeheader()
        writer.writerows(rows)


def _points(out: Path) -> dict[str, dict[str, str]]:
    result = CliRunner().invoke(main, ["points", str(out)])
    assert result.exit_code == 0, result.output
    return {r["submission"]: r for r in _rows(out / "ta_points.csv")}


def _late(out: Path, tmp: Path, like: str, key: str) -> None:
    """A late submission graded into the batch folder, as `grader batch` does on its rerun: a copy
    of ``like``'s writeup with one prose answer reworded (so it joins some groups, not all)."""
    from grader.reports import jsonout
    from grader.run.engine import grade
    from grader.run.rubric import load_rubric
    from grader.run.settings import GradingSettings

    upload = tmp / "late" / key
    shutil.copytree(out.parent / "class" / like, upload)
    written = [p.id for p in load_rubric().written]
    report = grade(upload, GradingSettings(seed=SEED, only=written, written_runner=InProcess()))
    doc = jsonout.to_json(report)
    doc["batch"] = {"status": "graded", "message": ""}
    folder = out / "submissions" / key
    folder.mkdir(parents=True)
    (folder / "report.json").write_text(json.dumps(doc), encoding="utf-8")
    with open(out / "grades.csv", "a", newline="", encoding="utf-8") as f:
        csv.writer(f).writerow([key, "Late Student", "999", "late@example.edu", "graded", f"{report.score:g}"])


@pytest.fixture(scope="module")
def marked_class(tmp_path_factory):
    out, _kinds = bench_groups.graded_written_class(tmp_path_factory.mktemp("marks"), count=12, seed=4,
                                                    grading_seed=SEED)
    build_groups(out, fingerprint=_fp())
    return out


def test_spreadsheet_marks_survive_a_late_submission_and_a_rerun(marked_class, tmp_path: Path):
    out = tmp_path / "out"
    shutil.copytree(marked_class, out)
    shutil.copytree(marked_class.parent / "class", tmp_path / "class")
    table = out / "groups" / "groups.csv"
    rows = _rows(table)
    assert rows and all(r["item"] in ("", "ta") for r in rows)          # TA items only
    assert not {"1b_i", "3a", "3f"} & {r["question"] for r in rows if r["item"] == ""}
    for n, r in enumerate(rows):   # every group gets a mark; some a comment
        r["points"] = f"{(n % 3) * float(r['max_points']) / 2:g}".replace(".", ",") if n % 5 == 4 else \
            f"{(n % 3) * float(r['max_points']) / 2:g}"
        r["comment"] = f"comment {n}" if n % 2 else ""
    _save_like_a_spreadsheet(rows, table)
    assert table.read_bytes().startswith(b"\xef\xbb\xbf")
    before = _points(out)
    assert before and all(r["total"] != "" for r in before.values())
    marked_slots = [c for c in _rows(out / "ta_points.csv")[0] if c not in ("submission", "names", "sids", "emails",
                                                                            "total")]
    assert marked_slots and "1b_i" not in marked_slots and "1d.ta" in marked_slots
    # The group each earlier answer was in, with its mark, before the late submission.
    old = {(g["slot"], m["submission"]): g for g in read_snapshot(out / "groups" / SNAPSHOT) for m in g["members"]}

    like = sorted(p.name for p in (out / "submissions").iterdir())[0]
    _late(out, tmp_path, like, "submission_late")
    again = build_groups(out, fingerprint=_fp())             # the rerun's regrouping
    assert again.imported == 0                                 # nothing new in the CSV: nothing re-added
    after = _points(out)
    for key, row in before.items():
        assert after[key] == row, f"{key} lost TA points: {row} -> {after[key]}"
    # The late one is a copy of `like`: it joined `like`'s groups and takes their marks.
    late = after["submission_late"]
    for slot in marked_slots:
        assert late[slot] == before[like][slot], slot
    assert late["total"] == before[like]["total"]
    # The CSV written again shows every mark; the spreadsheet's file was kept in the history.
    rewritten = _rows(table)
    assert all(r["points"] != "" for r in rewritten), "a group lost its mark in groups.csv"
    assert list((out / "marks" / "history").glob("groups-*.csv"))
    for path in (out / "groups").iterdir():          # other TAs on the server can read every file
        assert path.stat().st_mode & 0o044 == 0o044, path
    for path in (out / "marks").rglob("*"):
        assert path.is_dir() or path.stat().st_mode & 0o044 == 0o044, path
    # A third run (nothing changed) and `grader groups` again: still the same.
    build_groups(out, fingerprint=_fp())
    assert _points(out) == after
    assert old


def test_a_mark_changed_later_wins_and_an_empty_cell_never_clears(marked_class, tmp_path: Path):
    out = tmp_path / "out"
    shutil.copytree(marked_class, out)
    table = out / "groups" / "groups.csv"
    rows = _rows(table)
    rows[0]["points"] = "1"
    fingerprint = rows[0]["fingerprint"]
    _save_like_a_spreadsheet(rows, table)
    first = _points(out)
    members = rows[0]["submissions"].split()
    slot = f"{rows[0]['question']}.{rows[0]['item']}" if rows[0]["item"] else rows[0]["question"]
    assert all(first[k][slot] == "1" for k in members)
    rows = _rows(table)
    target = next(r for r in rows if r["fingerprint"] == fingerprint)
    target["points"] = "0"
    _save_like_a_spreadsheet(rows, table)
    assert all(_points(out)[k][slot] == "0" for k in members)
    rows = _rows(table)
    for r in rows:
        r["points"] = ""
    _save_like_a_spreadsheet(rows, table)
    assert all(_points(out)[k][slot] == "0" for k in members)
    store = MarkStore.open(out)
    assert [m.points for m in store.journal] == [1.0, 0.0]
    assert all(m.who and m.when and "groups.csv, line" in m.source for m in store.journal)


def test_bad_marks_are_refused_with_the_line_and_the_file_is_kept(marked_class, tmp_path: Path):
    out = tmp_path / "out"
    shutil.copytree(marked_class, out)
    table = out / "groups" / "groups.csv"
    rows = _rows(table)
    rows[1]["points"] = "lots"
    _save_like_a_spreadsheet(rows, table)
    kept = table.read_bytes()
    result = CliRunner().invoke(main, ["points", str(out)])
    assert result.exit_code == 1
    assert "line" in result.output and "points must be a number; got 'lots'" in result.output
    outcome = build_groups(out, fingerprint=_fp())
    assert table.read_bytes() == kept                        # never overwritten
    assert (out / "groups" / "groups.new.csv").is_file()
    assert any("points must be a number" in n and "left as it is" in n for n in outcome.notes)
    rows[1]["points"] = "999"
    _save_like_a_spreadsheet(rows, table)
    with pytest.raises(MarksError, match=r"line \d+: group .* is worth 0 to [\d.]+ points; got 999"):
        import_table(table, MarkStore.open(out), read_snapshot(out / "groups" / SNAPSHOT))


def test_grades_add_ta_points_to_the_autograders_and_write_the_comments(marked_class, tmp_path: Path):
    from grader.classroom.groups.store import OVERRIDE, Mark, now

    out = tmp_path / "out"
    shutil.copytree(marked_class, out)
    table = out / "groups" / "groups.csv"
    rows = _rows(table)
    for r in rows:
        r["points"] = r["max_points"]
        r["comment"] = f"well argued ({r['question']})" if r["question"] == "1a" else ""
    _save_like_a_spreadsheet(rows, table)
    # A TA overrides one auto-graded group's verdict, with a reason.
    groups = read_snapshot(out / "groups" / SNAPSHOT)
    auto = next(g for g in groups if g["slot"] == "1b_i" and g["verdict"].startswith("0/"))
    store = MarkStore.open(out)
    store.record([Mark("1b_i", auto["fingerprint"], 1.0, "right up to notation", "ta1", now(), "test", OVERRIDE)])
    result = CliRunner().invoke(main, ["grades", str(out)])
    assert result.exit_code == 0, result.output
    book = {r["submission"]: r for r in _rows(out / "final_grades.csv")}
    grades = {r["submission"]: r for r in _rows(out / "grades.csv")}
    assert list(book) == list(grades)
    ta_columns = ["1a", "1b_ii", "1b_iii", "1c", "1d.ta", "2a_i", "2a_ii", "2b_i.ta", "2b_ii", "3b.ta", "3g"]
    assert [c for c in book[next(iter(book))] if c in ta_columns] == ta_columns
    overridden = {m["submission"] for m in auto["members"]}
    for key, row in book.items():
        ta = sum(float(row[c]) for c in ta_columns if row[c])
        assert float(row["ta_total"]) == pytest.approx(ta)
        expected_auto = float(grades[key]["total"]) + (1.0 if key in overridden else 0.0)
        assert float(row["autograder"]) == pytest.approx(expected_auto), key
        assert float(row["total"]) == pytest.approx(expected_auto + ta), key
        assert "1a" not in row["unmarked"]
        text = (out / "feedback" / f"{key}.md").read_text(encoding="utf-8")
        assert f"Total: {row['total']} / {row['max_total']}" in text
        if row["1a"] and row["1a"] != "0":
            assert "well argued (1a)" in text
        if key in overridden:
            assert "changed by a TA from 0 to 1 points: right up to notation" in text
    assert float(book[next(iter(book))]["max_total"]) == sum(p.points for p in load_rubric().parts)
    assert oct((out / "final_grades.csv").stat().st_mode & 0o777) == "0o644"


@pytest.mark.slow
def test_the_scenario_through_the_commands(tmp_path: Path):
    """As a TA would: `grader batch` (written checks), groups.csv marked and saved by a spreadsheet,
    `grader points`; a late submission; `grader batch` again; `grader points` gives the same."""
    import subprocess

    make_class = load_script("make_class", REPO / "tools" / "make_class.py")
    classdir, out = tmp_path / "class", tmp_path / "out"
    members = make_class.plan_written_class(count=7, seed=5)
    make_class.write_class(classdir, members[:6])
    written = [p.id for p in load_rubric().written]
    only = [arg for q in written for arg in ("--only", q)]

    def grader(*args: str) -> subprocess.CompletedProcess:
        run = subprocess.run([sys.executable, "-m", "grader", *args], capture_output=True, text=True, timeout=900,
                             cwd=REPO)
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
        return run

    grader("batch", str(classdir), "--out", str(out), "--workers", "2", "--seed", "3", *only)
    table = out / "groups" / "groups.csv"
    rows = _rows(table)
    for n, r in enumerate(rows):
        r["points"] = f"{(n % 3) * float(r['max_points']) / 2:g}"
        r["comment"] = f"c{n}"
    _save_like_a_spreadsheet(rows, table)
    grader("points", str(out))
    before = {r["submission"]: r for r in _rows(out / "ta_points.csv")}
    # The late one: the seventh writeup of the same class, added to the export.
    make_class.write_class(tmp_path / "late", members)
    late = members[6].folder
    shutil.copytree(tmp_path / "late" / late, classdir / late)
    shutil.copy(tmp_path / "late" / "submission_metadata.yml", classdir / "submission_metadata.yml")
    run = grader("batch", str(classdir), "--out", str(out), "--workers", "2", "--seed", "3", *only)
    assert "1 graded now, 6 resumed" in run.stdout
    assert (out / "final_grades.csv").is_file()            # marks exist: the batch wrote the grade book
    grader("points", str(out))
    after = {r["submission"]: r for r in _rows(out / "ta_points.csv")}
    for key, row in before.items():
        assert {k: v for k, v in after[key].items()} == row, key
    assert late in after
    groups = read_snapshot(out / "groups" / SNAPSHOT)
    store = MarkStore.open(out)
    for g in groups:
        if g["ta"] and any(m["submission"] == late for m in g["members"]) and len(g["members"]) > 1:
            others = {before[m["submission"]][g["slot"]] for m in g["members"] if m["submission"] != late}
            if len(others) == 1:
                assert after[late][g["slot"]] == others.pop(), g["slot"]
    assert store.journal
