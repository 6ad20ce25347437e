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
from grader.classroom.groups.marks import SNAPSHOT, MarksError, import_table, read_snapshot
from grader.classroom.groups.store import MarkStore
from grader.classroom.groups_command import build_groups
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
        assert row["pending"] == "" and row["total"] != "" and not row["total"].startswith("pending")
        text = (out / "feedback" / f"{key}.md").read_text(encoding="utf-8")
        assert f"Total: {row['total']} / {row['max_total']}" in text
        if row["1a"] and row["1a"] != "0":
            assert "well argued (1a)" in text
        if key in overridden:
            assert "changed by a TA from 0 to 1 points: right up to notation" in text
            assert "1b_i: 0 -> 1 by ta1" in row["overrides"]
            results = json.loads((out / "submissions" / key / "results.json").read_text(encoding="utf-8"))
            test = next(t for t in results["tests"] if t["extra_data"].get("question") == "1b_i" and "score" in t
                        and "explains" not in t["extra_data"])
            assert test["score"] == 1.0 and test["extra_data"]["ta_decision"]["reason"] == "right up to notation"
            assert results["score"] == pytest.approx(expected_auto)       # what Gradescope shows is the book's
        else:
            assert row["overrides"] == "" and not (out / "submissions" / key / "results.json").exists()
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
    # The late one's answers were never seen by a TA: each has a mark only where its text is word
    # for word one a TA marked; every other TA item is pending (never the group's mark, never 0).
    groups = read_snapshot(out / "groups" / SNAPSHOT)
    store = MarkStore.open(out)
    pending = after[late]["pending"].split()
    for g in groups:
        mine = [m for m in g["members"] if m["submission"] == late]
        if not g["ta"] or not mine:
            continue
        seen = [m for m in g["members"] if m["submission"] != late and
                " ".join(m["text"].lower().split()) == " ".join(mine[0]["text"].lower().split())]
        if seen:
            assert after[late][g["slot"]] == before[seen[0]["submission"]][g["slot"]], g["slot"]
        else:
            assert after[late][g["slot"]] == "" and g["slot"] in pending, g["slot"]
    assert store.journal


# -- TA marks apply only to the answers a TA saw --------------------------------------------------


def _late_reworded(out: Path, tmp: Path, like: str, key: str) -> list[str]:
    """A late submission: ``like``'s writeup with every TA-graded prose answer's claims turned
    around (its words mostly kept, so it joins ``like``'s groups); returns the slots changed."""
    groups = read_snapshot(out / "groups" / SNAPSHOT)
    upload = tmp / "late" / key
    shutil.copytree(out.parent / "class" / like, upload)
    answers = upload / "answers.md"
    text = answers.read_text(encoding="utf-8")
    changed = []
    for g in groups:
        if not g["ta"] or g["kind"] != "prose":
            continue
        mine = next((m["text"].strip() for m in g["members"] if m["submission"] == like), "")
        if len(mine) > 20 and mine in text:
            text = text.replace(mine, "It is not true that " + mine[0].lower() + mine[1:].replace(" is ", " is not "), 1)
            changed.append(g["slot"])
    answers.write_text(text, encoding="utf-8")
    _grade_into(out, upload, key)
    return changed


def _grade_into(out: Path, upload: Path, key: str) -> None:
    from grader.reports import jsonout
    from grader.run.engine import grade
    from grader.run.settings import GradingSettings

    written = [p.id for p in load_rubric().written]
    report = grade(upload, GradingSettings(seed=SEED, only=written, written_runner=InProcess()))
    doc = jsonout.to_json(report)
    doc["batch"] = {"status": "graded", "message": ""}
    folder = out / "submissions" / key
    folder.mkdir(parents=True)
    (folder / "report.json").write_text(json.dumps(doc), encoding="utf-8")
    with open(out / "grades.csv", "a", newline="", encoding="utf-8") as f:
        csv.writer(f).writerow([key, f"Late {key}", f"9{len(key)}", f"{key}@example.edu", "graded", f"{report.score:g}"])


