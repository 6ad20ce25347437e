"""The notations students write formulas in, each mapped to LaTeX by a declared table.

One front end for every formula: LaTeX is the grammar :mod:`grader.reading.mathparse` reads, and
Unicode (ŷ, ∂, ⊙, ᵀ, ₁, 𝟙) and ASCII (``y_hat``, ``dJ/dU``, ``U^T``, ``*``, ``1{...}``, ``b1``)
are rewritten into it by the tables below, not by rules scattered over the reader. A formula
with no backslash is plain text and gets the ASCII table after the Unicode one (students mix
both: ``U(ŷ - y)^T``); LaTeX gets only the Unicode table (a pasted ``ŷ`` inside ``$...$``).

Conditions written in words (``W_ji if (xW + b1)_i > 0, else 0``; ``ŷ_i − 1 if i = c, ŷ_i
otherwise``) become a ``cases`` environment (:func:`word_cases`). Nothing here evaluates text.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from grader.reading.braces import closing

UNICODE: dict[str, str] = {
    # operators and relations
    "\u2212": "-", "\u2013": "-", "\u2014": "-", "\u00b7": r" \cdot ", "\u22c5": r" \cdot ", "\u2219": r" \cdot ",
    "\u00d7": r" \times ", "\u2299": r" \odot ", "\u2218": r" \circ ", "\u2297": r" \otimes ", "\u2260": r" \neq ",
    "\u2264": r" \leq ", "\u2265": r" \geq ", "\u2211": r"\sum ", "\u2208": r" \in ", "\u2192": r" \rightarrow ",
    "\u2190": r" \leftarrow ", "\u2026": r"\dots ", "\u22ef": r"\dots ", "\u2032": "'",
    # letters
    "\u03b3": r"\gamma ", "\u2202": r"\partial ", "\u03b4": r"\delta ", "\u03c3": r"\sigma ", "\u03b8": r"\theta ",
    "\u2113": "l", "\u0177": r"\hat{y}", "\U0001d7d9": r"\mathbb{1}", "\U0001d540": r"\mathbb{1}",
    # super- and subscripts
    "\u1d40": "^{T}", "\u22a4": r"\top ", "\u00b2": "^{2}", "\u207b\u00b9": "^{-1}",
    "\u2080": "_0", "\u2081": "_1", "\u2082": "_2", "\u2083": "_3", "\u1d62": "_i", "\u2c7c": "_j", "\u2092": "_o",
    "\u2096": "_k", "\u2099": "_n", "\u2093": "_x",
    # spaces
    "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u200b": "",
}
"""Unicode symbol -> LaTeX."""

MATH_LETTERS = {cp: unicodedata.normalize("NFKC", chr(cp)) for cp in (*range(0x1D400, 0x1D7D8), 0x210E)
                if unicodedata.normalize("NFKC", chr(cp)) != chr(cp)}
"""Mathematical italic and bold letters (Word's equations pasted as text: 𝐽, 𝑣_𝑐, ℎ, 𝛾) as the letters they
are (a ``str.translate`` table; the double-struck 𝟙 keeps its own entry in :data:`UNICODE`)."""

PLAIN_UNICODE: dict[str, str] = {"\U0001d7d9": "1", "\U0001d540": "1"}
"""Unicode symbols a plain-text formula means in ASCII's spelling (𝟙{z > 0} is ``1{z > 0}``, an indicator)."""

_COMBINING_HAT = re.compile(r"([A-Za-z])\u0302")

ASCII: tuple[tuple[str, str], ...] = (
    # (pattern, replacement): applied in order to a formula written without LaTeX
    (r"([A-Za-z])_hat(?![A-Za-z])", r" \\hat{\1}"),                              # y_hat (also in Uy_hat)
    (r"(?<![A-Za-z\\])([A-Za-z])hat(?![A-Za-z])", r"\\hat{\1}"),                  # yhat
    (r"(?<![A-Za-z\\])hat\s*\(\s*([A-Za-z])\s*\)", r"\\hat{\1}"),                  # hat(y)
    (r"(?<![A-Za-z\\])(gamma|delta|sigma|theta|alpha|beta|partial)(?![A-Za-z])", r"\\\1 "),
    (r"(?<![A-Za-z\\])(sum|exp|log)(?![A-Za-z])", r"\\\1 "),
    (r"(?<![A-Za-z\\_^0-9])([A-Za-z])(\d)(?![0-9A-Za-z])", r"\1_\2"),              # b1 -> b_1
    (r"\^\s*\(([^()]*)\)", r"^{\1}"),                                             # ^(-1) -> ^{-1}
    (r"!=|=/=", r" \\neq "), (r">=", r" \\geq "), (r"<=", r" \\leq "),
    (r"\*", r" \\cdot "), (r"\s@\s|(?<=\w)@(?=[\w(])", r" "),                     # numpy's U @ (y_hat - y)
)
"""ASCII spelling -> LaTeX (a formula with no backslash before the Unicode table ran)."""

_ASCII = tuple((re.compile(p), r) for p, r in ASCII)
_PLAIN_INDICATOR = re.compile(r"(?<![A-Za-z0-9_\\^{])1\s*(?=\{)")


def _indicator_braces(text: str) -> str:
    """``1{cond}`` typed without LaTeX -> ``\\mathbb{1}\\{cond\\}``."""
    out, pos = [], 0
    for m in _PLAIN_INDICATOR.finditer(text):
        if m.start() < pos:
            continue
        end = closing(text, m.end())
        if end < 0:
            continue
        out.append(text[pos:m.start()] + r"\mathbb{1}\{" + text[m.end() + 1:end] + r"\}")
        pos = end + 1
    out.append(text[pos:])
    return "".join(out)


_SUBSCRIPTS = {char: latex[1:] for char, latex in UNICODE.items() if latex.startswith("_")}


def _subscript_runs(text: str) -> str:
    """A run of Unicode subscripts is one subscript: ``Wⱼᵢ`` -> ``W_{ji}`` (one at a time, W_j_i, is no formula)."""
    if not any(ch in _SUBSCRIPTS for ch in text):
        return text
    out: list[str] = []
    run: list[str] = []
    for ch in text + "\0":
        if ch in _SUBSCRIPTS:
            run.append(_SUBSCRIPTS[ch])
            continue
        if run:
            out.append("_{" + "".join(run) + "}" if len(run) > 1 else "_" + run[0])
            run = []
        out.append(ch)
    return "".join(out[:-1])


TEX_SPACE = re.compile(r"\\(?:mathrm|text|mbox|textrm)\s*\{\s*~+\s*\}|(?<!\\)~")
"""TeX's tie ``~`` (a space) in a LaTeX formula, also as Mathpix's OCR writes it, ``\\mathrm{~}``."""


_FLAT_SUBSCRIPT = re.compile("\u0177([a-z])(?![A-Za-z0-9_])")
"""ŷ with one letter run onto it in plain text (``ŷo``, ``ŷi``: a PDF's subscript flattened onto the line): ŷ_o."""


def to_latex(text: str) -> str:
    """``text`` in any of the notations -> LaTeX for :func:`grader.reading.latex_normal.normalise`."""
    plain = "\\" not in text
    text = _COMBINING_HAT.sub(r"\\hat{\1}", text)
    text = _subscript_runs(text)
    text = _FLAT_SUBSCRIPT.sub("\u0177_\\1", text) if plain else text
    for char, ascii_form in (PLAIN_UNICODE.items() if plain else ()):
        text = text.replace(char, ascii_form)
    for char, latex in UNICODE.items():
        if char in text:
            text = text.replace(char, latex)
    if not plain and "~" in text:
        text = TEX_SPACE.sub(" ", text)
    if plain:
        text = word_cases(text)
        text = _indicator_braces(text)
        for pattern, repl in _ASCII:
            text = pattern.sub(repl, text)
    return basis_vectors(text)


ONE_HOT_SYMBOL = r"\varsigma"
"""The one symbol every spelling of a one-hot (standard basis) vector is read as: a Greek letter the
parser reads as a name and no question of the assignment uses; an instance binds it (word2vec's
``e_k`` is the k-th basis vector of R^|V|) and :mod:`grader.reading.show` prints it ``e``."""
ONE_HOT_STYLES = ("mathbf", "boldsymbol", "bm", "vec", "mathrm", "mathit", "pmb")
"""Styles around the letter e of a one-hot vector (``\\mathbf{e}_o``)."""
ONE_HOT_WORDS = ("one", "hot")
"""The words of a one-hot vector's function name (``onehot(o)``, ``\\text{one-hot}(o)``), joined by any
of :data:`NAME_JOINS`."""
NAME_JOINS = ("", "-", "_", "\\_")
"""How the words of a function's name are joined: run together, a hyphen, an underscore (``\\_`` in LaTeX)."""
ONE_HOT_NAMES = tuple(join.join(ONE_HOT_WORDS) for join in NAME_JOINS)
_STYLED = r"\\(?:" + "|".join(ONE_HOT_STYLES) + r")"
_ONE_HOT_E = re.compile(r"(?<![A-Za-z\\])(?:" + _STYLED + r"\s*\{\s*e\s*\}|" + _STYLED + r"\s+e|e)"
                        r"\s*_\s*(?:\{\s*([a-z])\s*\}|([a-z]))(?![A-Za-z0-9])")
_ONE_HOT_CALL = re.compile(r"(?<![A-Za-z\\])(?:\\(?:text|mathrm|operatorname|textrm|mathit)\s*\{\s*(?:"
                           + "|".join(re.escape(n) for n in ONE_HOT_NAMES) + r")\s*\}|(?:"
                           + "|".join(re.escape(n) for n in ONE_HOT_NAMES) + r"))\s*\(\s*([a-z])\s*\)", re.I)


def basis_vectors(text: str) -> str:
    """Every spelling of the one-hot vector of an index (``e_o``, ``\\mathbf{e}_{o}``, ``onehot(o)``) as
    :data:`ONE_HOT_SYMBOL` with that index; an ``e`` with an exponent or without an index letter is left."""
    text = _ONE_HOT_E.sub(lambda m: ONE_HOT_SYMBOL + "_{" + (m.group(1) or m.group(2)) + "}", text)
    return _ONE_HOT_CALL.sub(lambda m: ONE_HOT_SYMBOL + "_{" + m.group(1) + "}", text)


_WORD_CASES = (
    # "A if COND, else B" / "A if COND and B otherwise" / "A when COND, B otherwise"
    re.compile(r"^(?P<a>[^,;]+?)\s+(?:if|when|for)\s+(?P<cond>[^,;]+?)\s*[,;]?\s*(?:and\s+)?(?:else|otherwise)\s*[,:]?\s*"
               r"(?P<b>[^,;]+?)\s*\.?$", re.I),
    re.compile(r"^(?P<a>[^,;]+?)\s+(?:if|when|for)\s+(?P<cond>[^,;]+?)\s*[,;]\s*(?:and\s+)?(?P<b>[^,;]+?)\s+"
               r"(?:otherwise|else|elsewhere)\s*\.?$", re.I),
)


def word_cases(text: str) -> str:
    """A formula whose cases are written in words -> ``\\begin{cases}``; else ``text``."""
    for pattern in _WORD_CASES:
        m = pattern.match(text.strip())
        if m:
            return (rf"\begin{{cases}} {m.group('a')} & {m.group('cond')} \\ {m.group('b')} & "
                    r"\text{otherwise} \end{cases}")
    return text


_TRAILING_IF = re.compile(r"\s+(?=(?:when|if|for)\b)", re.I)
OTHER_CASE = re.compile(r"(?:and\s+)?[^,;.]{1,40}?\s(?:otherwise|else(?:where)?)\b", re.I)
"""``and 0 otherwise`` after a comma: the other case of a formula whose first case ends at the comma."""


def trailing_condition(text: str) -> int | None:
    """Where a plain-text formula's trailing condition starts (``W_ji if z_i > 0``: one case written
    without the other, or a remark ``for all w``), or None (no condition, or its cases in words)."""
    if word_cases(text) != text:
        return None
    cond = _TRAILING_IF.search(text)
    return cond.start() if cond and text[:cond.start()].strip() else None


def dropped_case(formula: str) -> str:
    """The case condition (a comparison: ``if (xW + b1)_i > 0``) at the end of a plain-text formula,
    which the reader cuts: what is read is then one case of two, not the whole answer; else ""."""
    text = formula.strip()
    at = None if "\\" in text else trailing_condition(text)
    cond = text[at:] if at is not None else ""
    return cond.strip() if re.search(r"[<>≠≤≥]|!=|(?<![<>!])=", cond) else ""


# ---------------------------------------------------------------------------------------------
# A question's names as plain text spells them

FUNCTION_WORDS = frozenset({"exp", "log", "ln", "sum", "max", "min", "softmax", "relu", "sigmoid", "sign",
                            "gamma", "delta", "sigma", "theta", "alpha", "beta", "partial", "hat", "drop", "\u0177"})
"""Words of plain-text formulas that are notation of every question, never a name to respell (ŷ: :data:`UNICODE`'s)."""
_INDEXED = re.compile(r"(?<![A-Za-z\\_^0-9])([A-Za-z][A-Za-z_]*)\s*[\[(]\s*([a-z])\s*(?:,\s*([a-z])\s*)?[\])]")
_WORD = re.compile(r"(?<![A-Za-z\\_^0-9])([A-Za-z]+)(?:(\s+)([a-z])(?![A-Za-z0-9_(]))?")


@dataclass(frozen=True)
class PlainNames:
    """The names of one question (declared by the assignment: its symbols and index letters) and
    the plain-text spellings a TA reads as them without doubt: a name's letters run together with
    its subscript (``Vc`` v_c, ``yi`` y_i, ``yhati`` ŷ_i, ``Wji`` W_ji), a subscript after a space
    (``Yhat o`` ŷ_o), names run together as a product (``xW``), a capital for a name the question only has in lower case (``Yhat``, ``N``),
    and the assignment's own spellings (``aliases``: ``pdrop`` p_drop). A word that is none of
    these is left as it is."""

    names: tuple[str, ...]                        # "U", "v_c", "yhat", "b_1", "p", "n"
    indices: str = ""                             # index letters: "ow", "ij"
    aliases: tuple[tuple[str, str], ...] = ()     # (spelling, lower-case) -> ASCII the tables read

    @property
    def bases(self) -> list[str]:
        return sorted({n.split("_")[0] for n in self.names}, key=len, reverse=True)

    def spell(self, word: str) -> str | None:
        """``word`` in the spelling :data:`ASCII` reads (``yhat_i``, ``v_c``), None if it is not a name."""
        for alias, ascii_form in self.aliases:
            if word.lower() == alias:
                return ascii_form
        bases = self.bases
        if word in bases or word in self.names or word.lower() in FUNCTION_WORDS \
                or len(word) == 1 and word in self.indices:
            return None if word.lower() in FUNCTION_WORDS else word
        for base in bases:
            head = word[:len(base)]
            if head != base and (head.lower() != base.lower() or head in bases):
                continue
            rest = word[len(base):]
            if not rest and base in self.names:
                return base
            if rest and (f"{base}_{rest}" in self.names or len(rest) <= 2 and all(ch in self.indices for ch in rest)):
                return f"{base}_{rest}"
        product = self._product(word)
        return " ".join(product) if product else None

    def _product(self, word: str) -> list[str]:
        """``xW``, ``Uy``: names of the question run together (each as written), a product; else []."""
        for name in sorted((n for n in self.names if "_" not in n), key=len, reverse=True):
            if word.startswith(name) and len(word) > len(name):
                rest = word[len(name):]
                tail = [rest] if rest in self.names else self._product(rest)
                if tail:
                    return [name, *tail]
        return []

    def known(self, word: str) -> bool:
        """Whether ``word`` belongs to a formula of this question (a name, or notation of any question)."""
        return word.lower() in FUNCTION_WORDS or self.spell(word) is not None

    def respell(self, text: str) -> str:
        """``text`` (a formula typed without LaTeX) with its names in the spelling the tables read; an entry
        indexed in brackets or MATLAB's parentheses (``W(j,i)``, ``yhat[i]``) by the question's index letters
        is the name run together with them (``Wji``), which :meth:`spell` reads."""
        def entry(m: re.Match[str]) -> str:
            name, idx = m.group(1), m.group(2) + (m.group(3) or "")
            if name.lower() in FUNCTION_WORDS or self.spell(name) is None or not all(ch in self.indices for ch in idx):
                return m.group(0)
            return name.replace("_", "") + idx
        text = _INDEXED.sub(entry, text)
        def one(m: re.Match[str]) -> str:
            spelled = self.spell(m.group(1))
            if spelled is None:
                return m.group(0)
            index = m.group(3)
            if index and "_" not in spelled and spelled.islower() and index in self.indices:
                return f"{spelled}_{index}"          # Yhat o: a subscript after a space
            return spelled + (m.group(2) or "") + (index or "")
        return _WORD.sub(one, text)


LOOKALIKE_INDICES: dict[str, str] = {"0": "o"}
"""A digit an index letter is misread as (OCR of a handwritten page writes ``\\hat{y}_{0}`` and ``w=0`` for
ŷ_o and w = o): digit -> letter, used only for a question whose index letters include the letter
and whose names have no such digit."""


def index_lookalikes(text: str, indices: str) -> tuple[str, list[str]]:
    """``text`` with each :data:`LOOKALIKE_INDICES` digit that stands where an index letter of ``indices``
    belongs (a one-character subscript ``_0``/``_{0}``, a condition ``w = 0``/``w \\neq 0``) read as
    that letter, and the digits so read (empty: nothing changed)."""
    changed = []
    for digit, letter in LOOKALIKE_INDICES.items():
        if letter not in indices:
            continue
        others = "".join(ch for ch in indices if ch != letter)
        sub = re.compile(r"_(\s*\{\s*)?" + digit + r"(?(1)\s*\})(?![0-9.])")
        rel = re.compile(r"(?<![A-Za-z\\_{])([" + others + r"])(\s*(?:=|\\neq?(?![A-Za-z])|≠|!=)\s*)" + digit
                         + r"(?![0-9.])")
        new = rel.sub(r"\g<1>\g<2>" + letter, sub.sub("_{" + letter + "}", text))
        if new != text:
            changed.append(digit)
            text = new
    return text, changed


_HTML_SCRIPT = re.compile(r"<(sub|sup)>\s*([^<>]{1,40}?)\s*</\1>", re.I)
"""HTML's sub- and superscript tags, which editors' Markdown and HTML exports write for ``v_c`` (``v<sub>c</sub>``)."""


def html_scripts(text: str) -> str:
    """``text`` with ``<sub>c</sub>`` as ``_c`` and ``<sup>T</sup>`` as ``^T`` (braced when longer than one character)."""
    def one(m: re.Match[str]) -> str:
        mark, inner = "_" if m.group(1).lower() == "sub" else "^", m.group(2)
        return mark + (inner if len(inner) == 1 else "{" + inner + "}")
    return _HTML_SCRIPT.sub(one, text) if "<su" in text.lower() else text

