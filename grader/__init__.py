"""Autograder for the word2vec and neural dependency parsing assignment.

Layout (trusted side only; nothing in this package is imported by student code):
    template.py   generate student_template/ from reference/ by solution markers

The version is written once, in pyproject.toml; `grader --version` reads the package metadata.
"""

