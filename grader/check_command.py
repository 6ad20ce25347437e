"""`grader check`, one command for the repository (grader/cli.py) and the student kit
(grader/kit/kit_command.py): ``CHECK_OPTIONS`` names its argument and options,
``run_check`` runs it. The two differ only in the ``CheckSetup`` they give: the repository's
rubric, the Linux sandbox, the reference and the written answers; or the kit's copy of the
rubric, the portable runner, its recorded reference answers and the code checks only.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NoReturn

import click
from rich.console import Console

from grader.assignment import AssignmentError
from grader.cli_output import console
from grader.reports import jsonout, student
from grader.run.check_api import all_checks
from grader.run.engine import grade, part_selection
from grader.run.results import GradeReport
from grader.run.rubric import Rubric, RubricError
from grader.run.settings import GradingSettings
from grader.run.submission import SubmissionError


@dataclass(frozen=True)
class CheckSetup:
    """What one `grader check` is given, made once its options are read."""

    rubric: Rubric
    settings: GradingSettings
    """The seed, the runner, the reference (or recorded answers), whether written answers count;
    ``visible_only`` and ``only`` are set by the command."""
    code_only: bool = False
    """Check only the visible code checks this installation holds (the kit)."""
    nothing_left: str = "has no check"
    """How `--part P` is refused when it leaves nothing to check: "--part 'P' <this>"."""
    total: float | None = None
    """The whole assignment's points when ``rubric`` is not all of it (the kit's copy)."""
    preface: tuple[str, ...] = ()
    """Printed after grading, before the details and the summary (not with --json)."""
    warnings: tuple[str, ...] = ()
    """Printed first, in yellow; with --json on standard error, so that standard output is the JSON alone."""
    runner_notes: list[str] = field(default_factory=list)
    """What the settings' runners say about themselves as they are made (the kit's limits note);
    printed once each, before the preface (not with --json)."""


#: Reads the options that decide the setup (DIRECTORY, --seed) and makes it (warnings go in its
#: ``warnings``, never printed by the setup); raises click exceptions for what the caller refuses.
Setup = Callable[[Path, int | None, Console], CheckSetup]


#: The argument and options of `grader check`, in the repository and in the kit alike
#: (grader/cli_options.py declares them).
CHECK_OPTIONS = ("directory", "check_seed", "quiet", "part", "check_json")


def selected(setup: CheckSetup, part: str | None) -> list[str] | None:
    """The ids `--part` selects (None: every visible check); UsageError when it selects nothing."""
    registry = all_checks()
    ids = [s.id for s in setup.rubric.checks if s.student_visible and s.id in registry] if setup.code_only else None
    if not part:
        return ids
    try:
        chosen = part_selection(setup.rubric, registry, part)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    ids = chosen if ids is None else [cid for cid in ids if cid in set(chosen)]
    if not ids:
        raise click.UsageError(f"--part {part!r} {setup.nothing_left}")
    return ids


def run_check(setup: Setup, directory: Path, seed: int | None, quiet: bool, part: str | None,
              as_json: bool) -> NoReturn:
    """Grade DIRECTORY on the visible checks as ``setup`` says; print the details and summary (or
    the JSON report); exit 0 only if every check passed."""
    out = console()
    try:
        given = setup(directory, seed, out)
        settings = replace(given.settings, visible_only=True, only=selected(given, part))
        for warning in given.warnings:
            if as_json:
                click.echo(warning, err=True)
            else:
                out.print(f"[yellow]{warning}[/yellow]", highlight=False)
        report = grade(directory, settings, progress=None if quiet or as_json else student.progress_hook(out))
    except (SubmissionError, RubricError, AssignmentError) as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(jsonout.to_json(report, now=True), indent=2))
        sys.exit(_status(report))
    for note in dict.fromkeys(n for n in given.runner_notes if n):
        out.print(note, markup=False, highlight=False)
    for line in given.preface:
        out.print(line)
    student.render_check(report, given.rubric, out, details=not quiet, total=given.total)
    sys.exit(_status(report))


def _status(report: GradeReport) -> int:
    """0 when every item whose verdict is shown now passed (a held-back verdict, a written answer's
    before the due date, never shows through the exit status)."""
    return 0 if all(c.passed for c in report.checks if not c.held_back) else 1
