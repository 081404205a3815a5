"""A blind set of realistic learner mistakes for the exercise checks (see README.md)."""
