"""Similarity at class scale (``grader similarity BATCH_DIR``; also the last step of ``grader
batch --similarity`` / ``--known``): every student file against the same file of every other
submission and of every known solution, with the starter code as the base.

Modules, in reading order:

- :mod:`grader.classroom.similarity.sources`: what is compared: the student files and written answers of
  each submission of a batch, and the same-named files found at any depth under known folders.
- :mod:`grader.classroom.similarity.detect`: the comparison itself, by copydetect (winnowed token
  fingerprints; pygments tokens with names, strings and comments folded), on the part of each
  file that is not starter code; the pairs and their matching regions.
- :mod:`grader.classroom.similarity.class_survey`: runs both over a batch folder (data); the files
  (``similarity.csv``, the pages, the line of ``summary.md``) are written by
  :mod:`grader.classroom.reports.similarity_html`, both run by :mod:`grader.classroom.similarity_command`.

A pair above the threshold is *similar*: it is a list for a person to look at, never a verdict.
"""
