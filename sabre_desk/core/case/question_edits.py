"""The reviewer's edits of questions and answers, held to the spec's own rules."""

from __future__ import annotations

from sabre_desk.core.case.review import QuestionEdit
from sabre_desk.core.case.spec import Question, QuestionType, SampleSpec, check_answer


def normalize_answer(question: Question, answer: str) -> str:
    """Forgive case and spaces where the format has one spelling (yes/no, A-D, counts)."""
    text = answer.strip()
    if question.question_type is QuestionType.YES_NO:
        return text.lower()
    if question.question_type is QuestionType.MULTIPLE_CHOICE:
        return text.upper()
    return text


def effective(question: Question, edit: QuestionEdit | None) -> tuple[str, str]:
    """(prompt, answer) as exported: the reviewer's edit where there is one."""
    prompt = edit.prompt if edit and edit.prompt is not None else question.prompt
    answer = edit.answer if edit and edit.answer is not None else question.answer
    return prompt, answer


def make_edit(
    question: Question,
    current: QuestionEdit | None,
    prompt: str | None = None,
    answer: str | None = None,
) -> QuestionEdit | None:
    """The edit after changing *prompt* and/or *answer*; None when nothing differs any more.

    Raises ValueError (naming the rule) for an answer the question type does not allow or
    an empty question, so a bad edit never reaches the review file.
    """
    new_prompt = current.prompt if current else None
    new_answer = current.answer if current else None
    if prompt is not None:
        prompt = prompt.strip()
        if not prompt:
            raise ValueError("the question cannot be empty")
        new_prompt = None if prompt == question.prompt else prompt
    if answer is not None:
        answer = normalize_answer(question, answer)
        check_answer(question.question_type, question.eval_type, answer, question.options)
        new_answer = None if answer == question.answer else answer
    if new_prompt is None and new_answer is None:
        return None
    return QuestionEdit(prompt=new_prompt, answer=new_answer)


def edit_problems(spec: SampleSpec, edits: dict[str, QuestionEdit]) -> list[str]:
    """Why stored question edits break the spec's rules (empty when they are all fine).

    The window only ever writes edits that pass ``make_edit``; this holds a review file
    written by anything else (another reviewer's copy of the app, a text editor) to the
    very same rules before its edits can reach a release.
    """
    problems: list[str] = []
    for probe_id, edit in edits.items():
        question = spec.question(probe_id)
        where = f"question_edits.{probe_id}"
        if question is None:
            problems.append(f"{where}: the spec has no probe {probe_id!r}")
            continue
        if edit.prompt is not None and not edit.prompt.strip():
            problems.append(f"{where}.prompt: the question cannot be empty")
        if edit.answer is not None:
            try:
                check_answer(
                    question.question_type, question.eval_type, edit.answer, question.options
                )
            except ValueError as exc:
                problems.append(f"{where}.{exc}")
    return problems
