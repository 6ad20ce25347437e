"""The student kit's command line: ``grader check`` (and ``--help``, ``--version``).

Installed by ``pip install .`` in the kit's folder (``grader kit`` builds it). The checks are the
grader's own; what they need from the reference comes from ``kit_data/replay.json``.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from grader import paths
from grader.replay import ReplayRef

DIST = "a2-student-kit"


def _read(name: str) -> Any:
    return json.loads((paths.KIT_DATA / name).read_text(encoding="utf-8"))


def out_of_date(directory: Path, built: dict[str, Any]) -> str:
    """A warning when the folder's kit was built from another rubric than the installed command."""
    folder = directory / "KIT.json"
    if not folder.is_file():
        return ""
    try:
        theirs = json.loads(folder.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    if theirs.get("rubric_sha256") != built.get("rubric_sha256"):
        return (f"Warning: this folder's kit ({theirs.get('built', '?')}) and the installed grader "
                f"({built.get('built', '?')}) were built from different rubrics: run `python -m pip install .` "
                "in the newest kit's folder.")
    return ""


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name=DIST, message="%(prog)s %(version)s")
def main() -> None:
    """Check your assignment locally (the visible code checks; no solution inside)."""


@main.command()
@click.argument("directory", default=".", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--seed", type=int, default=None, help="One of the kit's recorded seeds (default: the first).")
@click.option("--quiet", is_flag=True, help="Only the summary, not each failing check's details.")
@click.option("--part", "part", default=None, metavar="PART",
              help="Only this part: a part id (3c, word2vec), a file (sgd.py) or a check id.")
@click.option("--json", "as_json", is_flag=True, help="Print each check's verdict as JSON (for scripts).")
def check(directory: Path, seed: int | None, quiet: bool, part: str | None, as_json: bool) -> None:
    """Check DIRECTORY (default: here) on the visible code checks; exit 0 only if all pass."""
    from grader.checks import all_checks  # noqa: PLC0415 - after --help
    from grader.engine import grade, part_selection  # noqa: PLC0415
    from grader.reports import student  # noqa: PLC0415
    from grader.rubric import load_rubric  # noqa: PLC0415
    from grader.sandbox.portable import PortableRunner  # noqa: PLC0415

    console = Console(highlight=False, soft_wrap=False)
    if importlib.util.find_spec("torch") is None:
        raise click.ClickException("PyTorch is not installed in this environment: run `grader check` in your "
                                   "course environment, or install PyTorch as the course's setup says")
    built = _read("kit.json")
    recorded = _read("replay.json")
    seeds = [int(s) for s in recorded["seeds"]]
    if seed is not None and seed not in seeds:
        raise click.ClickException(f"this kit holds the seeds {', '.join(map(str, seeds))}; --seed must be one of them")
    warning = out_of_date(directory, built)
    if warning:
        console.print(f"[yellow]{warning}[/yellow]")
    rubric = load_rubric(paths.RUBRIC_PATH)
    modules = tuple(recorded["modules"])

    def provider(check_id: str, run_seed: int) -> ReplayRef:
        return ReplayRef(recorded["checks"].get(check_id, {}).get(str(run_seed), {}), modules)

    registry = all_checks()
    only = [s.id for s in rubric.checks if s.student_visible and s.id in registry]
    if part:
        try:
            chosen = set(part_selection(rubric, registry, part))
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        only = [cid for cid in only if cid in chosen]
        if not only:
            raise click.UsageError(f"--part {part!r} has no code check in the kit (written answers are "
                                   "graded when you submit)")

    notes: list[str] = []

    def runner(run_dir: Path) -> PortableRunner:
        made = PortableRunner(run_dir, preload=("numpy",))
        notes.append(made.note)
        return made

    report = grade(directory, rubric=rubric, seed=seeds[0] if seed is None else seed, visible_only=True,
                   only=only, ref_provider=provider, include_written=False, runner_factory=runner,
                   progress=None if quiet or as_json else student.progress_hook(console))
    if as_json:
        click.echo(json.dumps({"seed": report.seed, "checks": [
            {"id": c.id, "score": c.score, "max_score": c.max_score, "status": c.status,
             "feedback": list(c.outcome.feedback)} for c in report.checks]}, indent=1))
        sys.exit(0 if report.all_passed else 1)
    for note in dict.fromkeys(n for n in notes if n):
        console.print(note, markup=False, highlight=False)
    console.print("Written answers are not checked here: they are read and graded when you submit.")
    console.print("This kit names only a few known bugs; the full grader names more when you submit.")
    student.render_check(report, rubric, console, details=not quiet, total=built.get("auto_points"))
    sys.exit(0 if report.all_passed else 1)
