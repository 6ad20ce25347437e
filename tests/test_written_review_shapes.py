"""Shapes found in review of the round-4 readers (wiki markup, MyST, answers as code): text that is not
what a reader was built for must neither crash the writeup's reading nor be read as that format."""

from __future__ import annotations

from written_support import full, scored

from a2.written.code_answers import code_answer
from a2.written.tex_exam import every_block
from grader.reading.markup import as_markdown
from grader.reading.myst import myst_markdown
from grader.reading.tex_macros import definitions

ANSWER_1B = "## 1(b)(i)\n\n$$\\frac{\\partial J}{\\partial v_c} = U(\\hat{y} - y)$$\n\n"


def test_a_python_literal_with_an_unhashable_key_does_not_stop_the_reading(tmp_path):
    """ast.literal_eval raises TypeError on ``{[1]: 2}``: the 3(a) literal reader must take it as no literal."""
    text = ANSWER_1B + "## 3(a)\n\n```python\nsteps = {[1]: 2}\n```\n"
    got = scored(tmp_path, {"answers.md": text})
    assert full(got["1b_i"]), got["1b_i"]


def test_setext_underlines_are_no_wiki_headings():
    """pandoc writes level-1 headings underlined with as many ``=`` as the title has characters; two
    such underlines and a ``''`` in a code cell made a Markdown writeup wiki markup: its ``##`` headings
    became numbered list items, ``**Answer:**`` at a line's start a bullet, ``''`` an emphasis mark."""
    text = ("Part 1\n======\n\n## 1(b)(i)\n\n**Answer:** $$U(\\hat{y} - y)$$\n\n"
            "Part 2\n======\n\n```python\nname = '' if x else ''\n```\n")
    assert as_markdown("answers.md", text) == text


def test_myst_code_cells_and_quarto_chunks_stay_code():
    """A MyST notebook's ``{code-cell}`` and a Quarto/R Markdown chunk (```` ```{python} ````) hold code: their
    lines were read as prose (a ``# comment`` became a heading, an assignment a line of the answer)."""
    text = ("## 1(b)(i)\n\n{math}`U(\\hat{y} - y)`\n\n```{code-cell} ipython3\n# 1(d) check\ngrad = U @ (y_hat - y)\n```\n\n"
            "```{python}\n#| echo: false\n# 3(a)\nstack = ['ROOT']\n```\n")
    got = myst_markdown(text)
    assert got.split("\n")[4:] == text.split("\n")[4:]


def test_a_block_of_many_formatting_macros_with_text_is_read_not_searched_forever():
    """``\\bf{}`` is the macro with its group or the macro, ``{`` and ``}``: the template's 'formatting only'
    pattern tried both for each of them (2^k ways for k; 40 of them never finished). The block holds
    text, so it is an answer; a block of formatting alone is still empty."""
    text = "\\ifans{" + "\\bf{}" * 40 + " $2n$}\n\\ifans{{\\color{blue} } \\vspace{2cm}}"
    blocks = every_block(text)
    assert [c.strip() for _, _, c in blocks] == ["\\bf{}" * 40 + " $2n$", ""]


def test_an_xparse_spec_of_many_arguments_of_an_unread_type_is_skipped_at_once():
    """``mm`` is one or two steps of the spec pattern's repetition: a spec it does not match (a ``v``
    argument after 60 ``m``) was tried every way (Fibonacci many; never finished). The command is
    left unexpanded and the definitions after it are read."""
    text = "\\NewDocumentCommand{\\big}{" + "m" * 60 + " v}{#1}\n\\newcommand{\\bx}{\\mathbf{x}}\n"
    found, _ = definitions(text)
    assert "big" not in found and found["bx"].body == "\\mathbf{x}"


def test_a_list_counter_set_to_a_number_too_long_to_convert_is_not_read(tmp_path):
    """``\\setcounter{enumi}{<5,000 digits>}``: int() refuses more than 4,300 digits, and the ValueError
    stopped the reading of the whole writeup."""
    text = ("\\documentclass{article}\n\\begin{document}\n\\section*{1(b)(i)}\n"
            "$$\\frac{\\partial J}{\\partial v_c} = U(\\hat{y} - y)$$\n\n\\section*{3(f)}\n"
            "\\begin{enumerate}\\setcounter{enumi}{" + "9" * 5000 + "}\n\\item x\n\\end{enumerate}\n\\end{document}\n")
    got = scored(tmp_path, {"answers.tex": text})
    assert full(got["1b_i"]), got["1b_i"]


def test_an_assignment_longer_than_a_formula_is_not_read_as_the_answer():
    """code_math rewrites nested calls one at a time (each a scan of the line): a line of 3,000 nested
    ``float(`` took 38 s. An answer a TA reads from code is a short line; a longer one is not read."""
    long = "grad = " + "float(" * 150 + "U @ (y_hat - y)" + ")" * 150
    assert code_answer("```python\n" + long + "\n```\n") is None
    assert code_answer("```python\ngrad = U @ (y_hat - y)\n```\n") is not None