def test_marks_reach_only_answers_a_ta_saw_and_new_ones_wait_as_pending(marked_class, tmp_path: Path):
    """Every group marked full in `grader review`; then two late submissions: one word for word
    another's (it gets the same marks), one with every prose claim turned around (it gets none:
    pending in `grader points`, `grader grades`, groups.csv, and first on the review page with the
    earlier mark suggested; one click there makes it the TA's own mark)."""
    from grader.classroom.review import Review

    out = tmp_path / "out"
    shutil.copytree(marked_class, out)
    shutil.copytree(marked_class.parent / "class", tmp_path / "class")
    review = Review(out, who="ta1")
    for g in review.groups:
        if g["ta"]:
            review.post("mark", {"token": review.token, "fingerprint": g["fingerprint"],
                                 "points": f"{g['max_points']:g}", "comment": f"right ({g['slot']})", "back": "/"})
    full = _points(out)
    assert all(r["pending"] == "" for r in full.values())
    like = sorted(p.name for p in (out / "submissions").iterdir())[0]
    _late(out, tmp_path, like, "late_copy")
    changed = _late_reworded(out, tmp_path, like, "late_reversed")
    assert len(changed) >= 4, changed
    regrouped = build_groups(out, fingerprint=_fp())                    # the rerun's regrouping
    assert any("joined groups after they were marked: pending" in n for n in regrouped.notes), regrouped.notes

    result = CliRunner().invoke(main, ["points", str(out)])
    assert result.exit_code == 0, result.output
    points = {r["submission"]: r for r in _rows(out / "ta_points.csv")}
    # Word for word another's answers: the marks the TA gave those answers.
    assert {k: v for k, v in points["late_copy"].items() if k not in ("submission", "names", "sids", "emails")} == \
        {k: v for k, v in full[like].items() if k not in ("submission", "names", "sids", "emails")}
    # Reversed claims: no mark inherited, none zero either: pending, counted per submission and in all.
    late = points["late_reversed"]
    for slot in changed:
        assert late[slot] == "", slot
    assert set(late["pending"].split()) >= set(changed)
    n = len(late["pending"].split())
    assert late["total"] == f"pending {n} items"
    assert f"pending: {n} items in all, in 1 submission" in " ".join(result.output.split())
    assert "new since" in result.output
    for key, row in full.items():                                       # nobody else changed
        assert points[key] == row, key

    # groups.csv: the groups the reversed answers joined wait for a TA, with the earlier mark suggested.
    rows = [r for r in _rows(out / "groups" / "groups.csv") if "late_reversed" in r["submissions"].split()]
    joined = [r for r in rows if r["new_since_marked"]]
    assert joined and all(r["points"] == "" and r["suggested"].startswith(r["max_points"]) for r in joined)
    # The grade book: total pending, feedback without the TA's comments for answers no TA read.
    result = CliRunner().invoke(main, ["grades", str(out)])
    assert result.exit_code == 0, result.output
    book = {r["submission"]: r for r in _rows(out / "final_grades.csv")}
    assert book["late_reversed"]["total"] == f"pending {n} items"
    assert book["late_copy"]["total"] == book[like]["total"] and book["late_copy"]["pending"] == ""
    feedback = (out / "feedback" / "late_reversed.md").read_text(encoding="utf-8")
    assert "not your grade yet" in feedback
    for slot in changed:
        assert f"right ({slot})" not in feedback, slot

    # The review page: the groups with new answers come first, the earlier mark filled in.
    review = Review(out, who="ta2")
    first = next(g for g in review.groups if g["slot"] == changed[0] and
                 any(m["submission"] == "late_reversed" for m in g["members"]))
    page = review.question(first["question"])
    cards = page.split('<div class="group ')
    assert "new since marked: late_reversed" in cards[1], cards[1][:400]
    assert 'class="group todo' in page and f'value="{first["max_points"]:g}"' in cards[1]
    # One click applies the suggestion, recorded as this TA's own mark.
    review.post("mark", {"token": review.token, "fingerprint": first["fingerprint"],
                         "points": f"{first['max_points']:g}", "comment": f"right ({first['slot']})", "back": "/"})
    assert MarkStore.open(out).journal[-1].who == "ta2"
    assert _points(out)["late_reversed"][first["slot"]] == f"{first['max_points']:g}"


