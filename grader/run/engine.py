"""Grade one submission: prepare it, run every selected check, score with the rubric.

Whatever student code does, ``grade`` returns a complete GradeReport: a check whose student
code raised, hung, crashed or lied scores 0 with a message; a grader bug in one check is
reported as such on that check and the others still run.
"""

from __future__ import annotations

import ast
import difflib
import functools
import secrets
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader import assignment
from grader.common.paths import TEMPLATE_DIR
from grader.run import workers
from grader.run.budget import Budget, BudgetExhausted, DeadlineRunner
from grader.run.check_api import CheckAborted, CheckContext, RegisteredCheck, all_checks, check_rng, describe_failure
from grader.run.replay import ReplayMiss
from grader.run.results import (
    ERROR,
    FAILED,
    NOT_RUN,
    CheckResult,
    GradeReport,
    Outcome,
    ProgressHook,
    internal_error,
    not_run_outcome,
    score,
    stub_outcome,
)
from grader.run.rubric import CheckSpec, Part, Rubric, load_rubric
from grader.run.settings import GradingSettings, RefProvider
from grader.run.settle import settle_charges, settle_dependencies
from grader.run.submission import prepare
from grader.sandbox.runner import Runner

#: At most this many of a file's names are listed when a check's function is missing from it.
MAX_LISTED_NAMES = 40


def check_deadline(spec: CheckSpec) -> float:
    """Seconds all of one check's calls into student code may take together: its rubric timeout,
    which bounds each call too, so a function slow only inside one probe that a check calls fifty
    times (5.9's dev parse included) cannot multiply it (the grading's budget bounds them all)."""
    return spec.timeout


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


def part_selection(rubric: Rubric, registry: Mapping[str, RegisteredCheck], choice: str) -> list[str]:
    """The check ids and written part ids that ``--part CHOICE`` runs: a part id (``3c``,
    ``word2vec``), a file name (``parser_transitions.py``; ``answers.md`` for the written parts)
    or a check id. ValueError naming the choices when it matches nothing."""
    wanted = choice.strip()
    parts = {p.id: p for p in rubric.parts}
    if wanted in parts:
        part = parts[wanted]
        return [wanted] if part.kind == "written" else [s.id for s in rubric.checks if s.part == wanted]
    if wanted in {s.id for s in rubric.checks}:
        return [wanted]
    if wanted in (*assignment.written_files(), "written"):
        return [p.id for p in rubric.written]
    by_file = [s.id for s in rubric.checks if s.id in registry and wanted in registry[s.id].files]
    if by_file:
        return by_file
    files = sorted({f for r in registry.values() for f in r.files})
    raise ValueError(f"--part {choice!r} names no part, file or check; use a part id "
                     f"({', '.join(parts)}), a file ({', '.join([*files, *assignment.written_files()[:1]])}) or a check id")


@dataclass(frozen=True)
class _FileState:
    """A student file as imported once for a run: why it cannot be used (empty if it can), which
    of the names the checks call it lacks, and the public callables it does define."""

    problems: tuple[str, ...] = ()
    missing: frozenset[str] = frozenset()
    defined: tuple[str, ...] = ()
    note: str = ""
    """For the report's notes, once per run (e.g. a module the course's environment lacks)."""


def _import_file(runner: Runner, name: str, *, present: set[str], refused: Mapping[str, str],
                 needed: Iterable[str], timeout: float) -> _FileState:
    """Import one student file in the worker and ask which of the ``needed`` names it lacks.

    ``refused`` maps files that were uploaded but not accepted (too large, a link) to why.
    """
    if name in refused:
        return _FileState((f"{refused[name]}, so it was not graded and this check could not run.",))
    if name not in present:
        return _FileState((f"{name} was not found in your submission, so this check could not run. "
                           f"Upload {name} (at the top level of your submission).",))
    result = runner.call("import_module", {"module": name[:-3], "attributes": sorted(needed)},
                         timeout=timeout)
    if result.status != "ok":
        course = assignment.registry()
        module = course.missing_module(result.error.type, result.error.message) if result.error else None
        if module is not None:
            line, note = course.missing_module_lines(name, module)
            return _FileState((line,), note=note)
        return _FileState(tuple(describe_failure(result, f"importing {name}", timeout)[1]))
    value: dict[str, Any] = result.value if isinstance(result.value, dict) else {}
    missing: list[Any] = value["missing"] if isinstance(value.get("missing"), list) else []
    defined: list[Any] = value["callables"] if isinstance(value.get("callables"), list) else []
    return _FileState(missing=frozenset(str(n) for n in missing),
                      defined=tuple(str(n) for n in defined[:MAX_LISTED_NAMES]))


