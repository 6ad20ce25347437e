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

Running the same command again resumes: submissions whose report.json is complete are not
graded again (the recorded seed and checks are reused, so every student gets the same
instances); ones that failed or never finished are.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from grader.engine import new_seed
from grader.reports import gradescope, jsonout, summary
from grader.reports.summary import ClassSummary
from grader.results import ERROR, CheckResult, GradeReport, Outcome, WrittenRead
from grader.rubric import Rubric, load_rubric

METADATA_FILE = "submission_metadata.yml"
SETTINGS_FILE = "batch.json"
SUBMISSIONS_DIR = "submissions"
REPORT_FILE = "report.json"
RESULTS_FILE = "results.json"
CSV_FILE = "grades.csv"
SUMMARY_FILE = "summary.md"
PLOTS_DIR = "plots"
#: Names in a submissions folder that are never submissions.
IGNORED_NAMES = frozenset({"__MACOSX", ".DS_Store"})

#: How a submission's grading ended.
GRADED = "graded"          # the engine ran every selected check
UNREADABLE = "unreadable"  # the upload could not be read (bad zip, not a folder): all checks 0
FAILED = "failed"          # the grading process crashed or ran out of time: graded again on resume
COMPLETE = (GRADED, UNREADABLE)

#: Checks whose id starts with this train a parser (about 20 s each submission); --quick skips them.
TRAINING_CHECK_PREFIX = "train"
#: Longest a single submission's grading may take before it is stopped and marked failed. The
#: rubric's largest per-check timeout is 1800 s; a full grading takes about 20-90 s.
SUBMISSION_TIMEOUT_S = 1800.0
#: After asking a grading process to stop (SIGTERM: it closes its sandbox), how long it gets.
STOP_GRACE_S = 10.0
#: Characters of a failed grading process's stderr kept in its report.
STDERR_TAIL_CHARS = 2000
#: Variables set for each grading process: one BLAS/OpenMP thread each, so that N workers use
#: N cores instead of competing for all of them.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


class BatchError(ValueError):
    """The batch cannot start: unreadable metadata, conflicting settings, a bad folder."""


@dataclass(frozen=True)
class Column:
    """A scored item of the class reports: a code check, or the auto-graded share of a written
    question (the engine reports both as checks, with these ids)."""

    id: str
    number: str
    name: str
    points: float


def scored_items(rubric: Rubric) -> list[Column]:
    """Every item a grading can score, in the engine's order: code checks, then written parts."""
    return ([Column(s.id, s.number, s.name, s.points) for s in rubric.checks]
            + [Column(p.id, p.number, f"{p.name} (auto-graded)", p.auto) for p in rubric.written if p.auto > 0])


def selectable_ids(rubric: Rubric) -> tuple[str, ...]:
    """What --only may name: code check ids and written question ids (as `grade(only=...)`)."""
    return tuple(s.id for s in rubric.checks) + tuple(p.id for p in rubric.written)


@dataclass(frozen=True)
class Submission:
    """One submission found in SUBMISSIONS, with who submitted it (when the export says)."""

    key: str                       # its folder name under OUT/submissions/
    path: Path                     # a folder or a .zip
    names: tuple[str, ...] = ()
    sids: tuple[str, ...] = ()
    emails: tuple[str, ...] = ()


@dataclass(frozen=True)
class GradedSubmission:
    """A submission and how its grading ended: the report every class-level reporter reads."""

    submission: Submission
    status: str                    # GRADED, UNREADABLE or FAILED
    report: GradeReport
    message: str = ""              # why it is UNREADABLE or FAILED
    leaderboard: dict[str, float] = field(default_factory=dict)


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


# -- finding the submissions -------------------------------------------------------------------


def _texts(values: Iterable[Any]) -> tuple[str, ...]:
    return tuple(str(v) for v in values if v not in (None, ""))


def _read_metadata(path: Path) -> dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]]:
    """Folder -> (names, sids, emails) from Gradescope's submission_metadata.yml."""
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise BatchError(f"{path} cannot be read ({exc}); fix or remove it to grade the folders "
                         "without names") from None
    if not isinstance(doc, dict):
        raise BatchError(f"{path} should map each submission folder to its :submitters:, as "
                         f"Gradescope's export does; it holds a {type(doc).__name__}")
    people = {}
    for folder, entry in doc.items():
        submitters = entry.get(":submitters", []) if isinstance(entry, dict) else []
        submitters = [s for s in submitters if isinstance(s, dict)] if isinstance(submitters, list) else []
        people[str(folder)] = (_texts(s.get(":name") for s in submitters),
                               _texts(s.get(":sid") for s in submitters),
                               _texts(s.get(":email") for s in submitters))
    return people


def _looks_like_one_submission(folder: Path) -> bool:
    from grader.paths import STUDENT_FILES

    return any((folder / name).is_file() for name in STUDENT_FILES)


