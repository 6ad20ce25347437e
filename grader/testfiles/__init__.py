"""A test-file assignment: a course's own unittest (gradescope-utils) or pytest files as its checks.

rubric.yaml's ``tests: <folder>`` names the folder; the door (grader/assignment.py) then returns the
registry :mod:`grader.testfile_registry` builds, which meets the CONTRACT for any such course. The
tests are collected once, on the reference, in the sandbox (:mod:`grader.run.course_tests`), each
becomes one check (:mod:`grader.testfiles.checks`), and each runs in the worker next to student code
(``grader/untrusted/probes_testfiles.py``). Names nothing of any assignment.
"""
