"""The similarity reports: ``similarity.csv``, a page per pair (the two files side by side, the
shared regions marked and listed with how many documents of the class hold each) and an index
ranked by evidence. Plain HTML with inline CSS (no script, font or image from anywhere),
readable offline; a pair page's two panes share the width whatever the length of their lines
(each scrolls sideways on its own), so it fits a laptop's screen. The words are "similar" and "shared", never "copied":
a pair is a list for a person to read.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from html import escape
from pathlib import Path

from grader.classroom.similarity.calibrate import MIN_MATCHED, SCALE_FLOOR, SCORE_ALWAYS, SCORE_FLOOR, Z_FLAG
from grader.classroom.similarity.detect import Pair
from grader.classroom.similarity.sources import WRITTEN
from grader.common.atomic import write_text
from grader.common.csvfile import write_csv

COLUMNS = ("submission", "names", "other", "file", "score", "matched_tokens", "other_score", "page", "evidence", "z")
STYLE = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:1em auto;max-width:110em;color:#222;padding:0 1em}
h1{font-size:1.3em} h2{font-size:1.1em;margin-top:1.2em} .note{background:#f3f3f3;padding:.5em 1em;border-radius:6px}
.sides{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:.8em}
.side{min-width:0} .side h2{font-size:.95em;margin:.4em 0;overflow-wrap:anywhere}
pre{white-space:pre;background:#fff;border:1px solid #ccc;padding:.4em;margin:0;font-size:.78em;line-height:1.35;
font-family:ui-monospace,Menlo,Consolas,monospace;overflow:auto;max-height:80vh}
.text pre{white-space:pre-wrap;word-break:break-word}
mark{background:#ffc94d;color:inherit} mark.c{background:#fff0c2} .ln{color:#999;user-select:none}
.fold{color:#888;font-style:italic} .known{background:#fde2e2;padding:.4em 1em;border-radius:6px}
table{border-collapse:collapse;width:100%;font-size:.9em} td,th{border-bottom:1px solid #e4e4e4;padding:.25em .5em;
text-align:left;vertical-align:top;overflow-wrap:anywhere} td.num{text-align:right;font-variant-numeric:tabular-nums}
"""
#: A region held by at most this many documents is marked as rare (the darker colour).
RARE_HELD = 2


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
OPEN, OPEN_COMMON, CLOSE = "\0", "\2", "\1"


def _lines(text: str, regions: Sequence[tuple[int, int]], held: Sequence[int] = (), side: str = "a") -> str:
    """``text`` escaped with line numbers (each an anchor ``side`` + number), the regions marked
    (darker where at most RARE_HELD documents hold them), and the stretches of more than
    2 * CONTEXT_LINES lines that share nothing folded to one line."""
    held = list(held) or [0] * len(regions)
    pieces: list[str] = []
    at = 0
    for (s, e), n in zip(regions, held):
        pieces += [escape(text[at:s]), OPEN if n <= RARE_HELD else OPEN_COMMON, escape(text[s:e]), CLOSE]
        at = e
    pieces.append(escape(text[at:]))
    tags = {OPEN: "<mark>", OPEN_COMMON: '<mark class="c">', CLOSE: "</mark>"}
    rows, marked, current = [], [], ""       # current: the mark open at the end of the last line
    for n, line in enumerate("".join(pieces).split("\n"), 1):
        inside = bool(current) or OPEN in line or OPEN_COMMON in line
        body = tags[current] + line if current else line
        for ch in line:
            if ch in (OPEN, OPEN_COMMON):
                current = ch
            elif ch == CLOSE:
                current = ""
        for mark, tag in tags.items():
            body = body.replace(mark, tag)
        rows.append(f'<span class="ln" id="{side}{n}">{n:4d}  </span>{body}' + ("</mark>" if current else ""))
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


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _spans(text: str, regions: Sequence[tuple[int, int]]) -> str:
    """The lines the regions cover, as merged ranges: "2, 5-9, 12"."""
    spans: list[list[int]] = []
    for s, e in sorted(regions):
        first, last = _line_of(text, s), _line_of(text, max(s, e - 1))
        if spans and first <= spans[-1][1] + 1:
            spans[-1][1] = max(spans[-1][1], last)
        else:
            spans.append([first, last])
    return ", ".join(f"{f}" if f == la else f"{f}-{la}" for f, la in spans) or "none"


