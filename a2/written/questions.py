"""The written questions for the people who mark them: each question's text (questions.yaml, beside
this module) and the reference's answer (the solution block under the question's heading in
reference/answers.md). Read from the assignment's own files, never from a submission."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import yaml

QUESTIONS = Path(__file__).resolve().parent / "questions.yaml"
_HEADING = re.compile(r"^#{2,4}\s+(.+?)\s*$", re.M)
_SOLUTION = re.compile(r"<!--\s*BEGIN SOLUTION\s*-->(.*?)<!--\s*END SOLUTION\s*-->", re.S)


@functools.cache
def _texts() -> dict[str, str]:
    try:
        data = yaml.safe_load(QUESTIONS.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def question_text(question: str) -> str:
    """The question ``1b_i`` as the handout asks it; "" when the file does not hold it."""
    return _texts().get(question, "")


def reference_answer(question: str, answers: str) -> str:
    """The solution block written under the heading of ``question`` in the reference's answers.md
    (its text ``answers``); "" when there is none."""
    from a2.written.sections import pretty  # noqa: PLC0415 - the reader is heavy; only when asked

    label = pretty(question)
    heads = list(_HEADING.finditer(answers))
    for n, h in enumerate(heads):
        if h.group(1).split(" (")[0].strip() != label:
            continue
        body = answers[h.end():heads[n + 1].start() if n + 1 < len(heads) else len(answers)]
        return "\n\n".join(m.group(1).strip() for m in _SOLUTION.finditer(body))
    return ""
