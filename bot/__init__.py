"""receipt: a receipt for every pull request."""

__version__ = "0.1.0"
