"""The class's reports: the grade book as CSV (csvout), the batch's summary and plots (summary,
plots), final grades (final), and the pages TAs read: answer groups (groups_html), their review
(review_html) and similar submissions (similarity_html). One grading's reporters are grader/reports/."""
