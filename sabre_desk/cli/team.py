"""Team curation on the command line: `agreement`, `assign`, `time`, `team`; and what the
team adds to two commands defined with the others: `stats` reports each reviewer's
progress, `export --min-reviews N` leaves out cases resting on fewer reviews."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from sabre_desk.cli.common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    CliError,
    open_project,
    reviewer_name,
)
from sabre_desk.core.case.assignments import (
    ASSIGNMENTS_NAME,
    existing_assignments,
    make_assignments,
    write_assignments,
)
from sabre_desk.core.team.activity import IDLE_MINUTES, activity
from sabre_desk.core.team.agreement import (
    ALL,
    BOOTSTRAP,
    SEED,
    AgreementReport,
    Confusion,
    ScopeAgreement,
    agreement,
    confusion,
)
from sabre_desk.core.team.ratings import TeamRatings, collect
from sabre_desk.core.team.team import blind, write_team_settings
from sabre_desk.ground.ids import id_problem

PAPER_TABLE_9 = "the SABRE paper's Table 9: 25–50 min per 50 reviewed cases"


def _command(
    sub: Any, common: argparse.ArgumentParser, name: str, run: Any, json_output: bool, **text: str
) -> argparse.ArgumentParser:
    """A subcommand acting on a PROJECT as a reviewer, optionally with --json."""
    p: argparse.ArgumentParser = sub.add_parser(name, parents=[common], **text)
    p.add_argument("project", type=Path)
    if json_output:
        p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)
    return p


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = _command(
        sub,
        common,
        "agreement",
        run_agreement,
        True,
        help="how much the reviewers agree (Krippendorff's α, Cohen's κ, %% agreement)",
        description="Krippendorff's α (nominal, over the six decisions and over accept/"
        "reject), and Cohen's κ and percent agreement per pair of reviewers, per subset and "
        "overall, each with the number of cases it rests on and a 95 %% bootstrap interval; "
        "then the confusion table of one pair. Only current decisions count (a decision "
        "made on an image since replaced is stale); adjudications are not ratings.",
    )
    p.add_argument("--pair", metavar="A,B", help="the pair for the confusion table")
    p.add_argument("--subset", default=ALL, help="the subset of the confusion table")
    p.add_argument("--bootstrap", type=int, default=BOOTSTRAP, help="resamples (0: none)")
    p.add_argument("--seed", type=int, default=SEED)

    p = _command(
        sub,
        common,
        "assign",
        run_assign,
        False,
        help="split the cases between reviewers (assignments.json)",
        description="Give every valid case to one reviewer and a seeded share of them to two "
        "(for the agreement figures), balanced, reproducible with --seed.",
    )
    p.add_argument("--reviewers", required=True, metavar="A,B,C")
    p.add_argument("--overlap", type=float, default=0.2, help="share reviewed twice (0.2)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--replace", action="store_true", help="replace existing assignments")

    p = _command(
        sub,
        common,
        "time",
        run_time,
        True,
        help="active review time per reviewer and per 50 cases, from the history",
    )
    p.add_argument(
        "--idle-minutes",
        type=float,
        default=IDLE_MINUTES,
        help=f"a longer gap between two changes is a break (default {IDLE_MINUTES:g})",
    )

    p = _command(
        sub,
        common,
        "team",
        run_team,
        True,
        help="show or change the team settings (reviewers, adjudicators, blind review)",
    )
    p.add_argument("--reviewers", metavar="A,B", help="the team ('' for none)")
    p.add_argument("--adjudicators", metavar="A,B", help="who settles disagreements")
    p.add_argument(
        "--blind",
        choices=["on", "off", "default"],
        help="hide others' decisions until one has decided (default: on)",
    )


def _names(text: str, option: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    for name in names:
        problem = id_problem(name, "reviewer name")
        if problem:
            raise CliError(f"{option}: {problem}")
    if len(set(names)) != len(names):
        raise CliError(f"{option}: a name is given twice")
    return names


def _dump(data: dict[str, Any]) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))


# --- agreement -------------------------------------------------------------------------------


def _scope_lines(scope: ScopeAgreement) -> list[str]:
    title = "all subsets" if scope.scope == ALL else scope.scope
    lines = [
        f"{title}: {scope.cases} valid cases — decided by anyone {scope.decided_by_anyone} "
        f"({scope.multiple} with two or more ratings, {scope.single} with one), not decided "
        f"{scope.not_decided}; stale {scope.stale}, disputed {scope.disputed}, adjudicated "
        f"{scope.adjudicated}",
        f"  Krippendorff's α, six decisions   {scope.alpha.text()}",
        f"  Krippendorff's α, accept/reject   {scope.alpha_accept_reject.text()}",
    ]
    for pair in scope.pairs:
        a, b = pair.reviewers
        percent = pair.percent
        interval = "" if percent.low is None else f" [{percent.low:.0%}, {percent.high:.0%}]"
        lines.append(
            f"  {a} × {b}: n={pair.n}, agreement {percent.value or 0:.0%}{interval}, "
            f"κ {pair.kappa.text()}, accept/reject κ {pair.kappa_accept_reject.text()}"
        )
    return lines


def _confusion_lines(table: Confusion, scope: str) -> list[str]:
    a, b = table.reviewers
    where = "all subsets" if scope == ALL else scope
    width = max(len(label) for label in table.labels) + 2
    lines = [f"confusion, {a} (rows) × {b} (columns), {where}, n={table.n}:"]
    lines.append(" " * width + "".join(f"{label[:12]:>14}" for label in table.labels))
    for label, row in zip(table.labels, table.counts, strict=True):
        lines.append(f"{label:<{width}}" + "".join(f"{v:>14}" for v in row))
    return lines


def _default_pair(report: AgreementReport) -> tuple[str, str] | None:
    pairs = sorted(report.overall.pairs, key=lambda p: (-p.n, p.reviewers))
    return pairs[0].reviewers if pairs else None


def _chosen_pair(args: argparse.Namespace, report: AgreementReport) -> tuple[str, str] | None:
    if not args.pair:
        return _default_pair(report)
    names = _names(args.pair, "--pair")
    if len(names) != 2:
        raise CliError("--pair: name two reviewers, e.g. alice,bob")
    return names[0], names[1]


def run_agreement(args: argparse.Namespace) -> int:
    if args.bootstrap < 0:
        raise CliError("--bootstrap: give 0 or more resamples")
    project = open_project(args.project, reviewer_name(args))
    ratings = collect(project)
    report = agreement(ratings, args.bootstrap, args.seed)
    if args.subset != ALL and args.subset not in ratings.subsets():
        known = ", ".join(ratings.subsets()) or "none"
        raise CliError(f"--subset: no subset {args.subset!r} (known: {known})")
    pair = _chosen_pair(args, report)
    table = confusion(ratings, *pair, scope=args.subset) if pair else None
    if args.json:
        _dump(
            {
                "project": str(project.root),
                "counts": ratings.counts().to_json(),
                **report.to_json(),
                "confusion": None if table is None else {**table.to_json(), "scope": args.subset},
            }
        )
        return _agreement_code(ratings)
    names = ", ".join(report.reviewers) or "nobody yet"
    print(
        f"{project.name}: agreement of {len(report.reviewers)} reviewer(s) ({names}); 95 % "
        f"intervals from {report.bootstrap} bootstrap resamples of the cases (seed {report.seed})"
    )
    print("\n".join(ratings.counts().lines()))
    for scope in [report.overall, *report.subsets]:
        print()
        print("\n".join(_scope_lines(scope)))
    if table is not None:
        print()
        print("\n".join(_confusion_lines(table, args.subset)))
    for problem in report.problems:
        print(f"not read: {problem}")
    return _agreement_code(ratings)


def _agreement_code(ratings: TeamRatings) -> int:
    return EXIT_PROBLEMS if ratings.problems else EXIT_OK


# --- assign ----------------------------------------------------------------------------------


def run_assign(args: argparse.Namespace) -> int:
    reviewers = _names(args.reviewers, "--reviewers")
    if not reviewers:
        raise CliError("--reviewers: name at least one reviewer, e.g. alice,bob,carol")
    if not 0.0 <= args.overlap <= 1.0:
        raise CliError(f"--overlap: {args.overlap} must lie between 0 and 1")
    project = open_project(args.project, reviewer_name(args))
    existing = existing_assignments(project.root)
    if existing is not None and not args.replace:
        raise CliError(
            f"{project.root / ASSIGNMENTS_NAME}: {existing}; --replace writes new assignments",
            EXIT_PROBLEMS,
        )
    cases = [e.case_id for e in project.entries if e.problem is None]
    assignments = make_assignments(cases, reviewers, args.overlap, args.seed)
    path = write_assignments(project.root, assignments)
    twice = sum(len(names) > 1 for names in assignments.cases.values())
    assigned = assignments.by_reviewer()
    load = ", ".join(f"{n} {len(assigned[n])}" for n in reviewers)
    print(
        f"assigned {len(cases)} cases to {len(reviewers)} reviewer(s): {load}; "
        f"{twice} cases twice (overlap {args.overlap:g}, seed {args.seed}) → {path}"
    )
    skipped = len(project.entries) - len(cases)
    if skipped:
        print(f"{skipped} invalid case(s) not assigned (see `sabre-desk validate`)")
    return EXIT_OK


# --- time ------------------------------------------------------------------------------------


def run_time(args: argparse.Namespace) -> int:
    if args.idle_minutes <= 0:
        raise CliError("--idle-minutes: give a positive number of minutes")
    project = open_project(args.project, reviewer_name(args))
    report = activity(project, args.idle_minutes)
    if args.json:
        _dump({"project": str(project.root), **report.to_json()})
        return EXIT_PROBLEMS if report.problems else EXIT_OK
    print(f"{'reviewer':24} {'active min':>10} {'cases':>6} {'min / 50 cases':>15} {'sittings':>9}")
    for r in report.reviewers:
        per = "—" if r.per_50_cases_min is None else f"{r.per_50_cases_min:.1f}"
        print(f"{r.reviewer:24} {r.active_min:10.1f} {r.cases:6} {per:>15} {r.sittings:9}")
    print(f"(gaps over {args.idle_minutes:g} min between changes excluded; {PAPER_TABLE_9})")
    for problem in report.problems:
        print(f"not read: {problem}")
    return EXIT_PROBLEMS if report.problems else EXIT_OK


# --- team settings and stats -------------------------------------------------------------


def run_team(args: argparse.Namespace) -> int:
    project = open_project(args.project, reviewer_name(args), index=False)
    changes: dict[str, Any] = {}
    if args.reviewers is not None:
        changes["reviewers"] = _names(args.reviewers, "--reviewers")
    if args.adjudicators is not None:
        changes["adjudicators"] = _names(args.adjudicators, "--adjudicators")
    if args.blind is not None:
        changes["blind"] = {"on": True, "off": False, "default": None}[args.blind]
    manifest = write_team_settings(project.root, changes) if changes else project.manifest
    assigned = project.assignments.reviewers if project.assignments is not None else None
    if args.json:
        _dump(
            {
                "project": str(project.root),
                "reviewers": manifest.reviewers,
                "adjudicators": manifest.adjudicators,
                "blind": blind(manifest),
                "assignments": assigned,
            }
        )
        return EXIT_OK
    print(f"{manifest.name} ({project.root})")
    print(f"  reviewers     {', '.join(manifest.reviewers) or '(not named)'}")
    print(f"  adjudicators  {', '.join(manifest.adjudicators) or '(none named: anyone may)'}")
    print(f"  blind review  {'on' if blind(manifest) else 'off'}")
    print(f"  assignments   {', '.join(assigned) if assigned else '(none)'}")
    for warning in project.warnings:
        print(f"  problem: {warning.message}")
    return EXIT_OK
