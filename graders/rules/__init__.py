"""Rule verdicts per agent reply: generic check helpers and the verdict pass over an episode."""
