"""The command line: ``sabre-desk COMMAND``, one module per command group (see ``app``)."""

from sabre_desk.cli.app import build_parser, main
from sabre_desk.cli.common import EXIT_INTERNAL, EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE

__all__ = ["EXIT_INTERNAL", "EXIT_OK", "EXIT_PROBLEMS", "EXIT_USAGE", "build_parser", "main"]
