"""Verdicts do not move under meaning-preserving transforms (tests/written_transforms.py).

Every transform is applied on its own to every writeup of a slice of the generated corpus
(tests/written_corpus.py) and to the real writeups of ../shared/writeups/real-2024/: a right
answer keeps its score and its review flag; a wrong answer stays below full; on the real
writeups every item keeps its verdict (score and flag) whatever its truth.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import written_corpus as wc
import written_transforms as wt

from a2.written.grade import grade_written
from a2.written.process import InProcess
from grader.run.rubric import load_rubric
from grader.run.submission import _written_files

SEEDS = range(12)
PARTS = load_rubric().written
REAL = Path(__file__).resolve().parents[2] / "shared" / "writeups" / "real-2024"


def _grade(folder: Path, files: list[tuple[str, str]], runner) -> dict[str, tuple[float, bool, float]]:
    paths = []
    for name, text in files:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        paths.append(path)
    results, _, _ = grade_written(paths, PARTS, 3, runner=runner)
    return {r.id: (round(r.score, 4), r.needs_review, r.max_score) for r in results}


def test_the_transforms_are_many_and_each_changes_some_writeup():
    assert len(wt.TRANSFORMS) >= 12
    uploads = [wc.make(seed).files for seed in SEEDS]
    uploads += [[(p.name, p.read_text(encoding="utf-8"))] for p in REAL.glob("*/*") if p.suffix in (".md", ".txt", ".tex")]
    for t in wt.TRANSFORMS:
        assert any(wt.apply(t, files) != files for files in uploads), t.name


def test_corpus_verdicts_do_not_move(tmp_path):
    runner = InProcess()
    moved, cases = [], 0
    for seed in SEEDS:
        w = wc.make(seed)
        base = _grade(tmp_path / str(seed) / "base", w.files, runner)
        for k, transform in enumerate(wt.TRANSFORMS):
            files = wt.apply(transform, w.files)
            if files == w.files:
                continue
            got = _grade(tmp_path / str(seed) / str(k), files, runner)
            for item in wc.ALL_ITEMS:
                truth = w.truth[item]
                if truth == wc.ABSENT:
                    continue
                cases += 1
                score, review, full = got[item]
                if truth == wc.RIGHT and (score, review) != base[item][:2]:
                    moved.append((seed, item, transform.name, base[item], got[item]))
                elif truth != wc.RIGHT and score >= full - 1e-9:
                    moved.append((seed, item, transform.name, "a wrong answer at full"))
    print(f"{len(wt.TRANSFORMS)} transforms, {cases} transformed answers of the corpus")
    assert cases > 300
    assert not moved, moved[:10]


def test_real_writeup_verdicts_do_not_move(tmp_path):
    if not REAL.is_dir():
        pytest.skip(f"{REAL} is not beside the clone")
    runner = InProcess()
    moved, cases = [], 0
    for folder in sorted(p for p in REAL.iterdir() if p.is_dir()):
        files = [(p.name, p.read_text(encoding="utf-8")) for p in _written_files(folder)
                 if p.suffix in (".md", ".txt", ".tex")]
        base = _grade(tmp_path / folder.name / "base", files, runner)
        for k, transform in enumerate(wt.TRANSFORMS):
            changed = wt.apply(transform, files)
            if changed == files:
                continue
            got = _grade(tmp_path / folder.name / str(k), changed, runner)
            for item, verdict in base.items():
                cases += 1
                if got[item][:2] != verdict[:2]:
                    moved.append((folder.name, item, transform.name, verdict, got[item]))
    print(f"{len(wt.TRANSFORMS)} transforms, {cases} transformed items of the real writeups")
    assert not moved, moved[:10]
