"""Release integrity: a SHA-256 manifest of every file, a root hash, and their verification.

``MANIFEST.sha256`` lists every file of the release (``sha256sum -c`` format); its own
SHA-256 is the *root hash*, recorded in ``release.json``. ``release.json`` cannot be in the
manifest (it holds the root hash), so it carries ``release_sha256``: the SHA-256 of its own
canonical JSON without that field (keys sorted, separators ``,`` and ``:``, UTF-8, no
ASCII escaping; see :func:`self_hash`). Verification also checks that its counts agree
with ``benchmark.jsonl`` and the manifest. This catches a damaged or hand-edited release,
not a forger: anyone can recompute the hashes, so publish the root hash separately to
detect a deliberate swap.

A release is read as untrusted input: manifest names that are absolute, contain ``..``,
``.``, backslashes or empty components are refused, symbolic links anywhere in the release
are refused and never followed, and every file is read with a size bound.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sabre_desk.core.release.export_formats import naming
from sabre_desk.core.release.release_read import (
    LINK,
    benchmark_row,
    path_problem,
    release_file,
    unsafe_name,
)
from sabre_desk.ground.errors import ImageError, ProjectError
from sabre_desk.ground.hashing import hash_stream, sha256_file
from sabre_desk.ground.reading import (
    LIMITS,
    MB,
    describe_kind,
    human_size,
    iter_lines,
    loads,
    open_regular,
    read_json_file,
    read_limited,
)
from sabre_desk.imaging.io import IMAGE_EXTENSIONS, check_decodes

MANIFEST = "MANIFEST.sha256"
RELEASE = "release.json"  # holds the root hash, so it cannot be listed in the manifest
BENCHMARK = "benchmark.jsonl"
NOT_LISTED = {MANIFEST, RELEASE}
RELEASE_FORMAT = "sabre-desk-release"
RELEASE_VERSION = 3  # 2: release.json carries release_sha256; 3: hf/, lmms-eval/
SELF_HASH = "release_sha256"
#: Longest line of benchmark.jsonl accepted (a row is a question, a few KB at most).
MAX_ROW = 1 * MB


def canonical_json(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def self_hash(release: dict[str, Any]) -> str:
    """The ``release_sha256`` of a release.json: its canonical JSON without that field."""
    return hashlib.sha256(
        canonical_json({k: v for k, v in release.items() if k != SELF_HASH})
    ).hexdigest()


def seal(release: dict[str, Any]) -> dict[str, Any]:
    """*release* with its ``release_sha256`` added (last, so the file reads naturally)."""
    return {**release, SELF_HASH: self_hash(release)}


@dataclass
class Scan:
    """What lies in a release folder, found without following any link."""

    files: list[str] = field(default_factory=list)  # regular files, release-relative
    odd: dict[str, str] = field(default_factory=dict)  # link or special file → why refused


def scan(root: Path) -> Scan:
    """Every entry under *root* (release.json and the manifest aside), links not followed."""
    found = Scan()
    stack = [""]
    while stack:
        rel = stack.pop()
        try:
            entries = list(os.scandir(root / rel if rel else root))
        except OSError as exc:
            found.odd[rel or "."] = f"cannot list the folder ({exc.strerror or exc})"
            continue
        for entry in entries:
            name = f"{rel}/{entry.name}" if rel else entry.name
            if name in NOT_LISTED:
                continue  # read on their own, with links refused
            try:
                mode = entry.stat(follow_symlinks=False).st_mode
            except OSError as exc:
                found.odd[name] = f"cannot be read ({exc.strerror or exc})"
                continue
            if stat.S_ISLNK(mode):
                found.odd[name] = LINK
            elif stat.S_ISDIR(mode):
                stack.append(name)
            elif stat.S_ISREG(mode):
                found.files.append(name)
            else:
                found.odd[name] = f"is {describe_kind(mode)}, not a regular file"
    found.files.sort()
    return found


def write_manifest(root: Path) -> str:
    """Write MANIFEST.sha256 (``sha256sum -c`` format); returns the root hash."""
    lines = [f"{sha256_file(root / name)}  {name}\n" for name in scan(root).files]
    data = "".join(lines).encode("utf-8")
    with naming(root / MANIFEST):
        (root / MANIFEST).write_bytes(data)
    return hashlib.sha256(data).hexdigest()


@dataclass
class Verification:
    changed: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # "<file>: <reason>", one each
    warnings: list[str] = field(default_factory=list)
    checked: int = 0
    root_hash: str | None = None
    decoded: int = 0  # images that decode fully
    rows: int = 0  # rows of benchmark.jsonl whose images the release holds

    @property
    def ok(self) -> bool:
        return not (self.changed or self.missing or self.extra or self.problems)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "root_sha256": self.root_hash,
            "files_checked": self.checked,
            "images_decoded": self.decoded,
            "rows_checked": self.rows,
            "changed": self.changed,
            "missing": self.missing,
            "extra": self.extra,
            "problems": self.problems,
            "warnings": self.warnings,
        }


def _read_release(root: Path, result: Verification) -> dict[str, Any] | None:
    path = root / RELEASE
    if not os.path.lexists(path):
        result.problems.append(
            f"{RELEASE}: is missing; it holds the root hash, so the release cannot be verified"
        )
        return None
    try:
        data, _ = read_json_file(path, "release", ProjectError, follow_links=False)
    except ProjectError as exc:
        result.problems.append(f"{RELEASE}: {exc.reason}")
        return None
    if not isinstance(data, dict) or data.get("format") != RELEASE_FORMAT:
        result.problems.append(
            f'{RELEASE}: is not a release file (no "format": "{RELEASE_FORMAT}")'
        )
        return None
    stored = data.get(SELF_HASH)
    if stored is None and data.get("version") == 1:
        result.warnings.append(
            f"{RELEASE}: has no {SELF_HASH} (written by an older sabre-desk); "
            "only its counts and root hash are checked"
        )
    elif stored is None:
        result.problems.append(f"{RELEASE}: has no {SELF_HASH}; it was edited or damaged")
    elif stored != self_hash(data):
        result.problems.append(
            f"{RELEASE}: its content does not match its {SELF_HASH}; it was edited or damaged"
        )
    return data


def _read_manifest(root: Path, result: Verification) -> dict[str, str] | None:
    """The manifest's entries (name → digest); refused lines become problems."""
    try:
        data = read_limited(
            root / MANIFEST, LIMITS["manifest.sha256"], ProjectError, follow_links=False
        )
    except ProjectError as exc:
        result.problems.append(f"{MANIFEST}: {exc.reason}")
        return None
    result.root_hash = hashlib.sha256(data).hexdigest()
    listed: dict[str, str] = {}
    for number, raw in enumerate(data.split(b"\n"), 1):
        if not raw:
            continue
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            result.problems.append(f"{MANIFEST}: line {number} is not UTF-8 text")
            continue
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            result.problems.append(f"{MANIFEST}: line {number} is not '<sha256>  <file>'")
            continue
        why = unsafe_name(name)
        if why is not None:
            result.problems.append(
                f"{MANIFEST}: line {number} names {name!r}, {why}; refused, not read"
            )
        elif name in listed:
            result.problems.append(f"{MANIFEST}: line {number} lists {name} a second time")
        else:
            listed[name] = digest
    return listed


