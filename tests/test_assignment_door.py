"""grader/assignment.py, the one door from the framework to the assignment: the rubric names the
package, its registry must answer every name of CONTRACT, and the framework asks for nothing else."""

from __future__ import annotations

import re
import types

import pytest
from conftest import REPO

from grader import assignment


def test_the_rubric_names_the_assignment_and_its_registry_keeps_the_contract():
    assert assignment.package_name() == "a2"
    module = assignment.registry()
    assert module.__name__ == "a2.registry"
    assert assignment.folder() == REPO / "a2"
    assert assignment.untrusted_folder() == REPO / "a2" / "untrusted"
    assert assignment.student_files()[0] == "word2vec.py" and assignment.written_files()[0] == "answers.md"


def test_the_framework_asks_the_registry_for_contract_names_only():
    """Every ``registry().NAME`` written in grader/ is in CONTRACT (so CONTRACT is the whole interface
    a new assignment implements), and every CONTRACT name is asked for somewhere."""
    asked = set()
    for path in (REPO / "grader").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        asked |= set(re.findall(r"registry\(\)\.([A-Za-z_]\w*)", text))
        asked |= set(re.findall(r"\bcourse\.([A-Za-z_]\w*)", text))   # `course = assignment.registry()`
    asked.discard("__file__")
    assert asked - set(assignment.CONTRACT) == set()
    assert set(assignment.CONTRACT) - asked == set()


def test_a_registry_missing_names_is_refused_with_each_name_and_its_use():
    partial = types.ModuleType("next_year.registry")
    partial.CHECK_MODULES = ()
    with pytest.raises(assignment.AssignmentError) as err:
        assignment.checked(partial)
    message = str(err.value)
    assert "next_year.registry lacks" in message and "STUDENT_FILES (the files a student edits" in message
    assert "CHECK_MODULES" not in message


def test_a_rubric_without_an_assignment_says_how_to_name_one(tmp_path):
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text("budget: 540\nparts: []\nchecks: []\n", encoding="utf-8")
    with pytest.raises(assignment.AssignmentError, match="add a top-level line `assignment: <package>`"):
        assignment.package_name(rubric)
    rubric.write_text("assignment: next_year   # this year's package\nbudget: 540\n", encoding="utf-8")
    assert assignment.package_name(rubric) == "next_year"


def test_the_test_file_registry_keeps_the_whole_contract():
    """A course whose checks are its own test files (rubric.yaml's ``tests:``) gets a registry from
    grader/testfiles/ that answers every CONTRACT name, alone and beside a package's registry; a
    name added to CONTRACT without a default there fails here, not in the slow end-to-end tests."""
    from grader.testfile_registry import test_file_registry

    alone = assignment.checked(test_file_registry({"folder": "tests", "files": ["arrays.py"]}, None))
    assert alone.STUDENT_FILES == ("arrays.py",) and alone.WRITTEN_FILES == ()
    beside = assignment.checked(test_file_registry("tests", assignment.registry()))
    assert beside.WRITTEN_FILES == assignment.registry().WRITTEN_FILES
