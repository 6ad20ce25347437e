"""Grade a whole class (``grader batch``): in parallel, resumable, with class-level reports.

SUBMISSIONS is a folder holding one folder or .zip per submission, or a Gradescope export
(``submission_<id>/`` folders and ``submission_metadata.yml``, read for names and ids). Each
submission is graded by ``grader grade``'s engine in a process of its own (which starts its own
sandboxed worker), ``workers`` at a time; whatever happens to one grading (a crash, a hang, a
grader bug) is recorded for that submission and the batch goes on. The output folder::

    OUT/batch.json                       the run's settings: seed, checks, where from
    OUT/submissions/<key>/results.json   Gradescope's results.json for that submission
    OUT/submissions/<key>/report.json    every field of the report (written last)
    OUT/grades.csv                       one row per submission, one column per check
    OUT/summary.md                       per check: mean score, pass rate, commonest failure
    OUT/plots/totals.png, pass_rate.png
    OUT/answer_groups.csv, OUT/review_queue.csv, OUT/groups/   answer groups (grader/classroom/reports/group_files.py)
    OUT/marks/                           TA marks, only ever appended to (grader/classroom/groups/store.py)
    OUT/final_grades.csv, OUT/feedback/  the grade book, once marks exist (grader/classroom/final_grades.py)

Running the same command again resumes: submissions whose report.json is complete are not
graded again (the recorded seed and checks are reused, so every student gets the same
instances); ones that failed or never finished are.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from grader import assignment, cli_options
from grader.classroom.gradebook import (
    COMPLETE,
    FAILED,
    GRADED,
    UNREADABLE,
    BatchError,
    ClassSummary,
    Column,
    GradedSubmission,
    Submission,
    report_from_json,
    scored_items,
    selectable_ids,
    summarize,
    zero_report,
)
from grader.classroom.reports import summary
from grader.classroom.roster import discover
from grader.reports import gradescope, jsonout
from grader.run.engine import grade, new_seed
from grader.run.results import GradeReport
from grader.run.rubric import Rubric, load_rubric
from grader.run.settings import GradingSettings
from grader.run.submission import SubmissionError
from grader.sandbox.gradings import GradingProcesses

SETTINGS_FILE = "batch.json"
SUBMISSIONS_DIR = "submissions"
REPORT_FILE = "report.json"
RESULTS_FILE = "results.json"
CSV_FILE = "grades.csv"
SUMMARY_FILE = "summary.md"
PLOTS_DIR = "plots"
#: Longest a single submission's grading may take before it is stopped and marked failed. The
#: rubric's largest per-check timeout is 1800 s; a full grading takes about 20-90 s.
SUBMISSION_TIMEOUT_S = cli_options.SUBMISSION_TIMEOUT_S
#: Characters of a failed grading process's stderr kept in its report.
STDERR_TAIL_CHARS = 2000


@dataclass(frozen=True)
class BatchSettings:
    """What a batch was run with; recorded in batch.json so that a resumed run matches."""

    source: str
    seed: int
    checks: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "seed": self.seed, "checks": list(self.checks)}


@dataclass(frozen=True)
class BatchOutcome:
    """What ``run_batch`` did: every submission's result, and how many it graded now."""

    settings: BatchSettings
    results: tuple[GradedSubmission, ...]
    graded_now: int
    resumed: int
    seconds: float
    files: tuple[Path, ...]
    summary: ClassSummary
    groups: Any = None             # grader.classroom.groups.batch_groups.GroupsOutcome
    similarity: Any = None         # grader.classroom.similarity.class_survey.SimilarityOutcome (--similarity, --known)


# -- the report of one submission --------------------------------------------------------------


def _report_path(out: Path, key: str) -> Path:
    return out / SUBMISSIONS_DIR / key / REPORT_FILE


def _write_report(path: Path, report: GradeReport, status: str, message: str = "") -> None:
    doc = jsonout.to_json(report)
    doc["batch"] = {"status": status, "message": message}
    gradescope.write_json(doc, path)


def load_result(out: Path, submission: Submission) -> GradedSubmission | None:
    """The recorded result of ``submission`` in ``out``, or None if there is none (or it is
    unreadable: a report.json is written atomically, so that means it was tampered with)."""
    try:
        doc = json.loads(_report_path(out, submission.key).read_text(encoding="utf-8"))
        batch = doc["batch"]
        report = report_from_json(doc)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    leaderboard = {str(k): float(v) for k, v in (doc.get("leaderboard") or {}).items()}
    return GradedSubmission(submission, str(batch.get("status", FAILED)), report,
                            str(batch.get("message", "")), leaderboard)


