"""amelia: turn an issue into a reviewed change."""

__version__ = "0.1.0"
