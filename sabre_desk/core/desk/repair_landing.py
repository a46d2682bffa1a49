"""Whether a repair that lands opens the comparison, or waits in the list.

A repair result is shown as soon as it lands on the open case, except where that would pull
the reviewer back into a comparison they chose to leave: a slow engine's result for a box
whose quicker preview they already looked at and went back from waits in the repair list,
and the status bar says so. Running a new repair on the case forgets what was left there:
the reviewer is asking to see results again.

The rule has no Qt in it, so it is decided here and tested without a window; the repair room
asks it and shows what it says.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from sabre_desk.core.case.review import RepairRecord

#: a repaired box: its case, its image and where it is on the image
BoxKey = tuple[str, str, tuple[float, float, float, float]]


def box_of(case_id: str, record: RepairRecord) -> BoxKey:
    """The box a repair record repairs, on which case and image."""
    return (case_id, str(record.image_role), record.box)


class Landing(Enum):
    """What the window does with a repair that has just landed."""

    SHOW = "show"  # open the comparison on it (select it in the repair list)
    LIST = "list"  # keep it in the list; the reviewer left this box's comparison
    ELSEWHERE = "elsewhere"  # it is of a case not on screen: the status bar only


@dataclass
class RepairLandings:
    """The boxes whose comparison the reviewer left, per case, until a new repair there."""

    left: set[BoxKey] = field(default_factory=set)

    def started(self, case_id: str) -> None:
        """A new repair on *case_id*: its results are shown when they land."""
        self.left = {key for key in self.left if key[0] != case_id}

    def comparison_left(self, case_id: str, record: RepairRecord) -> None:
        """The reviewer went back to reviewing from the preview of *record*."""
        self.left.add(box_of(case_id, record))

    def landing(self, case_id: str, record: RepairRecord, open_case: str | None) -> Landing:
        """What to do with *record*, landed for *case_id*, while *open_case* is on screen."""
        if open_case != case_id:
            return Landing.ELSEWHERE
        return Landing.LIST if box_of(case_id, record) in self.left else Landing.SHOW

    @staticmethod
    def same_box(shown: RepairRecord | None, record: RepairRecord) -> bool:
        """*record* repairs the box already shown: the reviewer keeps the zoom they judge at."""
        return shown is not None and box_of("", shown) == box_of("", record)