@functools.cache
def starter_names(file: str) -> frozenset[str]:
    """Top-level names the starter code of ``file`` (student_template/) defines or imports: read
    with ast from the grader's own copy, never run."""
    path = TEMPLATE_DIR / file
    if not path.is_file():
        return frozenset()
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return frozenset(names)


def missing_name_lines(file: str, name: str, defined: tuple[str, ...]) -> tuple[str, ...]:
    """Feedback for a check whose function or class is not in the student's file: the names the
    file defines beyond the starter code's, and the closest of them."""
    own = [n for n in defined if n not in starter_names(file)]
    line = (f"{file} has no {name}, so this check could not run: define it with exactly this name "
            "(names are case-sensitive and must match the assignment's).")
    close = difflib.get_close_matches(name, own, n=1, cutoff=0.6)
    if close:
        line += f" Is your {close[0]} meant to be {name}?"
    listed = ", ".join(own) if own else "none"
    return line, f"Functions and classes of {file} that the starter code does not have: {listed}."


def _names_needed(registry: Mapping[str, RegisteredCheck]) -> dict[str, set[str]]:
    """For each student file, the top-level names any registered check calls in it."""
    needed: dict[str, set[str]] = {}
    for registered in registry.values():
        for dotted in registered.names:
            module, attribute = dotted.split(".")
            needed.setdefault(f"{module}.py", set()).add(attribute)
    return needed


def find_stubs(run_dir: Path, files: Iterable[str]) -> tuple[str, ...]:
    """Functions of the student's files whose body still raises the starter stub's
    NotImplementedError ("... is not implemented yet"), by reading the source with ast (never
    running it); a file that does not parse is skipped (its checks say why)."""
    found: list[str] = []
    for file in files:
        path = run_dir / file
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (OSError, SyntaxError, ValueError, RecursionError):
            continue
        stack: list[tuple[ast.AST, str]] = [(node, "") for node in tree.body]
        while stack:
            node, prefix = stack.pop(0)
            if isinstance(node, ast.ClassDef):
                stack += [(child, f"{prefix}{node.name}.") for child in node.body]
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                    isinstance(n, ast.Raise) and isinstance(n.exc, ast.Call)
                    and getattr(n.exc.func, "id", "") == "NotImplementedError"
                    and any(isinstance(a, ast.Constant) and str(a.value).endswith("is not implemented yet")
                            for a in n.exc.args)
                    for n in ast.walk(node)):
                found.append(f"{file}: {prefix}{node.name}")
    return tuple(found)


def run_check(spec: CheckSpec, fn: Callable[[CheckContext], Outcome], ctx: CheckContext) -> Outcome:
    """Run one check function; turn aborts and grader bugs into outcomes."""
    try:
        return fn(ctx)
    except CheckAborted as aborted:
        return Outcome(0, 1, tuple(aborted.feedback), status=aborted.status, ran=aborted.ran)
    except ReplayMiss:  # only the kit: a question that depends on the student's (wrong) output
        return Outcome(0, 1, ("Your code's output here differs from what a correct solution gives, and "
                              "saying how far off it is needs an expected value the student kit did not "
                              "record: the full grader judges it when you submit. Fix the other failing "
                              "checks first; they often explain this one.",), status=FAILED)
    except Exception:  # a bug in the grader's check, not in student code
        return internal_error(traceback.format_exc(limit=-3).strip().splitlines())


#: Checks whose rubric timeout exceeds this are expensive (training): they run last, after the
#: written answers, so that a budget running out costs them and never the cheap checks.
EXPENSIVE_TIMEOUT_S = 60.0


