"""Time one save of a review (``write_review_file``: the whole object validated against
the limits its reader applies, serialized, written atomically and fsynced), the path
every edit takes, median of many.

Two reviews: a typical one (a 2,000-character note, 12 boxes, 5 question edits, 3
repairs) and one at the notes limit (20,000 characters). Also printed: the validation
alone (``Review.model_validate`` of the dumped data), the part the limits add; when the
module has no ``writable_review`` (an earlier version) that line says so. Run it from
another checkout with ``PYTHONPATH=/that/checkout`` to compare versions.

Usage: python benchmarks/review_save.py [--runs 200]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from sabre_desk.core.case import review as review_module
from sabre_desk.core.case.project import write_review_file
from sabre_desk.core.case.review import Box, QuestionEdit, RepairRecord, Review
from sabre_desk.core.case.spec import ImageRole


def typical(notes_chars: int) -> Review:
    review = Review.empty("case1", "ana")
    review.notes = ("tape seam visible at the bagel's left edge; " * 500)[:notes_chars]
    review.boxes = [
        Box(image_role=ImageRole.EDITED, label=f"defect {i}", box=(0.1, 0.1, 0.2 + i / 100, 0.3))
        for i in range(12)
    ]
    review.question_edits = {f"p{i}": QuestionEdit(answer="no") for i in range(5)}
    review.repairs = [
        RepairRecord(
            id=f"r{i}",
            image_role=ImageRole.EDITED,
            op="clean",
            engine="opencv",
            instruction="remove the tape",
            box=(0.1, 0.1, 0.3, 0.3),
            preview=f"repairs/r{i}.png",
            status="accepted",
        )
        for i in range(3)
    ]
    return review


def median_ms(runs: int, step: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    has_check = hasattr(review_module, "writable_review")
    print(f"sabre_desk from {Path(review_module.__file__).parents[3]}")
    print(f"validates before writing: {'yes' if has_check else 'no (earlier version)'}")
    for name, chars in (("typical review", 2_000), ("notes at the limit", 20_000)):
        review = typical(chars)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "reviews" / "ana.json"
            state = {"fp": write_review_file(path, review, None)}

            def save(path: Path = path, review: Review = review, state: dict = state) -> None:
                state["fp"] = write_review_file(path, review, state["fp"])

            total = median_ms(args.runs, save)
            data = review.model_dump(mode="json")
            check = median_ms(args.runs, lambda data=data: Review.model_validate(data))
            size = path.stat().st_size
        print(
            f"{name} ({size:,} bytes): save {total:.3f} ms median of {args.runs}; "
            f"validating the whole review {check:.3f} ms"
        )


if __name__ == "__main__":
    main()
