"""The one table of how much a field the app writes may hold.

Readers and writers take their limits from here and nowhere else: the models declare their
fields with these numbers (``core.case.spec``, ``core.case.review``), the writers validate the
whole object against the same models before serializing it, and the window's fields show
the room left from the same numbers. So nothing sabre-desk writes is a file it would then
refuse to read. The sizes of whole files are in ``reading.LIMITS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

Unit = Literal["characters", "items", "bytes"]


@dataclass(frozen=True)
class Limit:
    """The most a field may hold, and what it is called in a message."""

    what: str  # as a reviewer calls it: "Notes", "a box label"
    most: int
    unit: Unit = "characters"

    def words(self) -> str:
        """The limit in words: "20,000 characters"."""
        return f"{self.most:,} {self.unit}"

    def problem(self, size: int) -> str | None:
        """Why *size* does not fit (None when it does), in words a reviewer reads."""
        if size <= self.most:
            return None
        return (
            f"{self.what} can hold at most {self.words()}; this has {size:,} "
            f"({size - self.most:,} too many)"
        )

    def room(self, size: int) -> int:
        """How much more fits after *size* (never below 0)."""
        return max(0, self.most - size)


#: A case id or a reviewer name (they become file and folder names: ``ids``).
ID: Final = Limit("A case id or reviewer name", 128)
#: A name: a box label, a task, a subset, a reviewer's short fields.
NAME: Final = Limit("A name", 200)
#: A probe's question (the spec's, or a reviewer's edit of it).
QUESTION: Final = Limit("A question", 2_000)
#: A probe's answer (the spec's, or a reviewer's edit of it).
ANSWER: Final = Limit("An answer", 500)
#: Free text: a review's notes, a repair's instruction, a spec's objective and prompts.
TEXT: Final = Limit("A text", 20_000)
#: The reviewer's notes on a case (a free text, called by its name in the window).
NOTES: Final = Limit("Notes", TEXT.most)
#: What a repair is asked to do (``sabre-desk repair --instruction``, the Repair panel).
INSTRUCTION: Final = Limit("A repair instruction", TEXT.most)
#: A box's label.
BOX_LABEL: Final = Limit("A box label", NAME.most)

#: The items of a review's lists: what a reviewer can add to a case, each counted.
BOXES: Final = Limit("A case's boxes", 1_000, "items")
QUESTION_EDITS: Final = Limit("A review's question edits", 1_000, "items")
CHECKLIST: Final = Limit("A review's checklist", 1_000, "items")
#: A checklist item's key, ``<image role>:<label>`` (a label is a NAME).
CHECKLIST_ITEM: Final = Limit("A checklist item", 256)
REPAIRS: Final = Limit("A review's repairs", 1_000, "items")
#: What a repair says about its result (a seam, a fallback), each a line.
REPAIR_WARNINGS: Final = Limit("A repair's warnings", 100, "items")
REPAIR_WARNING: Final = Limit("A repair warning", QUESTION.most)

#: The team in ``sabre-project.json``: reviewers and adjudicators, each an ID.
TEAM: Final = Limit("A team", 1_000, "items")

#: A preference study (``studies/<name>/study.json``) and a participant's session.
STUDY_QUESTIONS: Final = Limit("A study's questions", 1_000, "items")

#: A model's answer kept in a screening run (``screening.json``): a longer reply is a
#: failed call (``reading.LIMITS["kept answer"]`` bytes, so never more characters).
MODEL_ANSWER: Final = Limit("A model's answer", 16 * 1024)

#: A flagged question in ``audit.json``: each model's answer as given is kept up to this
#: (a longer one is kept as an excerpt that says so).
AUDIT_ANSWER: Final = Limit("A model's answer in the audit", MODEL_ANSWER.most)
AUDIT_MODELS: Final = Limit("The models of an audit flag", 1_000, "items")
AUDIT_FLAGS: Final = Limit("The audit's flags", 1_000_000, "items")

#: One line of ``history.jsonl``, UTF-8 (an event with its data: a notes change holds the
#: text before and after, so two notes at their limit always fit).
HISTORY_LINE: Final = Limit("A history entry", 256 * 1024, "bytes")

#: Every limit by the field it bounds, as PROJECT_FORMAT.md lists them.
TABLE: Final[dict[str, Limit]] = {
    "id": ID,
    "name": NAME,
    "question": QUESTION,
    "answer": ANSWER,
    "text": TEXT,
    "review.notes": NOTES,
    "review.boxes[].label": BOX_LABEL,
    "review.question_edits.*.prompt": QUESTION,
    "review.question_edits.*.answer": ANSWER,
    "review.repairs[].instruction": INSTRUCTION,
    "review.boxes": BOXES,
    "review.question_edits": QUESTION_EDITS,
    "review.checklist": CHECKLIST,
    "review.checklist key": CHECKLIST_ITEM,
    "review.repairs": REPAIRS,
    "review.repairs[].warnings": REPAIR_WARNINGS,
    "review.repairs[].warnings[]": REPAIR_WARNING,
    "screening.json runs[].results.*.response": MODEL_ANSWER,
    "sabre-project.json reviewers": TEAM,
    "sabre-project.json adjudicators": TEAM,
    "study.questions": STUDY_QUESTIONS,
    "study.instruction": INSTRUCTION,
    "session.picks": STUDY_QUESTIONS,
    "audit.flags": AUDIT_FLAGS,
    "audit.flags[].answers": AUDIT_MODELS,
    "audit.flags[].answers.*": AUDIT_ANSWER,
    "history.jsonl line": HISTORY_LINE,
}
