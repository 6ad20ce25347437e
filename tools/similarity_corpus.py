#!/usr/bin/env python
"""A class of independent solutions with planted disguised copies of one known solution, for
measuring `grader similarity` (tests/test_similarity.py, and by hand):

    python tools/similarity_corpus.py --out /tmp/corpus --source einsum --copies 3
    grader batch /tmp/corpus/class --out /tmp/corpus/out --only w2v_sigmoid
    grader similarity /tmp/corpus/out --known /tmp/corpus/known

The independent solutions are every solution written apart in this repository: ``reference/``,
``tests/submissions/alternative/``, ``tests/submissions/independent/`` and the authors of
``tools/similarity_authors.py`` (loops, vectorised einsum, helpers and another order, terse).
A solution that lacks a file has the reference's (its origin is then "reference"). One of
them, ``--source``, is the known (public) solution: it goes to ``known/`` and not into the class;
the class holds every other one once and ``--copies`` disguised copies of the source: local
names renamed, comments rewritten, re-spaced (tools/class_copies.py) and independent statements
swapped (:func:`swap_statements`). Some members keep an older quarter's starter code
(:data:`OLD_STARTER`, written to ``old_starter/`` for ``--base``) and have deleted the
region marks ``### YOUR CODE HERE`` / ``### END YOUR CODE`` (which the others keep, as most
students do, and outside which nothing is a student's code).

``corpus_key.yml`` gives each member's origin per file: two files of one origin are a planted
copy, files of different origins were written apart.
"""

from __future__ import annotations

import argparse
import ast
import random
import re
import sys
import textwrap
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
sys.path.insert(0, str(REPO))
from class_copies import disguise, student_markers  # noqa: E402
from similarity_authors import AUTHORS  # noqa: E402

from a2.registry import STUDENT_FILES  # noqa: E402

TEMPLATE = REPO / "student_template"
STUB = re.compile(r"^( *)### YOUR CODE HERE\n.*?### END YOUR CODE\n", re.M | re.S)
FOLDERS = {"reference": REPO / "reference", "alternative": REPO / "tests" / "submissions" / "alternative",
           "independent": REPO / "tests" / "submissions" / "independent"}
DISGUISES = ("rename", "recomment", "reformat")
#: Provided code of an older quarter's parser_transitions.py that some students keep: a test of
#: the quarter's own, not in this template (what `--base` removes).
OLD_STARTER = {"parser_transitions.py": '''

def test_parse_legacy():
    """Simple tests for the PartialParse.parse function (an older quarter's)
    """
    sentence = ["parse", "this", "sentence"]
    dependencies = PartialParse(sentence).parse(["SHIFT", "SHIFT", "SHIFT", "LEFT-ARC", "RIGHT-ARC", "RIGHT-ARC"])
    dependencies = tuple(sorted(dependencies))
    expected = (('ROOT', 'parse'), ('parse', 'sentence'), ('sentence', 'this'))
    assert dependencies == expected,  \\
        "parse test resulted in dependencies {:}, expected {:}".format(dependencies, expected)
    assert tuple(sentence) == ("parse", "this", "sentence"), \\
        "parse test failed: the input sentence should not be modified"
    print("parse test passed!")


def test_minibatch_legacy(batch_sizes=(1, 2, 3)):
    """Older quarter's minibatch test over several batch sizes."""
    sentences = [["right", "arcs", "only"], ["right", "arcs", "only", "again"], ["left", "arcs", "only"]]
    for size in batch_sizes:
        deps = minibatch_parse(sentences, DummyModel(), size)
        for got in deps:
            if len(got) == 0:
                raise AssertionError("minibatch_parse returned no arcs with batch size %d" % size)
    print("minibatch_parse legacy test passed for sizes", list(batch_sizes))
'''}


def fill(template: str, regions: tuple[str, ...]) -> str:
    """``template`` with its stubs replaced, in order, by ``regions`` (indented as the stub)."""
    bodies = iter(regions)

    def one(match: re.Match) -> str:
        body = textwrap.dedent(next(bodies)).strip("\n")
        lines = "".join(f"{match.group(1)}{line}\n" if line.strip() else "\n" for line in body.splitlines())
        return f"{match.group(1)}### YOUR CODE HERE\n{lines}{match.group(1)}### END YOUR CODE\n"

    return STUB.sub(one, template)


def solutions() -> dict[str, tuple[dict[str, str], dict[str, str]]]:
    """Every independent solution: (files, origin of each file)."""
    out = {}
    template = {name: (TEMPLATE / name).read_text(encoding="utf-8") for name in STUDENT_FILES}
    reference = {name: student_markers((FOLDERS["reference"] / name).read_text(encoding="utf-8"))
                 for name in STUDENT_FILES}
    for name, folder in FOLDERS.items():
        own = {f: student_markers((folder / f).read_text(encoding="utf-8")) for f in STUDENT_FILES
               if (folder / f).is_file()}
        out[name] = (reference | own, {f: (name if f in own else "reference") for f in STUDENT_FILES})
    for name, files in AUTHORS.items():
        filled = {f: fill(template[f], regions) for f, regions in files.items()}
        out[name] = (reference | filled, {f: (name if f in filled else "reference") for f in STUDENT_FILES})
    return out


