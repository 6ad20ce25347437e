"""The student kit's command line: ``grader check`` (and ``--help``, ``--version``).

Installed by ``pip install .`` in the kit's folder (``grader kit`` builds it). The checks are the
grader's own; what they need from the reference comes from ``kit_data/replay.json``.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from grader.check_command import CHECK_OPTIONS, CheckSetup, run_check
from grader.cli_options import take
from grader.common import paths
from grader.run.replay import ReplayRef
from grader.run.rubric import load_rubric
from grader.run.settings import GradingSettings
from grader.sandbox.portable import PortableRunner


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
@take("kit_version")
def main() -> None:
    """Check your assignment locally (the visible code checks; no solution inside)."""


def _kit_check(directory: Path, seed: int | None, out: Console) -> CheckSetup:
    """`grader check` in the kit: its copy of the rubric (visible checks only), the portable
    runner, the reference's answers recorded for the kit's seeds, and no written answers."""
    if importlib.util.find_spec("torch") is None:
        raise click.ClickException("PyTorch is not installed in this environment: run `grader check` in your "
                                   "course environment, or install PyTorch as the course's setup says")
    built = _read("kit.json")
    recorded = _read("replay.json")
    seeds = [int(s) for s in recorded["seeds"]]
    if seed is not None and seed not in seeds:
        raise click.ClickException(f"this kit holds the seeds {', '.join(map(str, seeds))}; --seed must be one of them")
    warning = out_of_date(directory, built)
    rubric = load_rubric(paths.RUBRIC_PATH)
    modules = tuple(recorded["modules"])

    def provider(check_id: str, run_seed: int) -> ReplayRef:
        return ReplayRef(recorded["checks"].get(check_id, {}).get(str(run_seed), {}), modules)

    notes: list[str] = []

    def runner(run_dir: Path) -> PortableRunner:
        made = PortableRunner(run_dir, preload=("numpy",))
        notes.append(made.note)
        return made

    settings = GradingSettings(rubric=rubric, seed=seeds[0] if seed is None else seed, include_written=False,
                               runner_factory=runner, ref_provider=provider)
    return CheckSetup(rubric, settings, code_only=True, total=built.get("course_points"), runner_notes=notes,
                      nothing_left="has no code check in the kit (written answers are graded when you submit)",
                      preface=("Written answers are not checked here: they are read and graded when you submit.",
                               "This kit names only a few known bugs; the full grader names more when you submit."),
                      warnings=(warning,) if warning else ())


@main.command()
@take(*CHECK_OPTIONS)
def check(directory: Path, seed: int | None, quiet: bool, part: str | None, as_json: bool) -> None:
    """Check DIRECTORY (default: here) on the visible code checks; exit 0 only if all pass."""
    run_check(_kit_check, directory, seed, quiet, part, as_json)
