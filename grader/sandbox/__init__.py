"""The process boundary between the trusted grader and student code: everything that starts,
confines, talks to and kills another process is in this folder.

Read it in this order (each module says what it holds):

``runner.py``          the interface checks depend on: :class:`Runner`, :class:`ProbeResult`,
                       :class:`ProbeError`, :class:`Limits`, :class:`SandboxError`
``frames.py``          requests and replies of the worker protocol, checked for shape
``channel.py``         one process and its four pipes: start, exchange with a deadline, conclude
``proctree.py``        the /proc table, killing a whole process tree, why a process ended
``limits.py``          a worker's rlimits and environment
``folders.py``         a worker's private folder: its own code, its copy of the submission
``sweep.py``           removing what student code left: trees without recursion, IPC objects
``worker_process.py``  :class:`Sandbox`: the worker process next to student code
``isolation.py``       how far a worker is kept from the grader (sandbox user, namespaces)
``confine.py``         the launcher that confines a worker (runs as a script, stdlib only)
``forkserver.py``      the fork server's trusted side: workers forked with torch already imported
``zygote.py``          the fork server itself (runs as a script; confines each child as confine.py)
``reader_process.py``  the writeup reader's child process (our code only; unconfined)
``gradings.py``        the batch's grading processes (our code only; each starts its own Sandbox)
``inprocess.py``       :class:`InProcessRunner`: the same probes in this process, for safe code
``portable.py``        :class:`PortableRunner`: the student kit's worker on any system (stdin/stdout
                       pipes read by threads, killed on timeout; rlimits only where they exist)

The other side of the boundary is ``grader/untrusted/`` (the worker) and the assignment's
``untrusted/`` (its probes), copied together into the worker's private folder. The trusted
process never imports student code and never unpickles or evals what the worker sends: replies
are decoded by :mod:`grader.untrusted.wire` (JSON and ``.npy`` without pickle, a pure module both
sides import) and checked for shape before use.
"""

from __future__ import annotations

from grader.sandbox.inprocess import InProcessRunner
from grader.sandbox.runner import (
    DEFAULT_CALL_TIMEOUT_S,
    Limits,
    ProbeError,
    ProbeResult,
    Runner,
    SandboxError,
    Status,
)
from grader.sandbox.worker_process import Sandbox

__all__ = ["DEFAULT_CALL_TIMEOUT_S", "InProcessRunner", "Limits", "ProbeError", "ProbeResult", "Runner",
           "Sandbox", "SandboxError", "Status"]
