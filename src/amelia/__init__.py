"""amelia: turn an issue into a reviewed change."""

__all__ = ["__version__"]


__version__ = "0.1.0"