def run_order(specs: Iterable[CheckSpec]) -> tuple[list[CheckSpec], list[CheckSpec]]:
    """(cheap, expensive): the checks to run before the written answers in rubric order, and
    those to run after them, cheapest (shortest timeout) first."""
    specs = list(specs)
    cheap = [s for s in specs if s.timeout <= EXPENSIVE_TIMEOUT_S]
    expensive = sorted((s for s in specs if s.timeout > EXPENSIVE_TIMEOUT_S), key=lambda s: s.timeout)
    return cheap, expensive


def grade(upload: Path, settings: GradingSettings | None = None, *,
          progress: ProgressHook | None = None,
          deliver: Callable[[GradeReport], None] | None = None) -> GradeReport:
    """Grade ``upload`` (a folder or .zip) as ``settings`` say (None: the defaults, everything as
    ``grader grade`` grades it) and return the report.

    The cheap code checks run first, then the written parts (the auto-graded share scored, the
    rest listed for TAs), then the expensive checks (training); the report lists them in the
    rubric's order. ``settings.budget`` (seconds) bounds the whole grading (see
    :mod:`grader.run.budget`): a check it cannot afford is reported as not run; each check's calls
    together get at most its :func:`check_deadline`. ``progress`` is told of each item as it is
    scored; ``deliver`` gets the report before anything is cleaned up (``grader grade`` writes
    results.json there). Credit a check moved to another one stands only if that one fails in
    this run (:func:`grader.run.settle.settle_charges`); a check that fails with a failing
    prerequisite of another function is run once more with the reference's code in that one's
    place, and charged once with it only if it then passes (:func:`grader.run.settle.settle_dependencies`).
    """
    started = time.monotonic()
    settings = GradingSettings() if settings is None else settings
    timer = Budget(settings.budget, started) if settings.budget is not None else None
    registry = all_checks()
    rubric = settings.rubric if settings.rubric is not None else _repository_rubric(registry)
    seed = new_seed() if settings.seed is None else settings.seed
    visible_only, only, ref_provider = settings.visible_only, settings.only, settings.ref_provider
    specs = select_checks(rubric, visible_only=visible_only, only=only)
    cheap, expensive = run_order(specs)
    written_parts = select_written(rubric, visible_only=visible_only, only=only) if settings.include_written else []
    by_id: dict[str, CheckResult] = {}
    written: list[CheckResult] = []
    manual: tuple = ()
    written_notes: list[str] = []
    files: dict[str, _FileState] = {}
    tmp = tempfile.mkdtemp(prefix="a2grader-")
    runner: Runner | None = None
    held_runner: Runner | None = None
    try:
        prepared = prepare(Path(upload), Path(tmp))
        stubs = find_stubs(prepared.run_dir, [f for f in assignment.student_files() if f in prepared.present])
        shown, held = ([s for s in specs if s.visibility == "visible"],
                       [s for s in specs if s.visibility != "visible"])
        # Held-back checks get a worker and a copy of the submission of their own, made before any
        # student code runs: nothing they are asked can reach the feedback of a visible check.
        held_dir = workers.copy_for_held_checks(prepared.run_dir, Path(tmp)) if held and shown else None
        factory = (workers.sandbox_factory(registry) if settings.runner_factory is None
                   else workers.ignoring_specs(settings.runner_factory))
        runner = workers.budgeted(factory(prepared.run_dir, shown or held), timer)
        if held_dir is not None:
            held_runner = workers.budgeted(factory(held_dir, held), timer)
        prestart = getattr(runner, "prestart", None)
        if prestart is not None:
            prestart()  # the worker starts (and imports torch) while the reference loads here
        ref = assignment.registry().load_reference() if ref_provider is None else None
        needed = _names_needed(registry)
        common = functools.partial(_run_one, registry=registry, prepared=prepared, needed=needed,
                                   import_timeout=settings.import_timeout, seed=seed, ref=ref,
                                   ref_provider=ref_provider)
        held_files: dict[str, _FileState] = {}
        held_left = {s.id for s in held}

        def run(spec: CheckSpec, substitute: frozenset[str] = frozenset()) -> CheckResult:
            if held_runner is not None and spec in held:
                try:
                    return common(spec, runner=held_runner, files=held_files, substitute=substitute)
                finally:
                    held_left.discard(spec.id)
                    if not held_left:  # its worker's memory goes back before training starts
                        held_runner.close()
            return common(spec, runner=runner, files=files, substitute=substitute)
        for spec in cheap:
            by_id[spec.id] = _report(spec, run(spec), progress)
        if written_parts:
            # The student kit ships the assignment without its written part (the answer keys), and
            # grades with include_written=False.
            written, manual_items, written_notes = assignment.registry().grade_written(
                prepared.written, written_parts, seed, runner=settings.written_runner, progress=progress,
                budget=timer)
            manual = tuple(manual_items)
        for spec in expensive:
            by_id[spec.id] = _report(spec, run(spec), progress)
        spec_of = {s.id: s for s in specs}
        by_id = settle_charges(by_id, spec_of)

        def rerun(check_id: str, substitute: frozenset[str]) -> CheckResult | None:
            """The counterfactual: the check once more with the reference's code in place of the
            failing prerequisites' (against the budget: "not run" when it ran out; a timeout, crash or
            error proves nothing either: settle flags them for review); None when nothing could run
            (no course code to put in place, as in the kit)."""
            result = run(spec_of[check_id], substitute)
            return None if not result.outcome.ran and result.status != NOT_RUN else result
        by_id = settle_dependencies(by_id, spec_of, {cid: registry[cid].depends_on for cid in by_id if cid in registry},
                                    {cid: registry[cid].names for cid in by_id if cid in registry}, rerun)
        file_notes = tuple(dict.fromkeys(state.note for state in [*files.values(), *held_files.values()] if state.note))
        report = GradeReport(str(upload), seed, tuple(by_id[s.id] for s in specs) + tuple(written),
                             time.monotonic() - started,
                             tuple(prepared.notes) + file_notes + tuple(written_notes), manual, stubs)
        if deliver is not None:
            deliver(report)  # results.json is written before anything is cleaned up
        return report
    finally:
        workers.clean_up([runner, held_runner], tmp)


