"""The student kit: build.py makes the zip (a subset of the framework and the assignment, recorded
expected values, no solution); cli.py is the kit's own `grader` command."""
