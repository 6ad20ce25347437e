"""Known wrong answers: the shapes students really give, what to tell them, and what they earn.

One declared table for every auto-graded written item. An entry names the item it applies to,
a predicate over the evidence the item's checker gathered, the message (it names the mistake in
words), and the fraction of the item's points a careful TA gives for it (0 unless declared here:
this is the ONE place partial credit of written answers is declared, and it is applied the same
way every time). The shape of an entry (id, applies-to, predicate, message, credit) is meant to
the code checks' :class:`a2.bug_shapes.BugShape` with the item it applies to: its predicate
only sees an evidence object.

For formula answers the evidence is :class:`Evidence`: ``agrees_with(latex)`` says whether the
student's formula has the values of ``latex`` at every instance the checker draws (so "Uᵀ for U",
"the sign flipped" or "1 − p for γ" is recognised in any equivalent spelling). Other checkers
pass their own evidence (3(a): the dependencies written reversed and the arcs that give a word
another head, whose words a message names as ``{attached}``, see :meth:`KnownMistake.text`; 3(f):
the dependencies read and whether the error type is right).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from a2.bug_shapes import BugShape
from a2.written.keys import parser_error_keys

CREDIT_STEPS = 4
"""Partial credit is a multiple of 1/CREDIT_STEPS of an item (so it is exact in trials)."""


class Evidence(Protocol):
    def agrees_with(self, latex: str) -> bool: ...

    def one_case_right(self) -> bool: ...


@dataclass(frozen=True)
class KnownMistake(BugShape[Any]):
    """One known wrong answer: a bug shape (a2/bug_shapes.py, shared with the code checks) of
    one written item: "1b_i", "1d:eq", "1d:neq", "1e", "2b_i", "3b", "3e_i", ...; its predicate
    sees the item checker's evidence, and its credit is the fraction of the item a TA gives."""

    applies_to: str = ""

    def text(self, evidence: Any) -> str:
        """The message, with the words of ``evidence`` filled in where it names them
        ({attached}: evidence whose ``fields()`` gives them; other messages are used as written)."""
        fields = getattr(evidence, "fields", None)
        return self.message.format_map(fields()) if callable(fields) else self.message


def mistake(id: str, applies_to: str, matches: Callable[[Any], bool], message: str,
            credit: float = 0.0) -> KnownMistake:
    """A catalogue line, written item first for reading."""
    return KnownMistake(id, matches, message, credit, applies_to=applies_to)


def _reads_as(wrong: tuple[str, str]) -> Callable[[Any], bool]:
    """The predicate "the incorrect dependency read is ``wrong``" (for 3(f) sentences)."""
    def matches(evidence: Any) -> bool:
        return getattr(evidence, "wrong", None) == wrong
    return matches


def shape(latex: str) -> Callable[[Any], bool]:
    """The predicate "the answer has the values of ``latex``" (for formula items)."""
    def matches(evidence: Any) -> bool:
        return bool(evidence.agrees_with(latex))
    matches.__doc__ = f"same values as {latex}"
    return matches


