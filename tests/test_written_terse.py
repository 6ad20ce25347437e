"""Answers a careful TA reads without doubt, in shapes the reader flagged (issue 33, round 3):
z_i written out as a sum, an index as a superscript, a condition on the whole vector, the loss's
argument list without its name, terse plain-text answers (``Yhat``, ``Vc``, ``pdrop``, ``Wji``).
Each shape is graded as a whole upload would be, and a wrong answer in the same shape stays
below full.
"""

from __future__ import annotations

import pytest
from written_support import PARTS, RUNNER, full, graded

from a2.written.grade import grade_written

RELU_HEAD = "### 3(e)(i)\n\n$$\\frac{\\partial h_i}{\\partial x_j} = "


# --- 3(e)(i): the pre-activation written out --------------------------------------------------

@pytest.mark.parametrize("answer", [
    "W_{j,i}\\cdot\\mathbb{I}\\left(\\sum_k x_k W_{k,i}+b_1^i>0\\right)",                # a sum, b_1's entry as b_1^i
    "\\begin{cases} W_{ji} & \\text{if } \\sum_k x_k W_{ki} + b_{1,i} > 0 \\\\ 0 & \\text{otherwise} \\end{cases}",
    "\\begin{cases} W_{j,i}, & \\text{if } \\mathbf{x} \\mathbf{W} + \\mathbf{b}_1 > 0 \\\\ 0, & \\text{otherwise} \\end{cases}",
])
def test_the_relu_condition_written_out_or_for_the_whole_vector_is_read(tmp_path, answer):
    r = graded(tmp_path, RELU_HEAD + answer + "$$\n")["3e_i"]
    assert full(r), r.outcome.feedback


@pytest.mark.parametrize("wrong", [
    "W_{ji}\\cdot\\mathbb{1}\\{\\sum_k x_k W_{kj} + b_1^i > 0\\}",      # the sum over the wrong column
    "W_{ji}\\cdot\\mathbb{1}\\{\\sum_k x_k W_{ki} > 0\\}",              # b_1 left out
    "\\begin{cases} W_{ji} & \\text{if } x > 0 \\\\ 0 & \\text{otherwise} \\end{cases}",   # the condition on x
])
def test_a_wrong_relu_condition_in_the_same_shapes_is_not_full(tmp_path, wrong):
    assert not full(graded(tmp_path, RELU_HEAD + wrong + "$$\n")["3e_i"])


# --- 1(d): the operator form with the loss's arguments and a case note ------------------------

def test_the_operator_form_on_the_losss_arguments_with_the_case_after_it(tmp_path):
    text = ("### 1(d)\n\n$$\\frac{\\partial}{\\partial u_o}J(v_c,o,U)=v_c(\\hat{y_o}-1)$$\n\n"
            "$$\\frac{\\partial}{\\partial u_w}(v_c,o,U)(w\\neq o)=\\frac{v_c\\exp(u_w^T v_c)}{\\sum_w\\exp(u_w^T v_c)}"
            "=v_c \\hat{y_w}$$\n")
    r = graded(tmp_path, text)["1d"]
    assert full(r) and not r.needs_review, r.outcome.feedback


def test_a_step_on_an_expression_is_still_a_step(tmp_path):
    text = ("### 1(d)\n\n$$\\frac{\\partial}{\\partial u_w}(u_o^T v_c) = 0$$\n\n"
            "$$\\frac{\\partial J}{\\partial u_w} = (\\hat{y}_w - y_w) v_c$$\n")
    assert full(graded(tmp_path, text)["1d"])


# --- terse plain text: names run together, a capital, the formula a line ends with -------------

