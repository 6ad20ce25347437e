"""Written checkers: equivalent correct forms pass, realistic wrong ones fail, on every seed."""

from __future__ import annotations

import pytest

from a2.written.checker_registry import WrittenContext
from a2.written.checkers import all_written_checkers
from a2.written.sections import Section
from a2.written.transitions import INITIAL, LEFT, RIGHT, SHIFT, apply
from grader.run.check_api import check_rng

CHECKERS = all_written_checkers()
SEEDS = range(4)
SWEEP = range(25)


def judge(checker: str, question: str, body: str, seed: int = 0):
    ctx = WrittenContext(question, check_rng(seed, question), seed)
    return CHECKERS[checker](Section(question, body, where="answers.md, line 1"), ctx)


FORMS = {
    ("grad_center", "1b_i"): (
        [r"**Answer:** $U(\hat{y} - y)$",
         r"$$\frac{\partial J}{\partial v_c} = \mathbf{U}(\hat{\mathbf{y}} - \mathbf{y})$$",
         r"Answer: $U\hat{y} - Uy$",
         r"$\boxed{-u_o + U\hat y}$",
         r"$$\frac{\partial J}{\partial \mathbf{v}_c} = -\mathbf{u}_o + \sum_{w \in V} \hat{y}_w \mathbf{u}_w$$",
         r"Answer: $-\mathbf{U}(\mathbf{y} - \hat{\mathbf{y}})$",
         "Answer: U(ŷ − y)",
         r"$$\frac{\partial J}{\partial v_c} = -u_o + \sum_{w=1}^{|V|} \hat{y}_w u_w = U(\hat y - y)$$"],
        [r"Answer: $-U(\hat{y} - y)$", r"Answer: $U^T(\hat y - y)$", r"Answer: $U(y - \hat y)$",
         r"Answer: $\hat y - y$", r"Answer: $U\hat{y}$", r"Answer: $(\hat y - y) U$"]),
    ("grad_outside_cases", "1d"): (
        ["**Answer:** case w = o: $(\\hat{y}_o - 1)\\mathbf{v}_c$\n\n**Answer:** case w ≠ o: $\\hat{y}_w \\mathbf{v}_c$",
         r"$$\frac{\partial J}{\partial u_w} = (\hat{y}_w - y_w) v_c$$",
         r"$$\frac{\partial J}{\partial \mathbf{u}_w} = \begin{cases} (\hat{y}_w - 1)\mathbf{v}_c & \text{if } w = o \\ "
         r"\hat{y}_w \mathbf{v}_c & \text{otherwise} \end{cases}$$",
         "If $w = o$: $$\\frac{\\partial J}{\\partial u_o} = (\\hat y_o - 1) v_c$$\n\nIf $w \\neq o$: "
         "$$\\frac{\\partial J}{\\partial u_w} = \\hat y_w v_c$$",
         r"$$\frac{\partial J}{\partial u_w} = (\hat{y}_w - \mathbb{1}\{w = o\}) v_c$$",
         r"$$\frac{\partial J}{\partial u_w} = (\hat{y}_w - \delta_{wo}) v_c$$"],
        [r"$$\frac{\partial J}{\partial u_w} = \hat{y}_w v_c$$",
         r"$$\frac{\partial J}{\partial u_w} = (y_w - \hat{y}_w) v_c$$",
         "If $w = o$: $(\\hat y_o - 1) v_c$\n\nIf $w \\neq o$: $\\hat y_o v_c$"]),
    ("grad_outside_matrix", "1e"): (
        [r"Answer: $\mathbf{v}_c(\hat{\mathbf{y}} - \mathbf{y})^\top$", r"$$\frac{\partial J}{\partial U} = v_c (\hat y - y)^T$$",
         r"Answer: $v_c \hat{y}^T - v_c y^T$",
         r"Answer: $$\left[ \frac{\partial J}{\partial \mathbf{u}_1}, \frac{\partial J}{\partial \mathbf{u}_2}, \cdots, "
         r"\frac{\partial J}{\partial \mathbf{u}_{|V|}} \right]$$"],
        [r"Answer: $(\hat y - y) v_c^T$", r"Answer: $v_c(y - \hat y)^T$", r"Answer: $U(\hat y - y)$",
         r"Answer: $$\begin{bmatrix} \frac{\partial J}{\partial u_1} \\ \vdots \\ \frac{\partial J}{\partial u_{|V|}} \end{bmatrix}$$"]),
    ("dropout_gamma", "2b_i"): (
        [r"Answer: $\gamma = \frac{1}{1-p}$", r"$$\gamma = (1-p_{drop})^{-1}$$", "γ = 1/(1-p)",
         r"Answer: $1/(1 - p_{\text{drop}})$", r"$\gamma = \frac{1}{1 - p_\mathrm{drop}}$",
         "We need $\\gamma(1-p_{drop}) = 1$, so $$\\gamma = \\frac{1}{1-p_{drop}}$$"],
        [r"Answer: $\gamma = 1 - p$", r"Answer: $\gamma = \frac{p}{1-p}$", r"$$\gamma = \frac{1}{p}$$", r"$$\gamma = 1 + p$$"]),
    ("step_count", "3b"): (
        ["**Answer:** $2n$", "It takes 2n steps: each word is shifted once and attached once.", "$n + n$ steps",
         r"Answer: $2 \cdot n$", "2n steps", "There are $n$ shifts and $n$ arcs, so $2n$ steps in total.",
         "Each word is shifted once and attached once, so n shifts plus n arcs make 2n steps.\n\\[ 2n \\]",
         "so n shifts plus n arcs.\n\\[ n + n \\]"],
        ["**Answer:** $n$", "Answer: $2n+1$", "It takes $n$ steps.", "$n^2$ steps", "Answer: 3n"]),
    ("relu_jacobian", "3e_i"): (
        [r"Answer: $\mathbb{1}\{(xW + b_1)_i > 0\} W_{ji}$",
         r"$$\frac{\partial h_i}{\partial x_j} = \mathbf{1}\{z_i > 0\}\cdot W_{ji}$$", r"Answer: $W_{ji} \cdot 1[z_i > 0]$",
         r"$$\frac{\partial h_i}{\partial x_j} = \begin{cases} W_{ji} & \text{if } (\mathbf{x}\mathbf{W} + \mathbf{b}_1)_i > 0 \\"
         r" 0 & \text{otherwise} \end{cases}$$",
         r"Answer: $\text{ReLU}'(z_i) W_{ji}$", r"Answer: $W_{j,i}\,\mathbb{1}_{h_i > 0}$"],
        [r"Answer: $W_{ji}$", r"Answer: $\mathbb{1}\{z_i > 0\} W_{ij}$", r"Answer: $\mathbb{1}\{z_i < 0\} W_{ji}$",
         r"Answer: $\mathbb{1}\{z_i > 0\}$"]),
    ("softmax_ce_grad", "3e_ii"): (
        [r"Answer: $\hat{y}_i - y_i$", r"$$\frac{\partial CE}{\partial l_i} = \hat y_i - \mathbb{1}\{i = c\}$$",
         r"Answer: $\hat{y}_i - \delta_{ic}$",
         r"$$\frac{\partial CE(y,\hat y)}{\partial l_i} = \begin{cases}\hat y_i - 1 & i = c \\ \hat y_i & i \neq c\end{cases}$$",
         r"Answer: $\hat{\mathbf{y}} - \mathbf{y}$"],
        [r"Answer: $y_i - \hat{y}_i$", r"Answer: $\hat y_i$", r"Answer: $\hat y_i - 1$", r"Answer: $\hat y_i (1 - \hat y_i)$"]),
}
CASES = [(checker, q, body, ok) for (checker, q), (good, bad) in FORMS.items()
         for ok, bodies in ((True, good), (False, bad)) for body in bodies]


