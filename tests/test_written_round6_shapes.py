"""Shapes of the blind writeups 120-125 (tests/writeups/wild/, BLIND.yaml, round 6: Markdown and text
written by hand), one class each, in variants the writeups do not have (another spelling of the same
construct, another place for it). Each right answer is read right (or, where it cannot be judged,
flagged for a TA); a wrong one stays below full.
"""

from __future__ import annotations

from written_support import full, graded

_3F = ("i. Error type: Verb Phrase Attachment Error\nIncorrect dependency: acquisition -> citing\n"
       "Correct dependency: blocked -> citing\n"
       "ii. Error type: {mod} Attachment Error\nIncorrect dependency: elements -> most\n"
       "Correct dependency: crucial -> most\n"
       "iii. Error type: Prepositional Phrase Attachment Error\nIncorrect dependency: declined -> decision\n"
       "Correct dependency: reasons -> decision\n"
       "iv. Error type: Coordination Attachment Error\nIncorrect dependency: {aff} -> one\n"
       "Correct dependency: plants -> one\n")


# -- a handout's part line copied into a .txt: "3 Neural Transition-Based Dependency Parsing" ------

def test_a_part_line_with_the_parts_number_and_title_starts_that_part(tmp_path):
    text = ("2   Machine Learning and Neural Networks\n(a) Adam\n(i) it averages the gradients.\n"
            "3   Neural Transition-Based Dependency Parsing\n(b) How many steps for n words?\n"
            "Answer: 2n, one shift and one arc per word.\n")
    got = graded(tmp_path, text, "written.txt")
    assert full(got["3b"]) and not got["3b"].needs_review, got["3b"].outcome.feedback
    got = graded(tmp_path, text.replace("Answer: 2n,", "Answer: 3n,"), "written.txt")
    assert got["3b"].score == 0
    # a number that is no part's title stays text: "1 SHIFT per word" does not start part 1
    got = graded(tmp_path, "3 Neural Transition-Based Dependency Parsing\n(b)\n1 SHIFT and 1 ARC per word: 2n\n",
                 "written.txt")
    assert full(got["3b"]), got["3b"].outcome.feedback


# -- typographic ligatures of a PDF copy (ﬁ, ﬀ, ﬂ) -------------------------------------------------

def test_ligatures_are_read_as_their_letters(tmp_path):
    text = "## 3(f)\n\n" + _3F.format(mod="Modi\ufb01er", aff="a\ufb00ects")
    got = graded(tmp_path, text)
    assert full(got["3f"]) and not got["3f"].needs_review, got["3f"].outcome.feedback
    got = graded(tmp_path, "## 3(f)\n\n" + _3F.format(mod="Modi\ufb01er", aff="\ufb02ights"))
    assert got["3f"].score == 11


# -- a subscript flattened onto the line after ŷ (ŷo, ŷi) ---------------------------------------

def test_a_flattened_subscript_after_y_hat_is_the_index(tmp_path):
    text = "## 3(e)(ii)\n\nThe gradient of the loss:\ndCE/dli = ŷi - yi\n"
    got = graded(tmp_path, text)
    assert full(got["3e_ii"]) and not got["3e_ii"].needs_review, got["3e_ii"].outcome.feedback
    got = graded(tmp_path, text.replace("ŷi - yi", "yi - ŷi"))
    assert got["3e_ii"].score == 0


# -- inline code used for math ---------------------------------------------------------------------

def test_math_in_inline_code_is_read_without_its_backticks(tmp_path):
    text = "## 2(b)(i)\n\n- scale: `gamma = 1/(1 - p_drop)` keeps the expectation\n"
    got = graded(tmp_path, text)
    assert full(got["2b_i"]) and not got["2b_i"].needs_review, got["2b_i"].outcome.feedback
    got = graded(tmp_path, "## 1(b)(i)\n\n* `dJ/dv_c = U (y - y_hat)`\n")
    assert got["1b_i"].score == 0 and not got["1b_i"].needs_review, got["1b_i"].outcome.feedback


# -- two equations on one line, each with its condition --------------------------------------------

def test_two_equations_on_one_line_are_two_cases(tmp_path):
    text = "1(d)\ndJ/duw = vc(ŷo - 1) if w = o; and dJ/duw = ŷw vc if w != o\n"
    got = graded(tmp_path, text, "a2.txt")
    assert full(got["1d"]) and not got["1d"].needs_review, got["1d"].outcome.feedback
    got = graded(tmp_path, text.replace("dJ/duw = ŷw vc", "dJ/duw = -ŷw vc"), "a2.txt")
    assert got["1d"].score == 2


# -- a writeup without any question label ------------------------------------------------------------