def _blocked(name: str, odd: dict[str, str]) -> bool:
    """Whether *name* or a folder above it is a link or special file (reported already)."""
    parts = name.split("/")
    return any("/".join(parts[:i]) in odd for i in range(1, len(parts) + 1))


def _check_file(root: Path, name: str, digest: str, result: Verification) -> None:
    why = path_problem(root, name)  # the readers' own check (``release_read``)
    if why is not None:
        result.problems.append(f"{name}: refused: {why}")
        return
    path = root.joinpath(*name.split("/"))
    try:
        with open_regular(path, ProjectError, follow_links=False) as (handle, _):
            actual = hash_stream(handle)
    except ProjectError as exc:
        if not os.path.lexists(path):  # also when a folder above it is a file
            result.missing.append(name)
        else:
            result.problems.append(f"{name}: {exc.reason}")
        return
    except OSError as exc:
        result.problems.append(f"{name}: cannot read ({exc.strerror or exc})")
        return
    if actual != digest:
        result.changed.append(name)


def _check_counts(
    root: Path, release: dict[str, Any], listed: dict[str, str], result: Verification
) -> None:
    """release.json's counts must agree with benchmark.jsonl and the manifest."""
    rows = 0
    cases: set[str] = set()
    subsets: Counter[str] = Counter()
    try:
        for number, line in iter_lines(root / BENCHMARK, MAX_ROW, ProjectError):
            if line is None:
                result.problems.append(
                    f"{BENCHMARK}: line {number} is longer than {human_size(MAX_ROW)}"
                )
                return
            try:
                row = loads(line)
            except ValueError as exc:
                result.problems.append(f"{BENCHMARK}: line {number} is not JSON ({exc})")
                return
            if not isinstance(row, dict):
                result.problems.append(f"{BENCHMARK}: line {number} is not a JSON object")
                return
            try:
                benchmark_row(row)  # what every reader takes from a row
            except ValueError as exc:
                result.problems.append(f"{BENCHMARK}: line {number} is not a benchmark row ({exc})")
            rows += 1
            cases.add(str(row.get("case_id")))
            subsets[str(row.get("subset"))] += 1
            if _row_images_held(row, number, listed, result):
                result.rows += 1
    except ProjectError as exc:
        result.problems.append(f"{BENCHMARK}: {exc.reason}")
        return
    actual = {
        "questions": (rows, BENCHMARK),
        "cases": (len(cases), BENCHMARK),
        "images": (sum(n.startswith("images/") for n in listed), MANIFEST),
        "subsets": (dict(subsets), BENCHMARK),
    }
    for key, (value, source) in actual.items():
        if release.get(key) != value:
            result.problems.append(
                f"{RELEASE}: says {key} {json.dumps(release.get(key))}, "
                f"but {source} has {json.dumps(value)}"
            )


