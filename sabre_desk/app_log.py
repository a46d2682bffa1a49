"""The app's log: a rotating file in the user's log folder, and Python's fault handler.

A crash must leave the reviewer something to send. Every process of sabre-desk (the window
and the commands) logs to ``sabre-desk.log`` (rotated at 2 MB, three old files kept), so
the SDK's retry messages, warnings and unexpected errors are kept; ``faulthandler`` writes
the Python stack of every thread to ``faults.log`` when the interpreter itself dies (a
segmentation fault in a native library), which no excepthook can catch.

The folder is platformdirs' user log folder (on Linux ``~/.local/state/sabre-desk/log``),
``SABRE_DESK_LOG_DIR`` when set, or ``logs/`` beside the settings when
``SABRE_DESK_CONFIG_DIR`` moves those (tests and portable installs keep everything together).
"""

from __future__ import annotations

import faulthandler
import logging
import logging.handlers
import os
import platform
import sys
from pathlib import Path
from typing import IO

from platformdirs import user_log_dir

from sabre_desk import __version__
from sabre_desk.settings import CONFIG_ENV, config_dir

LOG_ENV = "SABRE_DESK_LOG_DIR"
LOG_FILE = "sabre-desk.log"
FAULTS_FILE = "faults.log"
MAX_BYTES = 2 * 1024 * 1024
BACKUPS = 3
FORMAT = "%(asctime)s %(levelname)s [%(process)d %(threadName)s] %(name)s: %(message)s"

_state: dict[str, object] = {}  # the handler and the fault file, once configured


def log_dir() -> Path:
    explicit = os.environ.get(LOG_ENV)
    if explicit:
        return Path(explicit)
    if os.environ.get(CONFIG_ENV):
        return config_dir() / "logs"
    return Path(user_log_dir("sabre-desk", appauthor=False))


def log_path() -> Path:
    return log_dir() / LOG_FILE


def configure_logging() -> Path | None:
    """Send this process's logging to the rotating file and turn on faulthandler; returns
    the log file, or None where the folder cannot be written (the app still runs, and says
    so on stderr). Calling it again changes nothing."""
    if "handler" in _state:
        return log_path()
    folder = log_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(
            folder / LOG_FILE, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8"
        )
        faults: IO[str] = (folder / FAULTS_FILE).open("a", encoding="utf-8")
    except OSError as exc:
        print(f"sabre-desk: no log file in {folder} ({exc.strerror or exc})", file=sys.stderr)
        return None
    handler.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    logging.captureWarnings(True)
    faulthandler.enable(file=faults, all_threads=True)
    _state.update(handler=handler, faults=faults)
    logging.getLogger("sabre_desk").info(
        "sabre-desk %s, Python %s on %s: %s",
        __version__,
        platform.python_version(),
        platform.platform(),
        " ".join(sys.argv),
    )
    return folder / LOG_FILE
