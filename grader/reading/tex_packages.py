"""Macros of LaTeX packages students load, as declared data: a writeup whose preamble loads the
package (``\\usepackage{physics}``) has them expanded like its own definitions (:mod:`grader.reading.tex_macros`).

The ``physics`` package writes a derivative ``\\pdv{J}{\\vb{v}_c}``, a bold vector ``\\vb{U}``, an
auto-sized bracket ``\\qty(...)`` and a gradient ``\\grad_{\\vb{U}} J``; read without it, none of
these parses. Each entry is the macro's name, its number of braced arguments and what it prints,
in the LaTeX the reader reads. Only the fixed-argument forms are declared (``\\pdv{f}{x}``, not the
one-argument operator ``\\pdv{x}``): a use the table does not cover stays unread, never misread.
A new package is a new entry; nothing here is applied unless the document loads the package.
"""

from __future__ import annotations

import re

from grader.reading.tex_macros import Macro

PACKAGES: dict[str, tuple[tuple[str, int, str], ...]] = {
    "physics": (
        ("pdv", 2, r"\frac{\partial #1}{\partial #2}"),
        ("dv", 2, r"\frac{d #1}{d #2}"),
        ("vb", 1, r"\mathbf{#1}"), ("va", 1, r"\vec{#1}"), ("vu", 1, r"\hat{\mathbf{#1}}"),
        ("qty", 0, ""), ("grad", 0, r"\nabla"),
        ("abs", 1, r"\left|#1\right|"), ("norm", 1, r"\left\|#1\right\|"),
        ("expval", 1, r"\langle #1\rangle"), ("tr", 0, r"\operatorname{tr}"), ("Tr", 0, r"\operatorname{tr}"),
        ("dd", 0, r"d"),
    ),
}
"""Package -> (macro, arguments, body with #1.. for its arguments)."""

_USEPACKAGE = re.compile(r"\\(?:usepackage|RequirePackage)\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}")


def loaded_packages(text: str) -> set[str]:
    """The packages ``text`` loads (``\\usepackage[..]{a,b}``)."""
    return {name.strip() for m in _USEPACKAGE.finditer(text) for name in m.group(1).split(",")}


def package_macros(texts: list[str]) -> dict[str, Macro]:
    """The declared macros of every package one of ``texts`` loads."""
    loaded = set().union(*(loaded_packages(t) for t in texts)) if texts else set()
    return {name: Macro(name, nargs, body) for package in sorted(loaded & set(PACKAGES))
            for name, nargs, body in PACKAGES[package]}
