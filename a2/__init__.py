"""Assignment 2 (word2vec, neural-network basics, neural transition-based dependency parsing): what
this assignment knows, apart from the framework in grader/. The framework reads it only through
registry.py (named by rubric.yaml's ``assignment:``)."""
