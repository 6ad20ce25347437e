"""Command line: thin wiring of options to the plain functions of the grader.

    grader check [DIR]                 students: the visible checks, a table, exit 0 iff all pass
    grader grade SUBMISSION [options]  every check; writes Gradescope's results.json
    grader validate                    reference full marks, template zero, rubric consistent
    grader template [--check]          regenerate student_template/ from reference/
    grader package [--out ZIP|--check] the Gradescope autograder zip
    grader batch SUBMISSIONS --out DIR grade a whole class: results, CSV, summary, plots
    grader groups DIR                  regroup a finished batch's written answers (no regrading)
    grader points DIR                  the TA's marked groups as points per submission (CSV)
    grader similarity DIR [--known D]  similar submissions, with each other and with known solutions
    grader grades DIR                  the grade book: autograder + TA points, comments per student
    grader review DIR                  mark the answer groups in a browser (127.0.0.1 only)
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from grader import assignment, cli_output
from grader.check_command import CHECK_OPTIONS, CheckSetup, run_check
from grader.classroom import batch as batch_mod
from grader.classroom import gradebook, roster
from grader.classroom.marking_cli import grades_cmd, marked_store, review_cmd
from grader.classroom.reports import summary as summary_mod
from grader.classroom.similarity_command import similarity_cmd, similarity_lines, similarity_request
from grader.cli_options import take
from grader.cli_output import print_notes
from grader.common import paths
from grader.common.paths import REFERENCE_DIR, TEMPLATE_DIR
from grader.kit import assemble as kit_mod
from grader.package import gradescope_zip as package_mod
from grader.package import template as template_mod
from grader.reports import gradescope, jsonout, terminal
from grader.run.budget import process_age
from grader.run.check_api import all_checks
from grader.run.engine import grade
from grader.run.results import GradeReport
from grader.run.rubric import RubricError, load_rubric
from grader.run.settings import GradingSettings
from grader.run.submission import SubmissionError

RUBRIC_BROKEN = ("The autograder could not grade this submission because its rubric.yaml is invalid; this is not "
                 "your fault and the course staff have to fix it, then regrade. For the staff:")


def _progress(console: Console):
    def hook(spec, result) -> None:
        mark = "✓" if result.passed else "✗"
        console.print(f"  {mark} {spec.number} {spec.name} ({result.seconds:.1f} s)", highlight=False)
    return hook


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@take("version", "root")
def main(root: Path | None) -> None:
    """Autograder: randomized checks of submissions against the reference, scored by rubric.yaml."""
    if root is not None and root.resolve() != paths.REPO_ROOT.resolve():
        raise click.ClickException(f"--root is read when the grader starts: run `grader --root {root} ...` "
                                   "(or `python -m grader --root ...`)")
    problem = paths.missing_root()
    if problem:
        raise click.ClickException(problem)


def _repository_check(directory: Path, seed: int | None, out: Console) -> CheckSetup:
    """`grader check` in the repository: rubric.yaml, the reference, the Linux sandbox, written answers."""
    rubric = load_rubric(registered=set(all_checks()), checkers=set(assignment.registry().written_checkers()))
    return CheckSetup(rubric, GradingSettings(rubric=rubric, seed=seed))


@main.command()
@take(*CHECK_OPTIONS)
def check(directory: Path, seed: int | None, quiet: bool, part: str | None, as_json: bool) -> None:
    """Check DIRECTORY (default: here) on the checks students may see; exit 0 only if all pass."""
    run_check(_repository_check, directory, seed, quiet, part, as_json)


@main.command("grade")
@take("submission", "results", "seed", "json", "budget")
def grade_cmd(submission: Path, results_path: Path, seed: int | None, as_json: bool,
              budget: float | None) -> None:
    """Grade SUBMISSION (a folder or .zip) on every check and write results.json.

    A valid results.json is written whatever the submission does, within the grading's time
    budget; the exit status is 0 when grading ran (whatever the score) and 1 when the submission
    could not be read at all.
    """
    console = cli_output.console()
    started = time.monotonic()
    try:
        rubric = load_rubric(registered=set(all_checks()), checkers=set(assignment.registry().written_checkers()))
    except (RubricError, assignment.AssignmentError) as exc:   # the instructor's error: say so in results.json
        gradescope.write_json(gradescope.fallback_results(
            f"{RUBRIC_BROKEN} {exc}", time.monotonic() - started), results_path)
        raise click.ClickException(f"{exc} (results.json says so: {results_path})") from None
    written: list[Path] = []

    def deliver(done: GradeReport) -> None:  # before any cleanup: a cleanup that fails costs no results
        gradescope.write_results(done, results_path)
        written.append(results_path)

    try:
        seconds = (rubric.budget if budget is None else budget) - process_age()  # this process's start counts
        settings = GradingSettings(rubric=rubric, seed=seed, budget=max(seconds, 1.0))
        report = grade(submission, settings, progress=None if as_json else _progress(console), deliver=deliver)
    except SubmissionError as exc:
        gradescope.write_json(gradescope.fallback_results(
            f"The submission could not be graded: {exc}", time.monotonic() - started), results_path)
        raise click.ClickException(str(exc)) from None
    except Exception:
        if not written:  # a grader bug before the report: the student still gets a results.json
            gradescope.write_json(gradescope.fallback_results(
                "Internal grader error: the submission could not be graded; it is not your fault. "
                "Please tell the course staff.", time.monotonic() - started), results_path)
        raise
    if as_json:
        click.echo(json.dumps(jsonout.to_json(report), indent=2))
    else:
        terminal.render(report, console)
        console.print(Text(f"results.json written to {results_path}"))


def failing_lines(feedback: tuple[str, ...] | list[str], status: str) -> str:
    """What a failing item says about itself: its lines marked ✗ (a 3(f) sentence, a trial), else
    its first line that is not the "read:" echo, else its status."""
    wrong = [line for line in feedback if "✗" in line]
    if wrong:
        return " | ".join(wrong[:4])
    rest = [line for line in feedback if not line.startswith("read:")]
    return rest[0] if rest else (feedback[0] if feedback else status)


@main.command()
@take("seed")
def validate(seed: int | None) -> None:
    """The reference must score full marks and the template zero; the rubric must match the checks
    (and keep its rules: a hidden check carries no points); the written answer keys
    (a2/written/keys.yaml) must agree with reference/answers.md."""
    console = cli_output.console()
    click.echo(paths.root_line())
    problems = validation_problems(seed, console)
    for p in problems:
        console.print(f"[red]✗[/red] {p}")
    if problems:
        sys.exit(1)
    console.print("[green]✓ rubric, reference and template agree[/green]")


def validation_problems(seed: int | None, console: Console) -> list[str]:
    """What `grader validate` finds wrong (an empty list: nothing); a rubric that cannot be read
    stops it (ClickException) before any grading."""
    problems: list[str] = []
    try:
        # Loaded first, so that a rubric error stops the command before any grading.
        rubric = load_rubric(paths.RUBRIC_PATH, registered=set(all_checks()),
                             checkers=set(assignment.registry().written_checkers()))
        keys = assignment.registry().key_disagreements(REFERENCE_DIR)
        problems += [f"answer key: {d}" for d in keys]
        settings = GradingSettings(rubric=rubric, seed=seed)
        ref = grade(REFERENCE_DIR, settings)
        tpl = grade(TEMPLATE_DIR, replace(settings, seed=ref.seed))
    except (RubricError, assignment.AssignmentError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    for c in ref.checks:
        if c.score < c.max_score:
            problems.append(f"reference scores {c.score:g}/{c.max_score:g} on {c.id}: "
                            + failing_lines(c.outcome.feedback, c.status))
    for c in tpl.checks:
        if c.score > 0:
            problems.append(f"template scores {c.score:g} on {c.id}; a stub must earn nothing")
    console.print(f"reference: {ref.score:g}/{ref.max_score:g}   template: {tpl.score:g}/{tpl.max_score:g}"
                  f"   (seed {ref.seed}, {ref.seconds + tpl.seconds:.1f} s)")
    drift = template_mod.check_template()
    problems += [f"student_template drift: {d}" for d in drift]
    return problems


@main.command("template")
@take("drift_only")
def template_cmd(check_only: bool) -> None:
    """Regenerate student_template/ from reference/ by its solution markers."""
    sys.exit(template_mod.main(["--check"] if check_only else []))


@main.command("package")
@take("zip_out", "plan_only", "skip_validate")
def package_cmd(out: Path, check_only: bool, skip_validate: bool) -> None:
    """Build the Gradescope autograder zip (setup.sh, run_autograder, grader, reference, rubric),
    after `grader validate` passes (the rubric, the reference at full marks, the template at 0)."""
    console = cli_output.console()
    click.echo(paths.root_line())
    plan = package_mod.plan_package()
    package_mod.render_plan(plan, console, list_files=check_only)
    if not plan.ok:
        raise click.ClickException(f"{len(plan.errors)} problem(s) above; nothing was written")
    if check_only:
        return
    if skip_validate:
        console.print("[bold red]WARNING: --skip-validate: `grader validate` was NOT run. This zip may carry a rubric "
                      "that does not match the checks, or a reference that does not score full marks; run "
                      "`grader validate` before students submit.[/bold red]")
    else:
        console.print("validating first (`grader validate`; --skip-validate skips it) ...")
        try:
            problems = validation_problems(None, console)
        except click.ClickException as exc:
            problems = [exc.message]
        for problem in problems:
            console.print(f"[red]✗[/red] {problem}")
        if problems:
            raise click.ClickException(f"`grader validate` found {len(problems)} problem(s) above; nothing was "
                                       "written. Fix them (or build anyway with --skip-validate)")
        console.print("[green]✓ validate passed[/green]")
    try:
        package_mod.build_package(out)
    except package_mod.PackageError as exc:
        raise click.ClickException(str(exc)) from None
    console.print(f"[green]wrote {out}[/green] ({out.stat().st_size / 2**20:.1f} MiB): upload it as the "
                  "autograder of a Gradescope programming assignment")


@main.command("kit")
@take("kit_out", "kit_seeds")
def kit_cmd(out: Path | None, seeds: str) -> None:
    """Build the student kit: the starter folder plus a `grader check` that needs no solution."""
    console = cli_output.console()
    out = out or Path(f"{assignment.registry().KIT_FOLDER}.zip")
    click.echo(paths.root_line())
    try:
        chosen = [int(s) for s in seeds.split(",") if s.strip()]
    except ValueError:
        raise click.ClickException(f"--seeds takes integers separated by commas; got {seeds!r}") from None
    try:
        kit_mod.build_kit(out, seeds=chosen, progress=lambda line: console.print(f"  {line}"))
    except kit_mod.KitError as exc:
        raise click.ClickException(str(exc)) from None
    console.print(f"[green]wrote {out}[/green] ({out.stat().st_size:,} bytes): give it to students; "
                  "`pip install .` in its folder installs `grader check`")


@main.command("batch")
@take("submissions", "batch_out", "workers", "batch_seed", "quick", "only", "timeout", "restart", "then_similarity",
      "then_known", "then_base")
def batch_cmd(submissions: Path, out: Path, workers: int | None, seed: int | None, quick: bool, only: tuple[str, ...],
              timeout: float, restart: bool, similar: bool, known: tuple[Path, ...], bases: tuple[Path, ...]) -> None:
    """Grade every submission in SUBMISSIONS (folders or zips, or a Gradescope export)."""
    console = cli_output.console()
    similarity = similarity_request(known, bases=bases) if similar or known or bases else None
    click.echo(paths.root_line())
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task("grading", total=None)

        def advance(result: gradebook.GradedSubmission, resumed: bool) -> None:
            mark = "resumed" if resumed else result.status
            bar.console.print(Text(f"  {result.submission.key}: {result.report.score:g}/"
                                   f"{result.report.max_score:g} ({mark})"), highlight=False)
            bar.advance(task)

        try:
            n = len(roster.discover(submissions, exclude=out))
            bar.update(task, total=n, description=f"grading {n} submissions")
            with batch_mod.sigterm_interrupts():
                outcome = batch_mod.run_batch(submissions, out, workers=workers, seed=seed, only=only,
                                              quick=quick, restart=restart, timeout=timeout,
                                              progress=advance, similarity=similarity)
        except (gradebook.BatchError, RubricError) as exc:
            raise click.ClickException(str(exc)) from None
        except KeyboardInterrupt:
            raise click.ClickException(f"interrupted: the gradings that finished are kept in {out}; "
                                       "run the same command again to grade the rest") from None
    summary_mod.render(outcome.summary, console)
    console.print(f"{outcome.graded_now} graded now, {outcome.resumed} resumed, in "
                  f"{outcome.seconds:.1f} s; wrote " + ", ".join(str(p) for p in outcome.files))
    print_notes(console, outcome.groups.notes if outcome.groups is not None else ())
    if outcome.similarity is not None:
        similarity_lines(outcome.similarity, out, console)
    if outcome.groups is not None:
        next_step(console, out)


def next_step(console, batch_dir: Path) -> None:
    """What a TA does after `grader batch` or `grader groups`: mark, then the grade book."""
    console.print(f"next: mark the TA-graded answers with `grader review {batch_dir}` (a browser) or in "
                  f"{batch_dir / 'groups' / 'groups.csv'} (column points), then run `grader grades {batch_dir}`",
                  highlight=False)


@main.command("groups")
@take("batch_dir")
def groups_cmd(batch_dir: Path) -> None:
    """Group the written answers of the finished batch in BATCH_DIR (no regrading): one HTML page
    per question, groups/groups.csv to mark, answer_groups.csv, the review queue."""
    from grader.classroom.groups.batch_groups import GroupsError
    from grader.classroom.groups_command import build_groups

    try:
        outcome = build_groups(batch_dir)
    except (GroupsError, RubricError) as exc:
        raise click.ClickException(str(exc)) from None
    console = cli_output.console()
    counts = ", ".join(f"{slot} {n}" for slot, n in outcome.counts().items())
    console.print(f"{outcome.submissions} submissions, {len(outcome.reviews)} review items; groups per item: "
                  f"{counts}; {outcome.seconds:.1f} s", highlight=False)
    if outcome.imported:
        console.print(f"{outcome.imported} mark{'s' if outcome.imported != 1 else ''} from groups.csv added to "
                      f"{batch_dir / 'marks'} (every mark is kept)", highlight=False)
    next_step(console, batch_dir)
    print_notes(console, outcome.notes)


@main.command("points")
@take("batch_dir", "points_marked", "points_out")
def points_cmd(batch_dir: Path, marked: Path | None, out: Path | None) -> None:
    """Turn marked answer groups into points per submission, keyed like grades.csv.

    The marks of the CSV are first added to the batch's marks store (BATCH_DIR/marks/), which
    keeps every mark ever given; the points come from the store."""
    from grader.classroom.groups.marks import points_table
    from grader.classroom.reports.group_files import write_points

    out = out or batch_dir / "ta_points.csv"
    groups, store = marked_store(batch_dir, marked)
    table = points_table(groups, store, batch_dir / batch_mod.CSV_FILE)
    write_points(table, out)
    console = cli_output.console()
    for slot, n in table.unmarked.items():
        console.print(f"[yellow]{slot}: {n} group{'s' if n != 1 else ''} without points (left empty)[/yellow]")
    for slot, n in table.new.items():
        one = n == 1
        console.print(f"[yellow]{slot}: {n} answer{'' if one else 's'} new since {'its group was' if one else 'their groups were'} "
                      f"marked: pending until a TA marks {'it' if one else 'them'} (`grader review` suggests the earlier "
                      "mark)[/yellow]", highlight=False)
    if table.pending:
        items, subs = table.pending_items, len(table.pending)
        console.print(f"[yellow]pending: {items} item{'s' if items != 1 else ''} in all, in {subs} "
                      f"submission{'s' if subs != 1 else ''} (column pending)[/yellow]", highlight=False)
    console.print(f"wrote {out}: {len(table.rows)} submissions, columns {', '.join(table.header[4:])}",
                  highlight=False)


main.add_command(similarity_cmd)
main.add_command(grades_cmd)
main.add_command(review_cmd)
