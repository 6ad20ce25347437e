"""The formula normaliser's token rewrites (:mod:`grader.reading.latex_normal` writes a formula's
pylatexenc nodes out as these tokens): the rules that look at a token's neighbours, each spelling
taken from :mod:`grader.reading.latex_tables`.

A token is ``(kind, text)``: ``c`` one character, ``s`` a space, ``m`` a macro (its name), ``{``
and ``}`` a group of the formula's own, ``a{`` and ``a}`` a macro's argument, ``r`` text written as
it is (``\\begin{cases}``). Rewrites, in order: named functions (``softmax``) are written as calls
latex2sympy reads (``\\mathrm{softmax}``), the step functions become ``\\relustep``, transposes
``^{T}``, ``{\\hat{y}}_i`` loses its braces, ``p_{drop}`` is ``p``, index pairs ``W_ji`` and
``W_{j,i}`` are ``W_{ji}``, a braced single letter or digit that is no argument loses its braces.
"""

from __future__ import annotations

from grader.reading import latex_tables as tables

Tok = tuple[str, str]
_OPEN = ("{", "a{")
_CLOSE = ("}", "a}")
_SPACE = ("s", " ")
_STEP = ("m", "relustep")
_NOTATION = tables.ASSIGNMENT_NOTATION
_DROP_BASE, _DROP_NAMES, _DROP_STYLES = _NOTATION.dropout_base, _NOTATION.dropout_subscripts, _NOTATION.dropout_styles
_PAIR_LETTERS = _NOTATION.index_pair_letters


def _close(toks: list[Tok], i: int) -> int:
    """Index of the token closing the group opened at ``i``, or -1."""
    level = 0
    for k in range(i, len(toks)):
        if toks[k][0] in _OPEN:
            level += 1
        elif toks[k][0] in _CLOSE:
            level -= 1
            if level == 0:
                return k
    return -1


def _skip(toks: list[Tok], i: int) -> int:
    while i < len(toks) and toks[i][0] == "s":
        i += 1
    return i


def _letter(tok: Tok | None) -> bool:
    return tok is not None and tok[0] == "c" and tok[1].isascii() and tok[1].isalpha()


def _ends_in_letter(tok: Tok | None) -> bool:
    """The token's text ends in a letter (a character, or a macro named by letters)."""
    return _letter(tok) or tok is not None and tok[0] == "m" and tok[1].isalpha()


def _content(toks: list[Tok], i: int, k: int) -> list[Tok]:
    """The tokens between ``i`` and ``k``, without spaces and the braces of groups of the formula's own."""
    return [t for t in toks[i + 1:k] if t[0] not in ("s", "{", "}")]


def _at(toks: list[Tok], i: int) -> Tok | None:
    return toks[i] if 0 <= i < len(toks) else None


def _spelled(toks: list[Tok], i: int, word: str, fold: bool = False) -> int:
    """End of ``word`` spelled in character tokens from ``i``, or -1."""
    for k, ch in enumerate(word):
        tok = _at(toks, i + k)
        if tok is None or tok[0] != "c" or (tok[1].lower() != ch.lower() if fold else tok[1] != ch):
            return -1
    return i + len(word)


def _step_end(toks: list[Tok], i: int) -> int:
    """End of a step function's spelling starting at ``i`` (before its bracket), or -1."""
    if _ends_in_letter(_at(toks, i - 1)) or _at(toks, i - 1) is not None and toks[i - 1][0] in _OPEN:
        return -1
    braced = toks[i][0] == "{"
    start = _skip(toks, i + 1) if braced else i
    for name in tables.STEP_FUNCTIONS:
        prime = name.endswith("'")
        word = name[:-1] if prime else name
        if word.startswith("\\"):
            end = start + 1 if toks[start] == ("m", word[1:]) else -1
        else:
            end = _spelled(toks, start, word, fold=prime)
        if end < 0 or not prime and _letter(_at(toks, end)):
            continue
        end = _skip(toks, end)
        if braced:
            if _at(toks, end) != ("}", "}"):
                continue
            end = _skip(toks, end + 1)
        if prime:
            if _at(toks, end) == ("c", "'"):
                return end + 1
            if _at(toks, end) == ("c", "^"):
                k = _skip(toks, end + 1)
                if _at(toks, k) is not None and toks[k][0] in _OPEN:
                    close = _close(toks, k)
                    if close > 0 and _content(toks, k, close) in ([("m", "prime")], [("a{", "{"), ("m", "prime"), ("a}", "}")]):
                        return close + 1
                elif _at(toks, k) == ("m", "prime"):
                    return k + 1
            continue
        if _at(toks, end) == ("c", "("):
            return end
    return -1


