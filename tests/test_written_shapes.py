"""Shapes of real writeups the reader met only on held-out data (issue 33): tool-written Markdown,
notation students declare, another handout's numbering, a 3(a) table after the handout's rows.

Each writeup here is our own, a few lines in the shape; every item is graded as a whole upload
would be (the written grader, in process).
"""

from __future__ import annotations

import pytest
from written_support import full, graded

from a2.written.transitions import GOLD_PATH, HANDOUT_GIVEN, oracle
from grader.reading.blocks import github_math, list_items, pandoc_unescaped
from grader.reading.braces import math_groups

# --- Markdown written by tools --------------------------------------------------------------

def test_github_math_becomes_dollar_math_and_code_is_left_alone():
    text = ("Inline $`\\gamma = 2`$ here.\n\n```math\nJ = -\\log \\hat{y}_o\n```\n\n"
            "```python\nprint('$`not math`$')\n```\n\n    $`indented code`$\n")
    out = github_math(text)
    assert "Inline $\\gamma = 2$ here." in out
    assert "$$\nJ = -\\log \\hat{y}_o\n$$" in out
    assert "print('$`not math`$')" in out and "    $`indented code`$" in out


def test_an_unclosed_math_fence_is_closed_at_the_end():
    assert github_math("```math\nx = 1\n").split("\n") == ["$$", "x = 1", "$$", ""]


@pytest.mark.parametrize(("text", "bodies"), [
    ("we get $\\frac{a}{b} = U(y -\ny)$, so", ["\\frac{a}{b} = U(y -\ny)"]),    # a hard wrap at 72 columns
    ("costs $5\n\nand $x$", ["x"]),                                              # never over a blank line
    ("$a\nb\nc\nd$", []),                                                        # nor over three wraps
])
def test_inline_math_may_be_hard_wrapped_but_not_over_a_paragraph(text, bodies):
    assert [body for _, _, body, _ in math_groups(text)] == bodies


def test_pandoc_escapes_are_undone_outside_math_and_display_math_is_kept():
    text = "p\\_drop and u\\_o\n\\[ROOT, I\\]   \\[presented\\]   SHIFT\n\\[ \\frac{a}{b} \\]\nso \\[i = c\\], $y\\_1$"
    assert pandoc_unescaped(text) == "p_drop and u_o\n[ROOT, I]   [presented]   SHIFT\n\\[ \\frac{a}{b} \\]\nso [i = c], $y\\_1$"
    assert pandoc_unescaped("\\[ \\frac{a}{b} \\] with [x]") == "\\[ \\frac{a}{b} \\] with [x]"   # not pandoc's


def test_plain_formulas_written_by_pandoc_are_read(tmp_path):
    auto = graded(tmp_path, "### 1(e)\n\ndJ/dU = v\\_c (y\\_hat - y)^T\n\n### 3(e)(ii)\n\n"
                            "With \\[i = c\\] the indicator of the true class,\n\n"
                            "dCE/dl\\_i = y\\_hat\\_i - 1 if i = c, y\\_hat\\_i otherwise\n")
    assert full(auto["1e"]) and full(auto["3e_ii"]), (auto["1e"].outcome.feedback, auto["3e_ii"].outcome.feedback)


def test_a_plain_formula_hard_wrapped_inside_its_remark_is_read(tmp_path):
    auto = graded(tmp_path, "### 3(e)(ii)\n\n∂CE/∂l_i = ŷ_i − 1 if i = c, ŷ_i otherwise (this holds for every\n"
                            "training pair)\n\n### 3(e)(i)\n\nFinal answer: dh_i/dx_j = 1{(xW + b1)_i > 0} W_ji (for\n"
                            "every pair)\n")
    assert full(auto["3e_ii"]) and full(auto["3e_i"]), (auto["3e_ii"].outcome.feedback, auto["3e_i"].outcome.feedback)


def test_list_items_are_the_top_level_items_with_their_nested_lines():
    items = list_items("1. first\n   - a\n   - b\n2. second\n\nAfter.\n")
    assert items == ["1. first\n   - a\n   - b", "2. second"]


def test_gfm_math_answers_are_read(tmp_path):
    auto = graded(tmp_path, "### 1(b)(i)\n\nSo $`\\hat{y}`$ appears:\n\n```math\n"
                            "\\frac{\\partial J}{\\partial v_c} = U(\\hat{y} - y)\n```\n\n"
                            "### 2(b)(i)\n\n```math\n\\gamma = \\frac{1}{1 - p_{drop}}\n```\n", "a2_writeup.md")
    assert full(auto["1b_i"]) and full(auto["2b_i"])


