"""Opening, indexing, loading and saving, on real folders."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from factories import png_bytes, tree_snapshot, yes_no_spec

from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import Box, Decision
from sabre_desk.ground.errors import (
    CaseLoadError,
    NotAProjectError,
    ReadOnlyProjectError,
    ReviewConflictError,
    ReviewError,
    SpecError,
)
from sabre_desk.ground.storage import read_history
from sabre_desk.settings import Settings, load_settings, resolve_reviewer, save_settings


def test_opening_indexes_every_case_without_decoding_images(
    make_project: Callable, add_case: Callable
) -> None:
    root = make_project()
    add_case(root, "b_case")
    add_case(root, "a_case", images={"base.png": b"garbage", "edited.png": b"garbage"})
    project = Project.open(root, "alice")
    assert [e.case_id for e in project.entries] == ["a_case", "b_case"]
    # garbage images are not noticed by the index: it decodes nothing
    assert all(e.is_valid for e in project.entries)
    assert project.entries[0].subset == "custom_yes_no"


def test_loading_a_case_gives_spec_screening_reviews_and_images(demo_project: Path) -> None:
    project = Project.open(demo_project, "alice")
    case = project.load_case("ctx01_tape_bagel")
    assert case.spec.attribute("target_entity") == "plain bagel"
    assert case.screening is not None and case.screening.latest is not None
    assert "DEMO DATA" in (case.screening.latest.note or "")
    assert set(case.images) == {"base", "edited"}
    assert case.image_info["base"].size == (768, 512)
    assert case.review.decision is None and case.review_fingerprint is None


def test_a_saved_review_is_read_back_and_logged(demo_project: Path) -> None:
    project = Project.open(demo_project, "alice")
    case = project.load_case("ctx01_tape_bagel")
    case.review.decision = Decision.KEEP
    case.review.boxes.append(Box(image_role="edited", label="target", box=(0.4, 0.5, 0.6, 0.7)))
    project.save_review(case)
    project.record(case, "decision", {"from": None, "to": "keep"})

    again = Project.open(demo_project, "alice")
    assert again.entry("ctx01_tape_bagel").decision is Decision.KEEP
    loaded = again.load_case("ctx01_tape_bagel")
    assert loaded.review.decision is Decision.KEEP
    assert loaded.review.boxes[0].box == (0.4, 0.5, 0.6, 0.7)
    on_disk = json.loads((case.folder / "reviews" / "alice.json").read_text())
    assert on_disk["format"] == "sabre-desk-review" and on_disk["decision"] == "keep"
    history = read_history(case.folder / "history.jsonl")
    assert history.entries[0]["event"] == "decision"
    assert history.entries[0]["reviewer"] == "alice"
    # another reviewer sees alice's review as someone else's and has their own, empty one
    bob = Project.open(demo_project, "bob").load_case("ctx01_tape_bagel")
    assert bob.review.decision is None
    assert bob.other_reviews["alice"].decision is Decision.KEEP


def test_a_review_changed_on_disk_since_loading_is_not_overwritten(demo_project: Path) -> None:
    project = Project.open(demo_project, "alice")
    window_1 = project.load_case("ctx01_tape_bagel")
    window_2 = project.load_case("ctx01_tape_bagel")
    window_1.review.decision = Decision.KEEP
    project.save_review(window_1)
    window_2.review.decision = Decision.UNSURE
    with pytest.raises(ReviewConflictError) as info:
        project.save_review(window_2)
    assert "changed on disk" in info.value.reason
    saved = json.loads(window_1.review_path.read_text())
    assert saved["decision"] == "keep"
    project.save_review(window_2, force=True)  # the reviewer chose to overwrite
    assert json.loads(window_1.review_path.read_text())["decision"] == "unsure"


def test_a_corrupt_own_review_is_reported_and_never_overwritten(demo_project: Path) -> None:
    path = demo_project / "cases" / "ctx01_tape_bagel" / "reviews" / "alice.json"
    path.parent.mkdir()
    path.write_bytes(b'{"decision": "keep", ')
    project = Project.open(demo_project, "alice")
    assert "unreadable" in (project.entry("ctx01_tape_bagel").problem or "")
    with pytest.raises(ReviewError) as info:
        project.load_case("ctx01_tape_bagel")
    assert "left untouched" in info.value.reason and info.value.path == path
    assert path.read_bytes() == b'{"decision": "keep", '


def test_not_a_project_and_missing_folders_are_refused(tmp_path: Path) -> None:
    with pytest.raises(NotAProjectError, match=r"no sabre-project\.json"):
        Project.open(tmp_path, "alice")
    with pytest.raises(NotAProjectError, match="does not exist"):
        Project.open(tmp_path / "missing", "alice")
    (tmp_path / "sabre-project.json").write_text('{"format": "other", "version": 1}')
    with pytest.raises(NotAProjectError, match="format"):
        Project.open(tmp_path, "alice")


def test_a_project_from_a_newer_format_is_refused(make_project: Callable) -> None:
    root = make_project()
    (root / "sabre-project.json").write_text(
        json.dumps({"format": "sabre-desk-project", "version": 7, "name": "x"})
    )
    with pytest.raises(NotAProjectError, match="newer"):
        Project.open(root, "alice")


def test_an_empty_project_opens_with_no_cases(make_project: Callable) -> None:
    project = Project.open(make_project(), "alice")
    assert project.entries == []


@pytest.mark.parametrize("case_id", ["../escape", "a/b", "", ".hidden", "x" * 200])
def test_case_ids_that_could_escape_are_refused(demo_project: Path, case_id: str) -> None:
    project = Project.open(demo_project, "alice")
    with pytest.raises(CaseLoadError):
        project.load_case(case_id)


def test_an_image_link_leading_outside_the_project_is_not_followed(
    make_project: Callable, add_case: Callable, tmp_path: Path
) -> None:
    root = make_project()
    folder = add_case(root, "c1", images={"base.png": png_bytes()})
    secret = tmp_path / "outside.png"
    secret.write_bytes(png_bytes())
    (folder / "edited.png").symlink_to(secret)
    case = Project.open(root, "alice").load_case("c1")
    assert "outside the project" in case.image_problems["edited"].reason
    assert "edited" not in case.images


def test_saving_in_a_read_only_project_is_refused(
    demo_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sabre_desk.core.case import project as project_module

    monkeypatch.setattr(project_module, "probe_writable", lambda folder: False)
    project = Project.open(demo_project, "alice")
    assert project.read_only
    case = project.load_case("ctx01_tape_bagel")
    before = tree_snapshot(demo_project)
    with pytest.raises(ReadOnlyProjectError, match="read-only"):
        project.save_review(case)
    assert tree_snapshot(demo_project) == before


def test_reviewer_comes_from_flag_then_settings_then_login(monkeypatch: pytest.MonkeyPatch) -> None:
    settings, warning = load_settings()
    assert warning is None and settings.reviewer is None
    monkeypatch.setattr("getpass.getuser", lambda: "Jane Doe")
    assert resolve_reviewer(None, settings) == "Jane_Doe"
    save_settings(Settings(reviewer="jane"))
    settings, _ = load_settings()
    assert resolve_reviewer(None, settings) == "jane"
    assert resolve_reviewer("carol", settings) == "carol"
    with pytest.raises(ValueError, match="reviewer name"):
        resolve_reviewer("../carol", settings)


def test_a_broken_settings_file_is_reported_and_defaults_are_used(
    _isolated_settings: Path,
) -> None:
    (_isolated_settings / "settings.json").write_text("{not json")
    settings, warning = load_settings()
    assert settings == Settings()
    assert warning is not None and "settings.json" in warning and "corrupt JSON" in warning


def test_spec_errors_name_the_case_file_and_field(
    make_project: Callable, add_case: Callable
) -> None:
    root = make_project()
    spec = yes_no_spec()
    spec["questions"][0]["answer"] = "maybe"
    add_case(root, "c1", spec=spec)
    with pytest.raises(SpecError) as info:
        Project.open(root, "alice").load_case("c1")
    message = info.value.message
    assert str(root / "cases" / "c1" / "spec.json") in message
    assert "questions[0].answer" in message


def test_open_does_not_write_anything(demo_project: Path) -> None:
    before = tree_snapshot(demo_project)
    project = Project.open(demo_project, "alice")
    for entry in project.entries:
        project.load_case(entry.case_id)
    assert tree_snapshot(demo_project) == before
    assert not any(p.name.startswith(".sabre-write-probe") for p in demo_project.iterdir())
    assert os.access(demo_project, os.W_OK)


def test_the_index_notices_a_repair_preview_waiting(demo_project: Path) -> None:
    review = demo_project / "cases" / "ctx01_tape_bagel" / "reviews" / "alice.json"
    review.parent.mkdir()
    review.write_text(
        json.dumps(
            {
                "case_id": "ctx01_tape_bagel",
                "reviewer": "alice",
                "repairs": [{"status": "accepted"}, {"status": "preview"}],
            }
        )
    )
    project = Project.open(demo_project, "alice")
    assert project.entry("ctx01_tape_bagel").pending_repair
    assert not project.entry("ctx02_apple_tennis_ball").pending_repair


def test_an_index_read_in_pieces_matches_the_whole_and_says_when_it_is_done(
    demo_project: Path, make_project: Callable
) -> None:
    whole = Project.open(demo_project, "alice").entries
    project = Project.open(demo_project, "alice", index=False)
    run = project.begin_index()
    assert project.indexing and run.total == 13
    while not run.done:
        piece = run.next_chunk(4)
        assert project.indexing  # read, perhaps on a worker, but not yet in the index
        run.add(piece)
    assert not project.indexing
    assert [e.case_id for e in project.entries] == [e.case_id for e in whole]
    empty = Project.open(make_project("empty"), "alice", index=False)
    empty.begin_index()
    assert not empty.indexing  # nothing to read: done at once


def test_the_first_screenful_sees_links_files_and_hidden_entries_as_the_rest_does(
    demo_project: Path, tmp_path: Path
) -> None:
    """The window's first small piece looks at each entry on its own, the later pieces
    learn what each is from one listing: both see a linked case folder as a problem, a
    stray file as skipped and a hidden folder not at all, and a case gone since the
    listing is left out."""
    cases = demo_project / "cases"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (cases / "aa_linked").symlink_to(elsewhere, target_is_directory=True)
    (cases / "ab_notes.txt").write_text("not a case")
    (cases / ".ac_hidden").mkdir()

    def read(size: int) -> tuple[list[tuple[str, str | None]], list[str]]:
        project = Project.open(demo_project, "alice", index=False)
        run = project.begin_index()
        while not run.done:
            run.add(run.next_chunk(size))
        entries = [(e.case_id, e.problem) for e in project.entries]
        return entries, sorted(f"{p.name}: {why}" for p, why in project.skipped)

    one_by_one, listed = read(2), read(10_000)
    assert one_by_one == listed
    entries, skipped = listed
    assert ("aa_linked", "case folder is a symbolic link; links are never followed") in entries
    assert skipped == ["ab_notes.txt: not a case folder, skipped"]
    assert not any(case_id.startswith(".") for case_id, _ in entries)

    project = Project.open(demo_project, "alice", index=False)
    run = project.begin_index()
    (cases / "ab_notes.txt").unlink()  # gone between the listing and its reading
    run.add(run.next_chunk(10_000))
    assert project.skipped == []