@pytest.mark.parametrize("checker, question, body, ok", CASES,
                         ids=[f"{q}-{'ok' if ok else 'wrong'}-{k}" for k, (_, q, _, ok) in enumerate(CASES)])
def test_forms(checker, question, body, ok):
    for seed in SEEDS:
        verdict = judge(checker, question, body, seed)
        assert (verdict.passed == verdict.total) is ok, (seed, verdict.feedback)
        assert verdict.feedback and (verdict.feedback[0].startswith("read") or not ok), verdict.feedback


@pytest.mark.parametrize("checker, question", list(FORMS))
def test_verdicts_do_not_depend_on_the_seed(checker, question):
    good, bad = FORMS[(checker, question)]
    for body, ok in ((good[0], True), (bad[0], False)):
        verdicts = {judge(checker, question, body, seed).passed for seed in SWEEP}
        assert len(verdicts) == 1 and (verdicts.pop() == (1 if checker != "grad_outside_cases" else 2)) is ok


def test_feedback_shows_what_was_read_and_why_it_is_wrong():
    """What was read is the feedback; the verdict and why it is wrong (it implies the key) are the
    verdict's ``why``, which students see after the due date (issues 20 and 33)."""
    verdict = judge("grad_center", "1b_i", r"**Answer:** $\mathbf{U}^\top(\hat{\mathbf{y}} - \mathbf{y})$")
    assert verdict.feedback == ["read: ∂J/∂v_c = Uᵀ(ŷ − y)"] and verdict.why[0] == "∂J/∂v_c: wrong."
    assert "Uᵀ is |V|×d and ŷ − y has |V| rows" in "\n".join(verdict.why)
    verdict = judge("dropout_gamma", "2b_i", r"Answer: $\gamma = \frac{1}{1 - p_{\text{drop}}}$")
    assert verdict.feedback == ["read: γ = 1/(1 − p_drop)"] and verdict.why == ["γ: right at every random p in (0, 0.95)."]
    verdict = judge("dropout_gamma", "2b_i", r"Answer: $\gamma = 1 - p$")
    assert verdict.why[0] == "γ: wrong." and "but the answer is" in "\n".join(verdict.why)
    assert "wrong" not in "\n".join(verdict.feedback)
    assert "but the answer is" not in "\n".join(verdict.feedback)
    verdict = judge("grad_center", "1b_i", r"Answer: $-U(\hat y - y)$")
    assert "negative" in "\n".join(verdict.why) and "negative" not in "\n".join(verdict.feedback)
    verdict = judge("relu_jacobian", "3e_i", r"Answer: $W_{ji}$")
    assert "z_i < 0" in "\n".join(verdict.why)


