"""MyST Markdown (Jupyter Book, Sphinx's myst-parser) as the plain Markdown the reader reads.

MyST adds directives and roles to CommonMark; students writing in a Jupyter Book use them for math
and tables. Line for line (places keep their line numbers):

* a ```` ```{math} ```` or ``:::{math}`` directive is display math: its fences become ``$$`` lines and
  its option lines (``:label: eq-grad``) are dropped;
* a ```` ```{list-table} ```` is a pipe table: ``* - cell`` starts a row, ``  - cell`` is the next
  cell, an indented line goes on with the cell above;
* any other directive (``:::{admonition} Answer``, ``{note}``, ``{dropdown}``) is its content: the
  fences and options are blank lines;
* the roles ``{math}`x``` and ``{eq}`label``` are ``$x$`` and ``(label)``, another role its text;
  a target line ``(label)=`` is blank.

Code fences (```` ```python ````) and code directives (:data:`CODE_DIRECTIVES`: ``{code-cell}``, Quarto's
``{python}``) are left exactly as they are.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^\s*(`{3,}|:{3,})\s*(?:\{([\w:-]+)\})?(.*)$")
_OPTION = re.compile(r"^\s*:[\w-]+:")
_ROLE = re.compile(r"(?<![\w\\}^_])\{([A-Za-z][\w:-]*)\}`([^`\n]*)`")
"""A MyST role (``{math}`x` ``): never a LaTeX argument (``\\text{I}`` inside GitHub's ``$`...`$``)."""
_TARGET = re.compile(r"^\s*\([\w:.-]+\)=\s*$")
CODE_DIRECTIVES = frozenset({"code-cell", "code-block", "code", "sourcecode", "python", "r", "julia", "bash", "sh",
                             "ojs", "matlab", "octave", "sql"})
"""Directives that hold code (MyST's ``{code-cell}``, Quarto's and R Markdown's ```` ```{python} ```` chunks):
kept as code fences, never read as prose."""


def is_myst(text: str) -> bool:
    """Whether ``text`` uses MyST's directives or roles."""
    return bool(re.search(r"^\s*(?:`{3,}|:{3,})\s*\{[\w:-]+\}", text, re.M) or _ROLE.search(text))


def _role(m: re.Match) -> str:
    name, body = m.group(1), m.group(2)
    return f"${body}$" if name == "math" else f"({body})" if name in ("eq", "numref", "ref") else body


def _list_table(body: list[str]) -> list[str]:
    rows: list[list[str]] = []
    for line in body:
        if _OPTION.match(line) or not line.strip():
            continue
        row = re.match(r"^\*\s+-\s?(.*)$", line.strip()) if line.lstrip().startswith("*") else None
        cell = re.match(r"^\s+-\s?(.*)$", line)
        if row:
            rows.append([row.group(1).strip()])
        elif cell and rows:
            rows[-1].append(cell.group(1).strip())
        elif rows:
            rows[-1][-1] = (rows[-1][-1] + " " + line.strip()).strip()
    width = max((len(r) for r in rows), default=0)
    lines = ["| " + " | ".join(c.replace("|", "\\|") for c in r + [""] * (width - len(r))) + " |" for r in rows]
    return lines[:1] + (["|" + "---|" * width] if lines else []) + lines[1:]


def myst_markdown(text: str) -> str:
    """``text`` with MyST's directives and roles as plain Markdown (see the module's docstring)."""
    lines = text.split("\n")
    out: list[str] = []
    open_: list[tuple[str, str]] = []       # (fence, directive name) of the directives around this line
    k = 0
    while k < len(lines):
        line = lines[k]
        m = _FENCE.match(line)
        if m and open_ and m.group(1)[0] == open_[-1][0][0] and len(m.group(1)) >= len(open_[-1][0]) \
                and not m.group(2) and not m.group(3).strip():
            out.append("$$" if open_.pop()[1] == "math" else "")
            k += 1
            continue
        if m and m.group(2) and m.group(2).lower() not in CODE_DIRECTIVES:
            fence, name = m.group(1), m.group(2)
            if name == "list-table":
                end = next((j for j in range(k + 1, len(lines)) if lines[j].strip() == fence[0] * len(lines[j].strip())
                            and len(lines[j].strip()) >= len(fence)), len(lines))
                table = _list_table(lines[k + 1:end])
                out += table + [""] * (end - k + 1 - len(table))
                k = end + 1
                continue
            open_.append((fence, name))
            out.append("$$" if name == "math" else "")
            k += 1
            while k < len(lines) and _OPTION.match(lines[k]):
                out.append("")
                k += 1
            continue
        if m and m.group(1)[0] == "`":      # a code fence or code cell: as it is, to its end
            end = next((j for j in range(k + 1, len(lines)) if lines[j].strip().startswith(m.group(1))), len(lines) - 1)
            out += lines[k:end + 1]
            k = end + 1
            continue
        out.append("" if _TARGET.match(line) else _ROLE.sub(_role, line))
        k += 1
    return "\n".join(out)


def plain_markdown(text: str) -> str:
    """``text`` as plain Markdown when it uses MyST (:func:`is_myst`), else as it is."""
    return myst_markdown(text) if is_myst(text) else text
