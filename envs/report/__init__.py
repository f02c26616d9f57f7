"""What a run reports: the summary, its statistics, the terminal tables, the HTML report, compare."""
