"""How latex2sympy's ANTLR parser predicts: fast, with the same parse as its default.

ANTLR's default prediction (full LL) falls back to a full-context simulation wherever the
grammar's SLL lookahead conflicts, and that simulation is never cached: on latex2sympy's grammar
it is most of a formula's parse (about 20 ms of a 25-ms parse, warm). SLL prediction is cached in
ANTLR's DFA (a few microseconds a decision once warm) and agrees with LL on every decision of
this grammar but one, in ``atom_expr``: whether an atom's subscript is followed by its own
superscript (``u_w^{2}``: sub then sup) or not (``\\hat{y}_w v_c``: sub alone). SLL takes the
first alternative there and the parse then fails. That decision is read from the tokens
(:func:`scripts_alternative`: the token after the script's braced group or single token); any
shape it does not know is left to full LL.

:func:`fast_parser` is what :mod:`grader.reading.mathparse` uses; a parse that fails under it is
parsed again with the default (so a formula that cannot be read gets the same message as
before), and ``tests/test_formula_prediction.py`` checks the two give the same tree on every
formula of the corpora and on generated ones.
"""

from __future__ import annotations

from typing import Any

from antlr4.atn.ParserATNSimulator import ParserATNSimulator
from antlr4.atn.PredictionMode import PredictionMode
from antlr4.Token import Token
from latex2sympy2_extended.antlr_parser import PSParser


def _scripts_decision() -> int | None:
    """The number of atom_expr's one decision in the installed grammar (None: not exactly one)."""
    found = [d for d, state in enumerate(PSParser.atn.decisionToState)
             if state.ruleIndex == PSParser.RULE_atom_expr]
    return found[0] if len(found) == 1 else None


SCRIPTS_DECISION = _scripts_decision()
UNDERSCORE, CARET = PSParser.UNDERSCORE, PSParser.CARET
L_BRACE, R_BRACE = PSParser.L_BRACE, PSParser.R_BRACE
ONE_TOKEN_SCRIPTS = frozenset({PSParser.LETTER_NO_E, PSParser.NUMBER, PSParser.GREEK_CMD})
"""A script of one token (``_w``, ``_1``, ``_\\alpha``); any other unbraced script goes to LL."""
# atom_expr's alternatives, in the grammar's order: sup sub, sub sup, sub, sup.
SUP_SUB, SUB_SUP, SUB, SUP = 1, 2, 3, 4


def _after_script(tokens: Any, k: int) -> int | None:
    """The lookahead index of the token after the script whose ``_``/``^`` is at ``k``."""
    first = tokens.LA(k + 1)
    if first in ONE_TOKEN_SCRIPTS:
        return k + 2
    if first != L_BRACE:
        return None
    depth, i = 0, k + 1
    while True:
        t = tokens.LA(i)
        if t == Token.EOF:
            return None
        depth += (t == L_BRACE) - (t == R_BRACE)
        if depth == 0:
            return i + 1
        i += 1


def scripts_alternative(tokens: Any) -> int | None:
    """atom_expr's alternative read from the tokens after the atom, or None (let LL decide).

    Decided here: one script, or a subscript and a superscript in either order, each a braced
    group or one token, followed by anything but another script. When a braced subscript is
    followed by ``^``, both "sub sup" and "sub, then an outer power" parse; LL resolves that
    ambiguity to the first alternative, as this does. A script followed by another script
    (``v_c_{i}``, ``y_w^2``, ``x^{a}^{b}``: the inner atom may take it) is left to LL."""
    first = tokens.LA(1)
    if first not in (UNDERSCORE, CARET):
        return None
    after = _after_script(tokens, 1)
    if after is None:
        return None
    nxt = tokens.LA(after)
    if nxt not in (UNDERSCORE, CARET):
        return SUB if first == UNDERSCORE else SUP
    if nxt == first or tokens.LA(2) != L_BRACE:
        return None
    end = _after_script(tokens, after)
    if end is None or tokens.LA(end) in (UNDERSCORE, CARET):
        return None
    return SUB_SUP if first == UNDERSCORE else SUP_SUB


class _Simulator(ParserATNSimulator):
    """SLL everywhere; atom_expr's decision from the tokens, else full LL."""

    def adaptivePredict(self, input: Any, decision: int, outerContext: Any) -> int:
        if decision == SCRIPTS_DECISION:
            if input.LA(1) in (UNDERSCORE, CARET):
                alt = scripts_alternative(input)
                if alt is not None:
                    return alt
                self.predictionMode = PredictionMode.LL
            else:
                self.predictionMode = PredictionMode.SLL      # no script: nothing to conflict on
        else:
            self.predictionMode = PredictionMode.SLL
        return super().adaptivePredict(input, decision, outerContext)


def fast_parser(parser: Any) -> Any:
    """``parser`` (a fresh PSParser) predicting as :class:`_Simulator` does. The DFA and the
    context cache stay the grammar's shared ones: a state SLL resolved is marked for full context
    and never used by an LL prediction as its answer (ANTLR's own rule)."""
    if SCRIPTS_DECISION is None:
        return parser                       # another grammar: leave its prediction alone
    interp = parser._interp
    parser._interp = _Simulator(parser, parser.atn, interp.decisionToDFA, interp.sharedContextCache)
    return parser
