"""Content rules: detectors over the text a change adds (secrets, dangerous constructs, suppression
markers, invisible Unicode, repository-banned patterns). `bot/engine/rules.py` lists them."""
