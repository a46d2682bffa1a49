"""Release integrity: a SHA-256 manifest of every file, a root hash, and its verification."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

MANIFEST = "MANIFEST.sha256"
RELEASE = "release.json"  # holds the root hash, so it cannot be listed in the manifest
NOT_LISTED = {MANIFEST, RELEASE}
CHUNK = 1 << 20


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def release_files(root: Path) -> list[Path]:
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file() and p.relative_to(root).as_posix() not in NOT_LISTED
    )


def write_manifest(root: Path) -> str:
    """Write MANIFEST.sha256 (``sha256sum -c`` format); returns the root hash."""
    lines = [f"{sha256_file(p)}  {p.relative_to(root).as_posix()}\n" for p in release_files(root)]
    data = "".join(lines).encode("utf-8")
    (root / MANIFEST).write_bytes(data)
    return hashlib.sha256(data).hexdigest()


@dataclass
class Verification:
    changed: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    checked: int = 0
    root_hash: str | None = None

    @property
    def ok(self) -> bool:
        return not (self.changed or self.missing or self.extra or self.problems)


def verify(root: Path, expected_root: str | None = None) -> Verification:
    result = Verification()
    manifest = root / MANIFEST
    try:
        data = manifest.read_bytes()
    except OSError as exc:
        result.problems.append(f"{manifest}: cannot read ({exc.strerror or exc})")
        return result
    result.root_hash = hashlib.sha256(data).hexdigest()
    if expected_root is not None and expected_root != result.root_hash:
        result.problems.append(f"{MANIFEST} does not match the root hash in {RELEASE}")
    listed: dict[str, str] = {}
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64:
            result.problems.append(f"{MANIFEST}: line {number} is not '<sha256>  <file>'")
            continue
        listed[name] = digest
    for name, digest in listed.items():
        path = root / name
        if not path.is_file():
            result.missing.append(name)
        elif sha256_file(path) != digest:
            result.changed.append(name)
        result.checked += 1
    for path in release_files(root):
        name = path.relative_to(root).as_posix()
        if name not in listed:
            result.extra.append(name)
    return result
