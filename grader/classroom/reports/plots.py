"""PNG plots of a batch: the histogram of totals and the pass rate of every check.

Drawn with matplotlib's object API on the Agg canvas (no pyplot, no display, no global state).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from grader.classroom.gradebook import ClassSummary

DPI = 120
#: Pass-rate bar colours: at least GOOD passed, at least FAIR passed, fewer.
GOOD, FAIR = 0.8, 0.5
COLOURS = {"good": "#2e7d32", "fair": "#f9a825", "poor": "#c62828"}
#: The histogram has at most this many bins (one per point when the maximum is small).
MAX_BINS = 25
BAR_HEIGHT_IN = 0.32


def _colour(rate: float) -> str:
    return COLOURS["good"] if rate >= GOOD else COLOURS["fair"] if rate >= FAIR else COLOURS["poor"]


def histogram_edges(totals: Sequence[float], max_score: float) -> np.ndarray:
    """The bins of the totals: from 0 to the maximum, unless the totals sit in the top part of that
    range (under 30% of it is empty below them), then from a little below the lowest total, so a
    class scoring 70 to 76 of 76 fills the plot; one bin per point when the range is small."""
    top = max(max_score, max(totals, default=0.0), 1.0)
    low = min(totals, default=0.0)
    start = 0.0
    if totals and low > 0.3 * top:
        start = float(max(0, np.floor(low - max(1.0, 0.25 * (top - low)))))
    span = top - start
    return np.linspace(start, top, int(min(MAX_BINS, max(np.ceil(span), 1))) + 1)


def totals_histogram(summary: ClassSummary, path: Path) -> Path:
    fig = Figure(figsize=(7, 4), dpi=DPI, layout="constrained")
    ax = fig.add_subplot()
    edges = histogram_edges(summary.totals, summary.max_score)
    start, top = float(edges[0]), float(edges[-1])
    counts, _ = np.histogram(summary.totals, bins=edges)
    bars = ax.bar(edges[:-1], counts, width=np.diff(edges), align="edge", color="#1565c0",
                  edgecolor="white")
    ax.bar_label(bars, labels=[f"{int(c)}" if c else "" for c in counts], fontsize=8)
    if summary.totals:
        mean = summary.total_stat("mean")
        ax.axvline(mean, color="#424242", linestyle="--", linewidth=1)
        ax.text(mean, ax.get_ylim()[1] * 0.95, f" mean {mean:.1f}", va="top", fontsize=8)
    ax.set_xlim(start, top)
    ax.set_xlabel(f"total score (out of {summary.max_score:g})" + (f"; the axis starts at {start:g}" if start else ""))
    ax.set_ylabel("submissions")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(f"Totals of {summary.counted} graded submissions (seed {summary.seed})")
    fig.savefig(path)
    return path


def pass_rate_bars(summary: ClassSummary, path: Path) -> Path:
    checks = summary.checks
    fig = Figure(figsize=(8, 1.2 + BAR_HEIGHT_IN * max(len(checks), 1)), dpi=DPI, layout="constrained")
    ax = fig.add_subplot()
    labels = [f"{c.number} {c.id}" for c in checks]
    rates = [100 * c.pass_rate for c in checks]
    y = np.arange(len(checks))
    bars = ax.barh(y, rates, color=[_colour(c.pass_rate) for c in checks])
    ax.bar_label(bars, labels=[f"{r:.0f}%" for r in rates], padding=3, fontsize=8)
    ax.set_yticks(y, labels=labels, fontsize=8)
    ax.invert_yaxis()  # rubric order, top to bottom
    ax.set_xlim(0, 110)
    ax.set_xlabel("submissions that passed the check (%)")
    ax.set_title(f"Pass rate per check ({summary.counted} graded submissions)")
    fig.savefig(path)
    return path


def write_plots(summary: ClassSummary, folder: Path) -> list[Path]:
    """Write totals.png and pass_rate.png into ``folder``; return their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    return [totals_histogram(summary, folder / "totals.png"),
            pass_rate_bars(summary, folder / "pass_rate.png")]
