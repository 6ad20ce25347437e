"""Reading students' written files: one document model (blocks, markup; other markups as Markdown: lyx,
myst, wikitext; layouts: rows, ascii_art), LaTeX through pylatexenc (tex_walk with tex_walker's
faster walker, tex_macros, tex_packages; tables as rows of cells from their nodes: tex_tables;
answer blocks a student declares: tex_own_blocks; answers marked in a template's text: tex_marked;
MathML as LaTeX: mathml; ``\\( \\)`` math as ``$``: math_delimiters), the one group scanner
(braces), final-answer candidates (answers, with the answer words of answer_words; an equation's
sides: sides; the one remark rule: remarks), formulas to SymPy trees (notation, latex_normal reading pylatexenc's nodes
(latex_fast for plain formulas) with the tables of latex_tables and the token rules of latex_tokens,
mathparse; prediction: the ANTLR parser's and lexer's cached DFA, stored by prediction_build), their
numeric evaluation (evaluate, numeric; kept_values for a sum inside a sum) and display (show); what
is kept while one writeup is read (kept).
Nothing here knows an assignment's questions: the assignment's written/ finds its sections and judges."""
