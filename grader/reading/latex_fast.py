"""The nodes pylatexenc gives a plain formula, built without pylatexenc's general machinery (a
formula is read a few times a writeup, and pylatexenc costs ~0.3 ms a formula).

Only formulas of characters, groups ``{...}``, ``&``, row breaks ``\\\\``, environments and macros whose
arguments are all mandatory are read here (:func:`plain_nodes`); anything else ( ``%``, ``$``, a special such as
``--`` or ``''``, a macro with a starred or optional argument, a stray ``}``) gives None and the
caller asks pylatexenc. The nodes are pylatexenc's own classes with the fields the normaliser reads,
as pylatexenc would set them (tests/test_latex_normal_nodes.py compares both on every recorded formula).
"""

from __future__ import annotations

from typing import Any

from pylatexenc.latexwalker import LatexCharsNode, LatexEnvironmentNode, LatexGroupNode, LatexMacroNode, LatexSpecialsNode
from pylatexenc.macrospec import ParsedMacroArgs

UNREAD = ("%", "$", "~", "''", "--", "``", "!`", "?`")
"""Text that sends a formula to pylatexenc (specials but ``&``, comments; a macro with an optional
argument is sent by its spec, so ``[`` is a character here as it is to pylatexenc elsewhere)."""


class _Unread(Exception):
    """Something :func:`plain_nodes` does not read."""


def _node(cls: Any, **fields: Any) -> Any:
    node = cls.__new__(cls)
    node.__dict__.update(fields)
    return node


class _Text:
    """The ``parsing_state`` of a node read here: the text its ``latex_verbatim`` cuts."""

    def __init__(self, text: str) -> None:
        self.s = text


class _Reader:
    def __init__(self, text: str, specs: Any, db: Any) -> None:
        self.s = text
        self.i = 0
        self.specs = specs
        self.db = db
        self.state = _Text(text)

    def nodes(self, closing: bool, environment: str = "") -> list:
        s, out = self.s, []
        start = self.i
        while self.i < len(s):
            ch = s[self.i]
            if ch in "\\{}&":
                if self.i > start:
                    out.append(_node(LatexCharsNode, chars=s[start:self.i]))
                if ch == "}":
                    if not closing:
                        raise _Unread
                    self.i += 1
                    return out
                if s.startswith("\\end{", self.i):
                    if not environment or not s.startswith("\\end{" + environment + "}", self.i):
                        raise _Unread
                    self.i += len(environment) + 6
                    return out
                if ch == "&":
                    self.i += 1
                    out.append(_node(LatexSpecialsNode, specials_chars="&"))
                elif s.startswith("\\begin{", self.i):
                    out.append(self.environment())
                else:
                    out.append(self.group() if ch == "{" else self.macro(with_args=True))
                start = self.i
            else:
                self.i += 1
        if closing or environment:
            raise _Unread
        if self.i > start:
            out.append(_node(LatexCharsNode, chars=s[start:self.i]))
        return out

    def environment(self) -> Any:
        start = self.i
        end = self.s.find("}", start)
        name = self.s[start + 7:end]
        if end < 0 or not name.isalpha():
            raise _Unread
        self.i = end + 1
        found = self.db.get_environment_spec(name)
        spec = found.args_parser.argspec if found is not None else ""
        if spec.strip("{"):
            raise _Unread
        args = ParsedMacroArgs(argnlist=[self.read_argument() for _ in spec], argspec=spec)
        nodes = self.nodes(closing=False, environment=name)
        return _node(LatexEnvironmentNode, environmentname=name, nodelist=nodes, nodeargd=args,
                     parsing_state=self.state, pos=start, len=self.i - start)

    def group(self) -> Any:
        self.i += 1
        return _node(LatexGroupNode, nodelist=self.nodes(closing=True), delimiters=("{", "}"))

    def macro(self, with_args: bool) -> Any:
        s = self.s
        j = self.i + 1
        if j >= len(s):
            raise _Unread
        if s[j].isalpha():
            while j < len(s) and s[j].isalpha():
                j += 1
            name = s[self.i + 1:j]
            k = j
            while k < len(s) and s[k] in " \t":
                k += 1
            post = s[j:k]
        else:
            name, k, post = s[j], j + 1, ""
        self.i = k
        if name == "\\":        # a row break, without its optional star or spacing
            if self.s[self.i:].lstrip()[:1] in ("*", "["):
                raise _Unread
            return _node(LatexMacroNode, macroname=name, nodeargd=ParsedMacroArgs(argnlist=[None, None], argspec="*["),
                         macro_post_space=post)
        if not with_args:       # a macro as another's argument: pylatexenc reads its name only
            return _node(LatexMacroNode, macroname=name, nodeargd=None, macro_post_space=post)
        spec = self.specs(name)
        args = [self.read_argument() for _ in spec]
        return _node(LatexMacroNode, macroname=name, nodeargd=ParsedMacroArgs(argnlist=args, argspec=spec),
                     macro_post_space=post)

    def read_argument(self) -> Any:
        s = self.s
        while self.i < len(s) and s[self.i].isspace():
            self.i += 1
        if self.i >= len(s) or s[self.i] == "}":
            raise _Unread
        if s[self.i] == "{":
            return self.group()
        if s[self.i] == "\\":
            return self.macro(with_args=False)
        self.i += 1
        return _node(LatexCharsNode, chars=s[self.i - 1])


def _specs(db: Any) -> Any:
    known: dict[str, str] = {}

    def spec(name: str) -> str:
        if name not in known:
            found = db.get_macro_spec(name)
            known[name] = found.args_parser.argspec if found is not None else ""
        if known[name].strip("{"):
            raise _Unread           # a starred or optional argument: pylatexenc reads it
        return known[name]
    return spec


_SPECS: dict[int, Any] = {}


def plain_nodes(text: str, db: Any) -> list | None:
    """pylatexenc's nodes of a plain formula (see the module's docstring) in the context ``db``, or None."""
    if any(mark in text for mark in UNREAD):
        return None
    specs = _SPECS.setdefault(id(db), _specs(db))
    try:
        return _Reader(text, specs, db).nodes(closing=False)
    except _Unread:
        return None
