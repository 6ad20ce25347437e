"""The pages of ``grader review``: every written question's groups with a points field and a
comment per TA-graded group, auto-graded groups read-only with their verdict (and an override
with a reason), progress per question, the review queue beside them, the question's text and the
reference answer above them, the rubric items of each item, the code checks to decide. Plain HTML
forms and inline CSS, and one script served by the review server itself (``review.js``: keys and
a poll for a changed batch; every form works without it); no font or asset from anywhere; math is
MathML made here from the LaTeX (latex2mathml, from the ``groups`` extra), so the browser draws
it with no network.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from grader.classroom.groups.store import Mark, Resolution
from grader.classroom.rubric_items import Applied, Item

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
padding:.2em .4em;text-align:left;vertical-align:top} .notice{background:#e3f2fd;padding:.6em 1em;border-radius:6px}
.question{background:#fff;border:1px solid #b0bec5;border-radius:6px;padding:.4em 1em;margin-bottom:1em}
.question .text{white-space:pre-wrap} .items{border:1px solid #cfd8dc;border-radius:6px;padding:.4em 1em;background:#fff}
.items li{margin:.2em 0} .items form{display:inline-flex;gap:.4em;flex-wrap:wrap;align-items:center}
.items input[name=description]{width:22em} .items input[name=comment]{width:16em}
label.item{display:block;padding:.15em .3em;border-radius:4px} label.item:hover{background:#eef}
.key{display:inline-block;min-width:1.2em;text-align:center;border:1px solid #999;border-radius:3px;
font-size:.8em;margin-right:.3em;background:#fff} .group.current{outline:3px solid #1e88e5}
.alone{margin:.2em 0 .2em 1em;font-size:.9em} .delta{font-weight:bold;margin-right:.3em}
form.mark .itemlist{flex-basis:100%} form.mark .itemlist:empty{display:none} ol.plain{list-style:none;padding-left:0}
"""
KEYS_HELP = ('<p class="who">Keys: <span class="key">j</span>/<span class="key">k</span> next/previous group, '
             '<span class="key">n</span> next group without points, <span class="key">1</span>…<span class="key">9</span> '
             "apply or remove rubric item N on the current group (saved at once), <span class=\"key\">c</span> "
             "its comment.</p>")


def plural(n: int, word: str) -> str:
    """``1 group``, ``2 groups``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def shown_label(label: str, kind: str, texts: Sequence[str]) -> str:
    """A group's label as the pages show it: answers that are byte for byte the same are called
    identical, whatever the grouping's label (a suggestion of similar texts, say)."""
    if len(texts) > 1 and len(set(texts)) == 1:
        return f"identical answers ({len(texts)})"
    return label or kind


def check_anchor(submission: str, check: str) -> str:
    return "check-" + "".join(c if c.isalnum() else "-" for c in f"{submission}-{check}")


@dataclass(frozen=True)
class Marking:
    """A TA-graded group's rubric items, those its mark carries, and the answers marked alone."""

    items: Sequence[Item]
    applied: Applied | None = None
    alone: Mapping[str, tuple[Mark, Applied | None]] = field(default_factory=dict)
    own: Mark | None = None           # the group's own mark, when answers marked alone differ from it


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
    except Exception:   # any failure of a third-party converter on student text
        return None
    if not _clean(root):
        return None
    ET.register_namespace("", MATHML_NS)
    # An HTML page puts <math> in MathML's namespace by itself: no namespace URL on the page.
    return ET.tostring(root, encoding="unicode").replace(f' xmlns="{MATHML_NS}"', "", 1)


_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")


def _text(text: str) -> str:
    """Text around the math: escaped, with Markdown's **bold** (``**Answer:**``) drawn bold."""
    return _BOLD.sub(r"<b>\1</b>", escape(text))


def render_answer(text: str, *, formula: bool) -> str:
    """A student's answer as HTML: delimited math (and a formula group's whole text) as MathML,
    everything else escaped (Markdown's bold drawn bold)."""
    if formula and not _DELIMITED.search(text):
        shown = mathml(text.strip(), display=True)
        return shown if shown is not None else escape(text)
    out, last = [], 0
    for m in _DELIMITED.finditer(text):
        out.append(_text(text[last:m.start()]))
        latex = next(g for g in m.groups() if g is not None)
        shown = mathml(latex, display=m.group(1) is not None or m.group(2) is not None)
        out.append(shown if shown is not None else escape(m.group(0)))
        last = m.end()
    out.append(_text(text[last:]))
    return "".join(out)


