"""docs/scoring.md, rule by rule, on real response strings."""

from __future__ import annotations

import numpy as np
import pytest

from sabre_desk.core.case.scoring import PROBES, Sample, is_correct, parse, score

PARSE_CASES = [
    # yes_no_exact: begins with the word, else exactly one of the two words occurs
    ("yes_no_exact", "Yes.", "yes"),
    ("yes_no_exact", "yes", "yes"),
    ("yes_no_exact", "NO", "no"),
    ("yes_no_exact", "No, there is none.", "no"),
    ("yes_no_exact", "  yes, a bagel", "yes"),
    ("yes_no_exact", '"Yes"', "yes"),
    ("yes_no_exact", "I think yes", "yes"),
    ("yes_no_exact", "The answer is no.", "no"),
    ("yes_no_exact", "yes and no", "yes"),  # begins with yes
    ("yes_no_exact", "Maybe yes, maybe no", None),
    ("yes_no_exact", "I cannot tell.", None),
    ("yes_no_exact", "Yesterday", None),
    ("yes_no_exact", "nope", None),
    ("yes_no_exact", "", None),
    # mcq_letter: the first standalone letter A-D
    ("mcq_letter", "B", "B"),
    ("mcq_letter", "(b)", "B"),
    ("mcq_letter", "B.", "B"),
    ("mcq_letter", "Answer: C", "C"),
    ("mcq_letter", "The answer is D) unknown", "D"),
    ("mcq_letter", "a", "A"),
    ("mcq_letter", "Option d", "D"),
    ("mcq_letter", "E", None),
    ("mcq_letter", "None of them", None),
    ("mcq_letter", "ABC", None),
    ("mcq_letter", "", None),
    # count_exact: number words zero-twenty and digits, first valid non-negative integer
    ("count_exact", "3", "3"),
    ("count_exact", "There are 7 apples.", "7"),
    ("count_exact", "seven", "7"),
    ("count_exact", "Twenty.", "20"),
    ("count_exact", "zero", "0"),
    ("count_exact", "I count 04", "4"),
    ("count_exact", "5 or 6", "5"),
    ("count_exact", "twelve bottles, not 13", "12"),
    ("count_exact", "2.5", "2"),  # punctuation is stripped first, as the rule says
    ("count_exact", "many", None),
    ("count_exact", "-3", "3"),
    ("count_exact", "", None),
    # exact_match / contains: normalized text
    ("exact_match", "Blue  cube.", "blue cube"),
    ("exact_match", "THE MUG!", "the mug"),
    ("exact_match", "", None),
    ("contains", "It is a blue cube, I think", "it is a blue cube i think"),
]


@pytest.mark.parametrize(("eval_type", "response", "expected"), PARSE_CASES)
def test_parsing_rules(eval_type: str, response: str, expected: str | None) -> None:
    assert parse(eval_type, response) == expected


CORRECT_CASES = [
    ("yes_no_exact", "Yes.", "yes", True),
    ("yes_no_exact", "No", "yes", False),
    ("yes_no_exact", "unclear", "no", False),
    ("mcq_letter", "Answer: B", "B", True),
    ("mcq_letter", "(c)", "B", False),
    ("count_exact", "seven", "7", True),
    ("count_exact", "There are 6", "7", False),
    ("exact_match", "Blue  cube.", "blue cube", True),
    ("exact_match", "a blue cube", "blue cube", False),
    ("contains", "The mug, clearly.", "mug", True),
    ("contains", "the cup", "mug", False),
]


@pytest.mark.parametrize(("eval_type", "response", "answer", "correct"), CORRECT_CASES)
def test_correctness(eval_type: str, response: str, answer: str, correct: bool) -> None:
    assert is_correct(eval_type, response, answer)[0] is correct


def _context_case(case: str, responses: tuple[str, str, str, str]) -> list[Sample]:
    answers = ("yes", "no", "no", "yes")
    return [
        Sample(f"{case}:{p}", case, "context_prior", p, "yes_no_exact", a, r)
        for p, a, r in zip(PROBES, answers, responses, strict=True)
    ]


