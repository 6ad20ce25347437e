"""``grader review DIR``: mark a finished batch's answer groups in a browser.

A small HTTP server on 127.0.0.1 only (never another interface), over the batch folder: it reads
the grouping (``groups/groups.json``) and the marks store, shows the pages of
:mod:`grader.classroom.reports.review_html`, and records each mark (points, comment) or override (points,
reason) in the store with who and when, as the groups CSV does; after each one it writes
groups/groups.csv again from the store (having first read any mark a spreadsheet added to it),
so the CSV and the browser never undo each other. Forms carry a token made when the server
starts and the Host header must be this server's, so another web page cannot post marks.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from grader.classroom.groups.marks import (
    SNAPSHOT,
    MarksError,
    import_table,
    read_snapshot,
    resolve,
    write_group_table,
)
from grader.classroom.groups.store import MARK, OVERRIDE, Mark, MarkStore, now, who_am_i
from grader.classroom.reports import review_html as html

HOST = "127.0.0.1"
GROUPS_DIR, GROUP_TABLE, REVIEW_QUEUE = "groups", "groups.csv", "review_queue.csv"
MAX_BODY = 64 * 1024


class ReviewError(ValueError):
    """What a posted mark got wrong, said on the page."""


class Review:
    """The state the server shows and changes: the batch's grouping and its marks."""

    def __init__(self, out: Path, *, who: str | None = None):
        self.out = Path(out)
        self.who = who or who_am_i()
        self.token = secrets.token_urlsafe(24)
        self.lock = threading.Lock()
        self.problem = ""
        self.groups = read_snapshot(self.out / GROUPS_DIR / SNAPSHOT)
        if not self.groups:
            raise ReviewError(f"{self.out / GROUPS_DIR / SNAPSHOT} is missing: run `grader groups {self.out}` first")
        self.store = MarkStore.open(self.out)
        self.sync_table()
        self.reviews = _review_queue(self.out / REVIEW_QUEUE)

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
        write_group_table(self.groups, self.store, table)

    def questions(self) -> list[tuple[str, str]]:
        return list(dict.fromkeys((g["question"], g["question"]) for g in self.groups))

    def progress(self) -> list[tuple[str, str, int, int]]:
        out = []
        for q, title in self.questions():
            ta = [g for g in self.groups if g["question"] == q and g["ta"]]
            done = sum(1 for g in ta if (m := resolve(self.store, g).mark) is not None and m.points is not None)
            out.append((q, title, done, len(ta)))
        return out

    def group(self, fingerprint: str) -> dict[str, Any]:
        for g in self.groups:
            if g["fingerprint"] == fingerprint:
                return g
        raise ReviewError(f"no group {fingerprint!r} in this batch; reload the page")

    def post(self, kind: str, form: Mapping[str, str]) -> str:
        """Record a mark or an override; returns the page to go back to."""
        if not secrets.compare_digest(form.get("token", ""), self.token):
            raise ReviewError("this form is from another session of `grader review`; reload the page")
        g = self.group(form.get("fingerprint", ""))
        if (kind == MARK) != bool(g["ta"]):
            raise ReviewError(f"{g['slot']} is {'TA' if g['ta'] else 'auto'}-graded: "
                              + ("mark it" if g["ta"] else "override it with a reason"))
        text, note = form.get("points", "").strip(), form.get("comment" if kind == MARK else "reason", "").strip()
        points = None
        if text:
            try:
                points = float(text.replace(",", "."))
            except ValueError:
                raise ReviewError(f"points must be a number; got {text!r}") from None
            if not 0 <= points <= float(g["max_points"]):
                raise ReviewError(f"{g['slot']} is worth 0 to {g['max_points']:g} points; got {points:g}")
        if kind == OVERRIDE and points is not None and not note:
            raise ReviewError("an override needs a reason: it is recorded and shown to the student")
        with self.lock:
            self.store.record([Mark(g["slot"], g["fingerprint"], points, note, self.who, now(), "grader review", kind)])
            self.sync_table()
        back = form.get("back", "/")
        return (back if back.startswith("/q/") else "/") + "#" + g["fingerprint"]

    def index(self) -> str:
        rows = "".join(f'<li><a href="/q/{q}">{q}</a>: <span class="progress">{html.progress_line(d, t)}</span>'
                       f'{"" if t else " (auto-graded)"}</li>' for q, _, d, t in self.progress())
        warn = f'<p class="error">{html.escape(self.problem)}</p>' if self.problem else ""
        body = (f"{warn}<h1>Answer groups: {self.out.name}</h1><p>Mark each TA-graded group once: its points and comment "
                "go to every answer in it, and to any later answer that joins it. Auto-graded items show their "
                f"verdict; override one only with a reason.</p><ul>{rows}</ul>")
        return html.page("Review", body, html.aside(self.progress(), self.reviews), html.nav(self.questions()))

    def question(self, q: str, error: str = "") -> str:
        mine = [g for g in self.groups if g["question"] == q]
        if not mine:
            raise KeyError(q)
        error = error or self.problem
        parts = [f'<p class="error">{html.escape(error)}</p>' if error else "", f"<h1>{html.escape(q)}</h1>"]
        for slot in dict.fromkeys(g["slot"] for g in mine):
            groups = [g for g in mine if g["slot"] == slot]
            ta = [g for g in groups if g["ta"]]
            done = sum(1 for g in ta if (m := resolve(self.store, g).mark) is not None and m.points is not None)
            what = html.progress_line(done, len(ta)) if ta else "auto-graded: read only"
            parts.append(f'<h2>{html.escape(slot)}: <span class="progress">{what}</span></h2>')
            if any(g["suggestion"] for g in groups):
                parts.append("<p>Prose groups are <b>suggestions</b> made by text similarity: read every answer.</p>")
            parts += [html.group_card(g, resolve(self.store, g), resolve(self.store, g, OVERRIDE), self.token,
                                      f"/q/{q}") for g in groups]
        return html.page(q, "".join(parts), html.aside(self.progress(), self.reviews, q), html.nav(self.questions()))