TERSE = ("Problem 1:\nb)\ni) - U(y - Yhat)\nii) y = Yhat, so the prediction matches.\n"
         "d)\nwhen w = o => d/dw = Vc(Yhat o - 1)\nwhen w != o => d/dw = Vc (Yhat w)\n"
         "Problem 2:\nb)\ni) gamma is the inverse of the keep probability, so it should be 1/(1 - pdrop)\n"
         "Problem 3:\nb) each word is shifted once and attached once.\nin total N shifts and N arcs so 2*N\n"
         "e)\ni) dh/dx = { 0 if x < 0 }, {W if x > 0}, dhi/xj = Wji * 1{(xW + b1)_i > 0}\n"
         "ii)\ndce/dli = SUM -yj(dirac ij - yhati)\n= -yi (dirac ij = 1 if i == j) + yhati * SUM yj\n"
         "= -yi + yhati (since the y sum to one)\n")


def test_terse_plain_text_answers_are_read(tmp_path):
    auto = graded(tmp_path, TERSE, "p1.txt")
    for item in ("1b_i", "1d", "2b_i", "3b", "3e_i", "3e_ii"):
        assert full(auto[item]), (item, auto[item].outcome.feedback)


@pytest.mark.parametrize(("right", "wrong", "item"), [
    ("i) - U(y - Yhat)", "i) U(y - Yhat)", "1b_i"),
    ("so it should be 1/(1 - pdrop)", "so it should be 1 - pdrop", "2b_i"),
    ("so 2*N", "so 2*N + 1", "3b"),
    ("= -yi + yhati (since the y sum to one)", "= yi - yhati (since the y sum to one)", "3e_ii"),
    ("when w != o => d/dw = Vc (Yhat w)", "when w != o => d/dw = Vc (Yhat w - 1)", "1d"),
])
def test_a_wrong_terse_answer_is_not_full(tmp_path, right, wrong, item):
    assert right in TERSE
    r = graded(tmp_path, TERSE.replace(right, wrong), "p1.txt")[item]
    assert not full(r), r.outcome.feedback


def test_an_answer_read_from_the_end_of_a_line_is_flagged_when_below_full(tmp_path):
    r = graded(tmp_path, "2 b) i)\nit should be 1 - pdrop\n", "p2.txt")["2b_i"]
    assert r.score < r.max_score and r.needs_review, r.outcome.feedback


@pytest.mark.parametrize(("names", "word", "spelled"), [
    (("U", "v_c", "y", "yhat", "u_o", "u_w", "u"), "Vc", "v_c"),
    (("U", "v_c", "y", "yhat", "u_o", "u_w", "u"), "Yhat", "yhat"),
    (("x", "W", "b_1", "b", "z", "h"), "Wji", "W_ji"),
    (("l", "yhat", "y"), "yhati", "yhat_i"),
    (("l", "yhat", "y"), "log", None),                 # a function, though l is a name
    (("x", "W", "b_1", "b", "z", "h"), "be", None),    # prose: e is no index
    (("n",), "N", "n"),
    (("U", "v_c"), "V", None),                         # V is no name of 1(b)(i): not v
])
def test_plain_names_are_spelled_from_the_questions_own_names(names, word, spelled):
    from grader.reading.notation import PlainNames
    indices = {"x": "ij", "l": "ic", "U": "ow", "n": ""}[names[0]]
    assert PlainNames(names, indices).spell(word) == spelled


# --- a row layout counts only when the writeup states it as its own -------------------------

ROW_ANSWER = "### 1(b)(i)\n\n$$\\frac{\\partial J}{\\partial v_c} = (\\hat{y} - y) U^\\top$$\n"


@pytest.mark.parametrize("statement", [
    "We write every vector as a row vector.",
    "Convention: all vectors here are row vectors ($v_c$ is $1 \\times d$).",
    "I treat $v_c$, $y$ and $\\hat{y}$ as row vectors throughout.",
])
def test_a_stated_row_vector_convention_reads_the_answer_in_it(tmp_path, statement):
    r = graded(tmp_path, statement + "\n\n" + ROW_ANSWER)["1b_i"]
    assert full(r), r.outcome.feedback


