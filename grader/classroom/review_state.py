"""What ``grader review`` shows and changes (:class:`Review`): the batch's grouping, its marks store,
its rubric items and the code checks of its review list, the pages drawn from them, and what a
posted form records. Every request first looks whether the batch's files changed under the server
(a late submission, a regrouping, another TA's marks) and reloads them, saying so on the page.
The HTTP layer is :mod:`grader.classroom.review`.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from grader.classroom.check_overrides import code_rows
from grader.classroom.check_overrides import current as current_check
from grader.classroom.check_overrides import record as record_check
from grader.classroom.groups.marks import (
    SNAPSHOT,
    MarksError,
    import_table,
    read_snapshot,
    resolve,
)
from grader.classroom.groups.store import MARK, MARKS_DIR, OVERRIDE, Mark, MarkStore, now, who_am_i
from grader.classroom.reports import review_html as html
from grader.classroom.reports.group_files import write_group_table
from grader.classroom.review_forms import (
    ReviewError,
    back_to,
    course_rubric,
    many,
    one,
    part_of,
    points_field,
    question_text,
    reference_answer,
    review_queue,
    stat,
)
from grader.classroom.rubric_items import ITEMS_FILE, ItemBook, ItemError, answer_print, latest_marks

GROUPS_DIR, GROUP_TABLE, REVIEW_QUEUE = "groups", "groups.csv", "review_queue.csv"
MAX_BODY = 64 * 1024


class Review:
    """The state the server shows and changes: the batch's grouping, its marks and rubric items."""

    def __init__(self, out: Path, *, who: str | None = None):
        self.out = Path(out)
        self.who = who or who_am_i()
        self.token = secrets.token_urlsafe(24)
        self.lock = threading.RLock()
        self.problem = self.notice = ""
        self.rubric = course_rubric()
        self.code_checks = tuple(c.id for c in self.rubric.checks) if self.rubric else ()
        self.stamp: tuple = ()
        self.generation = 0
        self.load()
        if not self.groups:
            raise ReviewError(f"{self.out / GROUPS_DIR / SNAPSHOT} is missing: run `grader groups {self.out}` first")

    # -- the data, and noticing that it changed --------------------------------------------------

    def _watched(self) -> tuple:
        """What the batch's files look like now: a grouping, a review list or marks written by
        another process (`grader batch`, `grader groups`, another TA's server) change it."""
        files = (self.out / GROUPS_DIR / SNAPSHOT, self.out / REVIEW_QUEUE, self.out / MARKS_DIR / "marks.jsonl",
                 self.out / MARKS_DIR / "groups.jsonl", self.out / MARKS_DIR / ITEMS_FILE)
        return tuple((s.st_mtime_ns, s.st_size) if (s := stat(f)) else None for f in files)

    def load(self) -> None:
        self.stamp = self._watched()
        self.groups = read_snapshot(self.out / GROUPS_DIR / SNAPSHOT)
        self.store = MarkStore.open(self.out)
        self.book = ItemBook.open(self.out, self.store)
        self.reviews = review_queue(self.out / REVIEW_QUEUE)
        self.checks = code_rows(self.reviews, self.code_checks)
        self.sync_table()

    def refresh(self) -> None:
        """Reload what changed under the server; say so when the grouping or the review list did.
        Marks are never lost: they are in the store, which a reload reads again."""
        with self.lock:
            now_stamp = self._watched()
            if now_stamp == self.stamp:
                return
            regrouped = now_stamp[:2] != self.stamp[:2]
            before = {g["fingerprint"] for g in self.groups}
            self.load()
            if regrouped and self.groups:
                self.generation += 1
                new = sum(1 for g in self.groups if g["fingerprint"] not in before)
                subs = len({m["submission"] for g in self.groups for m in g["members"]})
                self.notice = (f"The batch changed while this page was open (at {now()}): it now holds {html.plural(subs, 'submission')} "
                               f"and {html.plural(len(self.groups), 'group')}, {html.plural(new, 'new group')}. "
                               "Every mark given is kept: marks follow the answers, not the group numbers.")

    def sync_table(self) -> None:
        """Read what a spreadsheet added to groups.csv, then write it again from the store."""
        table = self.out / GROUPS_DIR / GROUP_TABLE
        if table.is_file():
            try:
                import_table(table, self.store, self.groups)
            except MarksError as exc:
                self.problem = (f"{exc}. Your marks here are saved in {self.store.folder}; groups.csv is left as "
                                "it is until that line is fixed.")
                return            # never overwrite a marked file we cannot read
        self.problem = ""
        self.write_table()

    def write_table(self) -> None:
        """groups.csv from the store (after a mark: what a spreadsheet added was read before it)."""
        if not self.problem:
            write_group_table(self.groups, self.store, self.out / GROUPS_DIR / GROUP_TABLE)
        self.stamp = self._watched()

    def questions(self) -> list[tuple[str, str]]:
        return list(dict.fromkeys((g["question"], g["question"]) for g in self.groups))

    def done(self, g: Mapping[str, Any], latest: Mapping[str, Mark]) -> bool:
        """Whether a TA-graded group has points: its answers' marks agree, or the group itself was
        marked and only answers marked alone differ."""
        m = resolve(self.store, g).mark or latest.get(g["fingerprint"])
        return m is not None and m.points is not None

    def progress(self) -> list[tuple[str, str, int, int]]:
        latest = latest_marks(self.store)
        out = []
        for q, title in self.questions():
            ta = [g for g in self.groups if g["question"] == q and g["ta"]]
            out.append((q, title, sum(1 for g in ta if self.done(g, latest)), len(ta)))
        return out

    def group(self, fingerprint: str) -> dict[str, Any]:
        """The group of this fingerprint now; a group of a page loaded before a regrouping is still
        marked (the store finds its answers in the new grouping by their texts), never lost."""
        for g in self.groups:
            if g["fingerprint"] == fingerprint:
                return g
        old = self.store.prints.get(fingerprint)
        like = next((g for g in self.groups if old is not None and g["slot"] == old.slot), None)
        if like is None or old is None:
            raise ReviewError(f"no group {fingerprint!r} in this batch; reload the page")
        return {**like, "fingerprint": fingerprint, "members": [], "id": f"{old.slot} (as it was)"}

    # -- what a form posts -------------------------------------------------------------------------

    def post(self, kind: str, form: Mapping[str, str | list[str]]) -> str:
        """Record a mark, an override, a rubric item or a code check's override; returns the page to go back to."""
        if not secrets.compare_digest(one(form, "token"), self.token):
            raise ReviewError("this form is from another session of `grader review`; reload the page")
        self.refresh()
        with self.lock:
            self.sync_table()          # a spreadsheet's marks first, so that a stale groups.csv never undoes this one
            if kind == "item":
                return self._item(form)
            if kind == "check":
                return self._check(form)
            return self._mark(kind, form)

    def _mark(self, kind: str, form: Mapping[str, str | list[str]]) -> str:
        g = self.group(one(form, "fingerprint"))
        if (kind == MARK) != bool(g["ta"]):
            raise ReviewError(f"{g['slot']} is {'TA' if g['ta'] else 'auto'}-graded: "
                              + ("mark it" if g["ta"] else "override it with a reason"))
        note = one(form, "comment" if kind == MARK else "reason")
        points = points_field(one(form, "points"), g, allow_negative=kind == MARK and bool(many(form, "item")))
        back = back_to(form) + "#" + g["fingerprint"]
        if kind == OVERRIDE:
            if points is not None and not note:
                raise ReviewError("an override needs a reason: it is recorded and shown to the student")
            self.store.record([Mark(g["slot"], g["fingerprint"], points, note, self.who, now(), "grader review", kind)])
        else:
            target = g["fingerprint"]
            answer = one(form, "answer")
            if answer:               # one answer alone, not its group
                member = next((m for m in g["members"] if m["submission"] == answer), None)
                if member is None:
                    raise ReviewError(f"{answer} has no answer in this group any more; reload the page")
                p = answer_print(g["slot"], member["text"])
                self.store.remember([p])
                target = p.fingerprint
            try:
                numbers = [int(n) for n in many(form, "item")]
                self.book.apply(self.store, g["slot"], target, numbers, points, note, self.who, float(g["max_points"]),
                                alone=bool(answer))
            except (ItemError, ValueError) as exc:
                raise ReviewError(str(exc)) from None
        self.write_table()
        return back

    def _item(self, form: Mapping[str, str | list[str]]) -> str:
        slot = one(form, "slot")
        ta = [g for g in self.groups if g["slot"] == slot and g["ta"]]
        if not ta:
            raise ReviewError(f"{slot!r} is not a TA-graded item of this batch; reload the page")
        most = float(ta[0]["max_points"])
        try:
            points = float(one(form, "points").replace(",", "."))
        except ValueError:
            raise ReviewError(f"a rubric item's points must be a number (e.g. 1 or -0.5); got {one(form, 'points')!r}") from None
        number = one(form, "number")
        try:
            item, changed = self.book.define(self.store, slot, one(form, "description"), points, one(form, "comment"),
                                             self.who, most, int(number) if number else None)
        except (ItemError, ValueError) as exc:
            raise ReviewError(str(exc)) from None
        self.notice = (f"{slot} item {item.number} saved ({item.points:+g}: {item.description})"
                       + (f"; {html.plural(changed, 'mark')} re-scored" if number else ""))
        self.write_table()
        return back_to(form) + "#items-" + slot

    def _check(self, form: Mapping[str, str | list[str]]) -> str:
        key = (one(form, "submission"), one(form, "check"))
        row = next((r for r in self.checks if (r["submission"], r["id"]) == key), None)
        if row is None:
            raise ReviewError(f"{key[1]} of {key[0]} is not on the review list any more; reload the page")
        most = float(row.get("max_score") or 0)
        text, reason = one(form, "points"), one(form, "reason")
        points = None
        if text:
            try:
                points = float(text.replace(",", "."))
            except ValueError:
                raise ReviewError(f"points must be a number; got {text!r}") from None
            if not 0 <= points <= most:
                raise ReviewError(f"{row.get('name') or key[1]} is worth 0 to {most:g} points; got {points:g}")
        if not reason:
            raise ReviewError("a decision on a code check needs a reason: it is recorded and shown to the student")
        record_check(self.store, row, points, reason, self.who)
        self.write_table()
        return "/checks#" + html.check_anchor(*key)

    # -- pages -----------------------------------------------------------------------------------

    def _page(self, title: str, body: str, question: str = "") -> str:
        top = "".join(f'<p class="{c}">{html.escape(t)}</p>' for c, t in (("notice", self.notice), ("error", self.problem)) if t)
        self.notice = ""        # said once
        return html.page(title, top + body, html.aside(self.progress(), self.reviews, question, len(self.checks)),
                         html.nav(self.questions(), bool(self.checks)), self.generation)

    def index(self) -> str:
        rows = "".join(f'<li><a href="/q/{q}">{q}</a>: <span class="progress">'
                       f'{html.progress_line(d, t) if t else "auto-graded: verdicts to read, override one with a reason"}'
                       '</span></li>' for q, _, d, t in self.progress())
        checks = (f'<p><a href="/checks">Code checks on the review list</a>: {html.plural(len(self.checks), "decision")} '
                  "to make (confirm the autograder's score or override it with a reason).</p>") if self.checks else ""
        body = (f"<h1>Answer groups: {self.out.name}</h1><p>Mark each TA-graded group once: its points and comment "
                "go to every answer in it now; an answer that joins it later waits for you (shown first, the earlier "
                "mark filled in). Auto-graded items show their "
                f"verdict; override one only with a reason.</p>{checks}<ul>{rows}</ul>{html.KEYS_HELP}")
        return self._page("Review", body)

    def question(self, q: str, error: str = "") -> str:
        mine = [g for g in self.groups if g["question"] == q]
        if not mine:
            raise KeyError(q)
        parts = [f'<p class="error">{html.escape(error)}</p>' if error else "",
                 html.question_head(q, part_of(self.rubric, q), question_text(q), reference_answer(q))]
        for slot in dict.fromkeys(g["slot"] for g in mine):
            groups = [g for g in mine if g["slot"] == slot]
            ta = [g for g in groups if g["ta"]]
            latest = latest_marks(self.store)
            done = sum(1 for g in ta if self.done(g, latest))
            answers = sum(len(g["members"]) for g in groups)
            what = (html.progress_line(done, len(ta)) if ta else "auto-graded: read only") + \
                f", {html.plural(len(groups), 'group')} for {html.plural(answers, 'answer')}"
            parts.append(f'<h2>{html.escape(slot)}: <span class="progress">{what}</span></h2>')
            if ta:
                parts.append(html.items_panel(slot, self.book.of(slot), float(ta[0]["max_points"]), self.token, f"/q/{q}")
                             + html.KEYS_HELP)
            if any(g["suggestion"] for g in groups):
                parts.append("<p>Prose groups are <b>suggestions</b> made by text similarity: read every answer.</p>")
            shown = [(g, resolve(self.store, g), resolve(self.store, g, OVERRIDE)) for g in groups]
            shown.sort(key=lambda x: not (x[1].new or x[2].new))     # answers new since marked first
            parts += [html.group_card(g, res, over, self.token, f"/q/{q}", self._marking(g, latest))
                      for g, res, over in shown]
        return self._page(q, "".join(parts), q)

    def _marking(self, g: Mapping[str, Any], latest: Mapping[str, Mark]) -> html.Marking | None:
        """What the card of a TA-graded group needs of the rubric items: the items, those its mark
        carries, and each answer marked alone (its mark, and its items)."""
        if not g["ta"]:
            return None
        most = float(g["max_points"])
        alone = {}
        for m in g["members"]:
            fp = answer_print(g["slot"], m["text"]).fingerprint
            own = self.book.applied.get(fp)
            if own is not None and own.alone and fp != g["fingerprint"] and fp in latest:
                alone[m["submission"]] = (latest[fp], self.book.current(latest, own, most))
        return html.Marking(self.book.of(g["slot"]), self.book.current(latest, self.book.applied.get(g["fingerprint"]), most),
                            alone, latest.get(g["fingerprint"]) if alone else None)

    def checks_page(self, error: str = "") -> str:
        rows = [(r, current_check(self.store, r["id"], r["submission"])) for r in self.checks]
        return self._page("Code checks", (f'<p class="error">{html.escape(error)}</p>' if error else "")
                          + html.checks_body(rows, self.token))
