"""A forged release can send no file from outside itself to a model, and ``verify`` refuses
what its readers refuse: a release whose ``images/`` is a link to another folder, a re-hashed
release whose benchmark row has the wrong types, and a prompt set whose templates name files
outside it."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.openai_server import FakeOpenAI, completion

from sabre_desk.cli import main
from sabre_desk.core.case.project import Project
from sabre_desk.core.release.export import export
from sabre_desk.core.release.release import MANIFEST, seal, verify

KEY = "sk-proj-" + "f" * 32


@pytest.fixture
def release(demo_project: Path, tmp_path: Path) -> Path:
    for case in (demo_project / "cases").iterdir():
        (case / "reviews").mkdir(exist_ok=True)
        (case / "reviews" / "alice.json").write_text(
            json.dumps({"case_id": case.name, "reviewer": "alice", "decision": "keep"})
        )
    out = tmp_path / "release"
    export(Project.open(demo_project, "alice"), out)
    assert verify(out).ok
    return out


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI(rule=lambda body: completion("Yes"))
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", fake.url)
    try:
        yield fake
    finally:
        fake.close()


def rehash(out: Path, *changed: str) -> None:
    """New digests of *changed* in the manifest, release.json resealed: every hash agrees."""
    lines = (out / MANIFEST).read_text().splitlines()
    digests = {name: hashlib.sha256((out / name).read_bytes()).hexdigest() for name in changed}
    lines = [
        f"{digests[name]}  {name}" if (name := m.split("  ", 1)[1]) in digests else m for m in lines
    ]
    (out / MANIFEST).write_text("\n".join(lines) + "\n")
    release = json.loads((out / "release.json").read_text())
    release.pop("release_sha256", None)
    release["root_sha256"] = hashlib.sha256((out / MANIFEST).read_bytes()).hexdigest()
    (out / "release.json").write_text(json.dumps(seal(release), indent=2))


def predict(release: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["predict", str(release), "--model", "openai:gpt-5.4", "--out", str(out)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_images_folder_linked_elsewhere_is_refused_and_nothing_is_sent(
    release: Path, tmp_path: Path, server: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    private = tmp_path / "private"
    shutil.copytree(release / "images", private)  # the same names: a row finds its file
    secret = next(private.iterdir())
    secret.write_bytes(b"\x89PNG private bytes the user never released")
    shutil.rmtree(release / "images")
    (release / "images").symlink_to(private, target_is_directory=True)

    code, text = predict(release, tmp_path / "predictions.jsonl", capsys)
    assert code != 0 and code != 70
    assert "images is a symbolic link" in text
    assert server.requests == []  # no file from outside the release went anywhere
    assert not (tmp_path / "predictions.jsonl").exists()
    problems = verify(release).problems
    assert any(p.startswith("images: is a symbolic link") for p in problems)


def test_a_benchmark_file_that_is_a_link_is_refused(
    release: Path, tmp_path: Path, server: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "elsewhere.jsonl"
    shutil.move(release / "benchmark.jsonl", elsewhere)
    (release / "benchmark.jsonl").symlink_to(elsewhere)
    code, text = predict(release, tmp_path / "p.jsonl", capsys)
    assert code not in (0, 70) and "benchmark.jsonl is a symbolic link" in text
    assert server.requests == []
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"question_id": "x", "response": "Yes"}\n')
    code = main(["score", str(release), str(answers)])  # score reads it the same way
    text = capsys.readouterr().err
    assert code not in (0, 70) and "benchmark.jsonl is a symbolic link" in text


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("question_id", 5, "question_id: input should be a valid string"),
        ("format", None, "'format' is not text"),
    ],
)
def test_a_rehashed_row_of_the_wrong_types_fails_verify_and_predict(
    release: Path,
    tmp_path: Path,
    server: FakeOpenAI,
    capsys: pytest.CaptureFixture[str],
    field: str,
    value: object,
    reason: str,
) -> None:
    path = release / "benchmark.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0][field] = value
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    rehash(release, "benchmark.jsonl")

    problems = verify(release).problems
    assert f"benchmark.jsonl: line 1 is not a benchmark row ({reason})" in problems
    code, text = predict(release, tmp_path / "p.jsonl", capsys)
    assert code not in (0, 70) and "line 1 is not a benchmark row" in text
    assert server.requests == []


def test_prompt_templates_naming_files_outside_the_release_fail_verify(
    release: Path, tmp_path: Path, server: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    path = release / "prompts" / "prompts.json"
    prompts = json.loads(path.read_text())
    first = next(iter(prompts["templates"]))
    prompts["templates"][first] = "../../../../../../etc/passwd"
    path.write_text(json.dumps(prompts))
    rehash(release, "prompts/prompts.json")

    problems = verify(release).problems
    assert any(
        p.startswith("prompts/prompts.json: templates.") and "is not a file name" in p
        for p in problems
    ), problems
    code, _ = predict(release, tmp_path / "p.jsonl", capsys)
    assert code not in (0, 70) and server.requests == []