def grade_one(upload: Path, folder: Path, *, seed: int, only: Sequence[str]) -> str:
    """Grade ``upload`` in this process; write results.json, then report.json. Returns the status.

    Runs in the grading process that ``run_batch`` starts for each submission.
    """
    started = time.monotonic()
    try:
        report = grade(upload, GradingSettings(seed=seed, only=only, budget=load_rubric().budget))  # as on Gradescope
    except SubmissionError as exc:
        message = f"The submission could not be graded: {exc}"
        gradescope.write_json(gradescope.fallback_results(message, time.monotonic() - started),
                                     folder / RESULTS_FILE)
        columns = [c for c in scored_items(load_rubric()) if not only or c.id in set(only)]
        _write_report(folder / REPORT_FILE, zero_report(str(upload), columns, seed, message),
                      UNREADABLE, message)
        return UNREADABLE
    gradescope.write_results(report, folder / RESULTS_FILE)
    _write_report(folder / REPORT_FILE, report, GRADED)
    return GRADED


# -- running many ------------------------------------------------------------------------------


def quick_checks(rubric: Rubric) -> tuple[str, ...]:
    """Everything but the checks that train a parser (written questions included)."""
    return tuple(i for i in selectable_ids(rubric) if not i.startswith(assignment.registry().TRAINING_CHECK_PREFIX))


