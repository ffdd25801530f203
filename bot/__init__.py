"""receipt: a receipt for every pull request."""

from bot.dataclass_methods import install

install()

__version__ = "0.1.0"
