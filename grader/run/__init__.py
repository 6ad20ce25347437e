"""One grading run: the engine, its settings, the rubric and result model, the check API (check_api.py,
compare.py) and how dependent checks settle. Nothing here knows an assignment: the checks come from the
assignment package that rubric.yaml names, through grader/assignment.py."""
