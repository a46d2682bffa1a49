"""The state of the review workbench, Qt-free: which cases exist, which the reviewer sees
(the filtered order), the running counts, the current case and the view mode.

Every change goes through one method and is announced by one event; the window's views
subscribe (napari's pattern) and never compute any of this themselves. Everything a
reviewer does between two cases is O(log n) in the number of cases: the filtered order and
the undecided cases in it are sorted containers of index positions, so a decision moves
one case in or out of them, Next is a bisection, and the counts are kept, not recounted.
Only a new filter walks the whole index once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from sortedcontainers import SortedList

from sabre_desk.core.case.gate import ScreenStatus
from sabre_desk.core.case.project import CaseEntry
from sabre_desk.core.case.review import Decision
from sabre_desk.core.desk.pace import ReviewerPace
from sabre_desk.core.jobs.events import Event
from sabre_desk.core.team.counts import index_part


class Show(StrEnum):
    """Which cases the list shows, beyond a decision of its own (see SHOW_CHOICES)."""

    ALL = ""
    UNREVIEWED = "unreviewed"
    INVALID = "invalid"
    REPAIR_PENDING = "repair"
    CHANGES_OUTSIDE = "outside"
    ASSIGNED = "assigned"  # the cases assigned to this reviewer
    DISPUTED = "disputed"  # an adjudicator's queue: disagreements nobody settled yet
    SOLVED = "solved"  # the filtering model answered correctly: out of the review queue
    KEPT = "kept"  # the filtering model failed on it: people review it
    NOT_SCREENED = "not_screened"
    SCREENING_STALE = "screening_stale"  # the latest run was about another image or question
    AUDIT = "audit"  # a flagged question the evaluated models answer otherwise, not yet settled


SCREEN_SHOWS: dict[str, ScreenStatus] = {
    Show.SOLVED: ScreenStatus.SOLVED,
    Show.KEPT: ScreenStatus.KEPT,
    Show.NOT_SCREENED: ScreenStatus.NOT_SCREENED,
    Show.SCREENING_STALE: ScreenStatus.STALE,
}

#: The list's "show" choices in the reviewer's words: (label, key); a key is a Show or a
#: Decision value.
SHOW_CHOICES: list[tuple[str, str]] = [
    ("All decisions", Show.ALL),
    ("Not reviewed", Show.UNREVIEWED),
    *[(d.label, d.value) for d in Decision],
    ("Invalid", Show.INVALID),
    ("Repair waiting", Show.REPAIR_PENDING),
    ("Changes outside the edit", Show.CHANGES_OUTSIDE),
    ("Assigned to me", Show.ASSIGNED),
    ("Disagreements to settle", Show.DISPUTED),
    ("Answers the models dispute", Show.AUDIT),
    ("Solved by the filter", Show.SOLVED),
    ("Kept by the filter", Show.KEPT),
    ("Not screened", Show.NOT_SCREENED),
    ("Screening stale", Show.SCREENING_STALE),
]


class Go(StrEnum):
    """Where the Go menu moves, from the current case through the filtered order."""

    NEXT = "next"
    PREVIOUS = "previous"
    FIRST = "first"
    LAST = "last"
    UNREVIEWED = "unreviewed"


class ViewMode(StrEnum):
    """What the two canvases show: the case under review, or a repair beside the image."""

    REVIEWING = "reviewing"
    REPAIR_COMPARISON = "repair_comparison"


@dataclass(frozen=True)
class CaseFilter:
    show: str = Show.ALL
    subset: str = ""
    text: str = ""  # matched, case-insensitively, in the id, the subset and the concept

    def accepts(self, e: CaseEntry, haystack: str, audit: Set[str] = frozenset()) -> bool:
        """Whether the list shows *e*; *audit*: the cases with a flagged question left to
        settle (``audit_queue.AuditQueue.unsettled_cases``)."""
        show = self.show
        if show == Show.UNREVIEWED:
            if e.decision is not None or e.problem:
                return False
        elif show == Show.INVALID:
            if not e.problem:
                return False
        elif show == Show.REPAIR_PENDING:
            if not e.pending_repair:
                return False
        elif show == Show.CHANGES_OUTSIDE:
            if not e.changes_outside:
                return False
        elif show == Show.ASSIGNED:
            if e.assigned_to_me is False:  # a project without assignments: all are yours
                return False
        elif show == Show.DISPUTED:
            if not e.disputed:
                return False
        elif show == Show.AUDIT:
            if e.case_id not in audit:
                return False
        elif show in SCREEN_SHOWS:
            if e.screening is not SCREEN_SHOWS[show]:
                return False
        elif show and (e.decision is None or e.decision.value != show):
            return False
        if self.subset and e.subset != self.subset:
            return False
        return not self.text or self.text in haystack


@dataclass(frozen=True)
class Counts:
    """The counts the index can tell, under the names of ``counts.Counts`` (which defines
    them, ``counts.index_part`` each entry's part): ``cases``, ``invalid`` (as far as the
    index knows), ``decided_by_me``; ``unchecked``: cases the full check has not yet
    judged (``Project.record_verdict``), so ``invalid`` may still grow. With every case
    checked they are the figures of `stats` and `validate`."""

    cases: int = 0
    decided_by_me: int = 0
    invalid: int = 0
    #: the index is still being read behind the cases shown: the counts are so far
    reading: bool = False
    unchecked: int = 0

    @property
    def valid(self) -> int:
        return self.cases - self.invalid

    def plus(self, entries: Iterable[CaseEntry], sign: int = 1) -> Counts:
        """These counts with *entries* added (*sign* -1: taken away)."""
        invalid = mine = unchecked = 0
        n = 0
        for e in entries:
            n += 1
            bad, decided, open_ = index_part(e)
            invalid += bad
            mine += decided
            unchecked += open_
        return replace(
            self,
            cases=self.cases + sign * n,
            invalid=self.invalid + sign * invalid,
            decided_by_me=self.decided_by_me + sign * mine,
            unchecked=self.unchecked + sign * unchecked,
        )


def _is_todo(e: CaseEntry) -> bool:
    """To be reviewed: valid, undecided, and not solved by the filter (paper §3.4: a case the
    filtering model answers correctly is discarded; it stays on disk, out of the queue)."""
    return e.decision is None and e.problem is None and e.screening is not ScreenStatus.SOLVED


def _haystack(e: CaseEntry) -> str:
    return f"{e.case_id} {e.subset or ''} {e.concept_id or ''}".lower()


class Workbench:
    def __init__(self) -> None:
        self.entries: list[CaseEntry] = []
        self.subsets: list[str] = []
        self.filter = CaseFilter()
        self.current: str | None = None
        #: the reviewer's moves, which hold back the loops over the whole project
        self.pace = ReviewerPace()
        self.mode = ViewMode.REVIEWING
        self.counts = Counts()
        #: the cases with a flagged question nobody settled yet (``set_audit``)
        self.audit: frozenset[str] = frozenset()
        self._index: dict[str, int] = {}
        self._haystacks: list[str] = []
        self._visible: Any = SortedList()  # entry positions the filter accepts
        self._todo: Any = SortedList()  # … of which valid and undecided
        # events
        self.visible_reset: Event[[]] = Event()  # new entries or a new filter: the list is rebuilt
        self.row_changed: Event[[int]] = Event()  # that row shows an entry that changed
        self.row_inserted: Event[[int]] = Event()  # an entry now passes the filter, at that row
        self.row_removed: Event[[int]] = Event()  # an entry no longer passes, was at that row
        self.rows_appended: Event[[int, int]] = Event()  # first and last new row appended
        self.counts_changed: Event[[Counts]] = Event()
        self.current_changed: Event[[str]] = Event()
        self.mode_changed: Event[[ViewMode]] = Event()

    # --- the index ----------------------------------------------------------------------

    def set_entries(self, entries: Sequence[CaseEntry], reading: bool = False) -> None:
        """A new index (*reading*: only its first piece, the rest to come by
        ``append_entries`` and then ``index_complete``)."""
        self.entries = list(entries)
        self._index = {e.case_id: i for i, e in enumerate(self.entries)}
        self._haystacks = [_haystack(e) for e in self.entries]
        self.subsets = sorted({e.subset for e in self.entries if e.subset})
        self.current = None
        self.counts = Counts(reading=reading).plus(self.entries)
        self._rebuild()
        self.counts_changed.emit(self.counts)

    def append_entries(self, entries: Sequence[CaseEntry]) -> None:
        """More of the index arrived (it is read behind the first case shown): the new
        cases go after the others, into the list where the filter accepts them."""
        if not entries:
            return
        start = len(self.entries)
        self.entries.extend(entries)
        new_subsets = {e.subset for e in entries if e.subset} - set(self.subsets)
        if new_subsets:
            self.subsets = sorted({*self.subsets, *new_subsets})
        for offset, e in enumerate(entries):
            self._index[e.case_id] = start + offset
        hay = [_haystack(e) for e in entries]
        self._haystacks.extend(hay)
        accepts, audit = self.filter.accepts, self.audit
        shown = [start + k for k, e in enumerate(entries) if accepts(e, hay[k], audit)]
        first_row = len(self._visible)
        self._visible.update(shown)
        self._todo.update(i for i in shown if _is_todo(self.entries[i]))
        self.counts = self.counts.plus(entries)
        if shown:
            self.rows_appended.emit(first_row, first_row + len(shown) - 1)
        self.counts_changed.emit(self.counts)

    def index_complete(self) -> None:
        """The last piece of the index has arrived: the counts are whole."""
        if self.counts.reading:
            self.counts = replace(self.counts, reading=False)
            self.counts_changed.emit(self.counts)

    def entry(self, case_id: str) -> CaseEntry | None:
        i = self._index.get(case_id)
        return None if i is None else self.entries[i]

    def update_entry(self, entry: CaseEntry) -> None:
        """The one way an entry changes (a decision, a repair waiting, a change-map flag):
        the counts and the filtered order follow in O(log n)."""
        i = self._index.get(entry.case_id)
        if i is None:
            return
        old = self.entries[i]
        if old == entry:
            return
        self.entries[i] = entry
        self._haystacks[i] = _haystack(entry)
        counts = self.counts.plus([entry]).plus([old], sign=-1)
        self._place(i, changed=True)
        if counts != self.counts:
            self.counts = counts
            self.counts_changed.emit(counts)

    def set_audit(self, case_ids: Iterable[str]) -> None:
        """The cases with a flagged question left to settle (an audit read, a question
        settled): under "Answers the models dispute" only the cases that came or went move,
        each in O(log n)."""
        new = frozenset(case_ids)
        moved, self.audit = new ^ self.audit, new
        if self.filter.show == Show.AUDIT:
            for case_id in sorted(moved, key=lambda c: self._index.get(c, -1)):
                i = self._index.get(case_id)
                if i is not None:
                    self._place(i, changed=False)

    def _place(self, i: int, changed: bool) -> None:
        """Entry *i* in or out of the filtered order as the filter now says (*changed*: it
        is shown anew where it stays)."""
        entry = self.entries[i]
        was = i in self._visible
        now = self.filter.accepts(entry, self._haystacks[i], self.audit)
        if was:
            self._todo.discard(i)
        if was and now:
            if _is_todo(entry):
                self._todo.add(i)
            if changed:
                self.row_changed.emit(self._visible.index(i))
        elif was:
            row = self._visible.index(i)
            self._visible.remove(i)
            self.row_removed.emit(row)
        elif now:
            self._visible.add(i)
            if _is_todo(entry):
                self._todo.add(i)
            self.row_inserted.emit(self._visible.index(i))

    # --- the filtered order ------------------------------------------------------------

    def set_filter(
        self, show: str | None = None, subset: str | None = None, text: str | None = None
    ) -> None:
        new = CaseFilter(
            show=self.filter.show if show is None else show,
            subset=self.filter.subset if subset is None else subset,
            text=self.filter.text if text is None else text.strip().lower(),
        )
        if new != self.filter:
            old, self.filter = self.filter, new
            # More text typed, nothing else changed: only the cases shown now can match.
            narrowing = replace(old, text=new.text) == new and new.text.startswith(old.text)
            self._rebuild(narrowing)

    def clear_filter(self) -> None:
        self.set_filter(show=Show.ALL, subset="", text="")

    def _rebuild(self, narrowing: bool = False) -> None:
        """The filtered order again. Typing in the filter box was the slow case (every
        entry tested, on the GUI thread, at each key): text alone is a substring test of
        each haystack, and a longer text only tests the cases the shorter one let through."""
        f, entries, hay = self.filter, self.entries, self._haystacks
        candidates: Iterable[int] = self._visible if narrowing else range(len(entries))
        if f == CaseFilter():
            visible: Iterable[int] = range(len(entries))
        elif f.show == Show.ALL and not f.subset:
            text = f.text
            visible = [i for i in candidates if text in hay[i]]
        else:
            audit = self.audit
            visible = [i for i in candidates if f.accepts(entries[i], hay[i], audit)]
        self._visible = SortedList(visible)
        self._todo = SortedList(i for i in self._visible if _is_todo(entries[i]))
        self.visible_reset.emit()

    @property
    def visible_count(self) -> int:
        return len(self._visible)

    def visible_at(self, row: int) -> CaseEntry:
        position: int = self._visible[row]
        return self.entries[position]

    def row_of(self, case_id: str) -> int | None:
        """The row of *case_id* in the filtered order; None when it is filtered out."""
        i = self._index.get(case_id)
        if i is None:
            return None
        row: int = self._visible.bisect_left(i)
        return row if row < len(self._visible) and self._visible[row] == i else None

    def visible_ids(self) -> list[str]:
        return [self.entries[i].case_id for i in self._visible]

    # --- moving between cases ----------------------------------------------------------

    def step(self, current: str | None, delta: int) -> str | None:
        """The case *delta* rows away in the list, stopping at the ends (no wrap)."""
        n = len(self._visible)
        if n == 0:
            return None
        row = self.row_of(current) if current is not None else None
        if row is None:
            return self.visible_at(0 if delta >= 0 else n - 1).case_id
        return self.visible_at(max(0, min(n - 1, row + delta))).case_id

    def first(self) -> str | None:
        return self.visible_at(0).case_id if self._visible else None

    def last(self) -> str | None:
        return self.visible_at(len(self._visible) - 1).case_id if self._visible else None

    def next_unreviewed(self, current: str | None) -> str | None:
        """The next valid undecided case in the list after *current*, wrapping around once;
        None when every case in the list is decided."""
        if not self._todo:
            return None
        i = self._index.get(current, -1) if current is not None else -1
        pos = self._todo.bisect_right(i)
        candidates: list[int] = [*self._todo.islice(pos, pos + 1), *self._todo.islice(0, 1)]
        for j in candidates:
            case_id = self.entries[j].case_id
            if case_id != current:
                return case_id
        return None

    def target(self, where: Go) -> str | None:
        """The case the Go menu's *where* leads to from the current case (None: nowhere)."""
        where, current = Go(where), self.current
        if where is Go.NEXT:
            return self.step(current, 1)
        if where is Go.PREVIOUS:
            return self.step(current, -1)
        if where is Go.FIRST:
            return self.first()
        if where is Go.LAST:
            return self.last()
        return self.next_unreviewed(current)

    def nowhere(self, where: Go) -> str | None:
        """Why the Go menu's *where* leads nowhere from the current case, in the reviewer's
        words (None: it leads to another case). A key that cannot move says so."""
        where = Go(where)
        if not self.entries:
            return "The project has no cases yet."
        if not self._visible:
            return "No case in the list: the filter hides them all."
        target = self.target(where)
        if target is not None and target != self.current:
            return None
        return {
            Go.NEXT: "This is the last case in the list.",
            Go.PREVIOUS: "This is the first case in the list.",
            Go.FIRST: "This is already the first case in the list.",
            Go.LAST: "This is already the last case in the list.",
            Go.UNREVIEWED: "Every case in the list has a decision.",
        }[where]

    def neighbours(self, case_id: str, reach: int) -> list[CaseEntry]:
        """The cases up to *reach* rows either side, nearest first (for prefetching)."""
        row = self.row_of(case_id)
        if row is None:
            return []
        rows = [row + d * s for d in range(1, reach + 1) for s in (1, -1)]
        return [self.visible_at(r) for r in rows if 0 <= r < len(self._visible)]

    # --- current case and view mode ----------------------------------------------------

    def set_current(self, case_id: str) -> None:
        if self.current is not None:  # from one case to another (not a project's first)
            self.pace.moved()
        if case_id != self.current:
            self.current = case_id
            self.current_changed.emit(case_id)

    def set_mode(self, mode: ViewMode) -> None:
        if mode is not self.mode:
            self.mode = mode
            self.mode_changed.emit(mode)