def _repository_rubric(registry: Mapping[str, RegisteredCheck]) -> Rubric:
    """rubric.yaml with every registered check and written checker (``GradingSettings.rubric`` None)."""
    # The student kit ships the assignment without its written part, and always gives its own rubric.
    return load_rubric(registered=set(registry), checkers=set(assignment.registry().written_checkers()))


def _report(spec: CheckSpec, result: CheckResult, progress: ProgressHook | None) -> CheckResult:
    if progress:
        progress(spec, result)
    return result


def _run_one(spec: CheckSpec, *, registry: Mapping[str, RegisteredCheck], files: dict[str, _FileState],
             prepared: Any, needed: Mapping[str, Iterable[str]], import_timeout: float, runner: Runner,
             seed: int, ref: Any, ref_provider: RefProvider | None,
             substitute: frozenset[str] = frozenset()) -> CheckResult:
    """Import the files one check needs (once per run) and run it; scored. A check the budget
    cannot afford, or cuts short, is not run."""
    registered = registry[spec.id]
    t0 = time.monotonic()
    try:
        for name in registered.files:
            if name not in files:
                files[name] = _import_file(runner, name, present=set(prepared.present),
                                           refused=prepared.refused, needed=needed.get(name, ()),
                                           timeout=import_timeout)
        blocked = [files[f].problems for f in registered.files if files[f].problems]
        absent = [(f"{m}.py", a) for m, a in (n.split(".") for n in registered.names)
                  if a in files[f"{m}.py"].missing]
        if blocked:
            outcome = Outcome(0, 1, blocked[0], status=ERROR, ran=False)
        elif absent:
            file, attribute = absent[0]
            outcome = Outcome(0, 1, missing_name_lines(file, attribute, files[file].defined), status=ERROR,
                              ran=False)
        else:
            check_ref = ref if ref_provider is None else ref_provider(spec.id, seed)
            ctx = CheckContext(spec.id, DeadlineRunner(runner, check_deadline(spec)), check_rng(seed, spec.id),
                               seed, check_ref, spec.timeout, substitute=substitute)
            outcome = stub_outcome(run_check(spec, registered.function, ctx))
    except BudgetExhausted:
        outcome = not_run_outcome()
    return score(spec, outcome, time.monotonic() - t0)
