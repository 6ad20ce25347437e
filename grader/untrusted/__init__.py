"""Code that runs next to untrusted student code, in the worker process.

Runs next to untrusted student code; never imported by the trusted process except wire.py (the
message codec both sides share; ``grader.sandbox.InProcessRunner``, which runs code known to be
safe without a process boundary, is the one other exception). ``grader.sandbox`` copies the
``*.py`` files of this folder, with the assignment's probes (its own ``untrusted/``), into one
private folder and runs ``worker.py`` from there, which makes that folder the package ``untrusted``
(see ``worker.PACKAGE``): the modules import each other relatively, the one form that works there
and here.
"""