def page(title: str, body: str, aside: str, nav: str, generation: int = 0) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(title)}</title>"
            f"<style>{STYLE}</style><script src=\"/review.js\" defer></script></head>"
            f"<body data-generation=\"{generation}\"><header>{nav}</header>\n<div class=\"wrap\"><main>{body}</main>"
            f"<aside>{aside}</aside></div>\n</body></html>\n")


def nav(questions: Sequence[tuple[str, str]], checks: bool = False) -> str:
    return ('<a href="/">all questions</a>' + "".join(f'<a href="/q/{escape(q)}">{escape(q)}</a>' for q, _ in questions)
            + ('<a href="/checks">code checks</a>' if checks else ""))


def progress_line(done: int, total: int) -> str:
    return f"{done} of {plural(total, 'group')} marked"


def aside(progress: Sequence[tuple[str, str, int, int]], reviews: Sequence[Mapping[str, Any]], question: str = "",
          checks: int = 0) -> str:
    rows = "".join(f'<li><a href="/q/{escape(q)}">{escape(q)}</a>: <span class="progress">{progress_line(d, t)}</span></li>'
                   for q, _, d, t in progress if t)
    mine = [r for r in reviews if not question or str(r.get("id", "")) == question]
    items = "".join(
        f"<li><b>{escape(str(r.get('submission', '')))}</b> {escape(str(r.get('id', '')))}: "
        f"{escape(str(r.get('reason', '')))}</li>" for r in mine[:200])
    if checks:
        rows += f'<li><a href="/checks">code checks</a>: {plural(checks, "decision")} on the review list</li>'
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


def _new_since_marked(g: Mapping[str, Any], res: Resolution, done: str) -> str:
    """Which answers joined the group after it was marked: they have no mark until a TA saves one."""
    if not res.new:
        return ""
    new = set(res.new)
    who = [m["submission"] for m in g["members"] if " ".join(m["text"].lower().split()) in new]
    hint = " (the earlier mark is filled in: save applies it to them as your mark)" if res.suggestion else ""
    state = "pending" if done == "marked" else "the autograder's verdict stands for them"
    return (f'<div class="tag warn new">{len(who)} answer{"s" if len(who) != 1 else ""} new since {done}: '
            f'{escape(", ".join(who[:30]))}{" …" if len(who) > 30 else ""}; {state}{hint}</div>')


def _item_boxes(items: Sequence[Item], chosen: Sequence[int], *, keys: bool) -> str:
    boxes = []
    for it in items:
        key = f' data-key="{it.number}"' if keys else ""
        checked = " checked" if it.number in chosen else ""
        note = f" <i>({escape(it.comment)})</i>" if it.comment else ""
        boxes.append(f'<label class="item"><input type="checkbox" name="item" value="{it.number}"{checked}{key}> '
                     f'<span class="key">{it.number}</span><span class="delta">{it.points:+g}</span> '
                     f"{escape(it.description)}{note}</label>")
    return "".join(boxes)


def _ta_form(g: Mapping[str, Any], res: Resolution, marking: Marking, hidden: str) -> tuple[str, str]:
    fp, most = escape(g["fingerprint"]), float(g["max_points"])
    m, a = res.mark or marking.own or res.suggestion, marking.applied   # a suggestion: saving applies it
    if a is not None:
        points, comment = "" if a.adjust is None else f"{a.adjust:g}", a.comment
    else:
        points = "" if m is None or m.points is None else f"{m.points:g}"
        comment = m.comment if m is not None else ""
    note = _new_since_marked(g, res, "marked")
    if res.conflict and marking.own is None:
        note += ('<div class="tag warn">marks differ: ' + escape(", ".join(
            f"{c.points:g}" if c.points is not None else "comment" for c in res.conflict))
            + "; each answer keeps its own until you mark the group</div>")
    elif m is not None and m.points is not None and not res.new:
        note = f'<div class="who">now <b class="score">{m.points:g} / {most:g}</b>' + (
            "" if a is not None or not marking.items else ", marked outside the rubric items") + "</div>"
    done = res.mark or marking.own
    state = "done" if done is not None and done.points is not None else "todo"
    floor = f"{-most:g}" if marking.items else "0"
    label = "adjust" if marking.items else "points"
    form = (f'<form class="mark" method="post" action="/mark" id="mark-{fp}">{hidden}'
            f'<div class="itemlist">{_item_boxes(marking.items, a.items if a else (), keys=True)}</div>'
            f'<label>{label} <input type="number" name="points" step="any" min="{floor}" max="{most:g}" value="{points}"></label>'
            f"<span>/ {most:g}</span><label>comment <textarea name=\"comment\">{escape(comment)}</textarea></label>"
            f"<button type=\"submit\">save</button>{_who(m)}</form>{note}")
    if g["members"]:
        options = "".join(f'<option value="{escape(x["submission"])}">{escape(x["submission"])}</option>'
                          for x in g["members"][:200])
        form += (f'<details class="alone"><summary>mark one answer alone</summary>'
                 f'<form class="mark" method="post" action="/mark" id="alone-{fp}">{hidden}'
                 f'<label>answer of <select name="answer">{options}</select></label>'
                 f'<div class="itemlist">{_item_boxes(marking.items, (), keys=False)}</div>'
                 f'<label>{label} <input type="number" name="points" step="any" min="{floor}" max="{most:g}"></label>'
                 f'<label>comment <textarea name="comment"></textarea></label><button type="submit">save for this answer</button>'
                 "</form></details>")
    return state, form


