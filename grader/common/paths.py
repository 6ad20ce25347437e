"""Where the grader finds the course repository it acts on: rubric.yaml, reference/ and
student_template/.

The ``grader`` command chooses it before anything else is imported (:func:`choose_root`, called by
``grader/__main__.py``): ``--root DIR``, else ``$A2GRADER_ROOT``, else the first folder at or above
the current one that holds rubric.yaml and reference/, else the checkout the grader runs from. The
choice is passed on in ``A2GRADER_ROOT`` (and how it was made in ``A2GRADER_ROOT_FROM``), so every
process the grader starts (gradings, the writeup reader) acts on the same repository.

Installed from the student kit, the package carries its own data in ``grader/kit_data/`` (the
rubric it was built from, the starter files and the recorded expected values): that folder's
presence is what makes this copy the kit (``IN_KIT``).
"""

from __future__ import annotations

import os
from pathlib import Path

KIT_DATA = Path(__file__).resolve().parents[1] / "kit_data"
IN_KIT = (KIT_DATA / "kit.json").is_file()

INSTALL_ROOT = Path(__file__).resolve().parents[2]
"""The checkout this grader's code runs from."""
ROOT_VARIABLE, ROOT_FROM_VARIABLE = "A2GRADER_ROOT", "A2GRADER_ROOT_FROM"
REPO_ROOT = Path(os.environ.get(ROOT_VARIABLE) or INSTALL_ROOT)
ROOT_FROM = os.environ.get(ROOT_FROM_VARIABLE) or (ROOT_VARIABLE if os.environ.get(ROOT_VARIABLE) else
                                                    "the checkout the grader runs from")
REFERENCE_DIR = REPO_ROOT / "reference"
TEMPLATE_DIR = KIT_DATA / "starter" if IN_KIT else REPO_ROOT / "student_template"
RUBRIC_PATH = KIT_DATA / "rubric.yaml" if IN_KIT else REPO_ROOT / "rubric.yaml"
EXAMPLES_DIR = REPO_ROOT / "examples"



def is_course_root(folder: Path) -> bool:
    return (folder / "rubric.yaml").is_file() and (folder / "reference").is_dir()


def find_root(start: Path) -> Path | None:
    """The first folder at or above ``start`` that holds rubric.yaml and reference/."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if is_course_root(folder):
            return folder
    return None


def root_option(argv: list[str]) -> tuple[str | None, list[str]]:
    """``--root DIR`` (or ``--root=DIR``) given before the command, and the other arguments."""
    rest, value, i = [], None, 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--root" and i + 1 < len(argv):
            value, i = argv[i + 1], i + 2
            continue
        if arg.startswith("--root="):
            value, i = arg.split("=", 1)[1], i + 1
            continue
        if not arg.startswith("-"):       # the command: what follows is its own
            rest += argv[i:]
            break
        rest.append(arg)
        i += 1
    return value, rest


def choose_root(argv: list[str], cwd: Path, environ: dict[str, str]) -> tuple[Path | None, str, str]:
    """(root, how it was chosen, problem) for the ``grader`` command; ``root`` None leaves the
    default (this checkout). ``problem`` is a one-line error when ``--root`` names no course."""
    given, _ = root_option(argv)
    if given is not None:
        folder = Path(given).expanduser().resolve()
        if not is_course_root(folder):
            return None, "", (f"--root {given}: {folder} is not a course repository (it needs rubric.yaml and "
                              "reference/); pass the folder that holds them")
        return folder, "--root", ""
    if environ.get(ROOT_VARIABLE):
        return Path(environ[ROOT_VARIABLE]), environ.get(ROOT_FROM_VARIABLE) or ROOT_VARIABLE, ""
    found = find_root(cwd)
    if found is not None:
        return found, "found at or above the current folder", ""
    return None, "", ""


def root_line() -> str:
    """The first line of validate, package, kit and batch: which repository they act on."""
    return f"course repository: {REPO_ROOT} ({ROOT_FROM})"


def missing_root() -> str:
    """Why this copy of the instructor's grader cannot run (empty if it can): it reads the rubric,
    the reference and the template from its repository, which a non-editable install leaves behind."""
    if IN_KIT or RUBRIC_PATH.is_file():
        return ""
    return (f"cannot find rubric.yaml in {REPO_ROOT}: the instructor's grader runs from its repository. "
            "Install it with `pip install -e .` in the repository (editable), or set A2GRADER_ROOT to the "
            "repository's folder.")
