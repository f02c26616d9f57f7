"""Calibration: the judge (or the checks) measured on gold dialogues."""
