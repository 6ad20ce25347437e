"""Where the grader finds its own files (override with A2GRADER_ROOT for a packaged copy)."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(os.environ.get("A2GRADER_ROOT", Path(__file__).resolve().parent.parent))
REFERENCE_DIR = REPO_ROOT / "reference"
TEMPLATE_DIR = REPO_ROOT / "student_template"
RUBRIC_PATH = REPO_ROOT / "rubric.yaml"
EXAMPLES_DIR = REPO_ROOT / "examples"

# Files a student edits; everything else in the template is support code the grader provides.
STUDENT_FILES = ("word2vec.py", "sgd.py", "parser_transitions.py", "parser_model.py", "run.py")
WRITTEN_FILES = ("answers.md",)
SUPPORT_DIRS = ("utils", "data")
