"""What telling conflict copies from reviews costs: the name check each review file of a
case goes through when its case is read, and listing every copy of a project.

Builds a project of N cases (default 10,000), each with three reviewers' files and, in one
case in fifty, a synced drive's copy, then prints the time per name for a plain reviewer
name, a name with a hyphen (the OneDrive check), and a copy; and one walk of the project
(``find_conflict_copies``), as `validate` and `stats` do.

Usage: python benchmarks/conflict_copies.py [--cases 10000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
import timeit
from pathlib import Path

from sabre_desk.core.case.conflict_names import copy_of
from sabre_desk.core.team.conflict_copies import find_conflict_copies


def per_call(name: str, siblings: set[str], folder: Path) -> float:
    runs = 20000
    return timeit.timeit(lambda: copy_of(name, siblings, folder), number=runs) / runs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=10000)
    args = parser.parse_args()
    folder = Path("/nonexistent/reviews")
    names = {"alice.json", "bob.json", "carol-ann.json"}
    copy = "alice (conflicted copy 2026-11-29).json"
    for label, name, siblings in (
        ("plain name (bob.json)", "bob.json", names),
        ("hyphenated name (carol-ann.json)", "carol-ann.json", names),
        ("a Dropbox copy", copy, names | {copy}),
    ):
        print(f"  {label:42} {per_call(name, siblings, folder) * 1e6:8.2f} µs")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for i in range(args.cases):
            reviews = root / "cases" / f"c{i:06d}" / "reviews"
            reviews.mkdir(parents=True)
            for who in ("alice", "bob", "carol"):
                (reviews / f"{who}.json").write_text(f'{{"reviewer": "{who}"}}')
            if i % 50 == 0:
                (reviews / "alice (1).json").write_text('{"reviewer": "alice"}')
        start = time.perf_counter()
        found = find_conflict_copies(root)
        took = time.perf_counter() - start
        print(
            f"  find_conflict_copies, {args.cases:,} cases, {len(found):,} copies   {took:8.3f} s"
        )


if __name__ == "__main__":
    main()