def test_missing_and_unreadable_answers_say_which():
    assert "is empty" in judge("grad_center", "1b_i", "").feedback[0]
    assert "has no formula" in judge("grad_center", "1b_i", "I did not finish this one.").feedback[0]
    verdict = judge("grad_center", "1b_i", r"Answer: $U(\hat{y} - $")
    assert verdict.status == "unreadable" and "could not be read" in verdict.feedback[0]
    assert "No expression in n found" in judge("step_count", "3b", "Every word is shifted once.").feedback[0]


@pytest.mark.parametrize("body, right", [
    ("Answer: It takes 2n steps in total, since each word is shifted once and attached once.", True),
    ("**Answer:** n shifts and n arcs, so 2n transitions.", True),
    ("Answer: It takes 2n + 1 steps in total.", False),
])
def test_a_3b_answer_line_in_words_is_read_as_the_count_it_states(body, right):
    """"Answer: it takes 2n steps" is read as 2n (the marked line was read as one formula, with its
    words as names: unreadable, flagged)."""
    verdict = judge("step_count", "3b", body)
    assert verdict.status == "" and verdict.passed == int(right) and not verdict.review


def test_a_3b_answer_line_with_two_counts_is_not_read_as_either():
    verdict = judge("step_count", "3b", "Answer: 2n steps or 3n steps")
    assert verdict.status == "unreadable" and verdict.passed == 0


