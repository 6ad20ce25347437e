"""What a rubric is: its parts, its checks' lines, and the limits their values keep to.

:mod:`grader.run.rubric` makes one from rubric.yaml (and refuses a malformed one with
:class:`RubricError`); everything else reads these frozen objects. The rubric is the one source of
truth for scoring: check functions never hold points.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from grader.common.paths import RUBRIC_PATH

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
#: Gradescope never shows a ``hidden`` test to students but adds its points to the total they see
#: (its specification keeps ``hidden`` for tests worth no points), so a hidden check with points
#: would give its verdict away; these keep a check secret until the deadline or publication.
SECRET_VISIBILITIES = ("after_due_date", "after_published")
#: When each visibility shows an entry, earliest first (``hidden``: never).
VISIBILITY_ORDER = {"visible": 0, "after_due_date": 1, "after_published": 2, "hidden": 3}
PART_KINDS = ("code", "written")
DEFAULT_EXPLANATION = "after_due_date"
"""When students see a written item's explanation if rubric.yaml's defaults name none."""
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 1800.0
GRADESCOPE_TIMEOUT_S = 600.0
"""Gradescope's default autograder timeout (the assignment's Autograder Settings): 10 minutes."""
BUDGET_MARGIN_S = 60.0
"""Kept from the container's timeout for starting the grader, the sandbox's set-up and writing results."""
DEFAULT_BUDGET_S = GRADESCOPE_TIMEOUT_S - BUDGET_MARGIN_S
"""The time one grading may take when rubric.yaml states no ``budget``."""
MAX_BUDGET_S = 6 * 3600.0


class RubricError(ValueError):
    """rubric.yaml is malformed; the message lists every problem with its line."""

    def __init__(self, path: Path, problems: list[str]):
        self.problems = problems
        if len(problems) == 1:       # one problem, one line
            super().__init__(f"{path}, {problems[0]}" if problems[0].startswith("line ") else f"{path}: {problems[0]}")
        else:
            super().__init__(f"{path}: {len(problems)} problems:\n" + "\n".join(f"  {p}" for p in problems))


@dataclass(frozen=True)
class Part:
    """An assignment part (a code file's share or a written question) and its points.

    A written part's ``auto`` points are graded by its written ``checker`` (one the assignment registers);
    the rest (``manual_points``) is listed for TAs and never counted by the autograder.
    """

    id: str
    kind: str
    points: float
    name: str
    files: tuple[str, ...] = ()
    number: str = ""
    auto: float = 0.0
    checker: str = ""
    visibility: str = "visible"
    timeout: float = DEFAULT_TIMEOUT
    partial: bool = True
    line: int = 0
    explanation: str = DEFAULT_EXPLANATION
    """When students see the auto share's verdict: its score, what is wrong and the expected form (they
    imply the key). ``visibility`` is when they see what was read, from where, and whether it was
    read whole, which says nothing of the verdict."""

    @property
    def verdict_visibility(self) -> str:
        """When the auto share's score and verdict are shown: its ``explanation``, never before the
        answer itself (``visibility``)."""
        return later(self.visibility, self.explanation)

    @property
    def manual_points(self) -> float:
        return round(self.points - self.auto, 6)

    @property
    def manual_number(self) -> str:
        """Gradescope number of the TA-graded share: the part's own, or ``<number>.1`` after an auto share."""
        return f"{self.number}.1" if self.auto > 0 else self.number


@dataclass(frozen=True)
class CheckSpec:
    """What one scored item is worth and who sees it: a code check's rubric line, or the
    auto-graded share of a written question (``kind="written"``, graded by its ``checker``;
    made by :func:`written_check` when the rubric is loaded)."""

    id: str
    part: str
    name: str
    number: str
    points: float
    visibility: str
    timeout: float
    partial: bool
    line: int = 0
    kind: str = "code"
    checker: str = ""
    tags: tuple[str, ...] = ()  # more tags for Gradescope (a test file's ``@tags``, or the line's ``tags``)
    charge: str = "once"  # "each": always its own loss (grader.run.settle.settle_dependencies)

    @property
    def student_visible(self) -> bool:
        """Whether `grader check` (students, locally) runs this check."""
        return self.visibility == "visible"


AUTO_GRADED = " (auto-graded)"
"""Added to a written question's name for its auto-graded share."""


def later(a: str, b: str) -> str:
    """The later of two visibilities (VISIBILITY_ORDER)."""
    return max(a, b, key=lambda v: VISIBILITY_ORDER.get(v, len(VISIBILITY_ORDER)))


def written_check(part: Part) -> CheckSpec | None:
    """The auto-graded share of a written part as a check spec (None when it has none): its
    visibility is its verdict's (the part's ``explanation``); what was read is shown with the part's
    own ``visibility``."""
    if part.kind != "written" or part.auto <= 0:
        return None
    return CheckSpec(part.id, part.id, part.name + AUTO_GRADED, part.number, part.auto, part.verdict_visibility,
                     part.timeout, part.partial, part.line, kind="written", checker=part.checker)


@dataclass(frozen=True)
class Rubric:
    """The parsed rubric: ``checks`` are the code checks' lines, ``written_checks`` the auto-graded
    shares of written questions (derived from ``parts``); both are scored the same way."""

    parts: tuple[Part, ...]
    checks: tuple[CheckSpec, ...]
    path: Path = field(default=RUBRIC_PATH)
    budget: float = DEFAULT_BUDGET_S
    """Seconds one whole grading may take (``budget:``); see :mod:`grader.run.budget`."""
    written_checks: tuple[CheckSpec, ...] = field(init=False)

    def __post_init__(self) -> None:
        specs = (written_check(part) for part in self.parts)
        object.__setattr__(self, "written_checks", tuple(spec for spec in specs if spec is not None))

    def check(self, check_id: str) -> CheckSpec:
        for spec in self.checks + self.written_checks:
            if spec.id == check_id:
                return spec
        raise KeyError(check_id)

    def part(self, part_id: str) -> Part:
        for part in self.parts:
            if part.id == part_id:
                return part
        raise KeyError(part_id)

    @property
    def code_points(self) -> float:
        return sum(p.points for p in self.parts if p.kind == "code")

    @property
    def written(self) -> tuple[Part, ...]:
        return tuple(p for p in self.parts if p.kind == "written")
