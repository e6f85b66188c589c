"""Evaluation: outcomes, scores and the numbers reports print (the one place for them)."""