@pytest.mark.parametrize("mention", [
    "The gradient $\\frac{\\partial J}{\\partial v_c}$ is a row vector here.",
    "In 3(e), $x$ is a row vector.",
    "Each answer below is a row vector of length d.",
])
def test_a_row_vector_merely_mentioned_is_no_convention(tmp_path, mention):
    r = graded(tmp_path, mention + "\n\n" + ROW_ANSWER)["1b_i"]
    assert not full(r), r.outcome.feedback


# --- 3(f): the handout's numbered sentences kept above the numbered answers --------------------

PROMPT_KEPT = """### Q3-4. Parsing error analysis

For each sentence give the type of error, the incorrect dependency and the correct one.

i. The university blocked the acquisition , citing concerns about the risks involved .

ii. Brian has been one of the most crucial elements to the success of Mozilla software .

iii. Investment Canada declined to comment on the reasons for the government decision .

iv. People benefit from a separate move that affects three US car plants and one in Quebec

Answers:

i.
- Type: Verb Phrase Attachment Error
- Incorrect: acquisition -> citing
- Correct: blocked -> citing

ii.
- Type: Modifier Attachment Error
- Incorrect: elements -> most
- Correct: crucial -> most

iii.
- Type: Prepositional Phrase Attachment Error
- Incorrect: declined -> decision
- Correct: reasons -> decision

iv.
- Type: Coordination Attachment Error
- Incorrect: affects -> one
- Correct: plants -> one
"""


def test_3f_answers_after_the_handouts_numbered_sentences_are_read(tmp_path):
    r = graded(tmp_path, PROMPT_KEPT)["3f"]
    assert full(r), r.outcome.feedback


def test_3f_wrong_answers_after_the_handouts_sentences_are_not_full(tmp_path):
    r = graded(tmp_path, PROMPT_KEPT.replace("Correct: blocked -> citing", "Correct: risks -> citing"))["3f"]
    assert 0 < r.score < r.max_score, r.outcome.feedback


# --- before the due date: what was read and whether whole, never whether it is right -----------

VERDICT_WORDS = ("right", "wrong", "✓", "✗", "correct", "gold tree", "Partial credit")
ANSWERS = {
    "1b_i": ("$$\\frac{\\partial J}{\\partial v_c} = U(\\hat{y} - y)$$", "$$\\frac{\\partial J}{\\partial v_c} = U(y - \\hat{y})$$"),
    "1e": ("$$\\frac{\\partial J}{\\partial U} = v_c(\\hat{y} - y)^\\top$$", "$$\\frac{\\partial J}{\\partial U} = v_c \\hat{y}^\\top$$"),
    "2b_i": ("$$\\gamma = \\frac{1}{1 - p_{drop}}$$", "$$\\gamma = 1 - p_{drop}$$"),
    "3b": ("It takes $2n$ steps.", "It takes $3n$ steps."),
    "3e_i": ("$$\\frac{\\partial h_i}{\\partial x_j} = \\mathbb{1}\\{(xW + b_1)_i > 0\\} W_{ji}$$",
             "$$\\frac{\\partial h_i}{\\partial x_j} = W_{ji}$$"),
    "3e_ii": ("$$\\frac{\\partial CE}{\\partial l_i} = \\hat{y}_i - y_i$$", "$$\\frac{\\partial CE}{\\partial l_i} = \\hat{y}_i$$"),
}


@pytest.mark.parametrize("item", sorted(ANSWERS))
@pytest.mark.parametrize("which", [0, 1])
def test_feedback_shown_at_once_says_what_was_read_and_whether_whole_not_the_verdict(tmp_path, item, which):
    from a2.written.grade import READ_WHOLE
    from a2.written.sections import pretty

    r = graded(tmp_path, f"### {pretty(item)}\n\n{ANSWERS[item][which]}\n")[item]
    assert full(r) is (which == 0)
    shown = [line for line in r.outcome.feedback if not line.startswith("read")]
    assert READ_WHOLE in shown, r.outcome.feedback
    assert not any(w in line for line in shown for w in VERDICT_WORDS), shown
    assert any(("right" if which == 0 else "wrong") in line for line in r.written.why), r.written.why


