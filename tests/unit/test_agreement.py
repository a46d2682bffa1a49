"""Agreement figures against published worked examples, then on a real project folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from factories import png_bytes, write_review

from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import Decision
from sabre_desk.core.team.agreement import (
    DECISIONS,
    agreement,
    alpha_nominal,
    cohen_kappa,
    confusion,
    pair_estimates,
    scope_agreement,
)
from sabre_desk.core.team.final import Final
from sabre_desk.core.team.ratings import CaseRatings, collect

NAN = None
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: four
# observers, twelve units, values 1-5, missing data. Published: α (nominal) = 0.743.
KRIPPENDORFF_2011 = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    "C": [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
}


def ratings_of(table: dict[str, list[int | None]], subset: str = "s") -> list[CaseRatings]:
    """Each column a case; value v is the v-th decision (1 = Keep …)."""
    units = len(next(iter(table.values())))
    cases = []
    for u in range(units):
        decisions = {name: DECISIONS[values[u] - 1] for name, values in table.items() if values[u]}
        cases.append(CaseRatings(f"u{u}", subset, decisions, {}, (), Final(None, "")))
    return cases


def by_hand_alpha(table: dict[str, list[int | None]]) -> float:
    """α = 1 - (n - 1) Σ_{c≠k} o_ck / Σ_{c≠k} n_c n_k, from the coincidence matrix."""
    values = sorted({v for col in table.values() for v in col if v})
    o = {(c, k): 0.0 for c in values for k in values}
    units = len(next(iter(table.values())))
    for u in range(units):
        here = [col[u] for col in table.values() if col[u]]
        m = len(here)
        if m < 2:
            continue
        for i, c in enumerate(here):
            for j, k in enumerate(here):
                if i != j:
                    o[c, k] += 1 / (m - 1)
    n_c = {c: sum(o[c, k] for k in values) for c in values}
    n = sum(n_c.values())
    disagree = sum(o[c, k] for c in values for k in values if c != k)
    expected = sum(n_c[c] * n_c[k] for c in values for k in values if c != k)
    return 1 - (n - 1) * disagree / expected


def test_krippendorffs_own_nominal_example_gives_the_published_0_743() -> None:
    cases = ratings_of(KRIPPENDORFF_2011)
    counts = np.zeros((len(cases), len(DECISIONS)), dtype=np.int64)
    for row, case in enumerate(cases):
        for decision in case.decisions.values():
            counts[row, DECISIONS.index(decision)] += 1
    # by hand: 40 pairable values (unit 12 has one value and does not count)
    assert round(by_hand_alpha(KRIPPENDORFF_2011), 3) == 0.743
    assert alpha_nominal(counts) == pytest.approx(by_hand_alpha(KRIPPENDORFF_2011))
    result = scope_agreement("all", cases, bootstrap=200)
    assert round(result.alpha.value, 3) == 0.743
    assert result.alpha.n == 11 and result.single == 1 and result.multiple == 11
    assert result.alpha.low < 0.743 < result.alpha.high <= 1.0


# Cohen's κ, the textbook two-reader example (50 grant proposals): both yes 20, A yes and
# B no 5, A no and B yes 10, both no 15. p_o = 35/50 = 0.70; p_e = 0.5·0.6 + 0.5·0.4 = 0.50;
# κ = (0.70 - 0.50) / (1 - 0.50) = 0.40.
def textbook_pairs() -> tuple[list[int], list[int]]:
    yes, no = 0, 1
    cells = [(yes, yes)] * 20 + [(yes, no)] * 5 + [(no, yes)] * 10 + [(no, no)] * 15
    return [a for a, _ in cells], [b for _, b in cells]


def test_the_textbook_kappa_example_gives_0_40_with_70_percent_agreement() -> None:
    a, b = textbook_pairs()
    assert cohen_kappa(a, b, 2) == pytest.approx(0.40)
    kappa, percent = pair_estimates(np.array(a), np.array(b), 2, bootstrap=1000, seed=42)
    assert kappa.value == pytest.approx(0.40) and percent.value == pytest.approx(0.70)
    assert kappa.n == percent.n == 50
    assert kappa.low < 0.40 < kappa.high and 0.5 < percent.low < 0.70 < percent.high < 0.85
    again, _ = pair_estimates(np.array(a), np.array(b), 2, bootstrap=1000, seed=42)
    assert (again.low, again.high) == (kappa.low, kappa.high)  # seeded: reproducible


def test_undefined_figures_are_none_not_a_made_up_number() -> None:
    assert cohen_kappa([0, 0, 0], [0, 0, 0], 6) is None  # chance agreement is total
    same = ratings_of({"A": [1, 1, 1], "B": [1, 1, 1]})
    result = scope_agreement("all", same, bootstrap=50)
    assert result.alpha.value is None and result.pairs[0].percent.value == 1.0


# --- on a project folder ----------------------------------------------------------------


@pytest.fixture
def team_project(make_project: Callable, add_case: Callable) -> Path:
    """Six cases: four rated by alice and bob (3 agree), one by alice only, one by nobody;
    bob's decision on c4 was made on an image that was replaced since."""
    root = make_project()
    plan = {
        "c1": {"alice": "keep", "bob": "keep"},
        "c2": {"alice": "keep", "bob": "keep"},
        "c3": {"alice": "edit_failed", "bob": "edit_failed"},
        "c4": {"alice": "keep", "bob": "scene_changed"},
        "c5": {"alice": "keep"},
        "c6": {},
    }
    for case_id, decisions in plan.items():
        folder = add_case(root, case_id)
        for name, decision in decisions.items():
            write_review(folder, name, decision)
    (root / "cases/c4/edited.png").write_bytes(png_bytes(color=(1, 2, 3)))  # a repair
    write_review(root / "cases/c4", "alice", "keep")  # alice looked again; bob did not
    return root


def test_agreement_on_a_project_counts_single_unreviewed_and_stale_cases(
    team_project: Path,
) -> None:
    ratings = collect(Project.open(team_project, "alice"))
    report = agreement(ratings, bootstrap=200)
    overall = report.overall
    assert overall.cases == 6 and overall.not_decided == 1
    assert overall.single == 2  # c5, and c4 whose second decision is stale
    assert overall.multiple == 3 and overall.stale == 1
    (pair,) = overall.pairs
    assert pair.reviewers == ("alice", "bob") and pair.n == 3
    assert pair.percent.value == 1.0  # c1-c3 agree; bob's stale c4 does not count
    assert report.reviewers == ["alice", "bob"]
    table = confusion(ratings, "alice", "bob")
    keep, failed = DECISIONS.index(Decision.KEEP), DECISIONS.index(Decision.EDIT_FAILED)
    assert table.counts[keep][keep] == 2 and table.counts[failed][failed] == 1
    assert table.n == 3
    assert report.to_json()["overall"]["cases"]["stale"] == 1


def test_an_adjudication_is_not_a_rating(team_project: Path) -> None:
    write_review(team_project / "cases/c1", "carol", "keep", adjudication=True)
    ratings = collect(Project.open(team_project, "alice"))
    c1 = next(c for c in ratings.cases if c.case_id == "c1")
    assert set(c1.decisions) == {"alice", "bob"} and c1.adjudications == {"carol": Decision.KEEP}
    assert agreement(ratings, bootstrap=0).overall.adjudicated == 1
