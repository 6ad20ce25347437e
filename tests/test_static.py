"""The static checks run with the suite, so CI runs them: ruff (pyproject's [tool.ruff]) over the
project's own code, and mypy (pyproject's [tool.mypy]) over grader/."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO

BIN = Path(sys.executable).parent


def run_tool(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    tool = BIN / name if (BIN / name).exists() else shutil.which(name)
    assert tool, f"{name} is not installed: pip install -e '.[test]'"
    return subprocess.run([str(tool), *args], cwd=REPO, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing():
    result = run_tool("ruff", "check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_nothing():
    result = run_tool("mypy", "--no-incremental")
    assert result.returncode == 0, result.stdout + result.stderr
