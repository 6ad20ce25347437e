"""Long LaTeX files: the structure of the whole body is read (the preamble is not parsed, the body
in pieces), and what lies past the reader's budget is flagged for a TA, never read as absent."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from a2.written.checker_registry import WrittenContext
from a2.written.checkers import all_written_checkers
from a2.written.documents import locate
from a2.written.evidence import reconsider
from grader.reading import tex_walk

WILD = Path(__file__).parent / "writeups" / "wild" / "01_template_answer_macro"
QUESTIONS = {"1b_i", "1d", "1e", "2b_i", "3a", "3b", "3e_i", "3e_ii", "3f"}


def _template() -> str:
    return "\n".join((WILD / f"q{k}.tex").read_text() for k in (1, 2, 3))


def _structure(text: str) -> tuple[list, list]:
    tex_walk._walk.cache_clear()
    return ([(m.kind, m.start, m.end, m.title) for m in tex_walk.markers(text)],
            [(s, e, c) for s, e, c in tex_walk.answer_blocks(text)])


def test_a_body_read_in_pieces_has_the_structure_of_one_parse(monkeypatch):
    text = "\\begin{document}\n\\begin{questions}\n" + _template() + "\n\\end{questions}\n\\end{document}\n"
    whole = _structure(text)
    monkeypatch.setattr(tex_walk, "CHUNK_CHARS", 500)
    pieces = _structure(text)
    tex_walk._walk.cache_clear()
    assert len(tex_walk._cuts(text, 0)) > 3          # it was cut
    assert pieces == whole and len(whole[0]) > 10 and len(whole[1]) >= 7


def test_a_long_preamble_is_not_parsed_and_does_not_hide_the_answers():
    preamble = "".join(f"\\newcommand{{\\m{k:05d}}}{{\\mathbf{{x}}_{{{k}}}}}\n" for k in range(4000))
    text = "\\documentclass{exam}\n" + preamble + "\\begin{document}\n" + _template() + "\n\\end{document}\n"
    assert len(text) > 2 * tex_walk.WALK_BUDGET_CHARS
    found = locate([("a2.tex", text)], QUESTIONS)
    assert {"1b_i", "2b_i", "3b", "3e_ii"} <= set(found.sections)
    assert not any(s.unread for s in found.sections.values()) and tex_walk.read_to(text) == len(text)


def test_answers_past_the_budget_are_flagged_not_silently_absent():
    filler = "".join(f"\\noindent Step {k}: $a_{{{k}}} = b_{{{k}}} + \\frac{{c}}{{d}}$.\n\n" for k in range(3000))
    q1, q2, q3 = ((WILD / f"q{k}.tex").read_text() for k in (1, 2, 3))
    text = "\\begin{document}\n" + q1 + "\n" + filler + "\n" + q2 + "\n" + q3 + "\n\\end{document}\n"
    assert len(text) > 3 * tex_walk.WALK_BUDGET_CHARS
    found = locate([("a2.tex", text)], QUESTIONS)
    assert "1b_i" in found.sections and any("structure was read up to line" in n for n in found.notes)
    section = found.sections["3e_ii"]
    assert section.unread and "a2.tex" in section.unread
    checker = all_written_checkers()["softmax_ce_grad"]
    ctx = WrittenContext("3e_ii", np.random.default_rng(0), 0)
    verdict = reconsider(checker, section, ctx, checker(section, ctx))
    assert verdict.passed < verdict.total and "structure was read up to line" in verdict.review
