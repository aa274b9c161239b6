"""pbem: a play-by-email and notation server for four tabletop games."""

__version__ = "0.1.0"