_3F = """### 3(f)

1.  Error type: Verb Phrase Attachment Error\\
    Incorrect dependency: acquisition → citing\\
    Correct dependency: blocked → citing

2.  Error type: Modifier Attachment Error\\
    Incorrect dependency: elements → most\\
    Correct dependency: crucial → most

3.  Error type: Prepositional Phrase Attachment Error\\
    Incorrect dependency: declined → decision\\
    Correct dependency: reasons → decision

4.  Error type: Coordination Attachment Error\\
    Incorrect dependency: affects → one\\
    Correct dependency: plants → one
"""


def test_3f_as_a_numbered_list_with_pandoc_line_breaks(tmp_path):
    assert graded(tmp_path, _3F)["3f"].score == 12


def _table(rows, gap: str = "   ") -> str:
    widths = [max(len(r[k]) for r in rows) for k in range(4)]
    return "\n".join(gap.join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows)


def _gold_rows(escape: bool = False, first: int = 1):
    rows = [("Stack", "Buffer", "New dependency", "Transition")]
    for k in range(first, len(GOLD_PATH)):
        before, after = GOLD_PATH[k - 1], GOLD_PATH[k]
        arc = sorted(after.arcs - before.arcs)
        word_list = ("\\[{}\\]" if escape else "[{}]").format
        rows.append((word_list(", ".join(after.stack)), word_list(", ".join(after.buffer)),
                     f"{arc[0][0]} -> {arc[0][1]}" if arc else "", oracle(before)))
    return rows


@pytest.mark.parametrize("shape", ["spaces", "pandoc dashes with escaped brackets", "tabs"])
def test_3a_tables_aligned_with_spaces_are_tables(tmp_path, shape):
    rows = _gold_rows(escape="pandoc" in shape)
    if shape == "tabs":
        table = "\n".join("\t".join(r) for r in rows)
    else:
        table = _table(rows)
        if "dashes" in shape:
            lines = table.split("\n")
            dashes = "   ".join("-" * max(len(r[k]) for r in rows) for k in range(4))
            table = "\n".join([lines[0], dashes, *lines[1:], dashes])
    r = graded(tmp_path, f"3(a)\n\n{table}\n", "part3.txt" if shape != "pandoc dashes with escaped brackets"
               else "answers.md")["3a"]
    assert full(r) and not r.needs_review, r.outcome.feedback


def test_a_wrong_stack_row_in_an_aligned_table_is_not_a_pass(tmp_path):
    rows = _gold_rows()
    stack = rows[5][0].replace("my, ", "")
    rows[5] = (stack, *rows[5][1:])
    r = graded(tmp_path, f"3(a)\n\n{_table(rows)}\n", "part3.txt")["3a"]
    assert 0 < r.score < r.max_score


def test_a_table_row_whose_transition_is_not_read_is_flagged(tmp_path):
    rows = _gold_rows()
    rows[7] = (*rows[7][:2], f"{rows[7][2]} {rows[7][3]}", "")     # the transition written in the arc's cell
    table = "| " + " |\n| ".join(" | ".join(r) for r in [rows[0], ("---",) * 4, *rows[1:]]) + " |"
    r = graded(tmp_path, f"### 3(a)\n\n{table}\n")["3a"]
    assert r.score < r.max_score and r.needs_review


# --- 3(a) after the handout's given rows ----------------------------------------------------

def test_3a_from_step_4_gets_full_credit_with_a_note(tmp_path):
    rows = _gold_rows(first=HANDOUT_GIVEN + 1)
    table = "| " + " |\n| ".join(" | ".join(r) for r in [rows[0], ("---",) * 4, *rows[1:]]) + " |"
    r = graded(tmp_path, f"### 3(a)\n\nContinuing the handout's table:\n\n{table}\n")["3a"]
    assert full(r), r.outcome.feedback
    assert any("taken as given" in line for line in r.outcome.feedback)


def test_3a_from_step_6_is_not_full(tmp_path):
    rows = _gold_rows(first=HANDOUT_GIVEN + 3)
    table = "| " + " |\n| ".join(" | ".join(r) for r in [rows[0], ("---",) * 4, *rows[1:]]) + " |"
    assert not full(graded(tmp_path, f"### 3(a)\n\n{table}\n")["3a"])


# --- notation -------------------------------------------------------------------------------

@pytest.mark.parametrize("step", ["H(z_i)", "H\\left((xW+b_1)_i\\right)", "\\text{step}(z_i)", "\\theta(z_i)",
                                  "\\operatorname{H}(z_i)", "\\mathrm{ReLU}'(z_i)", "\\mathrm{relu}^\\prime(z_i)"])
