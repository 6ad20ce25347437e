"""Where the grader finds its own files (override with A2GRADER_ROOT for a packaged copy).

Installed from the student kit, the package carries its own data in ``grader/kit_data/`` (the
rubric it was built from, the starter files and the recorded expected values): that folder's
presence is what makes this copy the kit (``IN_KIT``).
"""

from __future__ import annotations

import os
from pathlib import Path

KIT_DATA = Path(__file__).resolve().parent / "kit_data"
IN_KIT = (KIT_DATA / "kit.json").is_file()

REPO_ROOT = Path(os.environ.get("A2GRADER_ROOT", Path(__file__).resolve().parent.parent))
REFERENCE_DIR = REPO_ROOT / "reference"
TEMPLATE_DIR = KIT_DATA / "starter" if IN_KIT else REPO_ROOT / "student_template"
RUBRIC_PATH = KIT_DATA / "rubric.yaml" if IN_KIT else REPO_ROOT / "rubric.yaml"
EXAMPLES_DIR = REPO_ROOT / "examples"



def missing_root() -> str:
    """Why this copy of the instructor's grader cannot run (empty if it can): it reads the rubric,
    the reference and the template from its repository, which a non-editable install leaves behind."""
    if IN_KIT or RUBRIC_PATH.is_file():
        return ""
    return (f"cannot find rubric.yaml in {REPO_ROOT}: the instructor's grader runs from its repository. "
            "Install it with `pip install -e .` in the repository (editable), or set A2GRADER_ROOT to the "
            "repository's folder.")


# Files a student edits; everything else in the template is support code the grader provides.
STUDENT_FILES = ("word2vec.py", "sgd.py", "parser_transitions.py", "parser_model.py", "run.py")
WRITTEN_FILES = ("answers.md", "answers.txt")
"""The written part: Markdown (the template's), or plain text with Unicode or ASCII math; .tex files too."""
SUPPORT_DIRS = ("utils", "data")
