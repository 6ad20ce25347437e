"""The similarity reports: ``similarity.csv``, a page per pair (the two files side by side, the
shared regions marked) and an index sorted by score. Plain HTML with inline CSS (no script, font
or image from anywhere), readable offline; a pair page's two panes share the width whatever the
length of their lines (each scrolls sideways on its own), so it fits a laptop's 1366 pixels. The
words are "similar" and "shared", never "copied": a pair is a list for a person to read.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from html import escape
from pathlib import Path

from grader.classroom.groups.marks import _csv_text, write_text_atomic
from grader.classroom.similarity.detect import MIN_MATCHED, Pair
from grader.classroom.similarity.sources import WRITTEN

COLUMNS = ("submission", "names", "other", "file", "score", "matched_tokens", "other_score", "page")
STYLE = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:1em auto;max-width:110em;color:#222;padding:0 .8em}
h1{font-size:1.4em} h2{font-size:1.15em;margin-top:1.5em} .note{background:#f3f3f3;padding:.5em 1em;border-radius:6px}
.sides{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:.8em}
.side{min-width:0} .side h2{font-size:1em;margin:.4em 0;word-break:break-all}
pre{white-space:pre;background:#fff;border:1px solid #ccc;padding:.5em;margin:0;font-size:.8em;line-height:1.35;
font-family:ui-monospace,Menlo,Consolas,monospace;overflow:auto;max-height:85vh}
.text pre{white-space:pre-wrap;word-break:break-word}
mark{background:#ffe08a;color:inherit} .ln{color:#999;user-select:none} .fold{color:#888;font-style:italic}
table{border-collapse:collapse;width:100%;font-size:.9em} td,th{border-bottom:1px solid #e4e4e4;padding:.25em .5em;
text-align:left;vertical-align:top} td.num{text-align:right;font-variant-numeric:tabular-nums}
"""


def _page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(title)}</title>"
            f"<style>{STYLE}</style></head><body>\n{body}\n</body></html>\n")


def page_name(pair: Pair) -> str:
    """A stable file name for the pair's page."""
    key = f"{pair.a.owner}\0{pair.b.owner}\0{pair.file}"
    short = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{pair.a.owner}--{Path(pair.b.owner).name}--{pair.file}")[:80]
    return f"{short}-{hashlib.sha1(key.encode()).hexdigest()[:8]}.html"


def _who(owner: str, names: Sequence[str], known: bool) -> str:
    if known:
        return f"known: {owner}"
    return owner + (f" ({', '.join(names)})" if names else "")


#: Lines shown around each shared region; longer stretches that share nothing are folded.
CONTEXT_LINES = 4


def _lines(text: str, regions: Sequence[tuple[int, int]]) -> str:
    """``text`` escaped with line numbers, the regions marked, and the stretches of more than
    2 * CONTEXT_LINES lines that share nothing folded to one line."""
    pieces: list[str] = []
    at = 0
    for s, e in regions:
        pieces += [escape(text[at:s]), "\0", escape(text[s:e]), "\1"]
        at = e
    pieces.append(escape(text[at:]))
    rows, open_mark, marked = [], False, []
    for n, line in enumerate("".join(pieces).split("\n"), 1):
        inside = open_mark or "\0" in line
        body = ("<mark>" if open_mark else "") + line
        open_mark = (line.rfind("\0") > line.rfind("\1")) if ("\0" in line or "\1" in line) else open_mark
        body = body.replace("\0", "<mark>").replace("\1", "</mark>") + ("</mark>" if open_mark else "")
        rows.append(f'<span class="ln">{n:4d}  </span>{body}')
        marked.append(inside)
    near = [False] * len(rows)
    for i, m in enumerate(marked):
        if m:
            for j in range(max(0, i - CONTEXT_LINES), min(len(rows), i + CONTEXT_LINES + 1)):
                near[j] = True
    out: list[str] = []
    i = 0
    while i < len(rows):
        if near[i]:
            out.append(rows[i])
            i += 1
            continue
        j = i
        while j < len(rows) and not near[j]:
            j += 1
        if j - i > 2 * CONTEXT_LINES:
            out.append(f'<span class="fold">      ⋯ lines {i + 1}-{j}: nothing shared</span>')
        else:
            out += rows[i:j]
        i = j
    return "\n".join(out)


