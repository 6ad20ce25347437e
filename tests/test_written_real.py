"""Real writeups of this assignment, as the students handed them in (../shared/writeups/real-2024/,
each folder the upload: file names unchanged), against what a careful TA concludes
(EXPECTED.yaml there); and the files a writeup may be made of, whatever their names.

An item agrees with the TA (full / partial / zero, "absent" being zero) or is on the review list:
never a silent false fail, never a false pass.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from a2.written.grade import grade_written, might_answer
from a2.written.process import InProcess
from grader.run.rubric import load_rubric
from grader.run.submission import _written_files, student_files

REAL = Path(__file__).resolve().parents[2] / "shared" / "writeups" / "real-2024"
PARTS = load_rubric().written


def _kind(score: float, full: float) -> str:
    return "full" if score >= full - 1e-6 else "zero" if score <= 1e-9 else "partial"


def _expected() -> dict[str, dict[str, dict]]:
    if not (REAL / "EXPECTED.yaml").is_file():
        pytest.skip(f"{REAL} is not beside the clone")
    return yaml.safe_load((REAL / "EXPECTED.yaml").read_text(encoding="utf-8"))


def grade_folder(folder: Path):
    """The written part of ``folder`` graded as an upload: the files the submission finds in it."""
    results, _, notes = grade_written(_written_files(folder), PARTS, 11, runner=InProcess())
    return {r.id: r for r in results}, notes


def test_real_writeups_agree_with_the_ta_or_are_flagged():
    expected = _expected()
    agree, rows, wrong = 0, 0, []
    for writeup, items in sorted(expected.items()):
        auto, _ = grade_folder(REAL / writeup)
        for item, ta in items.items():
            r = auto[item]
            rows += 1
            got = _kind(r.score, r.max_score)
            want = "zero" if ta["v"] == "absent" else ta["v"]
            if got == want:
                agree += 1
                continue
            passes_falsely = got == "full" or (got == "partial" and want == "zero")
            if passes_falsely or not r.needs_review:
                wrong.append(f"{writeup} {item}: TA {ta['v']}, grader {r.score:g}/{r.max_score:g} "
                             f"{'(false pass)' if passes_falsely else '(silent)'}: {r.outcome.feedback[:2]}")
            if r.needs_review:
                assert r.written is not None and r.written.review, (writeup, item)
    print(f"real writeups: {agree}/{rows} items agree with the TA")
    assert not wrong, "\n".join(wrong)


def test_every_written_file_of_the_upload_is_found_whatever_its_name(tmp_path):
    names = ["a2_answer.md", "assignment2-solution.md", "index.md", "p1.txt", "homework2.tex",
             "p3.a.xlsx", "scan.pdf", "word2vec.py", "requirements.txt", "README.md"]
    for name in names:
        (tmp_path / name).write_text("x\n", encoding="utf-8")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "notes.txt").write_text("x\n")
    (tmp_path / "tex").mkdir()
    (tmp_path / "tex" / "q1.tex").write_text("x\n")
    found = sorted(p.relative_to(tmp_path).as_posix() for p in _written_files(tmp_path))
    assert found == ["a2_answer.md", "assignment2-solution.md", "homework2.tex", "index.md", "p1.txt",
                     "p3.a.xlsx", "scan.pdf", "tex/q1.tex"]
    _, written = student_files(tmp_path, tmp_path / "scratch")     # what similarity reads: text only
    assert sorted(p.name for p in written) == ["a2_answer.md", "assignment2-solution.md", "homework2.tex",
                                                "index.md", "p1.txt", "q1.tex"]


TEXT_PARTS = {
    "p1.txt": "1 b) i)\nThe gradient is dJ/dv_c = U(yhat - y)\n\n2 b) i)\ngamma = 1/(1 - p_drop)\n",
    "p2.txt": "3 b)\nEvery word is shifted once and attached once, so 2n steps.\n",
}


def test_text_files_with_any_names_are_read_in_a_stable_order_and_named(tmp_path):
    for name, text in TEXT_PARTS.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "p3.a.xlsx").write_bytes(b"PK\x03\x04 not text")
    auto, notes = grade_folder(tmp_path)
    assert auto["1b_i"].score == auto["1b_i"].max_score and auto["2b_i"].score == auto["2b_i"].max_score
    assert auto["3b"].score == auto["3b"].max_score
    assert "Written files read: p1.txt, p2.txt." in notes
    assert any("p3.a.xlsx is a spreadsheet" in n for n in notes)
    # the spreadsheet may hold 3(a): that item is flagged with its name; 3(f) is not (its name says 3(a))
    assert auto["3a"].score == 0 and "p3.a.xlsx" in auto["3a"].written.review
    assert not auto["3f"].needs_review


def test_an_index_md_with_front_matter_is_read(tmp_path):
    (tmp_path / "index.md").write_text("---\ntitle: CS224N A2\nlayout: post\n---\n\n## 2(b)(i)\n\n"
                                       "$$\\gamma = \\frac{1}{1-p_{\\text{drop}}}$$\n", encoding="utf-8")
    auto, notes = grade_folder(tmp_path)
    assert auto["2b_i"].score == auto["2b_i"].max_score, auto["2b_i"].outcome.feedback
    assert "Written files read: index.md." in notes


@pytest.mark.parametrize(("name", "question", "might"), [
    ("p3.a.xlsx", "3a", True), ("p3.a.xlsx", "3f", False), ("q2.pdf", "2b_i", True), ("q2.pdf", "1d", False),
    ("scan.jpg", "1d", True), ("table.csv", "3a", True)])
def test_a_file_that_cannot_be_read_may_answer_what_its_name_says(name, question, might):
    assert might_answer(name, question) is might
