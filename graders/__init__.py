"""Graders: state diff, required outputs, assertions, pass^k, rule verdicts, judge calibration."""