def _spans(text: str, regions: Sequence[tuple[int, int]]) -> str:
    """The lines the regions cover, as merged ranges: "2, 5-9, 12"."""
    spans: list[list[int]] = []
    for s, e in regions:
        first, last = text.count("\n", 0, s) + 1, text.count("\n", 0, max(s, e - 1)) + 1
        if spans and first <= spans[-1][1] + 1:
            spans[-1][1] = max(spans[-1][1], last)
        else:
            spans.append([first, last])
    return ", ".join(f"{f}" if f == la else f"{f}-{la}" for f, la in spans) or "none"


def _not_compared(files: Sequence[str]) -> str:
    """The note naming the files that were never compared (too little own code to ever reach a pair)."""
    if not files:
        return ""
    one = len(files) == 1
    return (f'<p class="note">Not compared: {escape(", ".join(files))}: {"its" if one else "their"} own code (not '
            f"starter code) is under the {MIN_MATCHED} tokens a pair needs, so no pair of {'it' if one else 'them'} "
            f"can be listed; read {'it' if one else 'them'} yourself if it matters.</p>")


def pair_page(pair: Pair, rank: int, not_compared: Sequence[str] = ()) -> str:
    a = _who(pair.a.owner, pair.a.names, pair.a.known)
    b = _who(pair.b.owner, pair.b.names, pair.b.known)
    title = f"{pair.file}: {pair.a.owner} and {pair.b.owner if not pair.b.known else 'a known solution'} are similar"
    if pair.file == WRITTEN:
        what = (f"{100 * pair.share_a:.0f}% of the first submission's own text ({pair.matched} characters) is found "
                f"in the second, and {100 * pair.share_b:.0f}% of the second's in the first: the regions marked are "
                "shared. Own text is the answers as the grader reads them without the template's prompts (3(a) and "
                "3(f) are left out: their right answers are all alike); case and layout are ignored.")
    else:
        what = (f"{100 * pair.share_a:.0f}% of the first file's own code ({pair.matched} tokens) is found in the "
                f"second, and {100 * pair.share_b:.0f}% of the second's in the first: the regions marked in each "
                "file are shared. Own code is what is not starter code (lines of the template are left out); "
                "names, strings, comments and layout are ignored, so renamed variables and moved functions still "
                "match.")
    body = (f'<nav><a href="index.html">all similar pairs</a></nav><h1>#{rank} {escape(title)} (score {pair.score:.2f})</h1>'
            f'<p class="note">{what} Similar is not copied: both may come from the same lecture or the same '
            "public hint. Read both before deciding anything.</p>" + _not_compared(not_compared) +
            f'<div class="sides{" text" if pair.file == WRITTEN else ""}">'
            f'<div class="side"><h2>{escape(a)}<br>shared lines: {escape(_spans(pair.text_a, pair.regions_a))}</h2>'
            f"<pre>{_lines(pair.text_a, pair.regions_a)}</pre></div>"
            f'<div class="side"><h2>{escape(b)}<br>shared lines: {escape(_spans(pair.text_b, pair.regions_b))}</h2>'
            f"<pre>{_lines(pair.text_b, pair.regions_b)}</pre></div></div>")
    return _page(title, body)


def _other(pair: Pair) -> str:
    """Whom the pair's second file belongs to: a submission, or the known folder holding it."""
    if not pair.b.known:
        return pair.b.owner
    return pair.b.owner if pair.file == WRITTEN else str(Path(pair.b.owner).parent)