def _review_queue(path: Path) -> list[dict[str, str]]:
    import csv

    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def handler_for(review: Review) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "a2grader-review"

        def log_message(self, format: str, *args: Any) -> None:   # noqa: A002 - the base class's name
            pass

        def _host_ok(self) -> bool:
            host = self.headers.get("Host", "")
            return host.split(":")[0] in (HOST, "localhost")

        def _send(self, status: int, body: str, location: str = "") -> None:
            data = body.encode("utf-8")
            self.send_response(status)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):    # the browser went away: nothing to do
                pass

        def do_GET(self) -> None:   # noqa: N802 - http.server's name
            if not self._host_ok():
                return self._send(HTTPStatus.FORBIDDEN, "wrong host")
            path = unquote(urlsplit(self.path).path)
            try:
                if path == "/":
                    return self._send(HTTPStatus.OK, review.index())
                if path.startswith("/q/"):
                    return self._send(HTTPStatus.OK, review.question(path[3:]))
            except KeyError:
                pass
            self._send(HTTPStatus.NOT_FOUND, "not found")

        def do_POST(self) -> None:   # noqa: N802
            if not self._host_ok():
                return self._send(HTTPStatus.FORBIDDEN, "wrong host")
            path = urlsplit(self.path).path
            length = int(self.headers.get("Content-Length") or 0)
            if path not in ("/mark", "/override") or length > MAX_BODY:
                return self._send(HTTPStatus.BAD_REQUEST, "bad request")
            fields = parse_qs(self.rfile.read(length).decode("utf-8", errors="replace"), keep_blank_values=True)
            form = {k: v[-1] for k, v in fields.items()}
            try:
                where = review.post(MARK if path == "/mark" else OVERRIDE, form)
            except ReviewError as exc:
                back = form.get("back", "/")
                question = back[3:] if back.startswith("/q/") else ""
                try:
                    body = review.question(question, str(exc)) if question else review.index()
                except KeyError:
                    body = review.index()
                return self._send(HTTPStatus.BAD_REQUEST, body)
            self._send(HTTPStatus.SEE_OTHER, "", where)

    return Handler


def make_server(out: Path, *, port: int = 0, who: str | None = None) -> ThreadingHTTPServer:
    """The review server for the batch in ``out`` on 127.0.0.1:``port`` (0: any free port)."""
    review = Review(out, who=who)
    server = ThreadingHTTPServer((HOST, port), handler_for(review))
    server.daemon_threads = True
    return server
