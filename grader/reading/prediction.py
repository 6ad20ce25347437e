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

The DFA is what makes SLL fast, and a new process starts with an empty one: each new decision
path costs a full ATN closure (a fresh process read a writeup in about 0.5 s, against 0.1 s once
its DFA knew the assignment's formulas). So the DFA can be built once from declared formulas and
stored (:mod:`grader.reading.prediction_build`, ``python -m grader.reading.prediction_build
FORMULAS.json``, which Gradescope's setup.sh runs when it builds the image), and every process
loads it on its first parse (:func:`load`). A stored DFA holds exactly the states ANTLR's own SLL
prediction computes for those formulas (the same states it would compute again), and it is used
only by the same grammar and ANTLR runtime it was built with; anything else leaves the DFA empty.

The lexer has a DFA of its own, built the same way (a character path it has not seen costs an ATN
closure): a new process spent 30-60 ms of a writeup's read on it, so it is stored beside the
parser's and loaded with it.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from antlr4.atn.ATNSimulator import ATNSimulator
from antlr4.atn.ATNState import ATNState
from antlr4.atn.ParserATNSimulator import ParserATNSimulator
from antlr4.atn.PredictionMode import PredictionMode
from antlr4.atn.SemanticContext import SemanticContext
from antlr4.dfa.DFA import DFA
from antlr4.PredictionContext import PredictionContext
from antlr4.Token import Token
from latex2sympy2_extended.antlr_parser import PSLexer, PSParser


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
    load()
    interp = parser._interp
    parser._interp = _Simulator(parser, parser.atn, interp.decisionToDFA, interp.sharedContextCache)
    return parser


# ---------------------------------------------------------------------------------------------
# A stored DFA

DFA_FILE = Path(os.environ.get("A2GRADER_FORMULA_DFA") or Path(__file__).with_name("formula_dfa.pickle"))
"""Where the built DFA is kept (``A2GRADER_FORMULA_DFA`` overrides; never committed: it is built)."""
_LOADED: list[str] = []
"""What :func:`load` did in this process (empty: not yet)."""


RECOGNIZERS = {"parser": PSParser, "lexer": PSLexer}
"""The grammar's two recognizers, each with its own ATN and DFA, by the name a stored file uses."""


def _serialized(recognizer: Any) -> Any:
    serialized = getattr(sys.modules.get(recognizer.__module__), "serializedATN", None)
    return serialized() if callable(serialized) else [len(recognizer.atn.states), recognizer.ruleNames,
                                                      recognizer.symbolicNames]


def grammar_key() -> str:
    """What a stored DFA is valid for: this grammar (its lexer's and parser's serialized ATNs) and
    runtime versions."""
    atn = [_serialized(recognizer) for recognizer in RECOGNIZERS.values()]
    versions = []
    for package in ("latex2sympy2_extended", "antlr4-python3-runtime"):
        try:
            versions.append(f"{package}={metadata.version(package)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{package}=?")
    digest = hashlib.sha256(json.dumps(atn).encode()).hexdigest()
    return f"{';'.join(versions)};atn={digest[:16]};python={sys.version_info[:2]}"


class _Pickler(pickle.Pickler):
    """The grammar's own objects (ATN states, the singletons ANTLR compares by identity) are
    written as references and read back as the loaded grammar's."""

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, ATNState):
            for name, recognizer in RECOGNIZERS.items():
                if obj.atn is recognizer.atn:
                    return ("state", name, obj.stateNumber)
            raise pickle.PicklingError(f"ATN state {obj.stateNumber} belongs to neither of the grammar's ATNs")
        if obj is SemanticContext.NONE:
            return ("none",)
        if obj is PredictionContext.EMPTY:
            return ("empty",)
        if obj is ATNSimulator.ERROR:
            return ("error",)
        return None


class _Unpickler(pickle.Unpickler):
    def persistent_load(self, pid: Any) -> Any:
        kind = pid[0]
        if kind == "state":
            return RECOGNIZERS[pid[1]].atn.states[pid[2]]
        return {"none": SemanticContext.NONE, "empty": PredictionContext.EMPTY, "error": ATNSimulator.ERROR}[kind]

    def find_class(self, module: str, name: str) -> Any:
        if not module.startswith("antlr4.") and (module, name) not in {("builtins", "set"), ("builtins", "frozenset")}:
            raise pickle.UnpicklingError(f"{module}.{name} is not part of an ANTLR DFA")
        return super().find_class(module, name)


def states(name: str = "parser") -> int:
    """DFA states the parser's (or the lexer's) DFA holds now."""
    return sum(len(dfa._states) for dfa in RECOGNIZERS[name].decisionsToDFA)


def save(path: Path = DFA_FILE) -> int:
    """Store the parser's and the lexer's DFA as they are now; the number of DFA states stored."""
    data = {"key": grammar_key(),
            **{name: [(dfa.s0, list(dfa._states), dfa.precedenceDfa) for dfa in recognizer.decisionsToDFA]
               for name, recognizer in RECOGNIZERS.items()}}
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=5).dump(data)
    path.write_bytes(buffer.getvalue())
    return sum(len(states) for name in RECOGNIZERS for _, states, _ in data[name])


def reset() -> None:
    """Forget both DFAs and whether a stored one was loaded: the grammar as a new process has it."""
    for recognizer in RECOGNIZERS.values():
        recognizer.decisionsToDFA[:] = [DFA(state, i) for i, state in enumerate(recognizer.atn.decisionToState)]
    _LOADED.clear()


def load(path: Path = DFA_FILE) -> str:
    """Load the stored DFA into the grammar's (once per process); what happened, in words."""
    if _LOADED:
        return _LOADED[0]
    note = "no stored DFA"
    if path.is_file():
        try:
            data = _Unpickler(io.BytesIO(path.read_bytes())).load()
            if data.get("key") != grammar_key():
                note = f"the stored DFA {path} is for another grammar or runtime: not used"
            elif any(states(name) for name in RECOGNIZERS):
                note = "the DFA was already in use: the stored one was not loaded"
            else:
                for name, recognizer in RECOGNIZERS.items():
                    for dfa, (s0, kept, precedence) in zip(recognizer.decisionsToDFA, data[name], strict=True):
                        dfa.s0, dfa._states, dfa.precedenceDfa = s0, {s: s for s in kept}, precedence
                note = (f"loaded {states('parser')} parser and {states('lexer')} lexer DFA states "
                        f"from {path}")
        except Exception as exc:   # a damaged or foreign file: prediction starts from an empty DFA
            note = f"the stored DFA {path} could not be read ({type(exc).__name__}): not used"
    _LOADED.append(note)
    return note