def discover(folder: Path, *, exclude: Path | None = None) -> list[Submission]:
    """The submissions in ``folder``: its sub-folders and .zip files, named from the metadata
    file when there is one (a folder the metadata lists but that is missing is kept: it grades
    as unreadable, so the class list stays complete)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise BatchError(f"{folder} is not a folder; pass the folder that holds one folder or .zip "
                         "per submission (or an unzipped Gradescope export)")
    if _looks_like_one_submission(folder):
        raise BatchError(f"{folder} holds the files of one submission; grade it with `grader grade "
                         f"{folder}`, or pass the folder that holds one folder or .zip per submission")
    excluded = exclude.resolve() if exclude is not None else None
    found: dict[str, Path] = {}
    for path in sorted(folder.iterdir()):
        if path.name in IGNORED_NAMES or path.name.startswith(".") or path.resolve() == excluded:
            continue
        if path.is_dir() or (path.is_file() and path.suffix.lower() == ".zip"):
            key = path.stem if path.is_file() else path.name
            while key in found:
                key += "_"
            found[key] = path
    metadata_path = folder / METADATA_FILE
    people = _read_metadata(metadata_path) if metadata_path.is_file() else {}
    for listed in people:
        if listed not in found:
            found[listed] = folder / listed
    submissions = [Submission(key, path, *people.get(key, ((), (), ())))
                   for key, path in sorted(found.items())]
    if not submissions:
        raise BatchError(f"no submissions in {folder}: expected one folder or .zip per submission")
    return submissions


# -- the report of one submission --------------------------------------------------------------


def _zero_report(upload: str, columns: Sequence[Column], seed: int, message: str) -> GradeReport:
    """Every selected item at 0 with ``message``: the report of a grading that did not run."""
    checks = tuple(CheckResult(c.id, "", c.name, c.number, c.points, 0.0, "visible",
                               Outcome(0, 1, (message,), status=ERROR), 0.0) for c in columns)
    return GradeReport(upload, seed, checks, 0.0)


def _written_from_json(w: Any) -> WrittenRead | None:
    if not isinstance(w, dict):
        return None
    return WrittenRead(str(w.get("raw", "")), str(w.get("read", "")), str(w.get("where", "")),
                       str(w.get("review", "")))


def report_from_json(doc: dict[str, Any]) -> GradeReport:
    """Rebuild a GradeReport from jsonout's document (the inverse of ``jsonout.to_json``)."""
    checks = tuple(CheckResult(
        c["id"], c.get("part", ""), c.get("name", c["id"]), str(c.get("number", "")),
        float(c.get("max_score", 0.0)), float(c.get("score", 0.0)), c.get("visibility", "visible"),
        Outcome(int(c.get("trials_passed", 0)), int(c.get("trials_total", 0)),
                tuple(c.get("feedback", ())), status=c.get("status", ERROR)),
        float(c.get("seconds", 0.0)), c.get("kind", "code"), _written_from_json(c.get("written")))
        for c in doc.get("checks", []))
    return GradeReport(str(doc.get("submission", "")), int(doc.get("seed", 0)), checks,
                       float(doc.get("seconds", 0.0)), tuple(doc.get("notes", ())))


def _report_path(out: Path, key: str) -> Path:
    return out / SUBMISSIONS_DIR / key / REPORT_FILE


def _write_report(path: Path, report: GradeReport, status: str, message: str = "") -> None:
    doc = jsonout.to_json(report)
    doc["batch"] = {"status": status, "message": message}
    gradescope.write_json_atomic(doc, path)


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
    from grader.engine import grade
    from grader.submission import SubmissionError

    started = time.monotonic()
    try:
        report = grade(upload, seed=seed, only=only)
    except SubmissionError as exc:
        message = f"The submission could not be graded: {exc}"
        gradescope.write_json_atomic(gradescope.fallback_results(message, time.monotonic() - started),
                                     folder / RESULTS_FILE)
        columns = [c for c in scored_items(load_rubric()) if not only or c.id in set(only)]
        _write_report(folder / REPORT_FILE, _zero_report(str(upload), columns, seed, message),
                      UNREADABLE, message)
        return UNREADABLE
    gradescope.write_results(report, folder / RESULTS_FILE)
    _write_report(folder / REPORT_FILE, report, GRADED)
    return GRADED


# -- running many ------------------------------------------------------------------------------


def quick_checks(rubric: Rubric) -> tuple[str, ...]:
    """Everything but the checks that train a parser (written questions included)."""
    return tuple(i for i in selectable_ids(rubric) if not i.startswith(TRAINING_CHECK_PREFIX))


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