def test_an_instructor_may_show_an_items_verdict_at_once(tmp_path):
    """rubric.yaml is the one source of visibility: an item whose ``explanation`` is ``visible``
    shows its verdict (with what is wrong) before the due date; the others keep it for after."""
    from dataclasses import replace

    from grader.reports.gradescope import to_results_json
    from grader.run.results import GradeReport

    (tmp_path / "answers.md").write_text("### 1(b)(i)\n\n$$\\frac{\\partial J}{\\partial v_c} = U(y - \\hat{y})$$\n\n"
                                         "### 2(b)(i)\n\n$$\\gamma = 1 - p_{drop}$$\n", encoding="utf-8")
    parts = [replace(p, explanation="visible") if p.id == "1b_i" else p for p in PARTS if p.id in ("1b_i", "2b_i")]
    results, manual, _ = grade_written([tmp_path / "answers.md"], parts, 5, runner=RUNNER)
    doc = to_results_json(GradeReport("s", 5, tuple(results), 0.0, manual=tuple(manual)))
    explained = {t["extra_data"]["question"]: t for t in doc["tests"] if "auto" in t["tags"]}
    assert explained["1b_i"]["visibility"] == "visible" and "∂J/∂v_c: wrong." in explained["1b_i"]["output"]
    assert explained["2b_i"]["visibility"] == "after_due_date" and "γ: wrong." in explained["2b_i"]["output"]
    reading = {t["extra_data"]["question"]: t for t in doc["tests"] if "read" in t["tags"]}
    assert set(reading) == {"2b_i"} and reading["2b_i"]["visibility"] == "visible" and "γ: wrong" not in reading["2b_i"]["output"]


# --- 1(e) as the sum of its columns put in place by one-hot rows -------------------------------

@pytest.mark.parametrize(("rhs", "right"), [
    ("\\sum_w\\frac{\\partial}{\\partial u_w}J(v_c,o,U)\\cdot\\delta_w^T", True),
    ("\\sum_{w=1}^{|V|} \\frac{\\partial J}{\\partial u_w} e_w^\\top", True),
    ("\\sum_w\\frac{\\partial J}{\\partial u_w}\\delta_w", False),        # a column, not a row: no matrix
    ("\\sum_w v_c \\delta_w^T", False),
])
def test_1e_as_the_sum_of_its_columns(tmp_path, rhs, right):
    r = graded(tmp_path, f"### 1(e)\n\n$$\\frac{{\\partial J}}{{\\partial U}} = {rhs}$$\n")["1e"]
    assert full(r) is right, r.outcome.feedback


# --- a bracket's index written without _ --------------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("condition", "right"), [
    ("(xW+b1)i > 0", True), ("(xW + b_1)i>0", True), ("(xW+b1)j > 0", False), ("(xW + b1)k > 0", False)])
def test_a_brackets_index_without_underscore_is_its_subscript(tmp_path, seed, condition, right):
    """``(xW+b1)i`` is entry i, never the vector times the index (which a condition '> 0' would read
    as the whole vector's sign, right by chance whenever the index is not the first)."""
    path = tmp_path / "answers.txt"
    path.write_text(f"3 e) i)\ndh_i/dx_j = W_ji if {condition}, else 0\n", encoding="utf-8")
    results, _, _ = grade_written([path], PARTS, seed, runner=RUNNER)
    r = {x.id: x for x in results}["3e_i"]
    assert full(r) is right, (r.score, r.outcome.feedback, r.written.why)
    if right:
        assert "_i" in r.written.read, r.written.read
