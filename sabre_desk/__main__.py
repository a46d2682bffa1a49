"""``python -m sabre_desk`` behaves exactly like the ``sabre-desk`` command."""

import multiprocessing
import sys

from sabre_desk.cli import main

if __name__ == "__main__":
    # In the standalone bundle this is the worker processes' entry too (a no-op otherwise).
    multiprocessing.freeze_support()
    sys.exit(main())