def _settings(out: Path, source: Path, *, seed: int | None, checks: tuple[str, ...],
              restart: bool) -> BatchSettings:
    """The settings of this run: the recorded ones when resuming (and they must agree)."""
    path = out / SETTINGS_FILE
    wanted = BatchSettings(str(source.resolve()), new_seed() if seed is None else seed, checks)
    if restart or not path.is_file():
        return wanted
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        recorded = BatchSettings(str(doc["source"]), int(doc["seed"]), tuple(doc["checks"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BatchError(f"{path} cannot be read ({exc}); pass --restart to grade everything "
                         "again, or use a new --out folder") from None
    conflicts = []
    if recorded.source != wanted.source:
        conflicts.append(f"submissions from {recorded.source}, not {wanted.source}")
    if seed is not None and seed != recorded.seed:
        conflicts.append(f"seed {recorded.seed}, not {seed}")
    if set(recorded.checks) != set(checks):
        conflicts.append(f"{len(recorded.checks)} checks, not the {len(checks)} asked for now "
                         "(repeat the first run's --quick or --only)")
    if conflicts:
        raise BatchError(f"{out} holds a batch run with " + "; ".join(conflicts) + ". Resuming "
                         "needs the same settings: drop the conflicting options, pass --restart "
                         "to grade everything again, or use a new --out folder")
    return recorded


def _grade_in_process(sub: Submission, out: Path, settings: BatchSettings, columns: Sequence[Column],
                      timeout: float, children: GradingProcesses) -> GradedSubmission | None:
    """Grade one submission in a grading process of its own; never raises for what it does.
    None when the batch was interrupted before it started."""
    if children.stopping:
        return None
    folder = out / SUBMISSIONS_DIR / sub.key
    folder.mkdir(parents=True, exist_ok=True)
    _report_path(out, sub.key).unlink(missing_ok=True)
    args = ["--submission", str(sub.path), "--folder", str(folder), "--seed", str(settings.seed),
            *(arg for check_id in settings.checks for arg in ("--only", check_id))]
    started = time.monotonic()
    finished = children.run(args, timeout=timeout)
    timed_out, stderr = finished.timed_out, finished.stderr
    why = (f"grading took longer than {timeout:g} s and was stopped" if timed_out
           else f"the grading process exited with status {finished.returncode}")
    result = None if timed_out else load_result(out, sub)  # late reports do not count
    if result is not None and result.status in COMPLETE:
        return result
    if children.stopping:
        why = "the batch was interrupted before this submission was graded"
    tail = stderr.decode("utf-8", errors="replace")[-STDERR_TAIL_CHARS:].strip()
    message = f"Grading failed: {why}." + (f"\n{tail}" if tail else "")
    report = zero_report(str(sub.path), columns, settings.seed, message)
    report = GradeReport(report.submission, report.seed, report.checks, time.monotonic() - started)
    gradescope.write_json(gradescope.fallback_results(message, report.seconds), folder / RESULTS_FILE)
    _write_report(_report_path(out, sub.key), report, FAILED, message)
    return GradedSubmission(sub, FAILED, report, message)


ProgressHook = Callable[[GradedSubmission, bool], None]
"""Called once per submission as it completes: (result, whether it was resumed from disk)."""


def run_batch(source: Path, out: Path, *, workers: int | None = None, seed: int | None = None,
              only: Sequence[str] | None = None, quick: bool = False, restart: bool = False,
              timeout: float = SUBMISSION_TIMEOUT_S, progress: ProgressHook | None = None,
              rubric: Rubric | None = None, similarity: Any = None) -> BatchOutcome:
    """Grade every submission of ``source`` into ``out`` and write the class reports (and, given
    ``similarity``, a :class:`grader.classroom.similarity.class_survey.SimilarityRequest`, the similarity reports)."""
    from grader.run.check_api import all_checks

    started = time.monotonic()
    source, out = Path(source), Path(out)
    if workers is not None and workers < 1:
        raise BatchError(f"--workers must be at least 1; got {workers}")
    if not timeout > 0:
        raise BatchError(f"--timeout must be a positive number of seconds; got {timeout}")
    rubric = rubric or load_rubric(registered=set(all_checks()))
    known = selectable_ids(rubric)
    unknown = sorted(set(only or ()) - set(known))
    if unknown:
        raise BatchError(f"unknown check id(s) {', '.join(unknown)}; the rubric's ids are "
                         f"{', '.join(known)}")
    wanted = set(only) if only else set(quick_checks(rubric) if quick else known)
    submissions = discover(source, exclude=out)
    settings = _settings(out, source, seed=seed, checks=tuple(i for i in known if i in wanted),
                         restart=restart)
    columns = [c for c in scored_items(rubric) if c.id in set(settings.checks)]
    out.mkdir(parents=True, exist_ok=True)
    gradescope.write_json(settings.to_json(), out / SETTINGS_FILE)

    results: dict[str, GradedSubmission] = {}
    todo = []
    for sub in submissions:
        done = None if restart else load_result(out, sub)
        if done is not None and done.status in COMPLETE and done.report.seed == settings.seed:
            results[sub.key] = done
            if progress:
                progress(done, True)
        else:
            todo.append(sub)
    resumed = len(results)
    children = GradingProcesses(__spec__.name if __spec__ else __name__)  # this module, run by -m
    n_workers = min(workers or os.cpu_count() or 1, max(len(todo), 1))
    executor = ThreadPoolExecutor(max_workers=n_workers, thread_name_prefix="grade")
    try:
        futures = {executor.submit(_grade_in_process, sub, out, settings, columns, timeout, children): sub
                   for sub in todo}
        for future in as_completed(futures):
            result = future.result()
            if result is not None:
                results[result.submission.key] = result
                if progress:
                    progress(result, False)
    except BaseException:  # Ctrl-C (or SIGTERM, see sigterm_interrupts): stop, keep what is done
        executor.shutdown(wait=False, cancel_futures=True)
        children.stop_all()
        executor.shutdown(wait=True)
        raise
    executor.shutdown(wait=True)
    ordered = tuple(results[sub.key] for sub in submissions)
    stats, files = write_class_reports(ordered, columns, out, settings)
    from grader.classroom.groups_command import build_groups

    grouped = build_groups(out, rubric)
    files += grouped.files
    from grader.classroom import final_grades
    from grader.classroom.groups.store import MarkStore
    from grader.classroom.reports import decided, final
    from grader.classroom.similarity_command import run_request

    store = MarkStore.open(out)
    if store.journal:       # TA marks exist: the grade book adds them to the autograder's scores
        book = final_grades.grade_book(out, rubric, store)
        files += tuple(final.write(book, out)[:1])
        decided.write(book, out)        # a regraded submission's results.json gets its TA decisions again
    similar = run_request(similarity, out) if similarity is not None else None
    files += similar.files if similar is not None else ()
    return BatchOutcome(settings, ordered, len(todo), resumed, time.monotonic() - started, files, stats, grouped,
                        similar)


def write_class_reports(results: Sequence[GradedSubmission], columns: Sequence[Column], out: Path,
                        settings: BatchSettings) -> tuple[ClassSummary, tuple[Path, ...]]:
    """grades.csv, summary.md and the plots of ``results`` in ``out``; the summary and the files."""
    from grader.classroom.reports import csvout, plots

    stats = summarize(results, columns, seed=settings.seed)
    written = [csvout.write_csv(results, columns, out / CSV_FILE),
               summary.write_markdown(stats, out / SUMMARY_FILE)]
    written += plots.write_plots(stats, out / PLOTS_DIR)
    return stats, tuple(written)


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """While in this block, SIGTERM stops the batch as Ctrl-C does (the running gradings are
    stopped, finished ones are kept for the resume). Only in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(_signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


# -- the grading process -----------------------------------------------------------------------


def _terminate(signum: int, _frame: Any) -> None:
    """SIGTERM from the batch: leave through the normal path so the sandbox is closed."""
    raise SystemExit(128 + signum)


@click.command()
@cli_options.take("one_submission", "report_folder", "given_seed", "only_ids")
def _grading_process(submission: Path, folder: Path, seed: int, only: tuple[str, ...]) -> None:
    """Grade one submission of a batch (used by `grader batch`)."""
    signal.signal(signal.SIGTERM, _terminate)
    folder.mkdir(parents=True, exist_ok=True)
    grade_one(submission, folder, seed=seed, only=list(only))


def main(argv: list[str] | None = None) -> None:
    """Entry point of a grading process: ``python -m grader.classroom.batch --submission ... --folder ...
    --seed N [--only ID ...]``; exits 0 once it has graded, 2 on options it cannot read."""
    _grading_process.main(args=argv, prog_name="python -m grader.classroom.batch")


if __name__ == "__main__":
    main()
