"""``python -m sabre_desk`` behaves exactly like the ``sabre-desk`` command."""

import sys

from sabre_desk.cli import main

sys.exit(main())