_STEP_STARTS = frozenset(("m", name[1:]) if name.startswith("\\") else ("c", first)
                         for name in tables.STEP_FUNCTIONS
                         for first in ({name[0].lower(), name[0].upper()} if name.endswith("'") else {name[0]}))
"""The first token of each step function's spelling (only these start a search)."""


def _steps(toks: list[Tok]) -> list[Tok]:
    out: list[Tok] = []
    i = 0
    while i < len(toks):
        end = _step_end(toks, i) if toks[i] in _STEP_STARTS or toks[i][0] == "{" else -1
        if end > i:
            out += [_SPACE, _STEP, _SPACE]
            i = end
            continue
        out.append(toks[i])
        i += 1
    return out


def _transposes(toks: list[Tok]) -> list[Tok]:
    out: list[Tok] = []
    i = 0
    while i < len(toks):
        if toks[i] == ("c", "^"):
            k = _skip(toks, i + 1)
            tok = _at(toks, k)
            end = -1
            if tok == ("c", tables.TRANSPOSE_LETTER) or tok is not None and tok[0] == "m" and tok[1] in tables.TRANSPOSE_MACROS:
                end = k + 1
            elif tok is not None and tok[0] in _OPEN:
                close = _close(toks, k)
                inner = _content(toks, k, close) if close > 0 else []
                if inner == [("c", tables.TRANSPOSE_LETTER)] or len(inner) == 1 and inner[0][0] == "m" \
                        and inner[0][1] in tables.TRANSPOSE_MACROS:
                    end = close + 1
            if end > 0:
                out += [("c", "^"), ("a{", "{"), ("c", tables.TRANSPOSE_LETTER), ("a}", "}")]
                i = end
                continue
        out.append(toks[i])
        i += 1
    return out


def _hat_groups(toks: list[Tok]) -> list[Tok]:
    """``{\\hat{y}}_i`` -> ``\\hat{y}_i`` (a subscript on a braced hat); ``\\hat{}{y}`` -> ``\\hat{y}``."""
    out: list[Tok] = []
    i = 0
    while i < len(toks):
        if toks[i] == ("m", "hat") and toks[i + 1:i + 3] == [("a{", "{"), ("a}", "}")]:    # \hat \mathbf{y}: the style was the argument
            k = _skip(toks, i + 3)
            close = _close(toks, k) if _at(toks, k) == ("{", "{") else k
            inner = [t for t in toks[k:close + 1] if t[0] not in ("s", "{", "}")]
            if len(inner) == 1 and _letter(inner[0]):
                out += [toks[i], toks[i + 1], inner[0], toks[i + 2]]
                i = close + 1
                continue
        if toks[i][0] == "{":
            close = _close(toks, i)
            inner = [t for t in toks[i + 1:close] if t[0] != "s"] if close > 0 else []
            after = _at(toks, _skip(toks, close + 1))
            if (len(inner) == 4 and inner[0] == ("m", "hat") and inner[1][0] == "a{" and _letter(inner[2])
                    and after in (("c", "_"), ("c", "^"))):
                out += inner
                i = close + 1
                continue
        out.append(toks[i])
        i += 1
    return out


def _p_drop(toks: list[Tok]) -> list[Tok]:
    """``p_{drop}``, ``p_{\\text{drop}}``, ``p_\\text{drop}``, ``p_d`` -> ``p``."""
    out: list[Tok] = []
    i = 0
    while i < len(toks):
        if toks[i] == ("c", _DROP_BASE) and _at(toks, i + 1) == ("c", "_"):
            k = _skip(toks, i + 2)
            end = -1
            if _at(toks, k) is not None and toks[k][0] in _OPEN:
                close = _close(toks, k)
                inner = [t for t in toks[k + 1:close] if t[0] not in ("s", "{", "}", "a{", "a}")
                         and not (t[0] == "m" and t[1] in _DROP_STYLES)] if close > 0 else []
                if all(t[0] == "c" for t in inner) and "".join(t[1] for t in inner) in _DROP_NAMES:
                    end = close + 1
            else:
                for name in sorted(_DROP_NAMES, key=len, reverse=True):
                    stop = _spelled(toks, k, name)
                    if stop > 0 and not _letter(_at(toks, stop)):
                        end = stop
                        break
            if end > 0:
                out.append(toks[i])
                i = end
                continue
        out.append(toks[i])
        i += 1
    return out