def test_an_override_reaches_only_the_table_or_formula_the_ta_saw(tmp_path: Path):
    """3(a): two different tables share the key "first wrong row: 15"; an override of one never
    reaches the other. A formula group's override reaches another spelling with the same values."""
    from grader.classroom.groups.store import OVERRIDE, GroupPrint, Mark, now

    store = MarkStore.open(tmp_path)
    seen = GroupPrint.make("3a", "table:first wrong row: 15", ["| honest table, only row 15 misread |"])
    formula = GroupPrint.make("1b_i", "values:abc", ["U(\\hat y - y)"])
    store.remember([seen, formula])
    store.record([Mark("3a", seen.fingerprint, 6.0, "only row 15 misread: full credit", "ta", now(), "t", OVERRIDE),
                  Mark("1b_i", formula.fingerprint, 3.0, "notation", "ta", now(), "t", OVERRIDE)])
    later = store.resolve("3a", "table:first wrong row: 15", ["| honest table, only row 15 misread |",
                                                              "| another table, a wrong tree |"], OVERRIDE)
    assert later.mark is None and later.new == ("| another table, a wrong tree |",)
    assert later.suggestion is not None and later.suggestion.points == 6.0
    assert store.answer_mark("3a", "table:first wrong row: 15", "| another table, a wrong tree |", OVERRIDE) is None
    again = store.resolve("1b_i", "values:abc", ["U(\\hat y - y)", "U (\\hat{y} - y)"], OVERRIDE)
    assert again.mark is not None and again.mark.points == 3.0 and not again.new
    # Marks and overrides are apart: an override is no mark.
    assert store.answer_mark("3a", "", "| honest table, only row 15 misread |") is None
    # The review page says which answers the override does not reach, and that their verdict stands.
    from grader.classroom.groups.store import Resolution
    from grader.classroom.reports.review_html import group_card

    members = [{"submission": "s1", "text": "| honest table, only row 15 misread |"},
               {"submission": "s2", "text": "| another table, a wrong tree |"}]
    card = group_card({"fingerprint": "fpx", "representative": members[0]["text"], "members": members,
                       "label": "first wrong row: 15", "kind": "table", "verdict": "mixed", "id": "3a:01",
                       "max_points": 4.0, "ta": False}, Resolution(), later, "tok", "/q/3a")
    assert "1 answer new since overridden: s2; the autograder's verdict stands for them" in card
    assert "overridden (the earlier answers): 6 / 4" in card


def test_final_grades_refuse_pending_items_and_the_exports_reach_the_lms(marked_class, tmp_path: Path):
    """`grader grades --final` refuses while a TA item is pending; --allow-pending exports with the
    pending cells empty (never 0); with everything marked the Canvas and Gradescope CSVs hold one
    row per student keyed by the roster's id and email, and each student has a feedback file."""
    out = tmp_path / "out"
    shutil.copytree(marked_class, out)
    table = out / "groups" / "groups.csv"
    rows = _rows(table)
    for r in rows:
        r["points"] = r["max_points"] if r["question"] != "3g" else ""
    _save_like_a_spreadsheet(rows, table)
    result = CliRunner().invoke(main, ["grades", str(out), "--final"])
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert "still pending" in said and "--allow-pending" in said and not (out / "export").exists()
    book = {r["submission"]: r for r in _rows(out / "final_grades.csv")}
    assert all(r["total"] == "pending 1 item" and r["pending"] == "3g" for r in book.values())
    result = CliRunner().invoke(main, ["grades", str(out), "--final", "--allow-pending", "--column", "total",
                                       "--column", "autograder", "--column", "1a", "--title", "A2"])
    assert result.exit_code == 0, result.output
    canvas = _rows(out / "export" / "canvas.csv")
    assert list(canvas[0]) == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "A2", "A2: autograder",
                               "A2: 1(a) naive softmax equals cross-entropy"]
    assert canvas[0]["Student"] == "Points Possible" and canvas[0]["A2"] == book[next(iter(book))]["max_total"]
    students = canvas[1:]
    grades = _rows(out / "grades.csv")
    assert [(s["SIS User ID"], s["SIS Login ID"]) for s in students] == [(g["sids"], g["emails"]) for g in grades]
    assert all(s["A2"] == "" and s["A2: 1(a) naive softmax equals cross-entropy"] == "2" for s in students)

    rows = _rows(table)
    for r in rows:
        r["points"] = r["max_points"]
    _save_like_a_spreadsheet(rows, table)
    result = CliRunner().invoke(main, ["grades", str(out), "--final"])
    assert result.exit_code == 0, result.output
    book = {r["submission"]: r for r in _rows(out / "final_grades.csv")}
    scope = _rows(out / "export" / "gradescope.csv")
    assert list(scope[0]) == ["Name", "SID", "Email", "Total Score"]
    for g, s in zip(grades, scope):
        assert (s["Name"], s["SID"], s["Email"]) == (g["names"], g["sids"], g["emails"])
        assert s["Total Score"] == book[g["submission"]]["total"] != ""
        feedback = out / "export" / "feedback" / f"{g['sids']}_{g['names'].replace(' ', '-')}.md"
        assert feedback.read_text(encoding="utf-8") == (out / "feedback" / f"{g['submission']}.md").read_text(
            encoding="utf-8")


