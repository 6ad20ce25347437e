"""Written answers: read a student's Markdown/LaTeX writeup and grade its final answers.

Runs in the trusted grader; the writeup is data, parsed (never executed) in a child process
with a time limit per request. What is not this assignment's (the document model, LaTeX through
pylatexenc, notation tables, formulas to SymPy trees, their evaluation) is in ``grader/reading/``
(see its package docstring). One module per step:

    documents.py       all written files together: macros, \\input among uploaded files, merging
    latex_doc.py       any other .tex writeup: section markers from pylatexenc's nodes; answers' text as Markdown
    tex_exam.py        the course's exam-class template: parts by position, answer blocks
    outline.py         an outliner's page (Logseq, Roam) as headings and items
    sections.py        find each question's section (any heading style; content beats a wrong label)
    position_labels.py labels by the handout's position (``Q1.2 (i)``, ``Problem 3 part f``)
    summary_table.py   final answers collected in a summary table
    corrections.py     answers given twice: the correction wins
    code_answers.py    answers given only as numpy code; a 3(a)/3(f) answer as a Python literal
    word_math.py       formulas spoken in words (minus, times, one over) as symbols
    evidence.py        answer choice on evidence: equations naming a target anywhere; review flags
    targets.py         what a formula answers, from its left-hand side (∂J/∂v_c, ∂CE/∂l_i, γ ...)
    instances.py       random instances of the formula questions and their true values
    formulas.py        checkers of formula answers (1(b)(i), 1(e), 3(e)(i), 3(e)(ii))
    columns.py         1(e) written column by column
    outside_cases.py   1(d): the two cases of ∂J/∂u_w
    scalar_answers.py  2(b)(i) γ(p_drop) and 3(b) steps(n)
    catalogue.py       known wrong answers: message and declared partial credit
    keys.py            the answer keys that are data (keys.yaml)
    tables.py          tables as rows of cells (Markdown pipes, aligned text; LaTeX's from grader/reading/tex_tables),
                       word lists and dependencies
    csv_tables.py      a 3(a) table handed in as a .csv beside the text
    transitions.py     3(a): the configuration table, replayed
    table_steps.py     3(a): stacks written top first, a table with fewer rows than the parse
    parser_errors.py   3(f): error types and dependencies
    fingerprint.py     what a formula evaluates to at fixed points: the key that groups equal answers
    grouping.py        how written answers are grouped for TAs
    questions.py       the questions' text for the people who mark them (questions.yaml)
    checker_registry.py  @written_check and the Verdict a checker returns
    checkers.py        the list of checker modules
    process.py         the child process and its protocol
    grade.py           what the engine calls: CheckResults for the auto share, ManualItems for TAs
"""
