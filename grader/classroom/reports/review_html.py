"""The pages of ``grader review``: every written question's groups with a points field and a
comment per TA-graded group, auto-graded groups read-only with their verdict (and an override
with a reason), progress per question, the review queue beside them. Plain HTML forms and inline
CSS: no script, no font, no asset from anywhere; math is MathML made here from the LaTeX
(latex2mathml, from the ``groups`` extra), so the browser draws it with no network.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from grader.classroom.groups.store import Mark, Resolution

MATHML_NS = "http://www.w3.org/1998/Math/MathML"
MATHML_TAGS = frozenset({
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msub", "msup", "msubsup", "mfrac", "msqrt",
    "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd", "mstyle", "mpadded", "mphantom",
    "menclose", "semantics", "annotation", "mmultiscripts", "mprescripts", "none", "merror"})
MATHML_ATTRIBUTES = frozenset({
    "display", "stretchy", "accent", "accentunder", "fence", "separator", "mathvariant", "columnalign",
    "rowspacing", "columnspacing", "width", "height", "depth", "lspace", "rspace", "linethickness",
    "displaystyle", "scriptlevel", "notation", "minsize", "maxsize", "movablelimits", "symmetric",
    "columnlines", "rowlines", "frame", "align", "form", "encoding"})
MAX_MATH = 2000
"""Longer formulas are shown as their LaTeX source."""
_DELIMITED = re.compile(r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|\\\((.+?)\\\)|\$([^$\n]+?)\$", re.S)

STYLE = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#222}
header{background:#263238;color:#fff;padding:.6em 1.2em} header a{color:#fff;margin-right:1em}
.wrap{display:grid;grid-template-columns:minmax(0,1fr) 22em;gap:1.2em;padding:1em 1.2em}
aside{border-left:1px solid #ddd;padding-left:1em;font-size:.9em}
h1{font-size:1.4em} h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}
.group{border:1px solid #ccc;border-radius:6px;margin:1em 0;padding:.6em 1em;background:#fafafa}
.group.done{border-left:6px solid #4caf50} .group.todo{border-left:6px solid #ff9800}
.group.auto{border-left:6px solid #90a4ae;background:#f4f6f7}
.tag{display:inline-block;border-radius:4px;padding:0 .4em;margin-left:.4em;font-size:.85em;background:#e4e4e4}
.tag.ok{background:#d6f0d6} .tag.bad{background:#f6dada} .tag.warn{background:#fbeec2}
.answer{background:#fff;border:1px solid #ddd;padding:.5em;margin:.3em 0;white-space:pre-wrap;
word-break:break-word;max-height:20em;overflow:auto} math{font-size:1.1em}
form.mark{display:flex;gap:.6em;align-items:flex-start;flex-wrap:wrap;margin-top:.5em}
input[type=number]{width:5em} textarea{width:28em;height:3em} .who{color:#555;font-size:.85em}
.progress{font-weight:bold} .error{background:#f6dada;padding:.6em 1em;border-radius:6px}
table{border-collapse:collapse;width:100%;font-size:.9em} td,th{border-bottom:1px solid #e4e4e4;
padding:.2em .4em;text-align:left;vertical-align:top}
"""


def _clean(node: ET.Element) -> bool:
    tag = node.tag.split("}")[-1]
    if tag not in MATHML_TAGS or any(a not in MATHML_ATTRIBUTES and a != "xmlns" for a in node.attrib):
        return False
    return all(_clean(child) for child in node)


def mathml(latex: str, *, display: bool = False) -> str | None:
    """MathML for ``latex``, or None when it cannot be converted safely. The converter's output is
    parsed and kept only when it holds MathML elements and attributes alone (``\\text{<script>}``
    would otherwise pass through), then serialized again, which escapes every text."""
    if not latex.strip() or len(latex) > MAX_MATH:
        return None
    try:
        from latex2mathml.converter import convert
    except ImportError:
        return None
    try:
        markup = convert(latex, display="block" if display else "inline")
        root = ET.fromstring(markup)
    except Exception:   # noqa: BLE001 - any failure of a third-party converter on student text
        return None
    if not _clean(root):
        return None
    ET.register_namespace("", MATHML_NS)
    return ET.tostring(root, encoding="unicode")


def render_answer(text: str, *, formula: bool) -> str:
    """A student's answer as HTML: delimited math (and a formula group's whole text) as MathML,
    everything else escaped."""
    if formula and not _DELIMITED.search(text):
        shown = mathml(text.strip(), display=True)
        return shown if shown is not None else escape(text)
    out, last = [], 0
    for m in _DELIMITED.finditer(text):
        out.append(escape(text[last:m.start()]))
        latex = next(g for g in m.groups() if g is not None)
        shown = mathml(latex, display=m.group(1) is not None or m.group(2) is not None)
        out.append(shown if shown is not None else escape(m.group(0)))
        last = m.end()
    out.append(escape(text[last:]))
    return "".join(out)


