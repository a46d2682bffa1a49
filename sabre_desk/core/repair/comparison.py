"""One box, one comparison: the results of one box, which of them is shown, what Accept says.

A repair of a box can land as several results (a quick stand-in, then the better engine's
result; a second Ctrl+R on the same box). The reviewer meets them as one entry with its
alternatives. Which result the entry shows is decided here, by the engines' order of quality
(``engines.registry.BY_QUALITY``), never by the order the results arrived in: a quick
preview landing late must not replace the better result the reviewer is judging.

An engine whose fills vary (the patch-based one: its search starts from random matches)
makes each repair of a box another fill, numbered (``next_variant``): "Repair again" on a
fill with a flaw gives a different one, never the same pixels, and each can be made again.

A result made on an image that has changed since (its recorded image hash differs from the
image's now) can never be accepted, by any path: ``repairs.accept`` refuses it, and the
window offers to repair again on the current image instead.

No Qt here: the window and the command line ask this and show what it says.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sabre_desk.core.case.review import RepairRecord
from sabre_desk.engines.registry import ENGINES, quality_rank, result_name
from sabre_desk.ground import limits
from sabre_desk.ground.hashing import file_sha256

#: the review's extra field naming the hash of the image a repair was made on
IMAGE_HASH = "image_sha256"
#: the review's extra field naming the better engine a quick preview stands in for
STANDS_IN_FOR = "stands_in_for"
#: the review's extra field naming the result accepted instead of this one
NOT_TAKEN_FOR = "not_taken_for"
#: the review's extra field numbering an engine's fills of one box (absent: the first, 0)
VARIANT = "variant"

OPEN = ("preview", "reverted", "discarded")  # statuses a result can be accepted from

AGAIN = "Repair again on the current image"

#: a box of an image: its role and where it is
BoxOf = tuple[str, tuple[float, float, float, float]]


def _extra(record: RepairRecord, key: str) -> str | None:
    value = (record.model_extra or {}).get(key)
    return value if isinstance(value, str) else None


def box_of(record: RepairRecord) -> BoxOf:
    return (str(record.image_role), tuple(record.box))  # type: ignore[return-value]


def made_on(record: RepairRecord) -> str | None:
    """The SHA-256 of the image the repair was made on (None for an old review's)."""
    return _extra(record, IMAGE_HASH)


def stands_in_for(record: RepairRecord) -> str | None:
    """The engine whose better result this quick preview stands in for, if it is one."""
    return _extra(record, STANDS_IN_FOR)


def not_taken_for(record: RepairRecord) -> str | None:
    """The id of the result of the same box accepted instead of this one."""
    return _extra(record, NOT_TAKEN_FOR)


def variant_of(record: RepairRecord) -> int:
    """Which of its engine's fills of the box *record* is (0: the first, or not numbered);
    a value no tool writes reads as 0."""
    value = (record.model_extra or {}).get(VARIANT)
    if isinstance(value, bool) or not isinstance(value, int):
        return 0
    return value if 0 <= value <= limits.REPAIRS.most else 0


def next_variant(
    repairs: Iterable[RepairRecord],
    role: str,
    box: tuple[float, float, float, float],
    engine: str,
    running: Iterable[int] = (),
) -> int:
    """The fill a new repair of *box* on *role*'s image by *engine* is made with: 0 for the
    box's first, else one past the highest of its results by that engine, recorded or
    still computing (*running*: theirs, from the window's jobs). Always 0 for an engine
    whose fills do not vary: its every repair of a box gives the same pixels."""
    kind = ENGINES.get(engine)
    if kind is None or not kind.fills_vary:
        return 0
    made = [variant_of(r) for r in of_box(repairs, role, box) if r.engine == engine]
    made += list(running)
    # never past what variant_of reads (a review holds no more repairs than that anyway)
    return min(max(made) + 1, limits.REPAIRS.most) if made else 0


def wants_stand_in(
    repairs: Iterable[RepairRecord],
    role: str,
    box: tuple[float, float, float, float],
    current: str | None,
    on_its_way: bool = False,
) -> bool:
    """Whether a repair of *box* on *role*'s image starts with its engine's quick stand-in:
    only when the box has no result made on the image as it is now (hash *current*) and
    none on its way. Repaired again, the box's results are there to compare while the next
    fill computes; one more stand-in, the same pixels as the last, only lengthened the
    list (each Ctrl+R added two entries)."""
    if on_its_way:
        return False
    return current is None or not any(made_on(r) == current for r in of_box(repairs, role, box))


def fill_name(record: RepairRecord) -> str | None:
    """Which of its engine's fills of the box *record* is, as the reviewer counts them
    ("fill 2"); None for the first."""
    variant = variant_of(record)
    return f"fill {variant + 1}" if variant else None


def made_by(record: RepairRecord) -> str:
    """The engine that made *record*, and which of its fills of the box when not the
    first: "patchmatch", "patchmatch, fill 2"."""
    fill = fill_name(record)
    return f"{record.engine}, {fill}" if fill else record.engine


def image_digest(path: Path | None) -> str | None:
    """The hash of the image now (remembered while the file is unchanged); None when it
    cannot be read."""
    if path is None:
        return None
    try:
        return file_sha256(path)
    except OSError:
        return None


def is_stale(record: RepairRecord, current: str | None) -> bool:
    """True when *record* was made on an image other than the one now (hash *current*).
    An accepted result is the image, never stale; an unknown hash is never stale."""
    made = made_on(record)
    if record.status == "accepted" or made is None or current is None:
        return False
    return made != current


@dataclass(frozen=True)
class BoxResults:
    """The results of one box, in the order they arrived."""

    results: tuple[RepairRecord, ...]

    @property
    def key(self) -> BoxOf:
        return box_of(self.results[0])

    def accepted(self) -> RepairRecord | None:
        return next((r for r in self.results if r.status in ("accepted", "accepting")), None)

    def best(self) -> RepairRecord:
        """The result the entry shows: the accepted one, else the best open one by the
        engines' order of quality (the newest of equals), else the newest."""
        accepted = self.accepted()
        if accepted is not None:
            return accepted
        waiting = [r for r in self.results if r.status == "preview"] or list(self.results)
        newest_first = list(reversed(waiting))
        return min(newest_first, key=lambda r: quality_rank(r.engine))

    def alternatives(self) -> list[RepairRecord]:
        """The other results, best first."""
        best = self.best()
        others = [r for r in reversed(self.results) if r is not best]
        return sorted(others, key=lambda r: quality_rank(r.engine))

    def is_stand_in(self, record: RepairRecord) -> bool:
        """*record* is a quick preview whose better result has not arrived (yet)."""
        better = stands_in_for(record)
        return better is not None and not any(r.engine == better for r in self.results)


def group(repairs: Iterable[RepairRecord]) -> list[BoxResults]:
    """The repairs by box, in the order each box was first repaired."""
    boxes: dict[BoxOf, list[RepairRecord]] = {}
    for record in repairs:
        boxes.setdefault(box_of(record), []).append(record)
    return [BoxResults(tuple(records)) for records in boxes.values()]


def of_box(
    repairs: Iterable[RepairRecord], role: str, box: tuple[float, float, float, float]
) -> list[RepairRecord]:
    """The repairs of one box of *role*'s image, in the order they arrived."""
    key = (str(role), tuple(box))
    return [r for r in repairs if box_of(r) == key]


def results_of(repairs: Sequence[RepairRecord], record: RepairRecord) -> BoxResults:
    """The results of *record*'s box."""
    return BoxResults(tuple(of_box(repairs, record.image_role, record.box)))


def to_show(repairs: Sequence[RepairRecord], landed: RepairRecord) -> RepairRecord:
    """The result to show when *landed* arrives: the best of its box so far."""
    return results_of(repairs, landed).best()


def state_text(record: RepairRecord, box: BoxResults, current: str | None) -> str:
    """How the list and the comparison name *record*'s state."""
    if record.status in ("accepted", "accepting", "reverting"):
        return {"accepted": "accepted", "accepting": "accepting…"}.get(record.status, "reverting…")
    if not_taken_for(record) and record.status == "discarded":
        return f"not taken ({not_taken_for(record)} accepted)"
    if is_stale(record, current):
        return "made on an earlier image"
    if record.status == "preview" and box.is_stand_in(record):
        better = stands_in_for(record) or ""
        return f"quick stand-in until the {result_name(better)} result arrives"
    return {"preview": "waiting for you", "discarded": "discarded", "reverted": "reverted"}.get(
        record.status, record.status
    )


def caption_state(record: RepairRecord, box: BoxResults, current: str | None) -> str:
    """The state in the comparison's caption: a word or two, so the caption keeps its one
    line (and the image its size and zoom) as a better result replaces a stand-in."""
    if record.status == "accepted":
        return "now the image"
    if record.status == "discarded" and not_taken_for(record):
        return "not taken"
    if is_stale(record, current):
        return "made on an earlier image"
    if record.status == "preview" and box.is_stand_in(record):
        return "quick stand-in"
    return {"preview": "preview", "reverted": "reverted"}.get(record.status, record.status)


def accept_label(record: RepairRecord | None, current: str | None) -> str:
    """What the Accept button says: what it will accept, or that it repairs again."""
    if record is None:
        return "Accept"
    if is_stale(record, current):
        return AGAIN
    fill = fill_name(record)
    return f"Accept {result_name(record.engine)} result" + (f" ({fill})" if fill else "")


def can_accept(record: RepairRecord | None, current: str | None) -> bool:
    return record is not None and record.status in OPEN and not is_stale(record, current)
