"""Written answers: read a student's Markdown/LaTeX writeup and grade its final answers.

Runs in the trusted grader; the writeup is data, parsed (never executed) in a child process
with a time limit per request. One module per step:

    blocks.py         the document model: one tokenizer per format -> blocks with file and line
    braces.py         the one group scanner (braces, brackets, escaped pairs, atomic environments)
    tex_walk.py       LaTeX structure through pylatexenc's LatexWalker (the exam template's macro specs)
    notation.py       Unicode and ASCII formulas -> LaTeX by declared tables; conditions in words
    evidence.py       answer choice on evidence: equations naming a target anywhere; review flags
    documents.py      all written files together: macros, \\input among uploaded files, merging
    sections.py       find each question's section (any heading style; content beats a wrong label)
    tex_exam.py       the course's exam-class template: parts by position, answer blocks
    tex_macros.py     the document's own \\newcommand/\\def and the template's bold shorthands
    latex_doc.py      any other .tex writeup (pylatexenc nodes) -> the Markdown sections.py reads
    answers.py        the final answer inside a section ("Answer:", boxed, last line, plain text)
    targets.py        what a formula answers, from its left-hand side (∂J/∂v_c, ∂CE/∂l_i, γ ...)
    latex_normal.py   one formula's LaTeX rewritten into the grammar the parser reads
    mathparse.py      LaTeX -> ordered SymPy tree (latex2sympy2_extended), with size caps
    prediction.py     its ANTLR parser predicting from the cached SLL DFA (the default's trees, ~8x faster)
    evaluate.py       that tree -> numbers and arrays with the assignment's shapes
    show.py           sub-expressions written back for messages; symbol names
    numeric.py        true derivatives by central differences; tolerances
    tables.py         Markdown/LaTeX tables, word lists and dependencies
    instances.py      random instances of the formula questions and their true values
    formulas.py       checkers of formula answers (1(b)(i), 1(e), 3(e)(i), 3(e)(ii))
    outside_cases.py  1(d): the two cases of ∂J/∂u_w
    scalar_answers.py 2(b)(i) γ(p_drop) and 3(b) steps(n)
    catalogue.py      known wrong answers: message and declared partial credit
    transitions.py    3(a): the configuration table, replayed
    parser_errors.py  3(f): error types and dependencies
    registry.py       @written_check and the Verdict a checker returns
    checkers.py       the list of checker modules
    process.py        the child process and its protocol
    grade.py          what the engine calls: CheckResults for the auto share, ManualItems for TAs
"""