def test_an_unreadable_upload_has_nothing_pending_and_an_unfinished_grading_has_everything(marked_class,
                                                                                            tmp_path: Path):
    """Pending means a TA has something to mark: an unreadable upload has no answer (its TA items are
    0, "no answer"), a grading that failed is graded again on resume (every TA item pending)."""
    out = tmp_path / "out"
    shutil.copytree(marked_class, out)
    rows = _rows(out / "groups" / "groups.csv")
    for r in rows:
        r["points"] = r["max_points"]
    _save_like_a_spreadsheet(rows, out / "groups" / "groups.csv")
    with open(out / "grades.csv", "a", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["broken_zip", "Una Readable", "111", "una@example.edu", "unreadable", "0"])
        writer.writerow(["crashed", "Cra Shed", "222", "cra@example.edu", "failed", "0"])
    result = CliRunner().invoke(main, ["grades", str(out)])
    assert result.exit_code == 0, result.output
    book = {r["submission"]: r for r in _rows(out / "final_grades.csv")}
    items = [c for c in book["crashed"] if c not in ("submission", "names", "sids", "emails", "status", "autograder",
                                                      "autograder_max", "ta_total", "ta_max", "total", "max_total",
                                                      "total_so_far", "pending", "overrides")]
    assert book["broken_zip"]["pending"] == "" and book["broken_zip"]["total"] == "0"
    assert "0 (no answer)" in (out / "feedback" / "broken_zip.md").read_text(encoding="utf-8")
    assert book["crashed"]["pending"].split() == items and book["crashed"]["total"] == f"pending {len(items)} items"
    assert f"pending: {len(items)} TA items in all, in 1 of" in " ".join(result.output.split())


def test_a_row_without_its_fingerprint_never_marks_a_renumbered_group(marked_class, tmp_path: Path):
    """A groups.csv whose fingerprint column was deleted is matched by group number only while that
    group still holds the answers the row lists; after a late submission renumbers the groups, the
    row is refused, never applied to other answers."""
    out = tmp_path / "out"
    shutil.copytree(marked_class, out)
    table = out / "groups" / "groups.csv"
    rows = _rows(table)
    groups = read_snapshot(out / "groups" / SNAPSHOT)
    target = rows[0]
    target["points"] = "1"
    stale = [{k: v for k, v in r.items() if k != "fingerprint"} for r in rows]
    path = tmp_path / "stale.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(stale[0]))
        writer.writeheader()
        writer.writerows(stale)
    assert len(import_table(path, MarkStore.open(tmp_path / "scratch"), groups)) == 1   # the same grouping
    moved = [dict(g) for g in groups]
    first = next(g for g in moved if g["id"] == target["group"])
    first["members"] = [*first["members"], {**first["members"][0], "submission": "late_one", "text": "other"}]
    with pytest.raises(MarksError, match="holds other answers now than when this file was written"):
        import_table(path, MarkStore.open(tmp_path / "scratch2"), moved)


