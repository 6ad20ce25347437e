"""The workers of one grading: the runner of the visible checks and, apart from it, the runner of
the checks held back until the due date (a copy of the submission of its own, made before any
student code runs, so that nothing those checks ask can reach a visible check's feedback), each
under the grading's budget; stopped, and the working folder removed without recursion, at the end.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path

from grader import assignment
from grader.run.budget import Budget, BudgetRunner
from grader.run.check_api import RegisteredCheck
from grader.run.rubric import CheckSpec
from grader.sandbox.runner import Runner
from grader.sandbox.sweep import remove_tree

TORCH = ("numpy", "torch")

_LOG = logging.getLogger(__name__)


def sandbox_factory(registry: Mapping[str, RegisteredCheck]) -> Callable[[Path, list[CheckSpec]], Runner]:
    def make(run_dir: Path, specs: list[CheckSpec]) -> Runner:
        from grader.sandbox import Sandbox  # noqa: PLC0415 - the kit brings its own runner

        preload = TORCH if any(set(registry[s.id].files) & assignment.registry().TORCH_FILES for s in specs) else ()
        return Sandbox(run_dir, preload=preload)
    return make


def ignoring_specs(factory: Callable[[Path], Runner]) -> Callable[[Path, list[CheckSpec]], Runner]:
    return lambda run_dir, _specs: factory(run_dir)


def budgeted(runner: Runner, timer: Budget | None) -> Runner:
    return runner if timer is None else BudgetRunner(runner, timer)


def copy_for_held_checks(run_dir: Path, tmp: Path) -> Path:
    """A second copy of the prepared submission, for the checks held back until the due date."""
    held = tmp / "held"
    held.mkdir()
    shutil.copytree(run_dir, held / run_dir.name, symlinks=True)
    return held / run_dir.name


def clean_up(runners: list[Runner | None], tmp: str) -> None:
    """Stop the workers and remove the working folder (without recursion: student code may have
    left a tree no recursive delete survives); never raises, so cleanup cannot cost a grading."""
    for runner in runners:
        try:
            if runner is not None:
                runner.close()
        except Exception as exc:  # e.g. a process that would not die: logged, not fatal
            _LOG.warning("stopping the worker failed: %s", exc)
    if not remove_tree(tmp):
        _LOG.warning("could not remove the working folder %s completely", tmp)