def test_the_heaviside_step_in_its_usual_spellings(tmp_path, step):
    r = graded(tmp_path, f"### 3(e)(i)\n\n$$\\frac{{\\partial h_i}}{{\\partial x_j}} = {step}\\, W_{{ji}}$$ "
                         "where $z = xW + b_1$ and the step is Heaviside's.\n")["3e_i"]
    assert full(r), r.outcome.feedback


@pytest.mark.parametrize("wrong", ["H(z_i)", "H(x_j) W_{ji}", "\\theta(z_i) W_{ij}"])
def test_a_wrong_answer_with_a_step_is_not_full(tmp_path, wrong):
    r = graded(tmp_path, f"### 3(e)(i)\n\n$$\\frac{{\\partial h_i}}{{\\partial x_j}} = {wrong}$$ with $z = xW + b_1$.\n")
    assert not full(r["3e_i"])


ROWS = ("We write every vector as a row vector ($v_c$ is $1 \\times d$) and $U \\in \\mathbb{R}^{|V| \\times d}$, "
        "so $\\hat{y} = \\mathrm{softmax}(v_c U^\\top)$.\n\n")


@pytest.mark.parametrize(("item", "answer", "lhs"), [
    ("1e", "(\\hat{y} - y)^\\top v_c", "U"),
    ("1b_i", "(\\hat{y} - y) U", "v_c"),
])
def test_an_answer_in_the_row_convention_the_writeup_states_is_right(tmp_path, item, answer, lhs):
    head = {"1e": "### 1(e)", "1b_i": "### 1(b)(i)"}[item]
    r = graded(tmp_path, f"{ROWS}{head}\n\n$$\\frac{{\\partial J}}{{\\partial {lhs}}} = {answer}$$\n")[item]
    assert full(r), r.outcome.feedback
    assert any("convention your writeup states" in line for line in r.outcome.feedback)


def test_u_with_rows_of_vectors_and_column_vectors(tmp_path):
    r = graded(tmp_path, "Here $U$ is $|V| \\times d$: its rows are the outside vectors.\n\n### 1(e)\n\n"
                         "$$\\frac{\\partial J}{\\partial U} = (\\hat{y} - y) v_c^\\top$$\n")["1e"]
    assert full(r)


@pytest.mark.parametrize("stated", [False, True])
def test_a_wrong_answer_stays_wrong_whatever_the_convention(tmp_path, stated):
    r = graded(tmp_path, (ROWS if stated else "") + "### 1(e)\n\n"
                         "$$\\frac{\\partial J}{\\partial U} = (y - \\hat{y})^\\top v_c$$\n")["1e"]
    assert r.score == 0


def test_without_a_stated_convention_the_transposed_answer_is_not_full(tmp_path):
    r = graded(tmp_path, "### 1(e)\n\n$$\\frac{\\partial J}{\\partial U} = (\\hat{y} - y) v_c^\\top$$\n")["1e"]
    assert not full(r)


# --- another handout's numbering ------------------------------------------------------------

def test_the_winter_handouts_d_and_e_swapped_without_a_derivative_in_the_d_section(tmp_path):
    auto = graded(tmp_path, "# Part 1\n\n## d)\n\nThe gradient for the whole matrix of outside vectors "
                            "is an outer product:\n\n$$v_c(\\hat y - y)^\\top$$\n\n## e)\n\n"
                            "$$\\frac{\\partial J}{\\partial u_w} = \\begin{cases}(\\hat y_w - 1)v_c & w = o\\\\ "
                            "\\hat y_w v_c & w \\ne o\\end{cases}$$\n")
    assert full(auto["1d"]) and full(auto["1e"]), (auto["1d"].outcome.feedback, auto["1e"].outcome.feedback)


def test_a_swapped_section_that_is_wrong_is_flagged(tmp_path):
    auto = graded(tmp_path, "# Part 1\n\n## d)\n\n$$(\\hat y - y) v_c$$\n\n## e)\n\n"
                            "$$\\frac{\\partial J}{\\partial u_w} = (\\hat y_w - y_w) v_c$$\n")
    assert not full(auto["1e"]) and auto["1e"].needs_review


# --- answers outside any labelled section ---------------------------------------------------

_NUMBERED = ("## Q3. Parsing\n\n### Q3-3. Gradients of the network\n\nFrom the definitions,\n\n"
             "$$\\frac{{\\partial h_i}}{{\\partial x_j}} = {relu}$$\n\nand for the logits\n\n"
             "$$\\frac{{\\partial J}}{{\\partial l_i}} = {ce}$$\n")


