"""rubric.yaml against the assignment: the parts and their points follow ASSIGNMENT.md, the written
parts are the reference answers' headings (grader/run/rubric.py's loader is tests/test_rubric.py)."""

from __future__ import annotations

import yaml
from conftest import REPO


def load_parts():
    return {p["id"]: p for p in yaml.safe_load((REPO / "rubric.yaml").read_text())["parts"]}


def test_part_points_match_assignment():
    parts = load_parts()
    code = {k: v["points"] for k, v in parts.items() if v["kind"] == "code"}
    assert code == {"word2vec": 12, "sgd": 4, "3c": 6, "3d": 8, "3e_iii": 14}
    by_part = {"1": 0, "2": 0, "3": 0}
    for key, part in parts.items():
        number = "1" if key in ("word2vec", "sgd") else key[0]
        by_part[number] += part["points"]
    assert by_part == {"1": 31, "2": 8, "3": 54}


def heading_of(part_id: str) -> str:
    """'1b_ii' -> '1(b)(ii)', '3a' -> '3(a)'."""
    number, letter, rest = part_id[0], part_id[1], part_id[2:].lstrip("_")
    return f"{number}({letter})" + (f"({rest})" if rest else "")


def test_written_ids_match_answers_headings():
    answers = (REPO / "reference" / "answers.md").read_text()
    written = [k for k, v in load_parts().items() if v["kind"] == "written"]
    for key in written:
        points = load_parts()[key]["points"]
        unit = "point" if points == 1 else "points"
        assert f"### {heading_of(key)} ({points} {unit})" in answers, key
