"""The class: grading every submission of a course (batch), the grade book and roster, answer groups that
TAs mark (groups/, review), final grades, and similarity between submissions (similarity/)."""
