"""Build a new folder aside, then rename it into place: a command never leaves half of one.

A command that makes a new thing of many files (a study, a project, a generated case) writes
them into a hidden folder beside the target and renames that folder to the target's name
only when every file is there. Until then the name is free: a run stopped by an error, a
Ctrl-C or a kill leaves no folder under that name, so the same command can run again at
once, and nothing reads a half-made thing as a whole one.

The hidden folder is named ``.<name>.<pid>-<token>.sabre-tmp`` (the same suffix as
``storage``'s temp files). A build that was killed leaves one behind; the next build of the
same name in that folder removes those whose process is gone.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

from sabre_desk.ground.errors import StorageError
from sabre_desk.ground.storage import TEMP_SUFFIX, glob_escape


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists but belongs to someone else
    return True


def remove_stale_builds(parent: Path, name: str) -> int:
    """Remove the aside folders of *name* in *parent* whose building process is gone (a
    killed run); returns how many. A build still running is left alone."""
    removed = 0
    try:
        leftovers = list(parent.glob(f".{glob_escape(name)}.*{TEMP_SUFFIX}"))
    except OSError:
        return 0
    for folder in leftovers:
        middle = folder.name[len(name) + 2 : -len(TEMP_SUFFIX)]
        pid_text = middle.partition("-")[0]
        if not pid_text.isdigit() or _alive(int(pid_text)):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed += not folder.exists()
    return removed


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def built_aside(target: Path) -> Iterator[Path]:
    """Yield an empty folder beside *target* to fill; when the block ends normally it is
    renamed to *target*, when it raises (or the process dies) *target* is never made and
    the folder is removed. The caller says why *target* may not exist before calling; if it
    appears meanwhile (another run), StorageError names it and nothing is replaced."""
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    remove_stale_builds(parent, target.name)
    aside = parent / f".{target.name}.{os.getpid()}-{secrets.token_hex(4)}{TEMP_SUFFIX}"
    aside.mkdir()  # mode 0o777 less the umask, like any folder the user makes
    try:
        yield aside
        if target.exists() or target.is_symlink():
            raise StorageError("it was made by another run meanwhile; nothing replaced", target)
        try:
            os.rename(aside, target)  # noqa: PTH104 (one syscall: all or nothing)
        except OSError as exc:
            raise StorageError(f"cannot put it in place: {exc.strerror}", target) from exc
    except BaseException:
        shutil.rmtree(aside, ignore_errors=True)
        raise
    _fsync_dir(parent)