def held_words(n: int, documents: int) -> str:
    """How rare a shared region is, in words."""
    if n <= 2:
        return f"only these two of {documents} documents"
    return f"{n} of {documents} documents"


def _links(pair: Pair) -> str:
    """The shared regions matched up, rarest first, each linking to its lines on both sides."""
    rows = []
    for a0, a1, b0, b1, n in sorted(pair.links, key=lambda link: (link[4], link[0])):
        la, lb = (_line_of(pair.text_a, a0), _line_of(pair.text_a, max(a0, a1 - 1))), \
            (_line_of(pair.text_b, b0), _line_of(pair.text_b, max(b0, b1 - 1)))
        rows.append(f'<tr><td><a href="#a{la[0]}">lines {la[0]}-{la[1]}</a></td>'
                    f'<td><a href="#b{lb[0]}">lines {lb[0]}-{lb[1]}</a></td>'
                    f"<td>{escape(held_words(n, pair.documents))}</td></tr>")
    if not rows:
        return ""
    return ("<h2>Shared regions, rarest first</h2><table><tr><th>first</th><th>second</th><th>found in</th></tr>"
            + "".join(rows) + "</table>")


def _also_known(pair: Pair, known_of: dict[tuple[str, str], list[Pair]]) -> str:
    """What the page says when either side of a class pair also matches a known solution."""
    lines = []
    for doc in (pair.a, pair.b):
        for other in known_of.get((doc.owner, pair.file), []) if not doc.known else []:
            if other.b is not pair.b:
                lines.append(f"{doc.owner}'s {pair.file} also matches the known solution {other.b.owner} "
                             f"(score {other.score:.2f})")
    return "".join(f'<p class="known">{escape(line)}</p>' for line in lines)


def _not_compared(notes: Sequence[str]) -> str:
    """The note naming the files never compared: each a file name, or a file's note ("sgd.py: 2
    lines of student code (...), not compared")."""
    if not notes:
        return ""
    names = [note.split(":")[0] for note in notes]
    details = [note for note in notes if ":" in note]
    one = len(names) == 1
    return (f'<p class="note">Not compared: {escape(", ".join(names))}: {"its" if one else "their"} student code '
            f"(neither starter code nor common to the class) is under the {MIN_MATCHED} tokens a pair needs, so no "
            f"pair of {'it' if one else 'them'} can be listed; read {'it' if one else 'them'} yourself if it matters."
            + (f" ({escape('; '.join(details))})" if details else "") + "</p>")


WEIGHT_RULE = ("each token counts 1 when at most these two documents hold it and 2/n when n documents of the file "
               "do, in what is shared and in what the file holds alike, so idioms many solutions share count less")
"""What a pair's shares are (calibrate.rarity_weight), in one line."""
WEIGHT = f"Weighted: {WEIGHT_RULE}."


def _why(pair: Pair, threshold: float | None) -> str:
    if threshold is not None:
        return f"listed because its score reaches the fixed threshold {threshold:g}"
    if pair.z < Z_FLAG:
        return (f"listed because it shares at least {SCORE_ALWAYS:g} of its student code (its score is "
                f"{pair.z:.1f} times the spread of the file's pair scores above their median: many pairs of "
                f"{pair.file} in this class are this alike)")
    return (f"listed because its score is unusual for {pair.file} in this class: {pair.z:.1f} times the spread of "
            "the file's pair scores above their median")


