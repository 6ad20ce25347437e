"""What one grading run is asked to do: ``GradingSettings``, built once by each command from its
options and passed to :func:`grader.run.engine.grade`.

Everything here decides what the report says (which checks, which seed, which runner, which
reference, how long); where the report is shown while it is made (the progress hook) and where
it goes when done (``deliver``) are not settings but arguments of ``grade``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.run.rubric import Rubric
from grader.sandbox.runner import Runner

RunnerFactory = Callable[[Path], Runner]
#: ``ctx.ref`` of one check and seed (the student kit's recorded answers), instead of the reference.
RefProvider = Callable[[str, int], Any]

#: Time allowed to import one student file (torch's first import alone can take seconds).
IMPORT_TIMEOUT = 60.0


@dataclass(frozen=True)
class GradingSettings:
    """One grading run's parameters; the defaults grade everything as ``grader grade`` does,
    with the repository's rubric, a fresh seed, the Linux sandbox and no time budget."""

    rubric: Rubric | None = None
    """None: rubric.yaml with every registered check and written checker."""
    seed: int | None = None
    """None: a fresh one (:func:`grader.run.engine.new_seed`); the report records it."""
    visible_only: bool = False
    """Only the checks and written parts students may see (``grader check``)."""
    only: Iterable[str] | None = None
    """Only these check and written part ids (kept as a tuple); None or empty: all."""
    budget: float | None = None
    """Seconds the whole grading may take (:mod:`grader.run.budget`); None: unbounded."""
    import_timeout: float = IMPORT_TIMEOUT
    """Seconds importing one student file may take."""
    include_written: bool = True
    """False leaves the written parts out (the student kit, which has no written checkers)."""
    runner_factory: RunnerFactory | None = None
    """Makes the worker that runs student code for a folder; None: the Linux sandbox."""
    written_runner: Runner | None = None
    """Replaces the child process that reads written answers (tests, benches)."""
    ref_provider: RefProvider | None = None
    """Gives each check its ``ctx.ref`` instead of the reference (the kit's recorded answers)."""

    def __post_init__(self) -> None:
        if self.only is not None and not isinstance(self.only, tuple):
            object.__setattr__(self, "only", tuple(self.only))