def _pairs(toks: list[Tok]) -> list[Tok]:
    """``W_ji`` and ``W_{j,i}`` -> ``W_{ji}``."""
    out: list[Tok] = []
    i = 0
    while i < len(toks):
        if toks[i] == ("c", "_"):
            a, b, after = _at(toks, i + 1), _at(toks, i + 2), _at(toks, i + 3)
            if (_ends_in_letter(_at(toks, i - 1)) and all(t is not None and t[0] == "c" and t[1] in _PAIR_LETTERS
                                                         for t in (a, b))
                    and not _letter(after) and not (after is not None and after[0] in _OPEN)):
                out += [toks[i], ("a{", "{"), toks[i + 1], toks[i + 2], ("a}", "}")]
                i += 3
                continue
            if a is not None and a[0] in _OPEN:
                close = _close(toks, i + 1)
                inner = [t for t in toks[i + 2:close] if t[0] != "s"] if close > 0 else []
                if (len(inner) == 3 and inner[1] == ("c", ",") and all(
                        t[0] == "c" and t[1].isascii() and t[1].islower() for t in (inner[0], inner[2]))):
                    out += [toks[i], ("a{", "{"), inner[0], inner[2], ("a}", "}")]
                    i = close + 1
                    continue
        out.append(toks[i])
        i += 1
    return out


def _singletons(toks: list[Tok]) -> list[Tok]:
    """``{U}`` -> ``U`` where it is not an argument (of ``_``, ``^`` or a command)."""
    out: list[Tok] = []
    i = 0
    while i < len(toks):
        if toks[i][0] == "{":
            close = _close(toks, i)
            inner = [t for t in toks[i + 1:close] if t[0] != "s"] if close > 0 else []
            if len(inner) == 1 and inner[0][0] == "c" and inner[0][1].isascii() and inner[0][1].isalnum():
                before = next((t for t in reversed(out) if t[0] != "s"), None)
                keep = before is not None and (  # x^{T}, \\frac{a}{b}: an argument (after \\} it is not)
                    before in (("c", "_"), ("c", "^")) or before[0] in _CLOSE
                    or before[0] == "r" and before[1].endswith("}")
                    or before[0] == "m" and before[1].isalpha() and before[1] not in tables.OPERATORS)
                if not keep:
                    out.append(inner[0])
                    i = close + 1
                    continue
        out.append(toks[i])
        i += 1
    return out


def _function_end(toks: list[Tok], i: int) -> tuple[int, str]:
    """End and LaTeX of a named function (:data:`latex_tables.FUNCTIONS`) spelled from ``i``, braced or
    not, before its bracket; (-1, "") if none starts there."""
    if _ends_in_letter(_at(toks, i - 1)):
        return -1, ""
    braced = toks[i][0] in _OPEN
    start = _skip(toks, i + 1) if braced else i
    for word, latex in tables.FUNCTIONS.items():
        end = _spelled(toks, start, word, fold=True)
        if end < 0 or _letter(_at(toks, end)):
            continue
        end = _skip(toks, end)
        if braced:
            if _at(toks, end) is None or toks[end][0] not in _CLOSE:
                continue
            end = _skip(toks, end + 1)
        if _at(toks, end) == ("c", "("):
            return end, latex
    return -1, ""


_FUNCTION_STARTS = frozenset(("c", ch) for word in tables.FUNCTIONS for ch in (word[0].lower(), word[0].upper()))


def _functions(toks: list[Tok]) -> list[Tok]:
    out: list[Tok] = []
    i = 0
    while i < len(toks):
        end, latex = _function_end(toks, i) if toks[i] in _FUNCTION_STARTS or toks[i][0] in _OPEN else (-1, "")
        if end > i:
            out += [_SPACE, ("r", latex)]
            i = end
            continue
        out.append(toks[i])
        i += 1
    return out


def rewrite(toks: list[Tok]) -> list[Tok]:
    """The neighbour rules, in order (see the module's docstring)."""
    if not _FUNCTION_STARTS.isdisjoint(toks):
        toks = _functions(toks)
    kinds = {t[0] for t in toks}
    if "{" in kinds or not _STEP_STARTS.isdisjoint(toks):    # (each rule runs where its tokens are)
        toks = _steps(toks)
    if ("c", "^") in toks:
        toks = _transposes(toks)
    if ("m", "hat") in toks:
        toks = _hat_groups(toks)
    for _ in range(3 if "{" in kinds else 0):   # {{x}}: the outer group is a singleton once the inner one is stripped
        new = _singletons(toks)
        if new == toks:
            break
        toks = new
    if ("c", "_") not in toks:
        return toks
    if ("c", _DROP_BASE) in toks:
        toks = _p_drop(toks)        # {p}_{drop} is p_{drop}, {W}_ji is W_ji
    return _pairs(toks)


def text_of(toks: list[Tok]) -> str:
    """The tokens written as LaTeX."""
    parts: list[str] = []
    for k, (kind, text) in enumerate(toks):
        if kind == "m":
            parts.append("\\\\" if text == "\\" else "\\" + text)
            if text.isalpha() and _letter(_at(toks, k + 1)):
                parts.append(" ")
        else:
            parts.append(text)
    return "".join(parts)
