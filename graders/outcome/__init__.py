"""The outcome grade: state diff against the goal, required outputs, assertions."""
