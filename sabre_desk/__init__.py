"""sabre-desk: the human verification step of SABRE, as an offline desktop workbench."""

__version__ = "0.1.0"
