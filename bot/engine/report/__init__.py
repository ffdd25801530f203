"""`report`: the important facts of a change, and what its description says and leaves unsaid."""
