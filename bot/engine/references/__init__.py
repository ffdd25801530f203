"""`references`: call sites in the head tree that a change to Python definitions broke."""