def by_submissions(pairs: Sequence[Pair], names: Sequence[str]) -> str:
    """One row per two submissions (or a submission and a known folder): every similar file."""
    together: dict[tuple[str, str], list[tuple[Pair, str]]] = {}
    for pair, name in zip(pairs, names):
        a, b = pair.a.owner, _other(pair)
        key = (a, b) if pair.b.known or a <= b else (b, a)
        together.setdefault(key, []).append((pair, name))
    order = sorted(together.items(), key=lambda kv: (-len(kv[1]), -max(p.score for p, _ in kv[1]), kv[0]))
    rows = "".join(
        f"<tr><td>{escape(a)}</td><td>{escape(('known: ' if found[0][0].b.known else '') + b)}</td><td>"
        + ", ".join(f'<a href="{escape(n)}">{escape(p.file)}</a> {p.score:.2f}' for p, n in found) + "</td></tr>"
        for (a, b), found in order)
    return ("<h2>By submission</h2><table><tr><th>submission</th><th>similar to</th><th>similar files (score)</th></tr>"
            f"{rows}</table><h2>By file, highest score first</h2>")


def index_page(pairs: Sequence[Pair], names: Sequence[str], *, threshold: float, submissions: int,
               known: Sequence[Path], not_compared: Sequence[str] = ()) -> str:
    rows = "".join(
        f'<tr><td class="num">{i}</td><td class="num">{p.score:.2f}</td><td>{escape(p.file)}</td>'
        f"<td>{escape(_who(p.a.owner, p.a.names, False))}</td><td>{escape(_who(p.b.owner, p.b.names, p.b.known))}</td>"
        f'<td class="num">{p.matched}</td><td><a href="{escape(n)}">side by side</a></td></tr>'
        for i, (p, n) in enumerate(zip(pairs, names), 1))
    where = (f" and {len(known)} known folder{'s' if len(known) != 1 else ''} ({escape(', '.join(map(str, known)))})"
             if known else "")
    body = (f"<h1>Similar pairs: {len(pairs)} above {threshold:g}</h1>"
            f'<p class="note">{submissions} submission{"s" if submissions != 1 else ""} compared with each other{where}, '
            "file by file (the five code files, and the written answers). A pair's score is the larger of the two shares of own code "
            f"(not starter code) found in the other file; pairs sharing fewer than {MIN_MATCHED} tokens are not "
            "listed. These pairs are <b>similar</b>, which a person has to read to judge: sorted by score, "
            "highest first.</p>" + _not_compared(not_compared) + by_submissions(pairs, names) +
            "<table><tr><th>#</th><th>score</th><th>file</th><th>submission</th><th>similar to</th>"
            f"<th>shared tokens</th><th>page</th></tr>{rows}</table>")
    return _page("Similar pairs", body)


def write_all(pairs: Sequence[Pair], out: Path, *, csv_name: str, pages: str, index: str, threshold: float,
              submissions: int, known: Sequence[Path], not_compared: Sequence[str] = ()) -> tuple[Path, ...]:
    """similarity.csv, the index and a page per pair in ``out`` (old pages removed first)."""
    folder = out / pages
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.html"):
        old.unlink()
    names = [page_name(p) for p in pairs]
    for rank, (pair, name) in enumerate(zip(pairs, names), 1):
        write_text_atomic(folder / name, pair_page(pair, rank, not_compared))
    write_text_atomic(folder / index, index_page(pairs, names, threshold=threshold, submissions=submissions, known=known,
                                                 not_compared=not_compared))
    rows = [[p.a.owner, "; ".join(p.a.names), p.b.owner, p.file, f"{p.score:.3f}", p.matched, f"{p.share_b:.3f}",
             f"{pages}/{n}"] for p, n in zip(pairs, names)]
    write_text_atomic(out / csv_name, _csv_text(COLUMNS, rows))
    return (out / csv_name, folder / index)
