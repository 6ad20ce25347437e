"""The answer-group pages: one self-contained HTML page per written question, an index and the
review queue. Plain HTML with inline CSS (no script, font or image from anywhere), readable
offline; links point at the batch's own files (``../submissions/<key>/report.json``). Answers are
drawn as the review page draws them (math as MathML by latex2mathml, Markdown's bold as bold);
counts are of answers (one per submission and item), never of a question's shares added up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path

from grader.classroom.groups.cluster import FORMULA, PROSE, Group
from grader.classroom.reports.review_html import plural, render_answer, shown_label
from grader.common.atomic import write_text

STYLE = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:70em;color:#222;padding:0 1em}
h1{font-size:1.5em} h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}
.group{border:1px solid #ccc;border-radius:6px;margin:1em 0;padding:.6em 1em;background:#fafafa}
.group h3{margin:.2em 0;font-size:1em} .size{font-weight:bold}
.tag{display:inline-block;border-radius:4px;padding:0 .4em;margin-left:.4em;font-size:.85em;background:#e4e4e4}
.tag.ok{background:#d6f0d6} .tag.bad{background:#f6dada} .tag.warn{background:#fbeec2}
pre{white-space:pre-wrap;word-break:break-word;background:#fff;border:1px solid #ddd;padding:.5em;margin:.3em 0;
font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em;max-height:18em;overflow:auto}
.answer{white-space:pre-wrap;word-break:break-word;background:#fff;border:1px solid #ddd;padding:.5em;margin:.3em 0;
max-height:18em;overflow:auto} math{font-size:1.1em}
table{border-collapse:collapse;width:100%;font-size:.9em} td,th{border-bottom:1px solid #e4e4e4;padding:.2em .4em;
text-align:left;vertical-align:top} .note{background:#fbeec2;padding:.5em 1em;border-radius:6px}
nav a{margin-right:1em}
"""


def _page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(title)}</title>"
            f"<style>{STYLE}</style></head><body>\n{body}\n</body></html>\n")


def _verdict_tag(verdict: str) -> str:
    if not verdict:
        return ""
    if verdict.startswith("mixed"):
        cls = "warn"
    else:
        got, _, most = verdict.partition("/")
        cls = "ok" if got == most else "bad"
    return f'<span class="tag {cls}">auto: {escape(verdict)}</span>'


def _link(key: str) -> str:
    return f'<a href="../submissions/{escape(key)}/report.json">{escape(key)}</a>'


def _answer(text: str, formula: bool) -> str:
    return f'<div class="answer">{render_answer(text, formula=formula)}</div>'


def _group_html(g: Group) -> str:
    rep = g.representative
    formula = g.kind == FORMULA
    kind = f'<span class="tag{" warn" if g.kind == PROSE else ""}">{escape(g.kind)}</span>'
    label = shown_label(g.label, g.kind, [a.text for a in g.members])
    head = (f'<h3 id="{escape(g.id)}"><span class="size">{plural(g.size, "answer")}</span> · {escape(label)} '
            f'{kind}{_verdict_tag(g.verdict)} <span class="tag">{escape(g.id)}</span></h3>')
    shown = ""
    if rep is not None:
        read = f"<div>read as: {escape(rep.read)}</div>" if rep.read and rep.read != rep.text else ""
        shown = (f"<div>representative ({_link(rep.submission)}, {escape(rep.where or 'where not recorded')}):</div>"
                 f'<div class="answer">{render_answer(rep.text, formula=formula) if rep.text else "(no answer)"}</div>{read}')
    rows = "".join(
        f"<tr><td>{_link(a.submission)}</td><td>{escape(a.names)}</td><td>{escape(a.where)}</td>"
        f"<td>{escape(a.verdict)}</td><td>{escape(a.review)}</td>"
        f"<td>{'' if rep is not None and a.text == rep.text else _answer(a.text, formula)}</td></tr>"
        for a in g.members)
    members = (f"<details><summary>the {plural(g.size, 'submission')}</summary><table>"
               "<tr><th>submission</th><th>names</th><th>where read</th><th>auto</th><th>review</th>"
               f"<th>answer (when it differs from the representative)</th></tr>{rows}</table></details>")
    return f'<div class="group">{head}{shown}{members}</div>'