def pair_page(pair: Pair, rank: int, not_compared: Sequence[str] = (), *, threshold: float | None = None,
              known_of: dict[tuple[str, str], list[Pair]] | None = None) -> str:
    a = _who(pair.a.owner, pair.a.names, pair.a.known)
    b = _who(pair.b.owner, pair.b.names, pair.b.known)
    title = f"{pair.file}: {pair.a.owner} and {pair.b.owner if not pair.b.known else 'a known solution'} are similar"
    if pair.file == WRITTEN:
        what = (f"A weighted {100 * pair.share_a:.0f}% of the first submission's own text is found in the second "
                f"({pair.matched} characters shared), and a weighted {100 * pair.share_b:.0f}% of the second's in the "
                f"first: the regions marked are shared. {WEIGHT} Own text is the answers as the grader reads them "
                "without the template's prompts (3(a) and 3(f) are left out: their right answers are all alike), "
                "and without passages many documents hold; case and layout are ignored.")
    else:
        what = (f"A weighted {100 * pair.share_a:.0f}% of the first file's student code is found in the second "
                f"({pair.matched} tokens shared), and a weighted {100 * pair.share_b:.0f}% of the second's in the first: "
                f"the regions marked in each file are shared (darker: found in no other document). {WEIGHT} Student "
                "code is what is neither starter code (of the template or another version named with --base) nor "
                "common to many documents of the class; names, strings, comments and layout are ignored, so renamed "
                "variables and moved functions still match.")
    body = (f'<nav><a href="index.html">all similar pairs</a></nav><h1>#{rank} {escape(title)} '
            f"(score {pair.score:.2f}, evidence {pair.evidence:.0f})</h1>"
            f'<p class="note">{what} The pair is {escape(_why(pair, threshold))}. Similar is not copied: both may '
            "come from the same lecture or the same public hint. Read both before deciding anything.</p>"
            + _also_known(pair, known_of or {}) + _not_compared(not_compared) + _links(pair) +
            f'<div class="sides{" text" if pair.file == WRITTEN else ""}">'
            f'<div class="side"><h2>{escape(a)}<br>shared lines: {escape(_spans(pair.text_a, pair.regions_a))}</h2>'
            f"<pre>{_lines(pair.text_a, pair.regions_a, pair.held_a, 'a')}</pre></div>"
            f'<div class="side"><h2>{escape(b)}<br>shared lines: {escape(_spans(pair.text_b, pair.regions_b))}</h2>'
            f"<pre>{_lines(pair.text_b, pair.regions_b, pair.held_b, 'b')}</pre></div></div>")
    return _page(title, body)


def _other(pair: Pair) -> str:
    """Whom the pair's second file belongs to: a submission, or the known folder holding it."""
    if not pair.b.known:
        return pair.b.owner
    return pair.b.owner if pair.file == WRITTEN else str(Path(pair.b.owner).parent)


def by_submissions(pairs: Sequence[Pair], names: Sequence[str]) -> str:
    """One row per two submissions (or a submission and a known folder): every similar file,
    ranked by the evidence of all of them together."""
    together: dict[tuple[str, str], list[tuple[Pair, str]]] = {}
    for pair, name in zip(pairs, names):
        a, b = pair.a.owner, _other(pair)
        key = (a, b) if pair.b.known or a <= b else (b, a)
        together.setdefault(key, []).append((pair, name))
    order = sorted(together.items(), key=lambda kv: (-sum(p.evidence for p, _ in kv[1]), kv[0]))
    rows = "".join(
        f'<tr><td class="num">{sum(p.evidence for p, _ in found):.0f}</td><td>{escape(a)}</td><td>'
        f"{escape(('known: ' if found[0][0].b.known else '') + b)}</td><td>"
        + ", ".join(f'<a href="{escape(n)}">{escape(p.file)}</a> {p.score:.2f}' for p, n in found) + "</td></tr>"
        for (a, b), found in order)
    return ("<h2>By submission, strongest evidence first</h2><table><tr><th>evidence</th><th>submission</th>"
            f"<th>similar to</th><th>similar files (score)</th></tr>{rows}</table><h2>By file, strongest evidence first</h2>")


def known_matches(pairs: Sequence[Pair]) -> dict[tuple[str, str], list[Pair]]:
    """The listed pairs of each (submission, file) with a known solution, best first."""
    out: dict[tuple[str, str], list[Pair]] = {}
    for p in sorted(pairs, key=lambda p: -p.score):
        if p.b.known:
            out.setdefault((p.a.owner, p.file), []).append(p)
    return out


