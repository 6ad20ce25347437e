"""Support modules provided to students (identical in reference/ and student_template/)."""
