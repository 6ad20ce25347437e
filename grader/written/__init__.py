"""Written answers: read a student's Markdown/LaTeX writeup and grade its final answers.

Runs in the trusted grader; the writeup is data, parsed (never executed) in a child process
with a time limit per request. One module per step:

    sections.py       find each question's section (any heading style; content beats a wrong label)
    latex_doc.py      a .tex writeup -> the Markdown sections.py reads
    answers.py        the final answer inside a section ("Answer:", boxed, last right-hand side)
    mathparse.py      LaTeX -> ordered SymPy tree (latex2sympy2_extended), with size caps
    evaluate.py       that tree -> numbers and arrays with the assignment's shapes
    numeric.py        true derivatives by central differences; tolerances
    tables.py         Markdown/LaTeX tables, word lists and dependencies
    formulas.py       checkers of formula answers (1(b)(i), 1(d), 1(e), 2(b)(i), 3(b), 3(e))
    transitions.py    3(a): the configuration table, replayed
    parser_errors.py  3(f): error types and dependencies
    registry.py       @written_check and the Verdict a checker returns
    checkers.py       the list of checker modules
    process.py        the child process and its protocol
    grade.py          what the engine calls: CheckResults for the auto share, ManualItems for TAs
"""