def index_page(pairs: Sequence[Pair], names: Sequence[str], *, threshold: float | None, submissions: int,
               known: Sequence[Path], not_compared: Sequence[str] = (), bases: Sequence[Path] = ()) -> str:
    known_of = known_matches(pairs)

    def also(p: Pair) -> str:
        found = [f"{q.b.owner} ({q.score:.2f})" for d in (p.a, p.b) if not d.known
                 for q in known_of.get((d.owner, p.file), []) if q is not p]
        return escape("; ".join(found))

    rows = "".join(
        f'<tr><td class="num">{i}</td><td class="num">{p.evidence:.0f}</td><td class="num">{p.score:.2f}</td>'
        f'<td class="num">{p.z:.1f}</td><td>{escape(p.file)}</td>'
        f"<td>{escape(_who(p.a.owner, p.a.names, False))}</td><td>{escape(_who(p.b.owner, p.b.names, p.b.known))}</td>"
        f'<td>{also(p)}</td><td><a href="{escape(n)}">side by side</a></td></tr>'
        for i, (p, n) in enumerate(zip(pairs, names), 1))
    where = (f" and {len(known)} known folder{'s' if len(known) != 1 else ''} ({escape(', '.join(map(str, known)))})"
             if known else "")
    starters = f" and {escape(', '.join(map(str, bases)))}" if bases else ""
    if threshold is None:
        rule = (f"A pair is listed when its score is unusual for its file in this class: at least {Z_FLAG:g} times "
                "the spread of the file's pair scores (1.4826 x their median absolute deviation, at least "
                f"{SCALE_FLOOR:g}) above their median, at least {SCORE_FLOOR:g}, and sharing at least {MIN_MATCHED} "
                f"tokens; or when it shares at least {SCORE_ALWAYS:g} of its student code, however usual that is")
        heading = f"Similar pairs: {len(pairs)} unusually similar for their file in this class"
    else:
        rule = f"A pair is listed when its score reaches {threshold:g} and it shares at least {MIN_MATCHED} tokens"
        heading = f"Similar pairs: {len(pairs)} above {threshold:g}"
    body = (f"<h1>{escape(heading)}</h1>"
            f'<p class="note">{submissions} submission{"s" if submissions != 1 else ""} compared with each other{where}, '
            "file by file (the five code files, and the written answers). A pair's score is the larger of the two "
            f"weighted shares of student code found in the other file ({WEIGHT_RULE}); student code is what is "
            f"neither starter code (student_template/{starters}) "
            "nor held by many documents of the file (a passage in more than 10 documents, or a tenth of them in a "
            f"large class, counts for nothing). {rule}. <b>Evidence</b> is the shared tokens, each weighted by how "
            "few documents hold it (fully when only these two do): the list is ranked by it. These pairs are "
            "<b>similar</b>, which a person has to read to judge.</p>" + _not_compared(not_compared)
            + by_submissions(pairs, names) +
            "<table><tr><th>#</th><th>evidence</th><th>score</th><th>unusual by</th><th>file</th><th>submission</th>"
            f"<th>similar to</th><th>also matches known</th><th>page</th></tr>{rows}</table>")
    return _page("Similar pairs", body)


def write_all(pairs: Sequence[Pair], out: Path, *, csv_name: str, pages: str, index: str, threshold: float | None,
              submissions: int, known: Sequence[Path], not_compared: Sequence[str] = (),
              bases: Sequence[Path] = ()) -> tuple[Path, ...]:
    """similarity.csv, the index and a page per pair in ``out`` (old pages removed first)."""
    folder = out / pages
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.html"):
        old.unlink()
    names = [page_name(p) for p in pairs]
    known_of = known_matches(pairs)
    for rank, (pair, name) in enumerate(zip(pairs, names), 1):
        write_text(folder / name, pair_page(pair, rank, not_compared, threshold=threshold, known_of=known_of))
    write_text(folder / index, index_page(pairs, names, threshold=threshold, submissions=submissions,
                                          known=known, not_compared=not_compared, bases=bases))
    rows = [[p.a.owner, "; ".join(p.a.names), p.b.owner, p.file, f"{p.score:.3f}", p.matched, f"{p.share_b:.3f}",
             f"{pages}/{n}", f"{p.evidence:.0f}", f"{p.z:.1f}"] for p, n in zip(pairs, names)]
    write_csv(out / csv_name, COLUMNS, rows)
    return (out / csv_name, folder / index)


def write_summary_line(summary: Path, prefix: str, line: str) -> Path | None:
    """The batch's summary.md with its one line starting ``prefix`` replaced by ``prefix + line``
    (None, nothing written, when the batch has no summary.md)."""
    if not summary.is_file():
        return None
    lines = [old for old in summary.read_text(encoding="utf-8").splitlines() if not old.startswith(prefix)]
    while lines and not lines[-1].strip():
        lines.pop()
    return write_text(summary, "\n".join([*lines, "", prefix + line]) + "\n")
