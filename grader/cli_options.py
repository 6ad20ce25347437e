"""Every argument and option of the grader's commands, declared once: its name, help, type and
default. A command takes the ones it reads, in the order its help lists them::

    @main.command("grade")
    @take("submission", "results", "seed", "json", "budget")
    def grade_cmd(submission, results_path, seed, as_json, budget): ...

Two options that share a flag but not a meaning (``--seed`` replays a run in `grader grade` and is
the one seed of every submission in `grader batch`) are two entries, each named for what it is.
Imports only the door (the kit's version is its assignment's): the student kit's `grader` takes its
options from here too.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any, TypeVar, cast

import click

from grader import assignment

F = TypeVar("F", bound=Callable[..., Any])
Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

#: The seeds whose reference answers `grader kit` records unless told (grader/kit/assemble.py).
KIT_SEEDS = (101, 202, 303)
#: Seconds one submission's grading may take in `grader batch` before it is stopped.
SUBMISSION_TIMEOUT_S = 1800.0
#: What `--base` is, in `grader similarity` and `grader batch`.
BASE_HELP = ("Another version of the starter code (a folder of the student files, e.g. last year's template), "
             "removed like student_template/ (always a base)")



def _kit_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """The kit's ``grader --version``: the installed kit's version (its distribution is the
    assignment's ``KIT_DIST``)."""
    if value and not ctx.resilient_parsing:
        click.echo(f"{ctx.info_name} {version(assignment.registry().KIT_DIST)}")
        ctx.exit()


_BATCH_DIR = click.Path(exists=True, file_okay=False, path_type=Path)

DECLARED: dict[str, Decorator] = {
    # -- the grader and its commands' common ones
    "version": click.version_option(package_name="a2grader", message="%(prog)s %(version)s"),
    "kit_version": click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_kit_version,
                                help="Show the version and exit."),
    "root": click.option(
        "--root", type=click.Path(file_okay=False, path_type=Path), default=None,
        help="The course repository to act on (rubric.yaml, reference/)  [default: $A2GRADER_ROOT, else the "
             "first folder at or above the current one that holds them, else the grader's checkout]"),
    "seed": click.option("--seed", type=int, default=None, help="Replay the checks of an earlier run."),
    "batch_dir": click.argument("batch_dir", type=_BATCH_DIR),
    # -- grader check (the repository's and the kit's)
    "directory": click.argument("directory", default=".", type=click.Path(exists=True, path_type=Path)),
    "check_seed": click.option(
        "--seed", type=int, default=None,
        help="Replay the checks of an earlier run (the student kit: one of its recorded seeds; default: the first)."),
    "quiet": click.option("--quiet", is_flag=True, help="Only the summary, not each failing check's details."),
    "part": click.option("--part", "part", default=None, metavar="PART",
                         help="Only this part: a part id, a file or a check id, as rubric.yaml names them."),
    "check_json": click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (for scripts)."),
    # -- grader grade
    "submission": click.argument("submission", type=click.Path(exists=False, path_type=Path)),
    "results": click.option("--results", "results_path", type=click.Path(path_type=Path), default=Path("results.json"),
                            show_default=True, help="Where to write Gradescope's results.json."),
    "json": click.option("--json", "as_json", is_flag=True, help="Print the report as JSON instead of a table."),
    "budget": click.option("--budget", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
                           help="Seconds the whole grading may take (default: rubric.yaml's budget)."),
    # -- grader template, package, kit
    "drift_only": click.option("--check", "check_only", is_flag=True, help="Only report drift; exit 1 if any."),
    "zip_out": click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=Path("autograder.zip"),
                            show_default=True, help="Where to write the zip to upload to Gradescope."),
    "plan_only": click.option(
        "--check", "check_only", is_flag=True,
        help="Only list what would go in and warn on what should not; exit 1 if it cannot be built."),
    "skip_validate": click.option(
        "--skip-validate", is_flag=True,
        help="Build without running `grader validate` first (said loudly: the zip may grade wrongly)."),
    "kit_out": click.option(
        "--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
        help="Where to write the student kit [default: <the kit's folder>.zip, e.g. a2_student.zip]."),
    "kit_seeds": click.option("--seeds", default=",".join(map(str, KIT_SEEDS)), show_default=True,
                              help="The seeds whose expected values are recorded (comma-separated)."),
    # -- grader batch
    "submissions": click.argument("submissions", type=click.Path(exists=True, file_okay=False, path_type=Path)),
    "batch_out": click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), required=True,
                              help="Folder for the results, grades.csv, summary.md and plots (rerun to resume)."),
    "workers": click.option("--workers", type=int, default=None,
                            help="Submissions graded at once  [default: the number of cores]"),
    "batch_seed": click.option("--seed", type=int, default=None,
                               help="The checks' seed (the same for every submission)."),
    "quick": click.option("--quick", is_flag=True, help="Skip the checks that train a parser (about 20 s each)."),
    "only": click.option("--only", multiple=True, metavar="CHECK_ID", help="Only this check (repeatable)."),
    "timeout": click.option("--timeout", type=float, default=SUBMISSION_TIMEOUT_S, show_default=True,
                            help="Seconds one submission's grading may take before it is stopped."),
    "restart": click.option("--restart", is_flag=True, help="Grade everything again instead of resuming."),
    "then_similarity": click.option("--similarity", "similar", is_flag=True,
                                    help="Then compare the submissions (as `grader similarity`)."),
    "then_known": click.option(
        "--known", multiple=True, type=click.Path(path_type=Path), metavar="DIR",
        help="Then compare them with the known solutions under DIR too (repeatable; implies --similarity)."),
    "then_base": click.option("--base", "bases", multiple=True, type=click.Path(path_type=Path), metavar="DIR",
                              help=BASE_HELP + " (implies --similarity)"),
    # -- a batch's grading process (python -m grader.classroom.batch, started by `grader batch`)
    "one_submission": click.option("--submission", type=click.Path(path_type=Path), required=True),
    "report_folder": click.option("--folder", type=click.Path(path_type=Path), required=True,
                                  help="where results.json and report.json go"),
    "given_seed": click.option("--seed", type=int, required=True),
    "only_ids": click.option("--only", multiple=True),
    # -- grader points, grades, review
    "points_marked": click.option("--marked", type=click.Path(dir_okay=False, path_type=Path), default=None,
                                  help="The marked groups CSV  [default: BATCH_DIR/groups/groups.csv]"),
    "points_out": click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), default=None,
                               help="Where the points go  [default: BATCH_DIR/ta_points.csv]"),
    "grades_marked": click.option("--marked", type=click.Path(dir_okay=False, path_type=Path), default=None,
                                  help="A marked groups CSV to add first  [default: BATCH_DIR/groups/groups.csv]"),
    "final": click.option(
        "--final", is_flag=True,
        help="Also write what an LMS imports (BATCH_DIR/export/: canvas.csv, gradescope.csv, one feedback "
             "file per student named for the roster); refused while a TA item is pending."),
    "allow_pending": click.option(
        "--allow-pending", is_flag=True,
        help="With --final: export even though items are pending (their cells and the totals they "
             "affect are left empty, never 0)."),
    "column": click.option(
        "--column", "chosen", multiple=True, metavar="ITEM",
        help="With --final: a column of the exports (repeat it): total, autograder, ta, or a TA item's id "
             "(e.g. 1a)  [default: total]"),
    "title": click.option("--title", default=None, help="With --final: the assignment's name in the exports' column "
                                                        "headers  [default: the rubric's assignment]"),
    "port": click.option("--port", type=int, default=8765, show_default=True, help="Port on 127.0.0.1 (0: any free port)."),
    "marker": click.option("--as", "who", default=None, help="Your name, recorded with each mark  [default: your login]"),
}


def take(*names: str) -> Callable[[F], F]:
    """The arguments and options ``names`` (keys of :data:`DECLARED`) given to a click command, listed
    in its help in that order."""
    unknown = [name for name in names if name not in DECLARED]
    if unknown:
        raise KeyError(f"no option declared as {', '.join(unknown)} in grader/cli_options.py: declare it there once")

    def give(command: F) -> F:
        given: Callable[..., Any] = command
        for name in reversed(names):
            given = DECLARED[name](given)
        return cast(F, given)
    return give
