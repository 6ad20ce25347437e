"""Answer groups: the class's answers to each written question, grouped so that a TA grades a
group once (``grader batch`` writes them; ``grader groups`` rebuilds them from a finished batch).

Modules, in reading order:

- :mod:`grader.classroom.groups.collect`: the answers of a finished batch folder, from its report.json files
  (the raw text read for every written item, its verdict, where it was read).
- :mod:`a2.written.fingerprint`: what a formula evaluates to at fixed points; runs in the
  writeup reader's child process only (request ``fingerprint``).
- :mod:`grader.classroom.groups.cluster`: the groups: formulas by value, 3(a) by first wrong row, 3(f) items
  by their reading, prose by TF-IDF similarity (suggestions), no answer / review / unreadable apart.
- :mod:`grader.classroom.groups.marks`: the groups CSV a TA marks, and marked groups to per-submission points.

Their pages and CSVs are written by :mod:`grader.classroom.reports.groups_html` and
:mod:`grader.classroom.groups.marks`.
"""
