"""What a written check is: a function of a question's section that returns a :class:`Verdict`.

A written checker registers itself with ``@written_check("name")`` in one of the modules listed
in :data:`a2.written.checkers.CHECKER_MODULES`; rubric.yaml names it on a written part
(``checker: name``) together with how many of the part's points it grades (``auto: n``). It runs
in the trusted grading process (or its parsing child), reads the student's text as data only,
and returns plain data: items passed, items in all, feedback lines, and what was read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from a2.written.sections import Section, pretty

MISSING = "missing"
"""Status of a verdict whose answer was not found (a heading missing or an empty section)."""
UNREADABLE = "unreadable"
"""Status of a verdict whose answer was found but could not be read (LaTeX that does not parse)."""


@dataclass
class Verdict:
    """A written check's conclusion before the rubric turns it into points."""

    passed: int
    total: int
    feedback: list[str] = field(default_factory=list)
    read: str = ""
    status: str = ""
    review: str = ""        # why a TA should look (an answer that exists but could not be judged)
    raw: str = ""           # the student's text the answer was read from ("" = the whole section)
    where: str = ""         # where that text is ("" = the section's place)
    doubt: str = ""         # why the reading itself is uncertain (its place or form), known before the answer
    # is judged: shown to the student at once with what was read, whatever the verdict
    why: list[str] = field(default_factory=list)
    """What is wrong and the expected form (known mistakes, values at the instances tried, the
    step toward the gold tree): it implies the answer key, so students see it only when rubric.yaml's
    ``explanation`` visibility allows (after the due date); ``feedback`` is what was read, the verdict
    and reading problems, and never states a key."""

    def to_dict(self) -> dict:
        return {"passed": self.passed, "total": self.total, "feedback": list(self.feedback),
                "read": self.read, "status": self.status, "review": self.review, "raw": self.raw,
                "where": self.where, "doubt": self.doubt, "why": list(self.why)}


@dataclass
class WrittenContext:
    """What a checker may use: the question's id, its random generator and the run's seed."""

    question: str
    rng: np.random.Generator
    seed: int

    @property
    def title(self) -> str:
        return pretty(self.question)


WrittenChecker = Callable[[Section, WrittenContext], Verdict]

#: Every registered written checker, by name. Filled by @written_check on import.
WRITTEN_REGISTRY: dict[str, WrittenChecker] = {}


def written_check(name: str) -> Callable[[WrittenChecker], WrittenChecker]:
    """Register ``fn`` as the written checker ``name`` (used by rubric.yaml's ``checker:``)."""

    def register(fn: WrittenChecker) -> WrittenChecker:
        if name in WRITTEN_REGISTRY:
            raise ValueError(f"written checker {name!r} is registered twice "
                             f"({WRITTEN_REGISTRY[name].__module__} and {fn.__module__})")
        WRITTEN_REGISTRY[name] = fn
        return fn

    return register


def missing(section: Section, what: str = "") -> Verdict:
    """The verdict for a question whose answer is not in its section (or whose section is empty)."""
    title = pretty(section.question)
    place = f" ({section.where})" if section.where else ""
    if section.empty:
        detail = f"its section{place} is empty"
    else:
        detail = f"its section{place} has {what or 'no final answer'}"
    return Verdict(0, 1, [f"No answer found for {title}: {detail}. {_upper_first(answer_hint(section.where))}."],
                   status=MISSING)


def answer_hint(where: str) -> str:
    """Where to write a final answer, in the terms of the file the answer came from (``where``:
    "q1.tex, line 12"): a .tex answer block is told about ``\\answer{}``, Markdown about "Answer:"."""
    name = where.split(",")[0].strip().lower()
    if name.endswith(".tex"):
        return ("put the final result, on its own, in the part's answer block (\\answer{...} or "
                "\\begin{answer}...\\end{answer}) of your .tex file")
    return "put the final result on a line starting with 'Answer:' (math in $...$) under the question's heading"


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]
