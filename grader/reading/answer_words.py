"""The words that mark an answer, in the languages students write their writeups in: data; a new
language is a new entry. :mod:`grader.reading.answers` builds its marker patterns from them
(``Answer:``, ``**Respuesta:**``, ``答案：``, ``#### Final Answer``), so an answer marked in any
of them wins over a decoy in the same section, as an English one does."""

from __future__ import annotations

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
    return "(?:" + "|".join(w.replace(" ", "[ \\t]*") for w in words) + ")"
