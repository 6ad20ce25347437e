"""Build the formula parser's stored DFA (:mod:`grader.reading.prediction`) from declared formulas.

    python -m grader.reading.prediction_build a2/written/formula_shapes.json

The formulas are normalised LaTeX as the reader hands it to latex2sympy; parsing them builds the
DFA states ANTLR's SLL prediction needs for them, and the DFA is stored where every process loads
it on its first parse. Gradescope's setup.sh runs this once when it builds the image.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from grader.reading import prediction
from grader.reading.mathparse import FormulaError, _convert, _Placeholders


def build(formulas: list[str], path: Path = prediction.DFA_FILE) -> str:
    """Parse ``formulas`` (normalised LaTeX, as the reader hands it to latex2sympy) and store the
    DFA they build."""
    if not prediction._LOADED:
        prediction._LOADED.append("building a DFA: none loaded")      # built from the formulas alone
    started = time.process_time()
    read = 0
    for latex in formulas:
        try:
            _convert(latex, _Placeholders())
            read += 1
        except FormulaError:
            pass
    states = prediction.save(path)
    return (f"{read} of {len(formulas)} formulas read; {states} DFA states stored in {path} "
            f"({path.stat().st_size // 1024} KiB, {time.process_time() - started:.1f} s)")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m grader.reading.prediction_build FORMULAS.json", file=sys.stderr)
        return 2
    formulas = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    print(build([str(f) for f in formulas]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