def question_page(question: str, title: str, slots: Mapping[str, list[Group]]) -> str:
    parts = ['<nav><a href="index.html">all questions</a><a href="review.html">review queue</a></nav>',
             f"<h1>{escape(title)}</h1>",
             "<p>Groups are sorted by size. Mark each group of a TA-graded item once, in <code>grader review</code> "
             "or in <code>groups.csv</code> (column <code>points</code>, for every member); <code>grader points</code> "
             "turns the marks into points per submission. Auto-graded items are shown with their verdict: their "
             "points are in grades.csv already.</p>"]
    for slot, groups in slots.items():
        answered = sum(g.size for g in groups)
        auto = any(g.verdict for g in groups)
        kind = "auto-graded, not marked here" if auto else "TA-graded"
        parts.append(f"<h2>{escape(slot)} ({kind}): {plural(len(groups), 'group')} for {plural(answered, 'answer')}</h2>")
        if any(g.kind == PROSE for g in groups):
            parts.append('<p class="note">Prose groups are <b>suggestions</b> made by text similarity: '
                         "answers in one group use the same or similar words, which does not make them "
                         "equally right. Read every answer before marking a group.</p>")
        parts += [_group_html(g) for g in groups]
    return _page(title, "\n".join(parts))


def review_page(reviews: Sequence[dict]) -> str:
    rows = "".join(
        f"<tr><td>{_link(str(r.get('submission', '')))}</td><td>{escape(str(r.get('names', '')))}</td>"
        f"<td>{escape(str(r.get('name', r.get('id', ''))))}</td><td>{escape(str(r.get('score', '')))}/"
        f"{escape(str(r.get('max_score', '')))}</td><td>{escape(str(r.get('reason', '')))}</td>"
        f"<td>{escape(str(r.get('where', '')))}</td><td>{_answer(str(r.get('raw', '')), False)}</td></tr>"
        for r in reviews)
    body = ('<nav><a href="index.html">all questions</a></nav>'
            f"<h1>Review queue: {len(reviews)} item{'s' if len(reviews) != 1 else ''}</h1>"
            "<p>Every item that a submission's grading flagged for a TA, with the reason and the text read.</p>"
            "<table><tr><th>submission</th><th>names</th><th>item</th><th>auto score</th><th>reason</th>"
            f"<th>where</th><th>text read</th></tr>{rows}</table>")
    return _page("Review queue", body)


def index_page(pages: Sequence[tuple[str, str, int, int]], reviews: int) -> str:
    """``pages``: (file, title, groups, answers), answers counted once per submission and item."""
    items = "".join(f'<li><a href="{escape(f)}">{escape(t)}</a>: {plural(n, "group")} for {plural(m, "answer")}</li>'
                    for f, t, n, m in pages)
    body = (f"<h1>Answer groups</h1><p><a href=\"review.html\">Review queue</a>: {plural(reviews, 'item')}.</p>"
            f"<ul>{items}</ul>")
    return _page("Answer groups", body)


def _answers(slots: Mapping[str, list[Group]]) -> int:
    """The answers of a question: one per submission and item, where an auto-graded share and a TA
    share of the same answer are one answer (a question graded as several items counts each)."""
    return len({(a.submission, a.item if a.item != "ta" else "") for gs in slots.values() for g in gs for a in g.members})


def write_pages(groups: Mapping[str, list[Group]], titles: Mapping[str, str], reviews: Sequence[dict],
                folder: Path) -> list[Path]:
    """One page per question (its items together), the review queue and the index, in ``folder``."""
    by_question: dict[str, dict[str, list[Group]]] = {}
    for slot, gs in groups.items():
        by_question.setdefault(slot.split(".")[0], {})[slot] = gs
    written, index = [], []
    for question, slots in by_question.items():
        name = f"{question}.html"
        title = titles.get(question, question)
        path = folder / name
        write_text(path, question_page(question, title, slots))
        written.append(path)
        index.append((name, title, sum(len(g) for g in slots.values()), _answers(slots)))
    for name, text in (("review.html", review_page(reviews)), ("index.html", index_page(index, len(reviews)))):
        write_text(folder / name, text)
        written.append(folder / name)
    return written
