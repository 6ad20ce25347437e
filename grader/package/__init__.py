"""Instructor packaging: the Gradescope autograder zip (build.py, scripts.py), its locked requirements
(lockfile.py), and student_template/ regenerated from reference/ by its solution markers (template.py)."""