def test_answers_under_a_heading_of_another_numbering_are_read_by_their_left_hand_side(tmp_path):
    auto = graded(tmp_path, _NUMBERED.format(relu="\\mathbb{1}\\{(xW + b_1)_i > 0\\} W_{ji}", ce="\\hat{y}_i - y_i"))
    assert full(auto["3e_i"]) and full(auto["3e_ii"]), (auto["3e_i"].outcome.feedback, auto["3e_ii"].outcome.feedback)
    assert any("left-hand side names" in line for line in auto["3e_ii"].outcome.feedback)


def test_a_wrong_answer_outside_any_section_is_flagged_not_credited(tmp_path):
    auto = graded(tmp_path, _NUMBERED.format(relu="W_{ij}", ce="y_i - \\hat{y}_i"))
    for item in ("3e_i", "3e_ii"):
        assert auto[item].score == 0 and auto[item].needs_review


def test_the_templates_own_shorthands_are_read_without_its_preamble(tmp_path):
    tex = ("\\titledquestion{Neural transition-based dependency parsing}[44]\n\\begin{parts}\n"
           "\\part[4] a\n\\part[2] b\n\\part[8] c\n\\part[8] d\n\\part[12] e\n\\begin{subparts}\n"
           "\\subpart[4] ReLU\n\\subpart[4] Compute $\\frac{\\partial CE(\\by, \\byt)}{\\partial \\bl_i}$.\n"
           "\\ifans{$$\\frac{\\partial CE}{\\partial \\bl_i} = \\byt_i - \\by_i$$}\n\\end{subparts}\n\\end{parts}\n")
    r = graded(tmp_path, "\\documentclass{exam}\n\\begin{document}\n\\begin{questions}\n" + tex
               + "\\end{questions}\n\\end{document}\n", "q3.tex")["3e_ii"]
    assert full(r), r.outcome.feedback


def test_which_case_of_1d_is_right_is_told_with_the_explanation_only(tmp_path):
    r = graded(tmp_path, "### 1(d)\n\nFor $w = o$: $$\\frac{\\partial J}{\\partial u_w} = (\\hat{y}_o - 1) v_c$$\n\n"
                         "For $w \\neq o$: $$\\frac{\\partial J}{\\partial u_w} = -\\hat{y}_w v_c$$\n")["1d"]
    assert 0 < r.score < r.max_score
    shown = " ".join(r.outcome.feedback)
    assert "read (w = o)" in shown and "read (w ≠ o)" in shown
    assert "right" not in shown and "wrong" not in shown, shown
    assert "case w ≠ o: wrong." in r.written.why and "case w = o: right at every random instance." in r.written.why


def test_3a_as_a_list_of_steps_with_the_stack_after_each(tmp_path):
    lines = ["Start: S=[ROOT], B=[I, presented, my, findings, at, the, NLP, conference]"]
    for k in range(1, len(GOLD_PATH)):
        before, after = GOLD_PATH[k - 1], GOLD_PATH[k]
        arc = sorted(after.arcs - before.arcs)
        shown = f" ({arc[0][0]} -> {arc[0][1]})" if arc else ""
        lines.append(f"{k}. {oracle(before)}{shown} -> S=[{', '.join(after.stack)}]")
    r = graded(tmp_path, "### 3(a)\n\n" + "\n".join(lines) + "\n")["3a"]
    assert full(r) and not r.needs_review, r.outcome.feedback
    lines[5] = lines[5].replace("findings]", "findings, at]")          # one stack shown wrong
    r = graded(tmp_path, "### 3(a)\n\n" + "\n".join(lines) + "\n")["3a"]
    assert 0 < r.score < r.max_score


def test_1d_case_results_without_a_left_side_then_one_formula_for_both(tmp_path):
    r = graded(tmp_path, "### 1(d)\n\nTwo cases: $w$ ($w=o$) and the others.\n\n"
                         "- Case $w = o$: both terms count, result $(\\hat{y}_o - 1) v_c$.\n"
                         "- Case $w \\neq o$: only the second term, result $\\hat{y}_w v_c$.\n\n"
                         "Both at once: $$\\frac{\\partial J}{\\partial u_w} = (\\hat{y}_w - y_w) v_c$$(since for "
                         "$w \\neq o$, $y_w=0$, it is $\\hat{y}_w v_c$; for $w=o$, $y_w=1$, it is $(\\hat{y}_o - 1) v_c$).\n")["1d"]
    assert full(r), r.outcome.feedback