def test_all4_edit2_and_probe_accuracies_on_hand_built_cases() -> None:
    samples = (
        _context_case("c1", ("Yes", "No", "No", "Yes"))  # all four right
        + _context_case("c2", ("Yes", "No", "Yes", "Yes"))  # edited_source wrong
        + _context_case("c3", ("No", "No", "No", "Yes"))  # base_source wrong, Edit2 right
        + _context_case("c4", ("Yes", "No", "No", "hmm"))  # unparseable edited_target
    )
    report = score(samples, resamples=2000)
    (context,) = report.subsets
    assert context.metric == "All4" and context.cases == 4
    assert context.accuracy == pytest.approx(1 / 4)
    assert context.edit2 == pytest.approx(2 / 4)
    assert context.probes == {
        "Q1 base_source": 0.75,
        "Q2 base_target": 1.0,
        "Q3 edited_source": 0.75,
        "Q4 edited_target": 0.75,
    }
    assert report.unparseable == 1 and report.missing == 0
    assert 0.0 <= context.ci[0] <= context.accuracy <= context.ci[1] <= 1.0


def test_sample_subsets_macro_average_and_missing_predictions() -> None:
    counting = [
        Sample(f"n{i}", f"case{i}", "counting", "count", "count_exact", "3", "3" if i < 3 else "4")
        for i in range(4)
    ]
    spatial = [
        Sample("s1", "sp1", "spatial", "q", "mcq_letter", "B", None),
        Sample("s2", "sp2", "spatial", "q", "mcq_letter", "A", "A"),
    ]
    report = score(counting + spatial, resamples=1000)
    by = {s.subset: s for s in report.subsets}
    assert by["counting"].accuracy == pytest.approx(0.75)
    assert by["spatial"].accuracy == pytest.approx(0.5)
    assert report.macro_all == pytest.approx((0.75 + 0.5) / 2)
    assert report.macro is None  # no SABRE-Prior subset: the paper's macro is not defined
    assert report.missing == 1


def test_the_bootstrap_is_reproducible_and_keeps_a_case_together() -> None:
    samples = [
        s
        for i in range(30)
        for s in _context_case(
            f"c{i}", ("Yes", "No", "No", "Yes") if i % 3 else ("Yes", "No", "Yes", "Yes")
        )
    ]
    first, second = score(samples), score(samples)
    assert first.macro_ci == second.macro_ci  # seed 42, every time
    ci = first.subsets[0].ci
    assert ci[0] < first.subsets[0].accuracy < ci[1]
    # resampling whole cases: every replicate accuracy is a multiple of 1/30
    assert np.isclose(ci[0] * 30, round(ci[0] * 30))


@pytest.mark.parametrize(
    ("response", "parsed"),
    [
        ("It is a closed box, so D", "D"),  # the article is not option A
        ("a dog is there", None),
        ("(b)", "B"),
        ("b.", "B"),
        ("Answer: c", "C"),
        ("The answer is (C).", "C"),
        ("A", "A"),
    ],
)
def test_the_article_a_is_never_read_as_option_a(response: str, parsed: str | None) -> None:
    assert parse("mcq_letter", response) == parsed


def test_the_papers_macro_is_over_the_four_prior_primaries_and_pilots_are_apart() -> None:
    """Table 7: Context All4, Texture All4, Attribute and Language Elicitation; a pilot
    (Counting) enters only the separately labelled average over every subset."""
    right = [
        *_context_case("c1", ("Yes", "No", "No", "Yes")),
        Sample("a1", "a1", "attribute_count", "count", "count_exact", "5", "5"),
        Sample("l1", "l1", "language_elicitation", "q", "mcq_letter", "D", "D"),
        Sample("n1", "n1", "counting", "count", "count_exact", "3", "4"),
    ]
    report = score(right, resamples=200)
    assert report.macro == pytest.approx(1.0)  # three Prior subsets present, all right
    assert report.macro_all == pytest.approx(3 / 4)
