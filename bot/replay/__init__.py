"""`receipt replay`: a repository's merged changes as tasks, candidate agents run on them in
isolation, and a report with receipts as the evidence (tasks, store, agent, score, runner, traces,
stats, report, html, verify, progress)."""
