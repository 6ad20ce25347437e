"""Reporters: each turns a GradeReport into one format and computes nothing itself."""
