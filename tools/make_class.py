#!/usr/bin/env python
"""Generate a class of submissions shaped like a Gradescope export, from committed material.

From the repository root:

    python tools/make_class.py --out /tmp/class            # 20 submissions
    python tools/make_class.py --out /tmp/class --count 8 --seed 3
    python tools/make_class.py --out /tmp/zips --layout zips
    python tools/make_class.py --out /tmp/written --count 300 --written-only   # answer groups
    python tools/make_class.py --out /tmp/similar --similarity   # planted copies (grader similarity)

With ``--written-only`` every submission is an answers.md alone (or, for half of them, the
course's LaTeX template: q1.tex, q2.tex, q3.tex), its answers drawn from
tools/class_writeups.py (equivalent spellings, the common wrong forms, empty answers, prose of
different quality); ``class_key.yml`` records the kind of each answer, for the answer groups.

Nothing here is committed 20 times: every submission is assembled from reference/, the
realistic bugs of tests/submissions/buggy/ (their files laid over the reference's, as the
tests do), the correct variants of tests/submissions/alternative/, student_template/ and a few
broken uploads. With ``--layout gradescope`` (the default) the folder looks like Gradescope's
"Export Submissions": ``submission_<id>/`` folders and a ``submission_metadata.yml`` naming
each one's submitters. With ``--layout zips`` each submission is a ``<name>.zip`` and there is
no metadata. Either way ``class_key.yml`` records what each submission is (and which checks a
buggy one must fail); ``grader batch`` ignores it.

With ``--similarity`` the class is made for ``grader similarity``: disguised copies of the
reference, of tests/submissions/alternative/ and of each other (tools/class_copies.py: renamed
variables, reordered functions, rewritten comments, reformatted, a helper extracted), the
independent solutions themselves, the untouched template and the template with one function
copied in; ``class_key.yml`` gives each file's ``origin``: two files of one origin are a planted
copy, files of different origins are independent.

The output depends only on --seed and --count and on the committed material.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from class_copies import disguise, reword, student_markers  # tools/ is not a package
from class_tex import tex_files
from class_writeups import draw_answers, markdown_files

from a2.registry import STUDENT_FILES

REPO = Path(__file__).resolve().parent.parent
REFERENCE = REPO / "reference"
TEMPLATE = REPO / "student_template"
BUGGY = REPO / "tests" / "submissions" / "buggy"
ALTERNATIVE = REPO / "tests" / "submissions" / "alternative"
WRITTEN = "answers.md"

DEFAULT_COUNT = 20
#: Shares of a class that are not buggy: correct, correct but written differently, correct in a
#: nested folder, not started (the template), empty, and with a syntax error.
FIXED_KINDS = ("correct", "alternative", "nested", "template", "empty", "syntax_error")
#: Of a class of DEFAULT_COUNT, this many are correct plain copies; the rest are buggy.
CORRECT_COPIES = 2
FIRST_SUBMISSION_ID = 271_800_01
FIRST_NAMES = ("Ada", "Bo", "Chiara", "Dmitri", "Esi", "Farid", "Grace", "Hiro", "Ines", "Jonas",
               "Kemal", "Lena", "Mateo", "Nia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tala",
               "Uma", "Viktor", "Wen", "Ximena", "Yusuf", "Zoe")
LAST_NAMES = ("Abara", "Brandt", "Castillo", "Dube", "Eriksen", "Fontaine", "Gupta", "Haddad",
              "Ito", "Jovanovic", "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor",
              "Petrov", "Quispe", "Rossi", "Sato", "Tanaka", "Umarov", "Vargas", "Weber", "Yilmaz")
#: Of a --written-only class, the share that answers in the course's LaTeX template (q1-q3.tex).
LATEX_SHARE = 0.5
SYNTAX_ERROR = "\n\ndef sigmoid(x)\n    return 1 / (1 + np.exp(-x))\n"


@dataclass
class Member:
    """One submission of the class and what it is."""

    folder: str
    kind: str
    submitters: list[dict[str, str]]
    description: str
    fails: list[str] | None = None          # checks a buggy submission must fail (expect.yaml)
    files: dict[str, bytes] = field(default_factory=dict, repr=False)
    written: dict[str, str] | None = None   # --written-only: the kind of each written answer
    origin: dict[str, str] | None = None    # --similarity: where each file comes from


def _files_of(kind: str, bug: Path | None) -> tuple[dict[str, bytes], str, list[str] | None]:
    ref = {name: (REFERENCE / name).read_bytes() for name in (*STUDENT_FILES, WRITTEN)}
    if kind == "correct":
        return ref, "the reference solution", []
    if kind == "alternative":
        files = ref | {p.name: p.read_bytes() for p in sorted(ALTERNATIVE.glob("*.py"))}
        return files, "correct, written differently (tests/submissions/alternative)", []
    if kind == "nested":
        return ({f"assignment2/{name}": data for name, data in ref.items()},
                "the reference inside a single top folder", [])
    if kind == "template":
        return ({name: (TEMPLATE / name).read_bytes() for name in (*STUDENT_FILES, WRITTEN)},
                "the student template, not started", None)
    if kind == "empty":
        return {}, "an empty upload", None
    if kind == "syntax_error":
        broken = ref["word2vec.py"] + SYNTAX_ERROR.encode()
        return ref | {"word2vec.py": broken}, "word2vec.py has a syntax error; the rest is correct", None
    assert bug is not None
    expect = yaml.safe_load((bug / "expect.yaml").read_text(encoding="utf-8"))
    files = ref | {p.name: p.read_bytes() for p in sorted(bug.glob("*.py"))}
    return files, f"bug {bug.name}: {expect['description']}", list(expect["fails"])


def _people(rng: random.Random, count: int) -> list[list[dict[str, str]]]:
    people = rng.sample([(first, last) for first in FIRST_NAMES for last in LAST_NAMES], count)
    return [[{":name": f"{first} {last}", ":sid": str(rng.randrange(10**7, 10**8)),
              ":email": f"{first.lower()}.{last.lower()}@example.edu"}] for first, last in people]


def plan_written_class(*, count: int, seed: int = 0) -> list[Member]:
    """A class of ``count`` submissions that hold only an answers.md (the written part)."""
    rng = random.Random(seed)
    members = []
    for i, submitters in enumerate(_people(rng, count)):
        layout = "latex" if rng.random() < LATEX_SHARE else "markdown"
        drawn = draw_answers(rng)
        files = tex_files(drawn, rng) if layout == "latex" else markdown_files(drawn, rng)
        kinds = {qid: kind for qid, (kind, _) in drawn.items()}
        members.append(Member(f"submission_{FIRST_SUBMISSION_ID + i}", "written", submitters,
                              f"written answers only ({layout})", None,
                              written=kinds, files={name: text.encode() for name, text in files.items()}))
    return members


def plan_class(*, count: int = DEFAULT_COUNT, seed: int = 0) -> list[Member]:
    """The members of a class of ``count`` submissions (count >= len(FIXED_KINDS))."""
    if count < len(FIXED_KINDS):
        raise SystemExit(f"--count must be at least {len(FIXED_KINDS)} (one of each kind: "
                         f"{', '.join(FIXED_KINDS)}); got {count}")
    rng = random.Random(seed)
    bugs = sorted(p for p in BUGGY.iterdir() if (p / "expect.yaml").is_file() and any(p.glob("*.py")))  # code bugs
    n_correct = min(CORRECT_COPIES, count - len(FIXED_KINDS)) + 1
    n_buggy = count - len(FIXED_KINDS) - (n_correct - 1)
    chosen = rng.sample(bugs, min(n_buggy, len(bugs)))
    chosen += [rng.choice(bugs) for _ in range(n_buggy - len(chosen))]
    kinds: list[tuple[str, Path | None]] = [("correct", None)] * n_correct
    kinds += [(k, None) for k in FIXED_KINDS if k != "correct"]
    kinds += [("buggy", bug) for bug in chosen]
    rng.shuffle(kinds)
    people = rng.sample([(first, last) for first in FIRST_NAMES for last in LAST_NAMES], count + 1)
    members = []
    for i, (kind, bug) in enumerate(kinds):
        first, last = people[i]
        submitters = [{":name": f"{first} {last}", ":sid": str(rng.randrange(10**7, 10**8)),
                       ":email": f"{first.lower()}.{last.lower()}@example.edu"}]
        if i == 0:  # a group submission: two submitters
            first, last = people[count]
            submitters.append({":name": f"{first} {last}", ":sid": str(rng.randrange(10**7, 10**8)),
                               ":email": f"{first.lower()}.{last.lower()}@example.edu"})
        files, description, fails = _files_of(kind, bug)
        members.append(Member(f"submission_{FIRST_SUBMISSION_ID + i}", kind, submitters,
                              description, fails, files))
    return members


#: The similarity class: (origin of the code, origin of the written answers, disguises applied).
#: Origins: "reference", "alternative" (tests/submissions/alternative), "independent"
#: (tests/submissions/independent: written apart from both), "template" (sgd.py and run.py are the
#: reference's where a solution has none of its own); the written answers' are "reference", "independent" (written apart from the
#: reference: tests/submissions/independent/answers.md) and "template". A copy's written answers
#: are reworded (class_copies.reword).
SIMILARITY_PLAN: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("reference", "reference", ()),
    ("reference", "reference", ("rename", "recomment")),
    ("reference", "template", ("reorder", "reformat")),
    ("reference", "reference", ("helper", "rename", "reorder", "recomment", "reformat")),
    ("alternative", "independent", ()),
    ("alternative", "independent", ("rename", "reformat", "recomment")),
    ("alternative", "template", ("helper", "reorder", "rename")),
    ("independent", "reference", ()),
    ("independent", "template", ("rename", "reorder", "recomment")),
    ("template", "template", ()),
)
INDEPENDENT = REPO / "tests" / "submissions" / "independent"
#: The member that is the template plus one function of the reference: (file, function).
GRAFTED = ("word2vec.py", "negSamplingLossAndGradient")
DISGUISES = ("rename", "reorder", "recomment", "reformat", "helper")


def _solution_files(origin: str) -> dict[str, str]:
    ref = {name: student_markers((REFERENCE / name).read_text(encoding="utf-8")) for name in STUDENT_FILES}
    if origin == "reference":
        return ref
    if origin in ("alternative", "independent"):
        folder = ALTERNATIVE if origin == "alternative" else INDEPENDENT
        return ref | {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.py"))
                      if p.name in STUDENT_FILES}
    return {name: (TEMPLATE / name).read_text(encoding="utf-8") for name in STUDENT_FILES}


def _origins(code: str, written: str) -> dict[str, str]:
    """Each file's origin: a file a solution lacks is the reference's."""
    has = {"alternative": {p.name for p in ALTERNATIVE.glob("*.py")},
           "independent": {p.name for p in INDEPENDENT.glob("*.py")}}
    files = {name: ("reference" if code in has and name not in has[code] else code) for name in STUDENT_FILES}
    return files | {"written answers": written}


def graft(template: str, reference: str, function: str) -> str:
    """The template with the solution of ``function`` (the reference's lines between its solution
    markers) in place of its stub."""
    solution = re.search(rf"def {function}\(.*?### BEGIN SOLUTION\n(.*?)\s*### END SOLUTION", reference, re.S)
    stub = re.search(rf"def {function}\(.*?### YOUR CODE HERE\n(.*?)\s*### END YOUR CODE", template, re.S)
    assert solution and stub, function
    return template[:stub.start(1)] + solution.group(1) + template[stub.end(1):]


def plan_similarity_class(*, count: int | None = None, seed: int = 0) -> list[Member]:
    """The similarity class: SIMILARITY_PLAN, the grafted template, and (``count`` larger than
    that) further disguised copies of random origins."""
    rng = random.Random(seed)
    plan = list(SIMILARITY_PLAN)
    extra = max(0, (count or 0) - len(plan) - 1)
    for _ in range(extra):
        steps = tuple(s for s in DISGUISES if rng.random() < 0.5)
        plan.append((rng.choice(("reference", "alternative")), "reference", steps))
    rng.shuffle(plan)
    plan.insert(rng.randrange(len(plan) + 1), ("graft", "template", ()))
    written = {"reference": (REFERENCE / WRITTEN).read_text(encoding="utf-8"),
               "independent": (INDEPENDENT / WRITTEN).read_text(encoding="utf-8"),
               "template": (TEMPLATE / WRITTEN).read_text(encoding="utf-8")}
    members = []
    for i, ((code, wrote, steps), submitters) in enumerate(zip(plan, _people(rng, len(plan)))):
        if code == "graft":
            files = _solution_files("template")
            file, function = GRAFTED
            files[file] = graft(files[file], (REFERENCE / file).read_text(encoding="utf-8"), function)
            origin = _origins("template", wrote) | {file: f"reference:{function}"}
            description = f"the template with {function} of the reference in {file}"
        else:
            files = {name: disguise(name, text, steps, random.Random(rng.random())) if steps else text
                     for name, text in _solution_files(code).items()}
            origin = _origins(code, wrote)
            description = f"{code}" + (f", disguised: {', '.join(steps)}" if steps else "")
        answers = reword(written[wrote], random.Random(rng.random())) if steps and wrote != "template" else written[wrote]
        data = {name: text.encode() for name, text in files.items()} | {WRITTEN: answers.encode()}
        members.append(Member(f"submission_{FIRST_SUBMISSION_ID + i}", "similarity", submitters, description,
                              None, data, origin=origin))
    return members


def write_class(out: Path, members: list[Member], *, layout: str = "gradescope") -> None:
    """Write ``members`` into ``out`` (which must not exist or be empty)."""
    if out.exists() and any(out.iterdir()):
        raise SystemExit(f"{out} is not empty; pass a new folder (or remove it first)")
    out.mkdir(parents=True, exist_ok=True)
    metadata, key = {}, {}
    for number, member in enumerate(members):
        if layout == "zips":
            with zipfile.ZipFile(out / f"{member.folder}.zip", "w") as zf:
                for name, data in sorted(member.files.items()):
                    zf.writestr(name, data)
        else:
            folder = out / member.folder
            folder.mkdir()
            for name, data in sorted(member.files.items()):
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                (folder / name).write_bytes(data)
        metadata[member.folder] = {
            ":submitters": member.submitters,
            ":created_at": f"2025-10-{14 + number // 8:02d} 2{number % 4}:{(7 * number) % 60:02d}:00 -0700",
            ":score": 0.0,
            ":status": "processed",
        }
        key[member.folder] = {"kind": member.kind, "description": member.description,
                              **({"fails": member.fails} if member.fails is not None else {}),
                              **({"written": member.written} if member.written is not None else {}),
                              **({"origin": member.origin} if member.origin is not None else {})}
    if layout == "gradescope":
        (out / "submission_metadata.yml").write_text(
            yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True), encoding="utf-8")
    (out / "class_key.yml").write_text(
        "# What each submission is (written by tools/make_class.py; not part of Gradescope's export).\n"
        + yaml.safe_dump(key, sort_keys=False), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="folder to create")
    parser.add_argument("--count", type=int, default=DEFAULT_COUNT, help="number of submissions")
    parser.add_argument("--seed", type=int, default=0, help="which bugs, names and order")
    parser.add_argument("--layout", choices=("gradescope", "zips"), default="gradescope",
                        help="a Gradescope export (folders + metadata) or a folder of zips")
    parser.add_argument("--written-only", action="store_true",
                        help="only answers.md, with varied written answers (for the answer groups)")
    parser.add_argument("--similarity", action="store_true",
                        help="disguised copies and independent solutions (for grader similarity)")
    args = parser.parse_args(argv)
    if args.similarity:
        members = plan_similarity_class(count=args.count if args.count != DEFAULT_COUNT else None, seed=args.seed)
    elif args.written_only:
        members = plan_written_class(count=args.count, seed=args.seed)
    else:
        members = plan_class(count=args.count, seed=args.seed)
    write_class(args.out, members, layout=args.layout)
    kinds = sorted({m.kind for m in members})
    print(f"wrote {len(members)} submissions to {args.out} "
          f"({', '.join(f'{sum(m.kind == k for m in members)} {k}' for k in kinds)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
