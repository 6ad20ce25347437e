#!/usr/bin/env python
"""Time `grader similarity` on a class of 300 submissions against a known folder of 40 solutions.

    .venv/bin/python bench/similarity.py                 # 300 x 40, prints the figure
    .venv/bin/python bench/similarity.py --count 60 --known 10 --keep /tmp/simbench

A real class has few similar pairs, and the committed solutions are too few to make 300 that
differ, so most submissions here are the template with every stub filled with generated code
of a solution's length (random statements over random names: two of them share only what
chance gives), and their written answers random sentences over the reference's words. A tenth
are disguised copies of another submission (tools/class_copies.py) and a few copy a known
solution; the known folder holds 40 solutions at various depths (the reference, the alternative
solution and generated ones). The run is `grader similarity`'s own, written answers read by the
writeup reader's child process as always; the figure is its wall time on this machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
from class_copies import disguise, student_markers  # noqa: E402

from a2.registry import STUDENT_FILES  # noqa: E402

TEMPLATE = REPO / "student_template"
STUB = re.compile(r"^( *)### YOUR CODE HERE\n.*?### END YOUR CODE\n", re.M | re.S)
NAMES = ("x", "y", "grad", "loss", "probs", "scores", "delta", "h", "w", "idx", "batch", "stack", "buf",
         "u", "v", "emb", "out", "tmp", "acc", "k", "n", "total", "mask", "z", "logits", "deps", "parse")
CALLS = ("np.dot", "np.sum", "np.exp", "np.log", "np.outer", "np.zeros_like", "np.maximum", "len", "sigmoid",
         "softmax", "torch.relu", "self.model", "np.add.at", "min", "max", "list", "np.mean")
OPS = ("+", "-", "*", "/", "@")
DISGUISES = ("rename", "reorder", "recomment", "reformat")


def _expr(rng: random.Random, depth: int = 0) -> str:
    r = rng.random()
    if depth > 2 or r < 0.3:
        return rng.choice(NAMES) if rng.random() < 0.8 else str(rng.randint(0, 9))
    if r < 0.6:
        return f"{_expr(rng, depth + 1)} {rng.choice(OPS)} {_expr(rng, depth + 1)}"
    if r < 0.8:
        args = ", ".join(_expr(rng, depth + 1) for _ in range(rng.randint(1, 3)))
        return f"{rng.choice(CALLS)}({args})"
    return f"{rng.choice(NAMES)}[{_expr(rng, depth + 1)}]"


def _block(rng: random.Random, indent: str, lines: int, depth: int = 0) -> str:
    out = []
    while len(out) < lines:
        r = rng.random()
        if depth < 2 and r < 0.15:
            out.append(f"{indent}for {rng.choice(NAMES)} in range({_expr(rng)}):")
            out += _block(rng, indent + "    ", rng.randint(1, 4), depth + 1).splitlines()
        elif depth < 2 and r < 0.25:
            out.append(f"{indent}if {_expr(rng)} > {_expr(rng)}:")
            out += _block(rng, indent + "    ", rng.randint(1, 3), depth + 1).splitlines()
        else:
            out.append(f"{indent}{rng.choice(NAMES)} = {_expr(rng)}")
    return "\n".join(out) + "\n"


def generated(rng: random.Random) -> dict[str, str]:
    """The template's files with every stub filled by generated statements."""
    files = {}
    for name in STUDENT_FILES:
        text = (TEMPLATE / name).read_text(encoding="utf-8")
        files[name] = STUB.sub(lambda m: _block(rng, m.group(1), rng.randint(4, 18)), text)
    return files


def _answers(rng: random.Random, words: list[str]) -> str:
    text = (TEMPLATE / "answers.md").read_text(encoding="utf-8")
    marker = "<!-- Write your answer below this line. -->\n"
    parts = text.split(marker)
    body = [parts[0]]
    for part in parts[1:]:
        sentence = " ".join(rng.choice(words) for _ in range(rng.randint(20, 70)))
        body.append(marker + sentence.capitalize() + ".\n" + part)
    return "".join(body)


def make(root: Path, *, count: int, known: int, seed: int) -> tuple[Path, Path, int]:
    rng = random.Random(seed)
    words = re.findall(r"[a-z]{3,}", (REPO / "reference" / "answers.md").read_text(encoding="utf-8").lower())
    classdir, knowndir = root / "class", root / "known"
    known_sets = [{n: student_markers((REPO / "reference" / n).read_text(encoding="utf-8")) for n in STUDENT_FILES},
                  {n: p.read_text(encoding="utf-8") for n in STUDENT_FILES
                   if (p := REPO / "tests" / "submissions" / "alternative" / n).is_file()}]
    while len(known_sets) < known:
        known_sets.append(generated(rng))
    for i, files in enumerate(known_sets):
        folder = knowndir / f"repo{i:02d}" / Path(*["src", "a2", "code"][: i % 4])
        folder.mkdir(parents=True)
        for name, text in files.items():
            (folder / name).write_text(text, encoding="utf-8")
    made: list[dict[str, str]] = []
    planted = 0
    for i in range(count):
        r = rng.random()
        if made and r < 0.1:
            source, planted = rng.choice(made), planted + 1
        elif r < 0.13:
            source, planted = known_sets[rng.randrange(len(known_sets))], planted + 1
        else:
            source = None
        if source is None:
            files = generated(rng) | {"answers.md": _answers(rng, words)}
        else:
            steps = tuple(s for s in DISGUISES if rng.random() < 0.5)
            files = {n: (disguise(n, t, steps, random.Random(rng.random())) if n.endswith(".py") else t)
                     for n, t in source.items()}
        made.append(files)
        folder = classdir / f"submission_{i:04d}"
        folder.mkdir(parents=True)
        for name, text in files.items():
            (folder / name).write_text(text, encoding="utf-8")
    return classdir, knowndir, planted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=300, help="submissions in the class")
    parser.add_argument("--known", type=int, default=40, help="solutions in the known folder")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, default=None, help="make the class here and keep it")
    parser.add_argument("--threshold", type=float, default=None, help="a fixed threshold (default: calibrated)")
    args = parser.parse_args(argv)
    from grader.classroom.similarity_command import run_similarity

    with tempfile.TemporaryDirectory(prefix="simbench-") as tmp:
        root = args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        classdir, knowndir, planted = make(root, count=args.count, known=args.known, seed=args.seed)
        out = root / "out"
        out.mkdir()
        (out / "batch.json").write_text(json.dumps({"source": str(classdir), "seed": 0, "checks": []}), encoding="utf-8")
        started, cpu = time.monotonic(), time.process_time()
        outcome = run_similarity(out, known=[knowndir], threshold=args.threshold)
        seconds, cpu_s = time.monotonic() - started, time.process_time() - cpu
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"grader similarity: {args.count} submissions x {args.known} known solutions ({outcome.known} known files), "
          f"{outcome.compared} pairs of files compared, {outcome.line.split(';')[0]} "
          f"({planted} submissions planted as copies)")
    print(f"wall {seconds:.1f} s, this process's CPU {cpu_s:.1f} s, on {os.cpu_count()} cores, peak memory "
          f"{peak_mb:.0f} MB (target: 300 x 40 within 300 s on 2 cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