def test_an_item_missing_from_a_writeup_without_labels_is_flagged(tmp_path):
    text = ("My answers, in the order of the questions.\n\nThe loss keeps only -log ŷ_o.\n\n"
            "Zero when the prediction equals y.\n\nIt moves v_c toward u_o.\n\n"
            "Every word is shifted once and attached once: $2n$ transitions.\n")
    got = graded(tmp_path, text, "notes.md")
    assert got["3b"].score == 0 and got["3b"].needs_review, got["3b"].outcome.feedback
    assert "no question labels" in got["3b"].written.review
    # a labelled writeup's unanswered item is no answer, not a review
    got = graded(tmp_path, "## 3(b)\n\n$2n$\n\n## 3(e)(ii)\n\n$\\hat{y}_i - y_i$\n\nmore\n\nand more\n")
    assert full(got["3b"]) and got["3a"].score == 0 and not got["3a"].needs_review


# -- a strike through a formula: a rejected attempt --------------------------------------------------

def test_a_struck_formula_is_a_rejected_attempt(tmp_path):
    text = ("## 3(e)(ii)\n\n~~$\\frac{\\partial CE}{\\partial l_i} = y_i - \\hat{y}_i$~~ sign!\n\n"
            "$$\\frac{\\partial CE}{\\partial l_i} = \\hat{y}_i - y_i$$\n")
    got = graded(tmp_path, text)
    assert full(got["3e_ii"]) and not got["3e_ii"].needs_review, got["3e_ii"].outcome.feedback
    wrong = ("## 3(e)(ii)\n\n~~$\\frac{\\partial CE}{\\partial l_i} = \\hat{y}_i - y_i$~~\n\n"
             "$$\\frac{\\partial CE}{\\partial l_i} = y_i - \\hat{y}_i$$\n")
    assert graded(tmp_path, wrong)["3e_ii"].score == 0


# -- 3(f) fields labelled in Chinese under bold numbers ----------------------------------------------

def test_3f_fields_labelled_in_chinese_under_bold_numbers(tmp_path):
    items = [("Verb phrase attachment", "acquisition → citing", "blocked → citing"),
             ("Modifier attachment", "elements → most", "crucial → most"),
             ("Prepositional phrase attachment", "declined → decision", "reasons → decision"),
             ("Coordination attachment", "affects → one", "plants → one")]
    text = "## 3(f)\n\n" + "\n\n".join(f"**({k})** 錯誤類型：{t}\n錯誤的依存：{w}\n正確的依存：{r}"
                                     for k, (t, w, r) in enumerate(items, 1)) + "\n"
    got = graded(tmp_path, text)
    assert full(got["3f"]) and not got["3f"].needs_review, got["3f"].outcome.feedback
    got = graded(tmp_path, text.replace("正確的依存：plants → one", "正確的依存：move → one"))
    assert got["3f"].score == 11


# -- 3(a) rows that leave out their empty dependency cell ---------------------------------------------

_STEPS = [("[ROOT, I]", "[presented, my, findings, at, the, NLP, conference]", "", "S"),
          ("[ROOT, I, presented]", "[my, findings, at, the, NLP, conference]", "", "S"),
          ("[ROOT, presented]", "[my, findings, at, the, NLP, conference]", "presented → I", "LA"),
          ("[ROOT, presented, my]", "[findings, at, the, NLP, conference]", "", "S"),
          ("[ROOT, presented, my, findings]", "[at, the, NLP, conference]", "", "S"),
          ("[ROOT, presented, findings]", "[at, the, NLP, conference]", "findings → my", "LA"),
          ("[ROOT, presented]", "[at, the, NLP, conference]", "presented → findings", "RA"),
          ("[ROOT, presented, at]", "[the, NLP, conference]", "", "S"),
          ("[ROOT, presented, at, the]", "[NLP, conference]", "", "S"),
          ("[ROOT, presented, at, the, NLP]", "[conference]", "", "S"),
          ("[ROOT, presented, at, the, NLP, conference]", "[]", "", "S"),
          ("[ROOT, presented, at, the, conference]", "[]", "conference → NLP", "LA"),
          ("[ROOT, presented, at, conference]", "[]", "conference → the", "LA"),
          ("[ROOT, presented, conference]", "[]", "conference → at", "LA"),
          ("[ROOT, presented]", "[]", "presented → conference", "RA"),
          ("[ROOT]", "[]", "ROOT → presented", "RA")]


def test_a_3a_row_may_leave_out_its_empty_dependency_cell(tmp_path):
    rows = [f"| {k} | {s} | {b} | {d} | {t} |" if d else f"| {k} | {s} | {b} | {t} |"
            for k, (s, b, d, t) in enumerate(_STEPS, 1)]
    text = ("## 3(a)\n\n| # | Stack | Buffer | Arc added | Transition |\n|---|---|---|---|---|\n"
            "| 0 | [ROOT] | [I, presented, my, findings, at, the, NLP, conference] | | |\n" + "\n".join(rows) + "\n")
    got = graded(tmp_path, text)
    assert full(got["3a"]) and not got["3a"].needs_review, got["3a"].outcome.feedback
    got = graded(tmp_path, text.replace("| 9 | [ROOT, presented, at, the] |", "| 9 | [ROOT, presented, the] |"))
    assert got["3a"].score < 4
