"""Scans for written answers and solution code in what students receive or see (issue 20).

``answer_hits(text)``: the written answer key of ../shared/ASSIGNMENT.md as patterns over a
normalised text (γ of 2(b)(i), the 2n of 3(b), the gradient formulas of 1(b), 1(d), 1(e), 3(e)(i)
and 3(e)(ii), the 3(a) transition sequence, the 3(f) dependencies). ``semantic_hits(zip)``: the AST
rules over the kit's own modules (the template's files excepted) and its recorded data: its strings,
and its numbers (a dropout scale recorded at a drawn p is γ of 2(b)(i)).
"""

from __future__ import annotations

import ast
import json
import re
import zipfile
from pathlib import Path

#: Student functions and methods: a module-level function of the kit's with one of these names is
#: an implementation of something a student writes.
STUDENT_FUNCTIONS = frozenset({
    "sigmoid", "naiveSoftmaxLossAndGradient", "negSamplingLossAndGradient", "skipgram", "sgd",
    "minibatch_parse", "train", "train_for_epoch", "embedding_lookup", "parse_step"})

_F_PAIRS = [("acquisition", "citing"), ("blocked", "citing"), ("elements", "most"), ("crucial", "most"),
            ("declined", "decision"), ("reasons", "decision"), ("affects", "one"), ("plants", "one")]
ANSWER_PATTERNS: dict[str, str] = {
    "2(b)(i) gamma": r"1/\(1-p", "2(b)(i) gamma in words": r"dividedby\(?1-p",
    "3(b) 2n": r"(?<![a-z0-9_])2(\*|·)?n(?![a-z0-9_])",
    "1(b)(i)/3(e)(ii) yhat - y": r"yhat-y", "1(d) (yhat_o - 1) v_c": r"\(yhat_o-1\)",
    "1(d) yhat_w v_c": r"yhat_w\*?v_c", "3(e)(i) W_ji": r"w_ji",
    "3(a) sequence": r"s,?s,?la,?s,?s,?la,?ra,?s,?s,?s,?s,?la,?la,?la,?ra,?ra",
    "3(a) 16 steps": r"(?<![0-9.])16(=2n)?steps",
    **{f"3(f) {h}->{d}": rf"{h}\W{{0,8}}{d}(?![a-z])" for h, d in _F_PAIRS},
}


def normalise(text: str, *, spaces: str = "") -> str:
    for a, b in (("−", "-"), ("–", "-"), ("ŷ", "yhat"), ("\\hat{y}", "yhat"), ("y_hat", "yhat"), ("γ", "gamma"),
                 ("→", "->"), ("\\rightarrow", "->"), ("·", "*")):
        text = text.replace(a, b)
    return re.sub(r"\s+", spaces, text.lower())


def answer_hits(text: str) -> list[str]:
    """The answer-key entries that ``text`` states."""
    forms = (normalise(text), normalise(text, spaces=" "))
    return [name for name, pattern in ANSWER_PATTERNS.items() if any(re.search(pattern, f) for f in forms)]


def string_constants(source: str) -> list[str]:
    """Every string literal of a module, f-strings as their constant parts joined by "{}"."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.JoinedStr):
            out.append("{}".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else ""
                                 for v in node.values))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(node.value)
    return out


def _delegates(fn: ast.FunctionDef) -> bool:
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return len(body) == 1 and isinstance(body[0], (ast.Return, ast.Expr)) and isinstance(
        getattr(body[0], "value", None), ast.Call)


def module_hits(name: str, source: str) -> list[str]:
    """The semantic rules over one module of the kit."""
    hits = []
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in STUDENT_FUNCTIONS:
            hits.append(f"{name}: module-level function {node.name}, a student function's name")
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            methods = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            if {"embedding_lookup", "forward"} <= methods:
                hits.append(f"{name}: class {node.name} has embedding_lookup and forward (a ParserModel)")
        if isinstance(node, ast.FunctionDef) and node.name == "parse_step" and not _delegates(node):
            hits.append(f"{name}: parse_step that does more than delegate (line {node.lineno})")
    hits += [f"{name}: a string states {a}" for s in string_constants(source) for a in answer_hits(s)]
    return hits


_BLOB = re.compile(r"[A-Za-z0-9+/=]{40,}")
"""Base64 (the recorded arrays): never text, and long enough to match any pattern by chance."""


def json_strings(value: object) -> list[str]:
    """Every string (keys too) of a JSON value, encoded arrays left out."""
    if isinstance(value, str):
        return [] if _BLOB.fullmatch(value) else [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*json_strings(k), *json_strings(v))]
    if isinstance(value, list):
        items = [s for v in value for s in json_strings(v)]
        return [*items, " ".join(items)]  # a sequence held as a list of short strings
    return []


def recorded_numbers(value: object) -> list[float]:
    """Every number the kit's recorded data holds as a number (grader/run/replay.py: ``{"f": hex}``
    floats and 0-d arrays ``{"g": [dtype, [], base64]}``)."""
    if isinstance(value, dict):
        if set(value) == {"f"} and isinstance(value["f"], str):
            return [float.fromhex(value["f"])]
        if set(value) == {"g"} and isinstance(value["g"], list) and len(value["g"]) == 3 and value["g"][1] == []:
            import base64

            import numpy as np
            dtype, _, data = value["g"]
            return [float(np.frombuffer(base64.b64decode(data), dtype=np.dtype(dtype))[0])]
        return [n for k, v in value.items() for n in recorded_numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in recorded_numbers(v)]
    return []


def numeric_answer_hits(number: float) -> list[str]:
    """The written answers a recorded number gives away: γ = 1/(1 − p) of 2(b)(i) at a dropout
    probability the checks draw (three decimals in (0, 1)), from which γ's formula is read off. A
    number with few decimals itself (2.0, 1.25: sizes, rates) is no such scale."""
    if not 1 < number < 1e6 or abs(1000 * number - round(1000 * number)) < 1e-6:
        return []
    p = 1000 * (1 - 1 / number)
    return ["2(b)(i) gamma"] if abs(p - round(p)) < 1e-9 and 0 < round(p) < 1000 else []


def semantic_hits(zip_path: Path, template: dict[str, str] | None = None, package: str = "grader/") -> list[str]:
    """The rules over every module and recorded value of the kit's package (``package`` inside
    the kit folder). The template's own files (``template``: relative path -> text, as students
    receive them to edit) are not scanned where they are those files unchanged."""
    hits = []
    template = template or {}
    with zipfile.ZipFile(zip_path) as zf:
        for name in zf.namelist():
            inner = name.split("/", 1)[1] if "/" in name else name
            if not inner.startswith(package):
                continue
            text = zf.read(name).decode("utf-8", "replace")
            starter = inner.split("/starter/", 1)[1] if "/starter/" in inner else None
            if starter is not None and template.get(starter) == text:
                continue
            if name.endswith(".py"):
                hits += module_hits(name, text)
            elif name.endswith(".json"):
                doc = json.loads(text)
                hits += [f"{name}: states {a}" for v in json_strings(doc) for a in answer_hits(v)]
                hits += [f"{name}: the recorded value {n!r} gives away {a}" for n in recorded_numbers(doc)
                         for a in numeric_answer_hits(n)]
            elif name.endswith((".yaml", ".md", ".txt")):
                hits += [f"{name}: states {a}" for a in answer_hits(text)]
    return list(dict.fromkeys(hits))


def template_files(root: Path) -> dict[str, str]:
    """The student template's text files by relative path."""
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in root.rglob("*")
            if p.is_file() and p.suffix in (".py", ".md", ".txt", ".conll")}
