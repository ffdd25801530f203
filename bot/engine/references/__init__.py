"""`references`: call sites in the head tree that a change to Python definitions broke."""

REFERENCES_CHECK = "references"  # its entry in `semantic.checks`
