"""Autograder for the word2vec and neural dependency parsing assignment.

Layout (trusted side only; nothing in this package is imported by student code):
    template.py   generate student_template/ from reference/ by solution markers
"""

__version__ = "0.1.0"
