"""Graders: one entry (``evaluate``: outcome grade + rule verdicts + assertions), state diff,
required outputs, assertions, pass^k, rule checks and their helpers, judge calibration.

The graders import nothing from the runner, the reports or the gymnasium env.
"""

from graders.evaluate import Evaluation, evaluate

__all__ = ["Evaluation", "evaluate"]