def _roots(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _writes(stmt: ast.stmt) -> set[str]:
    """Names a statement may change: assigned names, the roots of assigned subscripts and
    attributes, and the roots of any call's object (``self.stack.append(...)`` changes ``self``)."""
    out: set[str] = set()
    for node in ast.walk(stmt):
        if isinstance(node, (ast.Name,)) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, ast.Store):
            out |= _roots(node.value)
        elif isinstance(node, ast.Call):
            out |= _roots(node.func)
            for arg in node.args:
                out |= _roots(arg)
    return out


def swap_statements(text: str, rng: random.Random, chance: float = 0.6) -> str:
    """Adjacent one-line statements of a function body swapped where neither reads or changes
    what the other changes (so the code computes the same)."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    swaps: list[tuple[int, int]] = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.For, ast.While, ast.If, ast.With)):
            continue
        body = node.body
        i = 0
        while i + 1 < len(body):
            a, b = body[i], body[i + 1]
            simple = all(isinstance(s, (ast.Assign, ast.AugAssign, ast.Expr)) and s.lineno == s.end_lineno
                         and not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)) for s in (a, b))
            if (simple and b.lineno == a.lineno + 1 and not (_writes(a) & _roots(b)) and not (_writes(b) & _roots(a))
                    and rng.random() < chance):
                swaps.append((a.lineno - 1, b.lineno - 1))
                i += 2
            else:
                i += 1
    for x, y in swaps:
        lines[x], lines[y] = lines[y], lines[x]
    return "".join(lines)


def unmarked(text: str) -> str:
    """``text`` without the course's region marks (a student who deleted them)."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if line.strip() not in ("### YOUR CODE HERE", "### END YOUR CODE"))


def planted(files: dict[str, str], rng: random.Random) -> dict[str, str]:
    """A disguised copy: statements swapped, then renamed, recommented, re-spaced."""
    return {name: disguise(name, swap_statements(text, rng), DISGUISES, random.Random(rng.random()))
            for name, text in files.items()}


def make_corpus(out: Path, *, source: str = "einsum", copies: int = 3, old_starter: int = 2,
                seed: int = 0) -> dict:
    """Write ``class/``, ``known/``, ``old_starter/`` and ``corpus_key.yml`` under ``out``; return the key."""
    rng = random.Random(seed)
    every = solutions()
    if source not in every:
        raise SystemExit(f"--source {source}: not a solution; one of {', '.join(every)}")
    members: dict[str, tuple[dict[str, str], dict[str, str]]] = {}
    for name, (files, origin) in every.items():
        if name != source:
            members[f"independent_{name}"] = (files, origin)
    src_files, src_origin = every[source]
    for i in range(copies):
        members[f"copy_{i}_of_{source}"] = (planted(src_files, random.Random(rng.random())), src_origin)
    olds = sorted(n for n in members if n.startswith("independent_"))
    for name in rng.sample(olds, min(old_starter, len(olds))):
        files, origin = members[name]
        members[name] = (files | {f: unmarked(files[f]) + extra for f, extra in OLD_STARTER.items()}, origin)
    order = list(members)
    rng.shuffle(order)
    key = {}
    for n, name in enumerate(order):
        files, origin = members[name]
        folder = out / "class" / f"submission_{n:03d}"
        folder.mkdir(parents=True)
        for f, text in files.items():
            (folder / f).write_text(text, encoding="utf-8")
        (folder / "answers.md").write_text((TEMPLATE / "answers.md").read_text(encoding="utf-8"), encoding="utf-8")
        key[folder.name] = {"member": name, "origin": origin}
    known = out / "known" / "someone" / f"cs224n-{source}" / "a2"
    known.mkdir(parents=True)
    for f, text in src_files.items():
        (known / f).write_text(text, encoding="utf-8")
    old = out / "old_starter"
    old.mkdir()
    for f, extra in OLD_STARTER.items():
        (old / f).write_text((TEMPLATE / f).read_text(encoding="utf-8") + extra, encoding="utf-8")
    (out / "corpus_key.yml").write_text(yaml.safe_dump({"source": source, "known": str(known), "members": key}),
                                        encoding="utf-8")
    return {"source": source, "known": str(known), "members": key}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--source", default="einsum", help="the known solution the copies are made of")
    parser.add_argument("--copies", type=int, default=3)
    parser.add_argument("--old-starter", type=int, default=2, help="members that keep an older starter's code")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.out.exists() and any(args.out.iterdir()):
        raise SystemExit(f"{args.out} is not empty; pass a new folder")
    key = make_corpus(args.out, source=args.source, copies=args.copies, old_starter=args.old_starter, seed=args.seed)
    print(f"{len(key['members'])} submissions in {args.out / 'class'}, the known solution in {key['known']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
