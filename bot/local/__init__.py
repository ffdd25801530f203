"""The local-git source: git commands, the test run and its filesystem gate, `receipt check`'s gather."""
