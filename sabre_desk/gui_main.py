"""``sabre-desk-gui``: the windowed launcher, the one a desktop starts (the standalone
bundle's executable with no console on Windows, the program inside the macOS ``.app``).

Such a process often has nowhere to print: Windows gives a windowed program no stdout or
stderr at all. A start that fails before the window opens (a folder that is not a project,
no screen, a bad option in a shortcut) would then end without a word; so whatever the
command would have printed is kept, and a failure is shown in a message box instead.
With a console (``sabre-desk-gui`` typed in a terminal) it behaves like ``sabre-desk``.
"""

from __future__ import annotations

import io
import multiprocessing
import sys
from collections.abc import Sequence

from sabre_desk.cli import main as cli_main
from sabre_desk.cli.common import EXIT_OK, EXIT_USAGE

#: At most this much of what the command printed is kept for the message box (the tail).
KEPT_CHARS = 8000


class _Tail(io.StringIO):
    """A text stream that keeps only the last KEPT_CHARS characters written to it."""

    def write(self, text: str) -> int:
        written = super().write(text)
        if self.tell() > 2 * KEPT_CHARS:
            kept = self.getvalue()[-KEPT_CHARS:]
            self.seek(0)
            self.truncate()
            super().write(kept)
        return written


def main(argv: Sequence[str] | None = None) -> int:
    """Run sabre-desk as a windowed program; returns its exit code."""
    if sys.stdout is not None and sys.stderr is not None:
        return cli_main(argv)
    tail = _Tail()
    streams = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = tail
    try:
        code = cli_main(argv)
    except SystemExit as exc:  # argparse: a bad option, or --help / --version
        code = exc.code if isinstance(exc.code, int) else EXIT_USAGE
    finally:
        sys.stdout, sys.stderr = streams
    text = tail.getvalue().strip()
    if text and code != EXIT_OK:
        from sabre_desk.gui.crash_report import show_startup_error

        show_startup_error(text[-KEPT_CHARS:])
    return code


if __name__ == "__main__":
    # The bundle's worker processes start from this executable too (a no-op otherwise).
    multiprocessing.freeze_support()
    sys.exit(main())