# 3(a) ------------------------------------------------------------------------------------------

GOLD = "S S LA S S LA RA S S S S LA LA LA RA RA".split()
NAMES = {"S": SHIFT, "LA": LEFT, "RA": RIGHT}


def table(seq, *, arrow="→", names=None, sep=", ", header=True, initial=True, skip=None, dep=None,
          latex=False) -> str:
    rows = [("Stack", "Buffer", "New dependency", "Transition")] if header else []
    config = INITIAL
    if initial:
        rows.append(("[ROOT]", f"[{sep.join(config.buffer)}]", "", "Initial Configuration"))
    for k, t in enumerate(seq):
        config, arc = apply(config, NAMES[t])
        if k == skip:
            continue
        shown = "" if not arc else (dep(arc) if dep else f"{arc[0]} {arrow} {arc[1]}")
        rows.append((f"[{sep.join(config.stack)}]", f"[{sep.join(config.buffer)}]", shown,
                     (names or {}).get(t, NAMES[t])))
    if latex:
        body = "\n".join(" & ".join(f"${c}$" if c.startswith("[") else c for c in r) + r" \\ \hline" for r in rows)
        return "\\begin{tabular}{|l|l|l|l|}\n\\hline\n" + body + "\n\\end{tabular}"
    lines = ["| " + " | ".join(r) + " |" for r in rows]
    if header:
        lines.insert(1, "|---|---|---|---|")
    return "\n".join(lines)


@pytest.mark.parametrize("body", [
    table(GOLD), table(GOLD, arrow="->", names={"S": "S", "LA": "LA", "RA": "RA"}),
    table(GOLD, header=False, initial=False, sep=" "), table(GOLD, arrow=r"$\rightarrow$"),
    table(GOLD, dep=lambda a: f"({a[0]}, {a[1]})"), table(GOLD, dep=lambda a: f"{a[1]} ← {a[0]}"),
    table(GOLD, latex=True), table(GOLD, names={"S": "Shift", "LA": "Left-Arc", "RA": "Right Arc"}),
], ids=["arrows", "S-LA-RA", "no-header", "rightarrow", "pairs", "left-arrows", "latex", "spelling"])
def test_3a_correct_tables(body):
    verdict = judge("transition_table", "3a", body)
    assert (verdict.passed, verdict.total) == (17, 17), verdict.feedback
    assert verdict.feedback[0] == "read: 16 steps: " + " ".join(GOLD)


def test_3a_wrong_attachment_names_the_first_wrong_row():
    wrong = "S S LA S S LA RA S RA S S S LA LA RA RA".split()      # "at" attached to "presented"
    verdict = judge("transition_table", "3a", table(wrong))
    assert verdict.passed < verdict.total - 1
    text = "\n".join(verdict.feedback + verdict.why)
    assert "Row 9:" in "\n".join(verdict.why) and "Row 9:" not in "\n".join(verdict.feedback)
    assert "Row 9:" in text and "the step toward the gold tree is SHIFT" in text and "do not build the gold tree" in text


@pytest.mark.parametrize("skip", [4, 5, 15])
def test_3a_a_skipped_row_loses_points(skip):
    verdict = judge("transition_table", "3a", table(GOLD, skip=skip))
    assert verdict.passed < verdict.total
    why = "\n".join(verdict.why)
    assert f"Row {skip + 1}:" in why or "Steps are missing" in why


def test_3a_reversed_dependencies_lose_their_rows():
    verdict = judge("transition_table", "3a", table(GOLD, dep=lambda a: f"{a[1]} → {a[0]}"))
    assert verdict.passed == 9 and "your row shows I → presented" in "\n".join(verdict.why)


