"""Reading students' written files: one document model (blocks, markup; other markups as Markdown: lyx,
myst, wikitext; layouts: rows, ascii_art),
LaTeX through pylatexenc (tex_walk, tex_macros, tex_packages; the answer blocks a student declares: tex_own_blocks;
MathML as LaTeX: mathml), the one group
scanner (braces), final-answer candidates (answers; the one remark rule: remarks), formulas to SymPy
trees (notation, latex_normal reading pylatexenc's nodes (latex_fast for plain formulas) with the
tables of latex_tables and the token rules of latex_tokens, mathparse; prediction: the ANTLR parser's
and lexer's cached DFA, stored by prediction_build), their numeric evaluation (evaluate, numeric)
and display (show).
Nothing here knows an assignment's questions: the assignment's written/ finds its sections and judges."""
