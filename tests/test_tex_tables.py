"""LaTeX tables read as rows of cells from pylatexenc's nodes (grader/reading/tex_tables.py), as the
table reader (a2/written/tables.py ``table_rows``) takes them: no Markdown table text in between."""

from __future__ import annotations

from a2.written.tables import table_rows
from grader.reading import tex_tables

TABLE = r"""Before the table.

\begin{tabular}{|l|l|l|} \hline
Stack & Buffer & \textbf{Transition} \\ \hline
[ROOT] & [I, presented, my,
          findings] & Initial \\[2pt]
[ROOT, I] & [presented] & \texttt{SHIFT} % a comment & not a cell
\\ [ROOT, presented] & [my] & LEFT-ARC \\
\end{tabular}

| a | b |
|---|---|
| 1 | 2 |
"""


def test_rows_and_cells_come_from_the_nodes():
    (table,) = tex_tables.tables(TABLE)
    cells = [c for c, _ in table.rows]
    assert cells == [("Stack", "Buffer", "Transition"),
                     ("[ROOT]", "[I, presented, my, findings]", "Initial"),      # a cell over two lines
                     ("[ROOT, I]", "[presented]", r"\texttt{SHIFT}"),
                     ("[ROOT, presented]", "[my]", "LEFT-ARC")]                # \\ [ROOT, ...] is no spacing


def test_table_rows_meet_markdown_rows_in_one_model_with_the_body_s_lines():
    latex, markdown = table_rows(TABLE)
    lines = TABLE.split("\n")
    assert [r.cells[0] for r in latex] == ["Stack", "[ROOT]", "[ROOT, I]", "[ROOT, presented]"]
    assert lines[latex[1].line].startswith("[ROOT] &")
    assert [r.cells for r in markdown] == [("a", "b"), ("1", "2")]
    assert lines[markdown[1].line] == "| 1 | 2 |"


def test_an_ampersand_inside_a_group_stays_in_its_cell():
    (table,) = tex_tables.tables(r"\begin{tabular}{ll} a & {x & y} \\ b & c \end{tabular}")
    assert [c for c, _ in table.rows] == [("a", "{x & y}"), ("b", "c")]


def test_a_display_that_is_only_a_large_array_is_a_table_a_matrix_is_not():
    big = r"\begin{array}{lll} \text{[ROOT]} & \text{[I]} & \\ a & b & c \\ d & e & f \end{array}"
    assert tex_tables.math_array(f" {big} ") == big
    assert tex_tables.math_array(r"\begin{array}{cc} 1 & 0 \\ 0 & 1 \end{array}") is None
    assert tex_tables.math_array(r"x = \begin{array}{lll} a & b & c \\ a & b & c \\ a & b & c \end{array}") is None
    (table,) = tex_tables.tables(big)
    assert table.rows[0][0] == (r"$\text{[ROOT]}$", r"$\text{[I]}$", "")    # an array's cells are math


def _gold_rows() -> str:
    from written_corpus_dep import gold_sequence
    names = {"S": "SHIFT", "L": "LEFT-ARC", "R": "RIGHT-ARC"}
    arrow = " $\\to$ "
    rows = [" & ".join(["[" + ", ".join(s) + "]", "[" + ", ".join(b) + "]", arrow.join(a) if a else "", names[t]]) + " \\\\"
            for t, s, b, a in gold_sequence()]
    return "\n".join(rows)


def test_tables_of_other_packages_and_spanning_cells_are_read(tmp_path):
    """tabularray's ``tblr``, a ``\\multicolumn`` header cell, ``\\tabularnewline``: the 3(a) table a
    student typed with that package is read row by row (the old reader saw no table at all)."""
    from a2.written.grade import grade_written
    from a2.written.process import InProcess
    from grader.run.rubric import load_rubric

    text = ("\\documentclass{article}\\usepackage{tabularray}\\begin{document}\n\\subsection*{3(a)}\n"
            "\\begin{tblr}{colspec={llll}, hlines}\n"
            "\\multicolumn{1}{c|}{\\textbf{Stack}} & Buffer & New dependency & Transition \\tabularnewline\n"
            f"{_gold_rows()}\n\\end{{tblr}}\n\\end{{document}}\n")
    (table, ) = tex_tables.tables(text)
    assert table.rows[0][0] == ("Stack", "Buffer", "New dependency", "Transition")
    path = tmp_path / "solutions.tex"
    path.write_text(text, encoding="utf-8")
    results, _, _ = grade_written([path], load_rubric().written, 3, runner=InProcess())
    r = next(r for r in results if r.id == "3a")
    assert r.score == r.max_score and not r.needs_review, r.outcome.feedback