def _row_images_held(
    row: dict[str, Any], number: int, listed: dict[str, str], result: Verification
) -> bool:
    """Whether every image *row* names (``image`` and each ``…file_name``) is a file the
    release holds; each one it does not is a problem naming the row."""
    names = [v for k, v in row.items() if k == "image" or k.endswith("file_name")]
    if not names:
        result.problems.append(f"{BENCHMARK}: line {number} names no image")
        return False
    held = True
    for name in names:
        if not isinstance(name, str) or name not in listed:
            result.problems.append(
                f"{BENCHMARK}: line {number} names image {name!r}, which the release does not hold"
            )
            held = False
    return held


def _check_images(root: Path, listed: dict[str, str], bad: set[str], result: Verification) -> None:
    """Every image of the release must decode fully: a truncated file keeps its hash, and a
    model evaluated on it would fail. Files with the same bytes are decoded once."""
    groups: dict[str, list[str]] = {}  # digest → the images with those bytes
    for name, digest in listed.items():
        if name not in bad and name.lower().endswith(IMAGE_EXTENSIONS):
            groups.setdefault(digest, []).append(name)

    def decode(name: str) -> str | None:
        try:
            check_decodes(root.joinpath(*name.split("/")))
        except ImageError as exc:
            return exc.reason
        return None

    with ThreadPoolExecutor(max_workers=4) as pool:
        verdicts = pool.map(decode, [names[0] for names in groups.values()])
        for names, reason in zip(groups.values(), verdicts, strict=True):
            if reason is None:
                result.decoded += len(names)
            else:
                result.problems += [f"{name}: {reason}" for name in names]


def verify(root: Path) -> Verification:
    """Check every file of the release at *root*; each problem names its file and why."""
    result = Verification()
    root = Path(root)
    if not root.is_dir():
        result.problems.append(f"{root}: is not a folder")
        return result
    release = _read_release(root, result)
    listed = _read_manifest(root, result)
    if release is None and listed is None:
        return result  # not a release at all (a home folder?): its tree is not walked
    found = scan(root)
    for name, why in sorted(found.odd.items()):
        result.problems.append(f"{name}: {why}")
    if listed is None:
        return result
    if release is not None and release.get("root_sha256") != result.root_hash:
        result.problems.append(
            f"{MANIFEST}: its SHA-256 does not match root_sha256 in {RELEASE}; "
            "one of the two was changed"
        )
    for name, digest in listed.items():
        result.checked += 1
        if not _blocked(name, found.odd):
            _check_file(root, name, digest, result)
    result.extra = [name for name in found.files if name not in listed]
    bad = set(result.changed) | set(result.missing) | set(found.odd)
    if release is not None and BENCHMARK in listed and BENCHMARK not in bad:
        _check_counts(root, release, listed, result)
    _check_images(root, listed, bad, result)
    _check_prompts(root, result)
    return result


def _check_prompts(root: Path, result: Verification) -> None:
    """The release's prompt set must load the way ``predict`` loads it (its templates plain
    file names in its own folder)."""
    from sabre_desk.core.screening.prompts import RELEASE_PROMPTS, load_prompts

    if not os.path.lexists(root / RELEASE_PROMPTS):
        return
    try:
        load_prompts(release_file(root, RELEASE_PROMPTS))
    except ProjectError as exc:
        where = exc.path.relative_to(root) if exc.path and exc.path.is_relative_to(root) else None
        result.problems.append(f"{where or RELEASE_PROMPTS}: {exc.reason}")
