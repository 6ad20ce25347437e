"""The grading framework: it runs randomized checks of a submission against a reference, behind a
process boundary, and scores them by rubric.yaml. It knows no assignment: the one rubric.yaml names
(``assignment: a2``) is reached through grader/assignment.py. ARCHITECTURE.md draws the parts.

The version is written once, in pyproject.toml; `grader --version` reads the package metadata.
"""
