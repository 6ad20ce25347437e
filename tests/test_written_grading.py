"""Grading whole writeups: the real ones' conclusions, reference, template, LaTeX, hostile text."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
from conftest import REFERENCE, TEMPLATE

from a2.written.grade import NO_WRITEUP, grade_written
from a2.written.process import ChildProcess, InProcess
from grader.run.engine import grade
from grader.run.rubric import load_rubric
from grader.run.settings import GradingSettings

WRITEUPS = Path(__file__).parent / "writeups"
RUBRIC = load_rubric()
PARTS = RUBRIC.written
AUTO = {p.id for p in PARTS if p.auto > 0}
MANUAL = {p.id for p in PARTS if p.manual_points > 0}


def graded(*files: Path, seed: int = 11, parts=PARTS, runner=None):
    results, manual, notes = grade_written(list(files), parts, seed, runner=runner or InProcess())
    return {r.id: r for r in results}, {m.id: m for m in manual}, notes


def text(result) -> str:
    """The whole message, as instructors read it: the feedback and the explanation (issue 20)."""
    return "\n".join(result.outcome.feedback + (result.written.why if result.written else ()))


def as_answers(tmp_path: Path, source: Path) -> Path:
    dest = tmp_path / "answers.md"
    shutil.copyfile(source, dest)
    return dest


def test_real_writeup_001(tmp_path):
    auto, manual, _ = graded(as_answers(tmp_path, WRITEUPS / "001_b7a4162c9f4dc5cc.txt"))
    assert set(auto) == AUTO and set(manual) == MANUAL
    # 1(b)(i): U^T(ŷ − y) is not even defined under the convention: 0, and the shapes say why.
    b1 = auto["1b_i"]
    assert b1.score == 0 and b1.outcome.feedback[0] == "read: ∂J/∂v_c = Uᵀ(ŷ − y)"
    assert "Uᵀ is |V|×d and ŷ − y has |V| rows" in text(b1) and "U's columns are the outside vectors" in text(b1)
    # Its "(d)" is ∂J/∂U and its "(e)" the per-case ∂J/∂u_w: read by content, and reported.
    assert auto["1d"].score == auto["1d"].max_score and "headed '(e)" in text(auto["1d"])
    assert "(ŷ_o − 1)v_c" in text(auto["1d"]) and "ŷ_w v_c" in text(auto["1d"])
    assert auto["1e"].score == auto["1e"].max_score and "headed '(d)" in text(auto["1e"])
    assert "∂J/∂u_1" in text(auto["1e"])
    assert auto["2b_i"].score == auto["2b_i"].max_score and "read: γ = 1/(1 − p_drop)" in text(auto["2b_i"])
    for q in ("3e_i", "3e_ii"):
        assert auto[q].score == auto[q].max_score, text(auto[q])
    for q in ("3a", "3b", "3f"):
        assert auto[q].score == 0 and "No answer found" in text(auto[q]) and "error" not in auto[q].status
    for q in ("1a", "1b_ii", "1b_iii", "1c", "2a_i", "2a_ii", "2b_ii"):
        assert manual[q].found and manual[q].text, q
    assert "cross-entropy" in manual["1a"].text.lower() and "read as 1(a) from its content" in manual["1a"].notes[0]
    assert not manual["3g"].found


def test_real_writeup_002(tmp_path):
    auto, manual, _ = graded(as_answers(tmp_path, WRITEUPS / "002_7f5629604cb217cb.txt"))
    assert all(r.score == 0 for r in auto.values())
    assert "No expression in n found" in text(auto["3b"])
    for q in AUTO - {"3b"}:
        assert "No answer found" in text(auto[q]), q
    assert manual["3b"].found and not any(m.found for q, m in manual.items() if q != "3b")


@pytest.mark.parametrize("writeup", ["001_b7a4162c9f4dc5cc.txt", "002_7f5629604cb217cb.txt"])
def test_a_markdown_writeup_uploaded_as_answers_txt_reads_as_markdown(tmp_path, writeup):
    """The real writeups are Markdown in .txt files: uploaded as answers.txt they score, and are
    flagged, item for item as the same text in answers.md (not read line by line as plain text)."""
    (tmp_path / "md").mkdir()
    (tmp_path / "txt").mkdir()
    shutil.copyfile(WRITEUPS / writeup, tmp_path / "md" / "answers.md")
    shutil.copyfile(WRITEUPS / writeup, tmp_path / "txt" / "answers.txt")
    as_md, _, _ = graded(tmp_path / "md" / "answers.md")
    as_txt, _, _ = graded(tmp_path / "txt" / "answers.txt")
    assert {q: (r.score, bool(r.written and r.written.review)) for q, r in as_txt.items()} == \
        {q: (r.score, bool(r.written and r.written.review)) for q, r in as_md.items()}


def test_reference_full_marks_and_template_zero():
    auto, manual, _ = graded(REFERENCE / "answers.md")
    assert all(r.score == r.max_score for r in auto.values()), {q: text(r) for q, r in auto.items() if r.score < r.max_score}
    assert all(m.found for m in manual.values())
    auto, manual, _ = graded(TEMPLATE / "answers.md")
    assert all(r.score == 0 and "is empty" in text(r) for r in auto.values())
    assert not any(m.found for m in manual.values())


def test_free_form_and_latex_writeups(tmp_path):
    auto, _, _ = graded(as_answers(tmp_path, WRITEUPS / "freeform.md"))
    assert all(r.score == r.max_score for r in auto.values()), {q: text(r) for q, r in auto.items() if r.score < r.max_score}
    auto, manual, _ = graded(WRITEUPS / "part3.tex")
    assert {q for q, r in auto.items() if r.score == r.max_score} == {"3a", "3b", "3e_i", "3e_ii", "3f"}
    assert manual["3g"].found and "POS tags" in manual["3g"].text


def test_no_writeup_costs_every_written_item_and_says_so():
    auto, manual, _ = graded()
    assert all(r.score == 0 and text(r) == NO_WRITEUP for r in auto.values())
    assert all(not m.found and m.text == NO_WRITEUP for m in manual.values())


def test_random_seeds_never_change_the_verdicts(tmp_path):
    answers = as_answers(tmp_path, WRITEUPS / "001_b7a4162c9f4dc5cc.txt")
    scores = {seed: {q: r.score for q, r in graded(answers, seed=seed)[0].items()} for seed in (0, 1, 2, 99)}
    assert len({tuple(sorted(s.items())) for s in scores.values()}) == 1


@pytest.mark.slow
def test_a_hostile_writeup_costs_only_its_questions(tmp_path):
    """A formula that takes too long is stopped in the child process; the other answers are graded."""
    answers = tmp_path / "answers.md"
    slow = " ".join(["$" + "+".join(["n"] * 900) + "$"] * 5)     # each takes ~1 s to parse
    answers.write_text(f"### 3(b)\n\n{slow}\n\n### 2(b)(i)\n\nAnswer: $\\frac{{1}}{{1-p}}$\n"
                       + "### 3(g)\n\n" + "$" * 20000 + "\n")
    parts = [p for p in PARTS if p.id in ("3b", "2b_i", "3g")]
    parts = [dataclasses.replace(p, timeout=0.2) if p.id == "3b" else p for p in parts]
    runner = ChildProcess()
    try:
        auto, manual, _ = graded(answers, parts=parts, runner=runner)
    finally:
        runner.close()
    assert auto["3b"].status == "timeout" and "took longer than 0.2 s" in text(auto["3b"])
    assert auto["2b_i"].score == auto["2b_i"].max_score
    assert manual["3g"].found


@pytest.mark.slow
def test_grade_reports_written_answers_beside_code_checks(tmp_path):
    """`grade` on a submission with answers.md only: code checks fail on missing files, the
    written items are scored or listed, and a single code check id selects no written item."""
    sub = tmp_path / "submission"
    sub.mkdir()
    as_answers(sub, WRITEUPS / "001_b7a4162c9f4dc5cc.txt")
    report = grade(sub, GradingSettings(seed=5, only=["w2v_sigmoid", "1b_i", "1a", "2b_i"]))
    by_id = {c.id: c for c in report.checks}
    assert set(by_id) == {"w2v_sigmoid", "1b_i", "2b_i"}
    assert by_id["w2v_sigmoid"].score == 0 and by_id["2b_i"].score == 1
    assert [m.id for m in report.manual] == ["1a", "2b_i"]
    assert report.score == 1 and report.manual_points == 3
    only_code = grade(sub, GradingSettings(seed=5, only=["w2v_sigmoid"]))
    assert [c.id for c in only_code.checks] == ["w2v_sigmoid"] and not only_code.manual


def test_a_grader_bug_is_reported_as_such_and_the_run_goes_on(tmp_path):
    parts = [dataclasses.replace(p, checker="no_such_checker") if p.id == "3b" else p
             for p in PARTS if p.id in ("3b", "2b_i")]
    auto, _, _ = graded(REFERENCE / "answers.md", parts=parts)
    assert auto["3b"].status == "error" and "Internal grader error" in text(auto["3b"])
    assert auto["2b_i"].score == auto["2b_i"].max_score