class _Children:
    """The grading processes running now, so that an interrupted batch can stop them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[bytes]] = set()
        self.stopping = False

    def add(self, proc: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._running.add(proc)
        if self.stopping:
            _signal(proc, signal.SIGTERM)

    def remove(self, proc: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._running.discard(proc)

    def running(self) -> list[subprocess.Popen[bytes]]:
        with self._lock:
            return list(self._running)

    def stop_all(self) -> None:
        """SIGTERM every grading process (each then closes its sandbox); SIGKILL the ones still
        there after STOP_GRACE_S. The threads waiting on them collect them."""
        self.stopping = True
        for proc in self.running():
            _signal(proc, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        while time.monotonic() < deadline and any(p.poll() is None for p in self.running()):
            time.sleep(0.1)
        for proc in self.running():
            _signal(proc, signal.SIGKILL)


def _signal(proc: subprocess.Popen[bytes], signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signum)


def _stop(proc: subprocess.Popen[bytes]) -> bytes:
    """Stop a grading process that ran out of time: SIGTERM (it then closes its sandbox), SIGKILL
    if it lingers. Returns what it wrote to stderr."""
    _signal(proc, signal.SIGTERM)
    try:
        _, stderr = proc.communicate(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        _signal(proc, signal.SIGKILL)
        _, stderr = proc.communicate()
    return stderr or b""


def _child_environment() -> dict[str, str]:
    env = dict(os.environ)
    env.update(dict.fromkeys(THREAD_VARIABLES, "1"))
    env.setdefault("MPLBACKEND", "Agg")
    return env


def _grade_in_process(sub: Submission, out: Path, settings: BatchSettings, columns: Sequence[Column],
                      timeout: float, children: _Children) -> GradedSubmission | None:
    """Grade one submission in a grading process of its own; never raises for what it does.
    None when the batch was interrupted before it started."""
    if children.stopping:
        return None
    folder = out / SUBMISSIONS_DIR / sub.key
    folder.mkdir(parents=True, exist_ok=True)
    _report_path(out, sub.key).unlink(missing_ok=True)
    command = [sys.executable, "-m", "grader.batch", "--submission", str(sub.path),
               "--folder", str(folder), "--seed", str(settings.seed), "--only", *settings.checks]
    started = time.monotonic()
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=_child_environment())
    children.add(proc)
    timed_out = False
    try:
        try:
            _, stderr = proc.communicate(timeout=timeout)
            why = f"the grading process exited with status {proc.returncode}"
        except subprocess.TimeoutExpired:
            timed_out = True
            stderr = _stop(proc)
            why = f"grading took longer than {timeout:g} s and was stopped"
    finally:
        children.remove(proc)
    result = None if timed_out else load_result(out, sub)  # late reports do not count
    if result is not None and result.status in COMPLETE:
        return result
    if children.stopping:
        why = "the batch was interrupted before this submission was graded"
    tail = stderr.decode("utf-8", errors="replace")[-STDERR_TAIL_CHARS:].strip()
    message = f"Grading failed: {why}." + (f"\n{tail}" if tail else "")
    report = _zero_report(str(sub.path), columns, settings.seed, message)
    report = GradeReport(report.submission, report.seed, report.checks, time.monotonic() - started)
    gradescope.write_json_atomic(gradescope.fallback_results(message, report.seconds), folder / RESULTS_FILE)
    _write_report(_report_path(out, sub.key), report, FAILED, message)
    return GradedSubmission(sub, FAILED, report, message)


ProgressHook = Callable[[GradedSubmission, bool], None]
"""Called once per submission as it completes: (result, whether it was resumed from disk)."""


def run_batch(source: Path, out: Path, *, workers: int | None = None, seed: int | None = None,
              only: Sequence[str] | None = None, quick: bool = False, restart: bool = False,
              timeout: float = SUBMISSION_TIMEOUT_S, progress: ProgressHook | None = None,
              rubric: Rubric | None = None) -> BatchOutcome:
    """Grade every submission of ``source`` into ``out`` and write the class reports."""
    from grader.checks import all_checks

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
    gradescope.write_json_atomic(settings.to_json(), out / SETTINGS_FILE)

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
    children = _Children()
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
    return BatchOutcome(settings, ordered, len(todo), resumed, time.monotonic() - started, files, stats)


def write_class_reports(results: Sequence[GradedSubmission], columns: Sequence[Column], out: Path,
                        settings: BatchSettings) -> tuple[ClassSummary, tuple[Path, ...]]:
    """grades.csv, summary.md and the plots of ``results`` in ``out``; the summary and the files."""
    from grader.reports import csvout, plots

    stats = summary.summarize(results, columns, seed=settings.seed)
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


def main(argv: list[str] | None = None) -> int:
    """Entry point of a grading process: ``python -m grader.batch --submission ... --folder ...``."""
    parser = argparse.ArgumentParser(prog="python -m grader.batch",
                                     description="Grade one submission of a batch (used by `grader batch`).")
    parser.add_argument("--submission", type=Path, required=True)
    parser.add_argument("--folder", type=Path, required=True, help="where results.json and report.json go")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--only", nargs="*", default=[])
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)
    args.folder.mkdir(parents=True, exist_ok=True)
    grade_one(args.submission, args.folder, seed=args.seed, only=args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
