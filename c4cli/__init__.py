"""c4: staked Connect Four on a local gno.land in one folder."""

__version__ = "0.1.0"
