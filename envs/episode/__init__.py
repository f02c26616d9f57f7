"""One episode: the step machine and the loop that plays it to the end."""