def page(title: str, body: str, aside: str, nav: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(title)}</title>"
            f"<style>{STYLE}</style></head><body><header>{nav}</header>\n<div class=\"wrap\"><main>{body}</main>"
            f"<aside>{aside}</aside></div>\n</body></html>\n")


def nav(questions: Sequence[tuple[str, str]]) -> str:
    return '<a href="/">all questions</a>' + "".join(f'<a href="/q/{escape(q)}">{escape(q)}</a>' for q, _ in questions)


def progress_line(done: int, total: int) -> str:
    return f"{done} of {total} group{'s' if total != 1 else ''} marked"


def aside(progress: Sequence[tuple[str, str, int, int]], reviews: Sequence[Mapping[str, Any]], question: str = "") -> str:
    rows = "".join(f'<li><a href="/q/{escape(q)}">{escape(q)}</a>: <span class="progress">{progress_line(d, t)}</span></li>'
                   for q, _, d, t in progress if t)
    mine = [r for r in reviews if not question or str(r.get("id", "")) == question]
    items = "".join(
        f"<li><b>{escape(str(r.get('submission', '')))}</b> {escape(str(r.get('id', '')))}: "
        f"{escape(str(r.get('reason', '')))}</li>" for r in mine[:200])
    return (f"<h3>Progress</h3><ul>{rows}</ul><h3 id=\"queue\">Review queue ({len(mine)})</h3>"
            f"<ul>{items or '<li>nothing flagged</li>'}</ul>")


def _who(m: Mark | None) -> str:
    return f'<span class="who">marked by {escape(m.who)} at {escape(m.when)}</span>' if m is not None else ""


def _verdict(verdict: str) -> str:
    if not verdict:
        return ""
    got, _, most = verdict.partition("/")
    cls = "warn" if verdict.startswith("mixed") else "ok" if got == most else "bad"
    return f'<span class="tag {cls}">auto: {escape(verdict)}</span>'


def group_card(g: Mapping[str, Any], res: Resolution, override: Resolution, token: str, back: str) -> str:
    fp = escape(g["fingerprint"])
    rep = g["representative"]
    size = len(g["members"])
    members = ", ".join(escape(m["submission"]) for m in g["members"][:60]) + (" …" if size > 60 else "")
    others = [m for m in g["members"] if m["text"] != rep]
    if others:
        members += (f"<details><summary>{len(others)} answer{'s' if len(others) != 1 else ''} worded differently"
                    "</summary>" + "".join(f'<div class="answer"><b>{escape(m["submission"])}</b>: '
                                           f'{render_answer(m["text"], formula=g["kind"] == "formula")}</div>'
                                           for m in others[:100]) + "</details>")
    head = (f'<h3><span class="size">{size}</span> × {escape(g["label"] or g["kind"])} '
            f'<span class="tag">{escape(g["kind"])}</span>{_verdict(g["verdict"])} <span class="tag">{escape(g["id"])}</span></h3>')
    answer = f'<div class="answer">{render_answer(rep, formula=g["kind"] == "formula") if rep else "(no answer)"}</div>'
    hidden = (f'<input type="hidden" name="token" value="{escape(token)}">'
              f'<input type="hidden" name="fingerprint" value="{fp}"><input type="hidden" name="back" value="{escape(back)}">')
    most = f"{g['max_points']:g}"
    if g["ta"]:
        m = res.mark
        points = "" if m is None or m.points is None else f"{m.points:g}"
        comment = m.comment if m is not None else ""
        note = ""
        if res.conflict:
            note = ('<div class="tag warn">marks differ: ' + escape(", ".join(
                f"{c.points:g}" if c.points is not None else "comment" for c in res.conflict))
                + "; each answer keeps its own until you mark the group</div>")
        state = "done" if m is not None and m.points is not None else "todo"
        form = (f'<form class="mark" method="post" action="/mark" id="mark-{fp}">{hidden}'
                f'<label>points <input type="number" name="points" step="any" min="0" max="{most}" value="{points}"></label>'
                f"<span>/ {most}</span><label>comment <textarea name=\"comment\">{escape(comment)}</textarea></label>"
                f"<button type=\"submit\">save</button>{_who(m)}</form>{note}")
    else:
        o = override.mark
        state = "auto"
        current = (f'<div class="tag warn">overridden: {o.points:g} / {most} ({escape(o.comment)}) {_who(o)}</div>'
                   if o is not None and o.points is not None else "")
        form = (f"{current}<details><summary>override the autograder's verdict</summary>"
                f'<form class="mark" method="post" action="/override" id="override-{fp}">{hidden}'
                f'<label>points <input type="number" name="points" step="any" min="0" max="{most}" '
                f'value="{"" if o is None or o.points is None else f"{o.points:g}"}"></label><span>/ {most}</span>'
                f'<label>reason <textarea name="reason" required></textarea></label>'
                f'<button type="submit">override</button></form></details>')
    return (f'<div class="group {state}" id="{fp}">{head}{answer}<div class="who">{members}</div>{form}</div>')
