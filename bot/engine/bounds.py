"""Every limit on the work one receipt may cost, in one place (README "Limits" lists them).

Each is a count of bytes, files, patterns or RE2 instructions, never a clock, so the same inputs
always get the same receipt. What a pull request controls — its diff, the files it adds, the
manifest it proposes — is bounded by these; going over one is a clear failure (a manifest error, a
receipt that is too large to assess, or a dry run that is too expensive to evaluate), never a stall.
"""

from __future__ import annotations

# Patterns a manifest carries, checked while it is read (the base manifest and a proposed one alike).
MAX_GLOBS = 1_000  # path and login globs over all keys
MAX_REGEXES = 50  # content.banned patterns
# RE2 memory one compiled pattern may use, program and automaton together; RE2 refuses a pattern
# whose program does not fit ("pattern too large"), so this is also a limit on its size: about
# 5,000 instructions for a glob and 40,000 for a regex (the largest built-in secret rule has 5,200).
GLOB_MAX_MEM = 64 << 10
REGEX_MAX_MEM = 512 << 10
# RE2 instructions over all of a manifest's compiled patterns: the work of compiling them (about a
# second at the limit on one core), counted as program size rather than timed.
MAX_PROGRAM_TOTAL = 1_000_000
# Matching work the manifest's patterns may cost against one change, in instruction-bytes (a
# pattern's program size times the bytes it reads). RE2 is linear in the text, but when its automaton
# runs out of memory it falls back to a simulation whose cost per byte grows with the program: this
# is a bound on that worst case (about 25 s on one core at the limit; a common pattern costs far less).
# A glob reads a path whole only when the path begins with the glob's literal prefix (globs.py:
# `match_work`): 1,000 globs under their own directories cost a path what the few it could match do.
MAX_MATCH_WORK = 1 << 33

# Token edit distance of one file's two versions, in cells of the Levenshtein table (rapidfuzz
# fills 64 at a time: about half a second at the limit on one core). Within it the distance is
# exact: the whole table when it fits, else a band around its diagonal as wide as the edits need.
# Past it (a rewrite of a file of hundreds of thousands of tokens: 15 s for 300,000 before, and
# quadratic) the versions are compared in blocks between the runs of tokens they share, which is
# linear, and the receipt names the file: its distance is then an upper bound.
MAX_EDIT_CELLS = 1 << 32

# What one receipt reads: the diff's bytes, lines and files. Past any the receipt is "too large to
# assess", a failure; a reviewer reads such a change by hand. A parsed line costs about 300 bytes of
# memory whatever its length, so lines are capped as well as bytes: at the caps a receipt peaks at
# about half a gigabyte (`bench/bounds.py memory`: 464 MB for a diff of a million changed lines,
# 318 MB for one line of 60 MB).
MAX_DIFF_BYTES = 64 << 20
MAX_DIFF_LINES = 1_000_000
MAX_DIFF_FILES = 10_000
