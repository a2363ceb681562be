"""The judge-check set: synthetic answers with gold rubric decisions."""
