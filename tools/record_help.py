"""Record every command's ``--help`` in tests/fixtures/help, after changing it on purpose.

``tests/unit/test_cli_help.py`` compares what each command prints with these files, so a
change to the text users and scripts read is always a decision, never a side effect of
moving code.

    python tools/record_help.py
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HELP = ROOT / "tests" / "fixtures" / "help"


def main() -> int:
    os.environ["COLUMNS"] = "100"
    for key in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):  # an engine's help says if it can run
        os.environ.pop(key, None)
    sys.path.insert(0, str(ROOT / "tests" / "unit"))
    from test_cli_help import COMMANDS, _fixture

    from sabre_desk.cli import main as run

    for old in HELP.glob("*.txt"):
        old.unlink()
    for path in COMMANDS:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            run([*path, "--help"])
        _fixture(path).write_text(out.getvalue())
    print(f"recorded the help of {len(COMMANDS)} commands in {HELP.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
