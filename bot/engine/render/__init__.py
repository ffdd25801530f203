"""Pure renderers of a receipt: Markdown for check runs and job summaries, GitHub annotations."""
