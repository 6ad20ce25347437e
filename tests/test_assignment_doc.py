"""docs/ASSIGNMENT.md (the assignment's specification in the repository) agrees with rubric.yaml,
and the README sends a newcomer there, never to a file a fresh clone does not have."""

from __future__ import annotations

import re

from conftest import REPO

from grader.run.rubric import load_rubric

DOC = REPO / "docs" / "ASSIGNMENT.md"


def test_every_part_and_its_points_are_in_the_assignment_doc():
    text = DOC.read_text(encoding="utf-8")
    rubric = load_rubric()
    for part in rubric.parts:
        if part.kind == "written":
            row = re.search(rf"^\| `{re.escape(part.id)}` \|[^|]*\| (\d+(?:\.\d+)?) \|", text, re.M)
            assert row, f"written part {part.id} has no row in {DOC.name}"
            assert float(row.group(1)) == part.points, part.id
        else:
            named = [f"`{f}`" for f in part.files]
            said = re.findall(rf"(?:`{re.escape(part.id)}` |{'|'.join(map(re.escape, named))} )\((\d+) points\)", text)
            assert said and all(float(p) == part.points for p in said), (part.id, said)
    auto = sum(p.auto for p in rubric.written)
    manual = sum(p.manual_points for p in rubric.written)
    total = sum(p.points for p in rubric.parts)
    assert f"(the autograder) | {auto:g} |" in text and f"graded by a TA | {manual:g} |" in text
    assert f"| code | {rubric.code_points:g} |" in text and f"**total** | **{total:g}**" in text


def test_the_readme_is_complete_in_the_repository():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "docs/ASSIGNMENT.md" in readme.split("\n\n")[1]      # said in the first paragraph
    assert "shared/ASSIGNMENT" not in readme
    # Outside files only as the data of an optional test (a corpus a fresh clone may not have),
    # never as something the instructor's path needs.
    outside = [para for para in readme.split("\n\n") if re.search(r"\.\./", para)]
    assert all("tests/" in para for para in outside), [para[:200] for para in outside if "tests/" not in para]