def _gold_arcs() -> list[tuple[str, str]]:
    config, arcs = INITIAL, []
    for t in GOLD:
        config, arc = apply(config, NAMES[t])
        arcs += [arc] if arc else []
    return arcs


@pytest.mark.parametrize("arc", _gold_arcs(), ids=lambda a: f"{a[0]}-{a[1]}")
def test_3a_one_dependency_written_reversed_costs_its_row_only(arc):
    verdict = judge("transition_table", "3a", table(GOLD, dep=lambda a: f"{a[1]} → {a[0]}" if a == arc else f"{a[0]} → {a[1]}"))
    text = "\n".join(verdict.feedback + verdict.why)
    assert (verdict.passed, verdict.total) == (16, 17), text
    assert f"your row shows {arc[1]} → {arc[0]}: the same arc reversed" in text and text.count("Row ") == 1
    assert f"written reversed: {arc[1]} → {arc[0]} for {arc[0]} → {arc[1]}" in text and "another head" not in text


@pytest.mark.parametrize("row", [2, 8, 12])
def test_3a_a_copying_slip_in_one_stack_costs_that_row_only(row):
    body = table(GOLD).split("\n")
    line = body[row + 2]                                # the header, the separator, the initial row
    cells = line.split(" | ")
    cells[0] = cells[0].replace("ROOT, ", "")           # ROOT left out of that row's stack
    body[row + 2] = " | ".join(cells)
    verdict = judge("transition_table", "3a", "\n".join(body))
    text = "\n".join(verdict.feedback + verdict.why)
    assert (verdict.passed, verdict.total) == (16, 17) and f"Row {row}:" in text and text.count("Row ") == 1, text


@pytest.mark.parametrize("seq, says", [
    ("S S LA S S LA S S S S LA LA RA RA RA RA",         # at → conference, findings → at
     "at is attached to findings and conference to at; in the gold tree conference → at and presented → conference"),
    ("S S LA S S LA RA S RA S S S LA LA RA RA",         # at → presented
     "at is attached to presented; in the gold tree conference → at"),
    ("S S LA S S LA S S S S LA LA LA RA RA RA",         # the whole phrase under findings
     "conference is attached to findings; in the gold tree presented → conference"),
])
def test_3a_a_word_on_another_head_is_said_in_words(seq, says):
    verdict = judge("transition_table", "3a", table(seq.split()))
    text = "\n".join(verdict.feedback + verdict.why)
    assert says in text and "reversed" not in text and "LEFT-ARC makes" not in text, text


def test_3a_a_skipped_row_costs_one_row_and_says_a_step_is_missing():
    verdict = judge("transition_table", "3a", table(GOLD, skip=4))
    text = "\n".join(verdict.feedback + verdict.why)
    assert verdict.passed == 14 and text.count("Row ") == 1 and "the table ends complete after 15 rows" in text


# 3(f) ------------------------------------------------------------------------------------------

STRUCTURED = """
i. Error type: VP attachment error. Incorrect dependency: acquisition -> citing. Correct dependency: blocked -> citing.

ii. Error type: Modifier Attachment Error
Incorrect dependency: elements → most
Correct dependency: crucial → most

iii. Error type: Prepositonal Phrase Attachment Error
Incorrect dependency: $\\text{declined} \\rightarrow \\text{decision}$
Correct dependency: $\\text{reasons} \\rightarrow \\text{decision}$

iv. Error type: coordination attachment error
Incorrect dependency: affects → one
Correct dependency: plants → one
"""
TABLE = """
| Sentence | Error type | Incorrect dependency | Correct dependency |
|---|---|---|---|
| i | Verb Phrase Attachment Error | acquisition → citing | blocked → citing |
| ii | Modifier Attachment Error | elements → most | crucial → most |
| iii | Prepositional Phrase Attachment Error | declined → decision | reasons → decision |
| iv | Coordination Attachment Error | affects → one | plants → one |
"""
PROSE = """
### i
**Verb phrase attachment error**. It produced acquisition → citing, but the correct dependency is blocked → citing.
### ii
**Modifier attachment error**: elements → most should be crucial → most.
### iii
**PP attachment error**: declined → decision is wrong; it should be reasons → decision.
### iv
**Coordination attachment error**: the parser chose affects → one instead of plants → one.
"""


