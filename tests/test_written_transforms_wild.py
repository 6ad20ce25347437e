"""The meaning-preserving transforms (tests/written_transforms.py) on every writeup of the wild
rounds (tests/writeups/wild/, each graded by a TA in test_written_wild.VERDICTS), not only on the
generated corpus and the real R1-R7 (test_written_transforms.py).

These writeups were written apart from the reader, in shapes the transforms were not built for;
a transform can therefore meet an answer in a form the reader then no longer reads. What must hold
for every item is the issue's rule, confidence decides silence: a verdict moves only with a review
flag (a TA looks at it), and no item gets more than the TA gives it.

Writeups whose text is not UTF-8 (a Windows-1252 or UTF-16 file, read by the reader's own
decoding) are left out: the transforms rewrite text, and writing it back as UTF-8 would be a
transform of its own.
"""

from __future__ import annotations

from pathlib import Path

import written_transforms as wt
from test_written_wild import PARTS, VERDICTS, WILD, files_of

from a2.written.grade import grade_written
from a2.written.process import InProcess

TEXT = (".md", ".txt", ".tex")


def _upload(folder: Path) -> tuple[list[tuple[str, str]], list[tuple[str, bytes]]] | None:
    texts, other = [], []
    for path in files_of(folder):
        name = str(path.relative_to(folder))
        if path.suffix.lower() in TEXT:
            try:
                texts.append((name, path.read_text(encoding="utf-8")))
            except UnicodeDecodeError:
                return None
        else:
            other.append((name, path.read_bytes()))
    return texts, other


def _grade(root: Path, texts: list[tuple[str, str]], other: list[tuple[str, bytes]], runner):
    paths = []
    for name, data in [(n, t.encode("utf-8")) for n, t in texts] + other:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        paths.append(path)
    results, _, _ = grade_written(paths, PARTS, 11, runner=runner)
    return {r.id: r for r in results}


def test_transforms_move_no_verdict_of_the_wild_writeups_silently(tmp_path):
    runner = InProcess()
    silent, over, flagged_moves, cases, writeups = [], [], [], 0, 0
    for name in sorted(VERDICTS):
        upload = _upload(WILD / name)
        if upload is None:
            continue
        writeups += 1
        texts, other = upload
        base = _grade(tmp_path / name / "base", texts, other, runner)
        for k, transform in enumerate(wt.TRANSFORMS):
            changed = wt.apply(transform, texts)
            if changed == texts:
                continue
            got = _grade(tmp_path / name / str(k), changed, other, runner)
            for item, (_graded, _review, ta) in VERDICTS[name].items():
                cases += 1
                was, now = base[item], got[item]
                if now.score > ta + 1e-9:           # more than the TA gives: false credit, flagged or not
                    over.append((name, item, transform.name, ta, now.score))
                if (now.score, now.needs_review) == (was.score, was.needs_review):
                    continue
                (flagged_moves if now.needs_review else silent).append(
                    (name, item, transform.name, (was.score, was.needs_review), (now.score, now.needs_review)))
    print(f"{len(wt.TRANSFORMS)} transforms, {writeups} wild writeups, {cases} transformed items: "
          f"{len(flagged_moves)} moved with a review flag, {len(silent)} silently, {len(over)} above the TA")
    assert writeups >= 90 and cases > 10_000
    assert not silent, silent[:10]
    assert not over, over[:10]
