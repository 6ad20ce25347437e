#!/usr/bin/env python
"""Builds tests/normalise_cases.json: every distinct formula that
:func:`grader.reading.latex_normal.normalise` received while the reader graded our corpora, with
what the normaliser of that day answered and what that answer parsed to (run once, before the
normaliser was rewritten as a walk over pylatexenc nodes; tests/test_latex_normal_nodes.py holds
today's normaliser to it).

The inputs were recorded by wrapping ``normalise`` (not committed) while running
tests/test_written_{wild,real,transforms,corpus,math}.py and ``bench/written_reader.py --count 300``;
each process wrote its inputs to ``RECORDED.<pid>`` (a JSON list). The catalogue's formula shapes
(a2/written/formula_shapes.json) are added.

    .venv/bin/python tests/normalise_cases_build.py /tmp/c_rec/rec
"""

from __future__ import annotations

import glob
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from normalise_signature import signature  # noqa: E402

from grader.reading.latex_normal import FormulaError, normalise  # noqa: E402

OUT = REPO / "tests" / "normalise_cases.json"


def main() -> None:
    inputs: set[str] = set()
    for path in glob.glob(sys.argv[1] + ".*"):
        inputs.update(json.loads(Path(path).read_text()))
    inputs.update(json.loads((REPO / "a2" / "written" / "formula_shapes.json").read_text()))
    cases = []
    for text in sorted(inputs):
        try:
            out = normalise(text)
        except FormulaError as exc:
            cases.append({"in": text, "error": str(exc)})
            continue
        cases.append({"in": text, "out": out, "parse": signature(out)})
    OUT.write_text(json.dumps(cases, ensure_ascii=False, indent=0) + "\n")
    print(f"{len(cases)} inputs -> {OUT} ({OUT.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