def _decided_batch(out: Path) -> tuple[Path, float]:
    """A batch folder of one graded submission whose 5.9 was not run (the budget ran out), as
    `grader batch` writes it: report.json, results.json, grades.csv and the review list."""
    from grader.classroom.groups.batch_groups import REVIEW_COLUMNS
    from grader.reports import gradescope, jsonout
    from grader.run.results import NOT_RUN, GradeReport, Outcome, score

    specs = {s.id: s for s in load_rubric().checks}
    checks = (score(specs["w2v_sigmoid"], Outcome(3, 3, ("ok",)), 0.1),
              score(specs["train_uas"], Outcome(0, 1, ("Not run: the grading's time budget ran out",), status=NOT_RUN), 0.0))
    report = GradeReport("s1", 5, checks, 1.0)
    folder = out / "submissions" / "s1"
    folder.mkdir(parents=True)
    doc = jsonout.to_json(report)
    doc["batch"] = {"status": "graded", "message": ""}
    (folder / "report.json").write_text(json.dumps(doc), encoding="utf-8")
    gradescope.write_results(report, folder / "results.json")
    with open(out / "grades.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["submission", "names", "sids", "emails", "status", "total", "max_total"],
                                 ["s1", "Ada Lovelace", "123", "ada@example.edu", "graded", f"{report.score:g}", "3"]])
    with open(out / "review_queue.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([REVIEW_COLUMNS, ["s1", "Ada Lovelace", "train_uas", specs["train_uas"].name, "0", "2",
                                                  "not run: the grading ran out of its time budget", "", ""]])
    (out / "groups").mkdir()
    (out / "groups" / SNAPSHOT).write_text(json.dumps({"groups": []}), encoding="utf-8")   # no written answer
    return folder / "results.json", report.score


def test_a_decision_on_a_code_check_reaches_results_json_the_grade_book_and_the_exports(tmp_path: Path):
    """A TA's decision on a code check of the review list is what Gradescope shows (results.json:
    the check's score and status, the reason in its output, who and when in extra_data, the total),
    what final_grades.csv says (with who and why) and what the LMS files hold; taken back, results.json
    is the autograder's again."""
    from grader.classroom.check_overrides import read_queue, record

    out = tmp_path / "batch"
    results, auto = _decided_batch(out)
    before = json.loads(results.read_text(encoding="utf-8"))
    store = MarkStore.open(out)
    record(store, read_queue(out)[0], 2.0, "trained to 0.87 UAS when run alone with a longer budget", "ta-alice")
    result = CliRunner().invoke(main, ["grades", str(out), "--final"])
    assert result.exit_code == 0, result.output
    doc = json.loads(results.read_text(encoding="utf-8"))
    test = next(t for t in doc["tests"] if t["extra_data"].get("check_id") == "train_uas")
    assert (test["score"], test["status"]) == (2.0, "passed")
    assert test["output"].startswith("Changed by course staff from 0 to 2 points: trained to 0.87 UAS")
    decision = test["extra_data"]["ta_decision"]
    assert (decision["who"], decision["autograder"], decision["points"]) == ("ta-alice", 0.0, 2.0) and decision["when"]
    assert doc["score"] == auto + 2 and doc["extra_data"]["autograder_score"] == before["extra_data"]["autograder_score"]
    assert "5.9 " in doc["output"] and "ta-alice" not in doc["output"]       # students read the reason, not the name
    row = _rows(out / "final_grades.csv")[0]
    assert float(row["autograder"]) == auto + 2
    assert "train_uas: 0 -> 2 by ta-alice at " in row["overrides"] and "longer budget" in row["overrides"]
    exported = _rows(out / "export" / "gradescope.csv")[0]
    assert exported["Email"] == "ada@example.edu" and float(exported["Total Score"]) == auto + 2
    feedback = next((out / "export" / "feedback").iterdir()).read_text(encoding="utf-8")
    assert "changed by a TA from 0 to 2 points: trained to 0.87 UAS" in feedback
    # Taken back (no points, a reason): the autograder's score again, everywhere.
    record(store, read_queue(out)[0], None, "the budget was right after all", "ta-alice")
    assert CliRunner().invoke(main, ["grades", str(out)]).exit_code == 0
    assert json.loads(results.read_text(encoding="utf-8")) == before
    assert float(_rows(out / "final_grades.csv")[0]["autograder"]) == auto