CATALOGUE: tuple[KnownMistake, ...] = (
    # 1(b)(i) ∂J/∂v_c = U(ŷ − y)
    mistake("w2v-center-sign", "1b_i", shape(r"U(y - \hat{y})"),
                 "The sign is flipped: U(y − ŷ) is −∂J/∂v_c (the direction gradient descent moves in); "
                 "∂J/∂v_c = U(ŷ − y)."),
    mistake("w2v-center-no-y", "1b_i", shape(r"U\hat{y}"),
                 "The −u_o term (−Uy) is missing: only the expected outside vector Uŷ was kept."),
    mistake("w2v-center-u-o", "1b_i", shape(r"-u_o"),
                 "Only the −u_o term is there: the derivative of the log-sum-exp term (+Uŷ) is missing."),
    # 1(d) ∂J/∂u_w, per case
    mistake("w2v-outside-eq-sign", "1d:eq", shape(r"(1 - \hat{y}_o) v_c"),
                 "The sign is flipped for w = o: the gradient is (ŷ_o − 1)v_c, not (1 − ŷ_o)v_c."),
    mistake("w2v-outside-eq-no-indicator", "1d:eq", shape(r"\hat{y}_o v_c"),
                 "For w = o the −v_c from the −u_oᵀv_c term is missing (the indicator y_w = 1 when w = o)."),
    mistake("w2v-outside-neq-sign", "1d:neq", shape(r"-\hat{y}_w v_c"),
                 "The sign is flipped for w ≠ o: the gradient is +ŷ_w v_c."),
    mistake("w2v-outside-neq-minus-one", "1d:neq", shape(r"(\hat{y}_w - 1) v_c"),
                 "For w ≠ o there is no −1: y_w = 0 when w ≠ o, so the gradient is ŷ_w v_c."),
    # 1(e) ∂J/∂U = v_c(ŷ − y)ᵀ
    mistake("w2v-matrix-transposed", "1e", shape(r"(\hat{y} - y) v_c^T"),
                 "This outer product is transposed: (ŷ − y)v_cᵀ is |V|×d, but ∂J/∂U has U's shape d×|V| "
                 "(U's columns are the outside vectors), so it is v_c(ŷ − y)ᵀ."),
    mistake("w2v-matrix-sign", "1e", shape(r"v_c (y - \hat{y})^T"),
                 "The sign is flipped: ∂J/∂U = v_c(ŷ − y)ᵀ."),
    mistake("w2v-matrix-no-y", "1e", shape(r"v_c \hat{y}^T"),
                 "The −v_c yᵀ term (the true outside word's column) is missing."),
    # 2(b)(i) γ = 1/(1 − p)
    mistake("dropout-keep-prob", "2b_i", shape(r"1 - p"),
                 "γ = 1 − p_drop is the probability of keeping a unit; scaling by it shrinks E[h_drop] "
                 "further. γ must undo it: γ = 1/(1 − p_drop)."),
    mistake("dropout-odds", "2b_i", shape(r"\frac{p}{1 - p}"),
                 "p_drop/(1 − p_drop) is the odds of dropping, not the scale: E[h_drop]_i = γ(1 − p_drop)h_i, "
                 "so γ = 1/(1 − p_drop)."),
    mistake("dropout-inverse-p", "2b_i", shape(r"\frac{1}{p}"),
                 "1/p_drop divides by the probability of DROPPING; a unit is kept with probability "
                 "1 − p_drop, so γ = 1/(1 − p_drop)."),
    mistake("dropout-p", "2b_i", shape(r"p"),
                 "γ = p_drop would make E[h_drop]_i = p_drop(1 − p_drop)h_i; γ must be 1/(1 − p_drop)."),
    # 3(b) 2n steps
    mistake("steps-n", "3b", shape(r"n"),
                 "n counts only the SHIFTs (or only the arcs): every word is shifted once AND attached once, "
                 "so 2n."),
    mistake("steps-2n-plus-1", "3b", shape(r"2n + 1"),
                 "One step too many: ROOT is never shifted or attached, so the count is exactly 2n."),
    mistake("steps-2n-minus-1", "3b", shape(r"2n - 1"),
                 "One step too few: the final RIGHT-ARC from ROOT is a step too, so 2n."),
    mistake("steps-3n", "3b", shape(r"3n"),
                 "Each word takes two steps (one SHIFT, one arc), so 2n, not 3n."),
    # 3(e)(i) ∂h_i/∂x_j = 1{z_i > 0} W_ji
    mistake("relu-no-indicator", "3e_i", shape(r"W_{ji}"),
                 "The ReLU's derivative is missing: W_ji is right where the unit is active ((xW + b_1)_i > 0) "
                 "but the derivative is 0 where it is not; multiply by 1{(xW + b_1)_i > 0}.", credit=0.5),
    mistake("relu-index-swap", "3e_i", shape(r"\mathbb{1}\{(xW + b_1)_i > 0\} W_{ij}"),
                 "The indices of W are swapped: z_i = Σ_j x_j W_ji + b_i, so ∂z_i/∂x_j = W_ji (W is D_x×D_h)."),
    # 3(e)(ii) ∂CE/∂l_i = ŷ_i − y_i
    mistake("softmax-ce-sign", "3e_ii", shape(r"y_i - \hat{y}_i"),
                 "The sign is flipped: ∂CE/∂l_i = ŷ_i − y_i."),
    mistake("softmax-ce-no-y", "3e_ii", shape(r"\hat{y}_i"),
                 "The −y_i term (−1 for the true class) is missing: ∂CE/∂l_i = ŷ_i − y_i."),
    mistake("softmax-ce-always-minus-one", "3e_ii", shape(r"\hat{y}_i - 1"),
                 "ŷ_i − 1 holds only for the true class i = c; for i ≠ c it is ŷ_i (in all, ŷ_i − y_i)."),
    mistake("softmax-ce-one-case", "3e_ii", lambda ev: ev.one_case_right(),
                 "The answer is given in cases and one case is right (i = c or i ≠ c, each judged at "
                 "instances of its own), the other wrong: in all, ∂CE/∂l_i = ŷ_i − y_i.", credit=0.5),
    # 3(a): the table's evidence (a2/written/transitions.py's TableEvidence) names the words
    mistake("table-wrong-head", "3a",
                 lambda ev: bool(ev.wrong_heads),
                 "A word hangs on another head than in the gold tree: {attached}; in the gold tree {gold}."),
    mistake("table-arc-reversed", "3a",
                 lambda ev: bool(ev.reversed),
                 "A dependency is written reversed: {reversed} for {right_way}. An arc is written head → "
                 "dependent; LEFT-ARC makes the top of the stack the head of the item below it, RIGHT-ARC "
                 "makes the item below the head of the top."),
    # 3(f): the wrong keys of earlier versions and, for a wrong or missing error type, what kind of
    # attachment it is and why: declared with the key in a2/written/keys.yaml
    *(entry for key in parser_error_keys() for entry in (
        *(mistake(old.id, f"3f:{key.roman}", _reads_as(old.wrong), old.message) for old in key.old_keys),
        *([mistake(f"parse-errors-{key.roman}-type", f"3f:{key.roman}",
                   lambda ev: getattr(ev, "kind_ok", None) is False, key.why)] if key.why else []))),
)


def known(item: str, evidence: Any, catalogue: Iterable[KnownMistake] = CATALOGUE) -> KnownMistake | None:
    """The first entry for ``item`` whose predicate holds on ``evidence`` (None if none does)."""
    for entry in catalogue:
        if entry.applies_to == item:
            try:
                if entry.matches(evidence):
                    return entry
            except Exception:  # an entry that cannot be evaluated on this answer does not match
                continue
    return None


def every_known(item: str, evidence: Any, catalogue: Iterable[KnownMistake] = CATALOGUE) -> list[KnownMistake]:
    """Every entry for ``item`` whose predicate holds on ``evidence``, in the catalogue's order."""
    found = []
    for entry in catalogue:
        if entry.applies_to == item:
            try:
                if entry.matches(evidence):
                    found.append(entry)
            except Exception:  # an entry that cannot be evaluated on this answer does not match
                continue
    return found


def credit_steps(credit: float) -> int:
    """``credit`` (a fraction of an item) in steps of 1/CREDIT_STEPS, rounded down."""
    return int(max(0.0, min(1.0, credit)) * CREDIT_STEPS + 1e-9)