def group_card(g: Mapping[str, Any], res: Resolution, override: Resolution, token: str, back: str,
               marking: Marking | None = None) -> str:
    fp = escape(g["fingerprint"])
    rep = g["representative"]
    size = len(g["members"])
    alone = marking.alone if marking is not None else {}

    def who(x: Mapping[str, Any]) -> str:
        own = alone.get(x["submission"])
        return escape(x["submission"]) + (f' <span class="tag warn">alone: {own[0].points:g}</span>'
                                          if own is not None and own[0].points is not None else "")

    members = ", ".join(who(m) for m in g["members"][:60]) + (" …" if size > 60 else "")
    others = [m for m in g["members"] if m["text"] != rep]
    if others:
        members += (f"<details><summary>{plural(len(others), 'answer')} worded differently"
                    "</summary>" + "".join(f'<div class="answer"><b>{escape(m["submission"])}</b>: '
                                           f'{render_answer(m["text"], formula=g["kind"] == "formula")}</div>'
                                           for m in others[:100]) + "</details>")
    label = shown_label(g["label"], g["kind"], [m["text"] for m in g["members"]])
    head = (f'<h3><span class="size">{plural(size, "answer")}</span> · {escape(label)} '
            f'<span class="tag">{escape(g["kind"])}</span>{_verdict(g["verdict"])} <span class="tag">{escape(g["id"])}</span></h3>')
    answer = f'<div class="answer">{render_answer(rep, formula=g["kind"] == "formula") if rep else "(no answer)"}</div>'
    hidden = (f'<input type="hidden" name="token" value="{escape(token)}">'
              f'<input type="hidden" name="fingerprint" value="{fp}"><input type="hidden" name="back" value="{escape(back)}">')
    most = f"{g['max_points']:g}"
    if g["ta"]:
        state, form = _ta_form(g, res, marking or Marking(()), hidden)
    else:
        o = override.mark
        filled = o or override.suggestion       # a suggestion for answers new since overridden
        state = "auto"
        shown = filled if o is not None or override.new else None     # the override of the answers it was given to
        current = (f'<div class="tag warn">overridden{" (the earlier answers)" if o is None else ""}: '
                   f'{shown.points:g} / {most} ({escape(shown.comment)}) {_who(shown)}</div>'
                   if shown is not None and shown.points is not None else "")
        form = (f"{current}{_new_since_marked(g, override, 'overridden')}<details><summary>override the autograder's verdict</summary>"
                f'<form class="mark" method="post" action="/override" id="override-{fp}">{hidden}'
                f'<label>points <input type="number" name="points" step="any" min="0" max="{most}" '
                f'value="{"" if filled is None or filled.points is None else f"{filled.points:g}"}"></label><span>/ {most}</span>'
                f'<label>reason <textarea name="reason" required>{escape(filled.comment) if filled else ""}</textarea></label>'
                f'<button type="submit">override</button></form></details>')
    ta = " ta" if g["ta"] else ""
    return (f'<div class="group {state}{ta}" id="{fp}">{head}{answer}<div class="who">{members}</div>{form}</div>')


