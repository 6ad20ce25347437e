"""The words that mark an answer, in the languages students write their writeups in: data; a new
language is a new entry. :mod:`grader.reading.answers` builds its marker patterns from them
(``Answer:``, ``**Respuesta:**``, ``答案：``, ``#### Final Answer``), so an answer marked in any
of them wins over a decoy in the same section, as an English one does."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol, TypeVar

FINAL_ANSWER = ("final answer", "respuesta final", "resposta final", "réponse finale", "risposta finale",
                "endgültige antwort", "окончательный ответ", "最终答案", "最終答案", "最終解答", "최종 답", "최종답")
"""Words for "final answer"."""
ANSWER = ("answer", "respuesta", "resposta", "réponse", "risposta", "antwort", "ответ", "答案", "解答", "答え", "答",
          "정답", "답")
"""Words for "answer"."""
SOLUTION = ("result", "solution", "solución", "solução", "résultat", "soluzione", "risultato", "lösung", "ergebnis",
            "resultado", "решение", "结果", "結果", "결과")
"""Words for "solution" and "result", which mark an answer only before a colon."""


def alternation(*groups: tuple[str, ...]) -> str:
    """A regular expression's alternation of the words (longest first; a space matches spaces or tabs)."""
    words = sorted({w for g in groups for w in g}, key=len, reverse=True)
    return "(?:" + "|".join(re.escape(w).replace("\\ ", "[ \\t]*") for w in words) + ")"


CONCLUSION = ("hence", "so", "thus", "therefore", "which gives", "giving", "we get", "we obtain", "i.e.", "that is",
              "finally", "=>", "⇒", "∴", "\\Rightarrow", "\\implies", "\\therefore")
"""Words (and arrows) that lead from a step to its conclusion: ``Answer: $step$, hence $$final$$``."""
_CONCLUDES = re.compile(r"^[\s,;:.]*(?:" + "|".join(re.escape(w) for w in sorted(CONCLUSION, key=len, reverse=True))
                        + r")(?![A-Za-z])[\s,:]*$", re.I)


class Span(Protocol):
    """A math span of a text (:class:`grader.reading.answers.MathSpan`)."""

    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...

    @property
    def latex(self) -> str: ...


S = TypeVar("S", bound=Span)


def conclusion(text: str, chosen: S, reach: list[S], same_target: Callable[[str, str], bool]) -> S:
    """The math span a marked answer concludes with: from ``chosen``, each next span of ``reach`` that
    a conclusion word alone leads to (``$step$, hence $$final$$``, no blank line between) and that
    answers the same left-hand side (``same_target(a, b)``); ``chosen`` itself when none does (a
    remark after the answer, ``so $\\gamma > 1$``, stays a remark)."""
    at = reach.index(chosen)
    while at + 1 < len(reach):
        gap = text[reach[at].end:reach[at + 1].start]
        if "\n\n" in gap or not _CONCLUDES.match(gap) or not same_target(reach[at].latex, reach[at + 1].latex):
            break
        at += 1
    return reach[at]

