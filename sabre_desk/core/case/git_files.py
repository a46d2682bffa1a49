"""The two files that make a project folder a good git repository: ``.gitignore`` keeps
out what is one machine's (locks, the request cache, interrupted writes' temps) and
``.gitattributes`` has git merge the append-only logs itself.

Why ``merge=union`` is sound for ``history.jsonl`` and ``ledger.jsonl``: every line is one
whole event, appended, never rewritten; two clones that both appended end in a hunk git's
built-in union driver resolves by keeping both sides' lines. No reader depends on the order
of the lines (``time`` sorts the stamps; ``merge`` orders by ``at``) and a line twice only
repeats an event (no count is taken from history). Every other file the app writes is one
writer's (a review per reviewer, repair files named by time), so git merges it as it is.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from sabre_desk.ground.storage import atomic_write_bytes

GITIGNORE = ".gitignore"
GITATTRIBUTES = ".gitattributes"

#: what stays on one machine: the OS locks and their owner records, temps of writes
IGNORED = (
    "# written by sabre-desk: one machine's locks, caches and unfinished writes",
    ".*.lock",
    ".*.lock.json",
    ".repairs.lock*",
    ".*.sabre-tmp",
    ".sabre-desk-cache/",
    "cache/requests/",
)
#: the append-only logs, merged by keeping both sides' lines
ATTRIBUTES = (
    "# written by sabre-desk: append-only logs merge by keeping both sides' lines",
    "history.jsonl merge=union",
    "ledger.jsonl merge=union",
    "*.png binary",
    "*.jpg binary",
    "*.jpeg binary",
    "*.webp binary",
)
GIT_FILES = {GITIGNORE: IGNORED, GITATTRIBUTES: ATTRIBUTES}


def missing_git_lines(root: Path) -> dict[str, list[str]]:
    """File name → the lines sabre-desk needs that it lacks (empty: nothing to write)."""
    out: dict[str, list[str]] = {}
    for name, lines in GIT_FILES.items():
        path = root / name
        have = set(path.read_text(encoding="utf-8").splitlines()) if path.is_file() else set()
        missing = [line for line in lines if line not in have and not line.startswith("#")]
        if missing:
            out[name] = missing
    return out


def write_git_files(root: Path) -> list[str]:
    """Write (or complete, keeping every line a person added) ``.gitignore`` and
    ``.gitattributes`` at the project's root; the names of the files written."""
    written = []
    for name, missing in missing_git_lines(root).items():
        path = root / name
        old = path.read_bytes() if path.is_file() else b""
        header = GIT_FILES[name][0]
        text = "\n".join([header, *missing]) + "\n"
        if old and not old.endswith(b"\n"):
            old += b"\n"
        atomic_write_bytes(path, old + text.encode("utf-8"))
        written.append(name)
    return written


def git_conflicts(root: Path) -> list[tuple[str, str]]:
    """The files a stopped ``git merge`` left unmerged in the project, each with how to
    settle it: (path relative to the project, what to do). Empty when the project is not
    in git, git is not installed or nothing is unmerged."""
    git = shutil.which("git")
    if git is None:
        return []
    try:
        done = subprocess.run(
            [git, "-C", str(root), "ls-files", "--unmerged", "--full-name", "-z", "--", "."],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    if done.returncode != 0:
        return []
    prefix = _repo_prefix(git, root)
    files: list[str] = []
    for entry in done.stdout.decode("utf-8", "replace").split("\0"):
        if "\t" in entry:
            name = entry.split("\t", 1)[1].removeprefix(prefix)
            if name not in files:
                files.append(name)
    return [(name, settle_advice(root, name)) for name in files]


def _repo_prefix(git: str, root: Path) -> str:
    """The project's folder inside its repository (``""`` at the top), as git names it."""
    try:
        done = subprocess.run(
            [git, "-C", str(root), "rev-parse", "--show-prefix"],
            capture_output=True,
            timeout=30,
            check=False,
            text=True,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def settle_advice(root: Path, name: str) -> str:
    """How to settle one unmerged file, in commands a person can paste."""
    parts = name.split("/")
    stem = parts[-1].rsplit(".", 1)[0]
    if len(parts) == 3 and parts[0] == "cases" and stem in ("base", "edited", "image"):
        case_id = parts[1]
        return (
            f"the {stem} image of case {case_id} was replaced differently in two clones "
            f"(git stopped the merge here); keep one with `git checkout --ours {name}` (or "
            f"--theirs), save the other with `git show MERGE_HEAD:{name} > other.png` and "
            f"bring it in as a repair to decide on: `sabre-desk repair {root} {case_id} "
            f"--role {stem} --engine file --file other.png --box 0,0,1,1`; then "
            f"`git add {name}` and `git commit`"
        )
    return (
        "changed on both sides and not merged by git; keep one side with `git checkout "
        f"--ours {name}` (or --theirs), then `git add {name}` and `git commit`"
    )