def question_head(question: str, part: Any, text: str, reference: str) -> str:
    """The question above its answers: its name and points (the rubric), its text (the assignment's
    registry) and, folded, the reference answer (this page is the TAs')."""
    name = escape(part.name if part is not None else question)
    if part is not None:
        auto, ta = float(part.auto), float(part.manual_points)
        split = (f"auto-graded {auto:g}, TA {ta:g}" if auto and ta else "auto-graded" if auto else "TA-graded")
        worth = plural(int(part.points), "point") if float(part.points).is_integer() else f"{part.points:g} points"
        points = f' <span class="tag">{worth} ({split})</span>'
    else:
        points = ""
    shown = (f'<div class="text">{render_answer(text, formula=False)}</div>' if text
             else '<div class="who">The assignment gives no text for this question.</div>')
    ref = (f'<details class="reference"><summary>reference answer (TAs only)</summary><div class="answer">'
           f"{render_answer(reference, formula=False)}</div></details>" if reference else "")
    return f'<section class="question" id="question"><h1>{name}{points}</h1>{shown}{ref}</section>'


def items_panel(slot: str, items: Sequence[Item], most: float, token: str, back: str) -> str:
    """The rubric items of ``slot``: each editable (its points or wording; what carries it is
    re-scored), and a form to add one."""
    hidden = (f'<input type="hidden" name="token" value="{escape(token)}"><input type="hidden" name="slot" '
              f'value="{escape(slot)}"><input type="hidden" name="back" value="{escape(back)}">')

    def fields(it: Item | None) -> str:
        return (f'<input type="number" name="points" step="any" min="{-most:g}" max="{most:g}" required '
                f'value="{"" if it is None else f"{it.points:g}"}" title="points (+ or -)" style="width:5em">'
                f'<input name="description" required placeholder="what the answer does or misses" '
                f'value="{"" if it is None else escape(it.description)}">'
                f'<input name="comment" placeholder="comment to the student (optional)" '
                f'value="{"" if it is None else escape(it.comment)}">')
    rows = "".join(
        f'<li><form method="post" action="/item" id="item-{escape(slot)}-{it.number}">{hidden}'
        f'<input type="hidden" name="number" value="{it.number}"><span class="key">{it.number}</span>{fields(it)}'
        f'<button type="submit">change</button></form></li>' for it in items)
    return (f'<details class="items" id="items-{escape(slot)}" open><summary>rubric items of '
            f"{escape(slot)} ({plural(len(items), 'item')}; a group's points are its items' points plus any "
            f"adjustment, within 0 to {most:g}; changing an item re-scores every answer that has it)</summary>"
            f'<ol class="plain">{rows}</ol><form method="post" action="/item" id="new-item-{escape(slot)}">{hidden}'
            f'<b>new item</b> {fields(None)}<button type="submit">add</button></form></details>')


def checks_body(rows: Sequence[tuple[Mapping[str, str], Mark | None]], token: str) -> str:
    """The code checks on the review list, each with the TA's decision: keep the autograder's score
    or give another, always with a reason (the grade book applies it)."""
    cards = []
    for r, m in rows:
        sub, check = str(r.get("submission", "")), str(r.get("id", ""))
        most = str(r.get("max_score", ""))
        decided = (f'<div class="tag warn">decided: {m.points:g} / {escape(most)} ({escape(m.comment)}) {_who(m)}</div>'
                   if m is not None and m.points is not None else "")
        cards.append(
            f'<div class="group {"done" if decided else "todo"}" id="{check_anchor(sub, check)}">'
            f"<h3>{escape(sub)} {escape(str(r.get('names', '')))}: {escape(str(r.get('name', check)))} "
            f'<span class="tag">{escape(check)}</span> <span class="tag">auto: {escape(str(r.get("score", "")))} / '
            f'{escape(most)}</span></h3><div class="answer">{escape(str(r.get("reason", "")))}</div>{decided}'
            f'<form class="mark" method="post" action="/check" id="check-{check_anchor(sub, check)}">'
            f'<input type="hidden" name="token" value="{escape(token)}"><input type="hidden" name="submission" '
            f'value="{escape(sub)}"><input type="hidden" name="check" value="{escape(check)}">'
            f'<label>points <input type="number" name="points" step="any" min="0" max="{escape(most)}" '
            f'value="{"" if m is None or m.points is None else f"{m.points:g}"}"></label><span>/ {escape(most)}</span>'
            f'<label>reason <textarea name="reason" required></textarea></label><button type="submit">decide</button>'
            "</form></div>")
    return ("<h1>Code checks on the review list</h1><p>Each was flagged by the autograder (not run, over its time "
            "budget, a charge to confirm). Keep its score by giving the same points, or give others; the reason is "
            "recorded with your name and shown to the student, and <code>grader grades</code> applies it.</p>"
            + ("".join(cards) or "<p>Nothing on the review list is a code check.</p>"))