@pytest.mark.parametrize("body", [STRUCTURED, TABLE, PROSE], ids=["structured", "table", "prose"])
def test_3f_correct_answers_in_several_layouts(body):
    verdict = judge("parser_errors", "3f", body)
    assert (verdict.passed, verdict.total) == (12, 12), verdict.feedback


def test_3f_partial_credit_per_item():
    body = STRUCTURED.replace("VP attachment", "PP attachment").replace("acquisition -> citing", "citing -> acquisition")
    verdict = judge("parser_errors", "3f", body)
    assert verdict.passed == 10
    assert "i: type 'PP' ✗, incorrect citing → acquisition ✗, correct blocked → citing ✓" in verdict.why
    # shown at once: what was read, never the verdict per field (it would give the key away)
    assert "i: read type 'PP', incorrect citing → acquisition, correct blocked → citing" in verdict.feedback
    assert not any("✓" in line or "✗" in line for line in verdict.feedback)
    body = TABLE.replace("| iv | Coordination Attachment Error | affects → one | plants → one |\n", "")
    verdict = judge("parser_errors", "3f", body)
    assert verdict.passed == 9 and "iv: no answer found for this sentence." in verdict.feedback


def test_a_derivative_formula_beats_a_passing_mention():
    body = (r"Differentiating gives $\frac{\partial J}{\partial v_c} = U(\hat{y} - y)$, where $y$ is the "
            r"one-hot vector and $\hat{y}$ the prediction.")
    verdict = judge("grad_center", "1b_i", body)
    assert verdict.passed == 1 and verdict.feedback[0] == "read: ∂J/∂v_c = U(ŷ − y)"


@pytest.mark.parametrize("roman, right, wrong", [
    ("i", "VP attachment error", "Modifier attachment error"),
    ("ii", "Modifier Attachment Error", "Prepositional Phrase Attachment Error"),
    ("iii", "Prepositonal Phrase Attachment Error", "Verb Phrase Attachment Error"),
    ("iv", "coordination attachment error", "Prepositional Phrase Attachment Error"),
])
def test_3f_a_wrong_error_type_is_told_what_kind_of_attachment_it_is_and_why(roman, right, wrong):
    from a2.written.keys import parser_error_keys

    key = next(k for k in parser_error_keys() if k.roman == roman)
    part = STRUCTURED.split(f"\n{roman}. ")[1].split("\n\n")[0]
    verdict = judge("parser_errors", "3f", STRUCTURED.replace(f"{roman}. {part}", f"{roman}. {part.replace(right, wrong)}"))
    assert verdict.passed == 11
    assert f"{roman}: {key.why}" in verdict.why                      # the explanation, after the due date
    assert not any(key.why in line for line in verdict.feedback)
    whys = [k.why for k in parser_error_keys()]
    right_answer = judge("parser_errors", "3f", STRUCTURED)
    assert not any(why in line for line in right_answer.feedback + right_answer.why for why in whys)


def test_3a_a_wrong_transition_name_over_a_right_row_is_not_called_reversed():
    """RIGHT-ARC written where LEFT-ARC was due, with the LEFT-ARC's stack and arc: the transition is
    named, the (right) dependency is not called reversed."""
    body = table(GOLD).replace("| presented → I | LEFT-ARC |", "| presented → I | RIGHT-ARC |")
    verdict = judge("transition_table", "3a", body)
    text = "\n".join(verdict.feedback + verdict.why)
    assert "Row 3: from stack [ROOT, I, presented]" in text and "your row applies RIGHT-ARC" in text
    assert "reversed" not in text and text.count("Row ") == 1 and verdict.passed == 15, text
