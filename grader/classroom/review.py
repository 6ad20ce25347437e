"""``grader review DIR``: mark a finished batch's answer groups in a browser.

A small HTTP server on 127.0.0.1 only (never another interface), over the batch folder: it reads
the grouping (``groups/groups.json``) and the marks store, shows the pages of
:mod:`grader.classroom.reports.review_html`, and records each mark (points, comment) or override (points,
reason) in the store with who and when, as the groups CSV does; after each one it writes
groups/groups.csv again from the store (having first read any mark a spreadsheet added to it),
so the CSV and the browser never undo each other. Forms carry a token made when the server
starts and the Host header must be this server's, so another web page cannot post marks.

Marks come from rubric items per item (:mod:`grader.classroom.rubric_items`: applied to a group or
to one answer by a click or a key, re-scoring what carries an item when it changes) plus a free
adjustment and comment. Code checks on the review list get a decision with a reason
(:mod:`grader.classroom.check_overrides`), which the grade book applies. Each page shows the
question's text, points and (TAs only) the reference answer from the assignment's registry. Every
request first looks whether the batch's files changed under the server (a late submission, a
regrouping, another TA's marks) and reloads them, saying so on the page; the one script
(``reports/review.js``, served from here, no inline script) gives the keys and polls for that.
This module is the HTTP layer; what the server shows and records is :mod:`grader.classroom.review_state`.
"""

from __future__ import annotations

from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from grader.classroom.groups.store import MARK, OVERRIDE
from grader.classroom.review_forms import ReviewError, back_to
from grader.classroom.review_state import MAX_BODY, Review

__all__ = ["HOST", "Review", "ReviewError", "handler_for", "make_server"]

HOST = "127.0.0.1"
SCRIPT = Path(__file__).resolve().parent / "reports" / "review.js"
CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; connect-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
SECURITY_HEADERS = (
    # Nothing but this server's own pages and script: no frame around them, no outside source.
    ("Content-Security-Policy", CSP),
    ("X-Frame-Options", "DENY"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "same-origin"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
    ("Cache-Control", "no-store"),
)
"""Sent with every response of the review server."""
POSTS = {"/mark": MARK, "/override": OVERRIDE, "/item": "item", "/check": "check"}


def handler_for(review: Review) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "a2grader-review"

        def log_message(self, format: str, *args: Any) -> None:   # the base class's name
            pass

        def _host_ok(self) -> bool:
            host = self.headers.get("Host", "")
            return host.split(":")[0] in (HOST, "localhost")

        def _same_origin(self) -> bool:
            """A state-changing request must come from a page of this server: its Origin (or, when a
            browser sends none, its Referer) is this server's own address."""
            port = getattr(self.server, "server_port", 0)
            own = {f"http://{name}:{port!s}" for name in (HOST, "localhost")}
            origin = self.headers.get("Origin")
            if origin is not None:
                return origin in own
            referer = self.headers.get("Referer", "")
            return any(referer == o or referer.startswith(o + "/") for o in own)

        def _send(self, status: int, body: str, location: str = "", kind: str = "text/html") -> None:
            data = body.encode("utf-8")
            self.send_response(status)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Type", f"{kind}; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            for name, value in SECURITY_HEADERS:
                self.send_header(name, value)
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):    # the browser went away: nothing to do
                pass

        def do_GET(self) -> None:   # http.server's name
            if not self._host_ok():
                return self._send(HTTPStatus.FORBIDDEN, "wrong host")
            path = unquote(urlsplit(self.path).path)
            if path == "/review.js":
                return self._send(HTTPStatus.OK, SCRIPT.read_text(encoding="utf-8"), kind="text/javascript")
            review.refresh()
            try:
                with review.lock:        # a page is drawn from one state of the store, never half of a save
                    if path == "/generation":
                        body, kind = str(review.generation), "text/plain"
                    elif path == "/":
                        body, kind = review.index(), "text/html"
                    elif path == "/checks":
                        body, kind = review.checks_page(), "text/html"
                    elif path.startswith("/q/"):
                        body, kind = review.question(path[3:]), "text/html"
                    else:
                        raise KeyError(path)
            except KeyError:
                return self._send(HTTPStatus.NOT_FOUND, "not found")
            self._send(HTTPStatus.OK, body, kind=kind)

        def do_POST(self) -> None:
            if not self._host_ok():
                return self._send(HTTPStatus.FORBIDDEN, "wrong host")
            if not self._same_origin():
                return self._send(HTTPStatus.FORBIDDEN, "cross-origin request refused: mark from the review pages")
            path = urlsplit(self.path).path
            length = int(self.headers.get("Content-Length") or 0)
            if path not in POSTS or length > MAX_BODY:
                return self._send(HTTPStatus.BAD_REQUEST, "bad request")
            form = parse_qs(self.rfile.read(length).decode("utf-8", errors="replace"), keep_blank_values=True)
            try:
                where = review.post(POSTS[path], form)
            except ReviewError as exc:
                back = back_to(form)
                try:
                    body = (review.checks_page(str(exc)) if path == "/check" else
                            review.question(back[3:], str(exc)) if back.startswith("/q/") else review.index())
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
