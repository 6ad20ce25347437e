"""Grade one submission: prepare it, run every selected check, score with the rubric.

Whatever student code does, ``grade`` returns a complete GradeReport: a check whose student
code raised, hung, crashed or lied scores 0 with a message; a grader bug in one check is
reported as such on that check and the others still run.
"""

from __future__ import annotations

import secrets
import tempfile
import time
import traceback
from pathlib import Path
from typing import Callable, Iterable, Mapping

from grader.checks import all_checks
from grader.checks.api import CheckAborted, CheckContext, check_rng, describe_failure
from grader.reference import load_reference
from grader.results import ERROR, CheckResult, GradeReport, Outcome, score_outcome
from grader.rubric import CheckSpec, Part, Rubric, load_rubric
from grader.sandbox import Runner, Sandbox
from grader.submission import prepare
from grader.written import process as written_process
from grader.written.checkers import all_written_checkers
from grader.written.grade import grade_written

RunnerFactory = Callable[[Path], Runner]
ProgressHook = Callable[[CheckSpec, CheckResult], None]

#: Time allowed to import one student file (torch's first import alone can take seconds).
IMPORT_TIMEOUT = 60.0


def new_seed() -> int:
    """A fresh random seed for a run (recorded in every report; --seed replays it)."""
    return secrets.randbelow(2**31)


def select_checks(rubric: Rubric, *, visible_only: bool, only: Iterable[str] | None = None) -> list[CheckSpec]:
    wanted = set(only) if only else None
    return [spec for spec in rubric.checks
            if (not visible_only or spec.student_visible) and (wanted is None or spec.id in wanted)]


def select_written(rubric: Rubric, *, visible_only: bool, only: Iterable[str] | None = None) -> list[Part]:
    """The written parts to grade: all of them, or those named in ``only`` (code check ids select none)."""
    wanted = set(only) if only else None
    return [part for part in rubric.written
            if (not visible_only or part.visibility == "visible") and (wanted is None or part.id in wanted)]


def _import_files(runner: Runner, files: Iterable[str], present: set[str],
                  timeout: float, refused: Mapping[str, str] | None = None) -> dict[str, list[str]]:
    """Import each student file once; map a file that cannot be used to the feedback lines why.

    ``refused`` maps files that were uploaded but not accepted (too large, a link) to why.
    """
    problems: dict[str, list[str]] = {}
    refused = refused or {}
    for name in files:
        if name in refused:
            problems[name] = [f"{refused[name]}, so it was not graded and this check could not run."]
            continue
        if name not in present:
            problems[name] = [f"{name} was not found in your submission, so this check could not run. "
                              f"Upload {name} (at the top level of your submission)."]
            continue
        module = name[:-3]
        result = runner.call("import_module", {"module": module}, timeout=timeout)
        if result.status != "ok":
            _, lines = describe_failure(result, f"importing {name}", timeout)
            problems[name] = lines
    return problems


def run_check(spec: CheckSpec, fn: Callable[[CheckContext], Outcome], ctx: CheckContext) -> Outcome:
    """Run one check function; turn aborts and grader bugs into outcomes."""
    try:
        return fn(ctx)
    except CheckAborted as aborted:
        return Outcome(0, 1, tuple(aborted.feedback), status=aborted.status)
    except Exception:  # a bug in the grader's check, not in student code
        detail = traceback.format_exc(limit=-3).strip().splitlines()
        return Outcome(0, 1, ("Internal grader error in this check; it is not your fault. "
                              "Please tell the course staff.", *detail[-3:]), status=ERROR)


def grade(upload: Path, *, rubric: Rubric | None = None, seed: int | None = None,
          visible_only: bool = False, only: Iterable[str] | None = None,
          runner_factory: RunnerFactory | None = None,
          progress: ProgressHook | None = None,
          import_timeout: float = IMPORT_TIMEOUT,
          written_runner: written_process.Runner | None = None) -> GradeReport:
    """Grade ``upload`` (a folder or .zip) and return the report.

    Code checks run first, then the written parts (the auto-graded share scored, the rest listed
    for TAs); ``written_runner`` replaces the child process that reads written answers (tests).
    """
    started = time.monotonic()
    registry = all_checks()
    rubric = rubric or load_rubric(registered=set(registry), checkers=set(all_written_checkers()))
    seed = new_seed() if seed is None else seed
    ref = load_reference()
    specs = select_checks(rubric, visible_only=visible_only, only=only)
    written_parts = select_written(rubric, visible_only=visible_only, only=only)
    results: list[CheckResult] = []
    manual: tuple = ()
    written_notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="a2grader-") as tmp:
        prepared = prepare(Path(upload), Path(tmp))
        factory = runner_factory or (lambda run_dir: Sandbox(run_dir))
        runner = factory(prepared.run_dir)
        try:
            import_problems: dict[str, list[str]] = {}
            for spec in specs:
                registered = registry[spec.id]
                t0 = time.monotonic()
                todo = [f for f in registered.files if f not in import_problems]
                import_problems.update(_import_files(runner, todo, set(prepared.present), import_timeout,
                                                     prepared.refused))
                blocked = [f for f in registered.files if f in import_problems]
                if blocked:
                    outcome = Outcome(0, 1, tuple(import_problems[blocked[0]]), status=ERROR)
                else:
                    ctx = CheckContext(spec.id, runner, check_rng(seed, spec.id), seed, ref,
                                       spec.timeout)
                    outcome = run_check(spec, registered.function, ctx)
                result = CheckResult(spec.id, spec.part, spec.name, spec.number, spec.points,
                                     score_outcome(outcome, spec.points, spec.partial),
                                     spec.visibility, outcome, time.monotonic() - t0)
                results.append(result)
                if progress:
                    progress(spec, result)
        finally:
            runner.close()
        if written_parts:
            written, manual_items, written_notes = grade_written(
                prepared.written, written_parts, seed, runner=written_runner, progress=progress)
            results += written
            manual = tuple(manual_items)
    return GradeReport(str(upload), seed, tuple(results), time.monotonic() - started,
                       tuple(prepared.notes) + tuple(written_notes), manual)
