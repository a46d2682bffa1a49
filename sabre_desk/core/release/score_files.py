"""Reading a release's questions and a model's predictions for scoring: streamed line by
line with a bound per line, every bad line one error naming the file and the line. ``score``,
``evaluate`` and the window's evaluation read them here."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from sabre_desk.core.case.scoring import Report, Sample, score
from sabre_desk.core.release.release import BENCHMARK, MAX_ROW, RELEASE
from sabre_desk.core.release.release_read import release_file
from sabre_desk.ground.errors import ProjectError
from sabre_desk.ground.reading import (
    LIMITS,
    human_size,
    iter_lines,
    iter_stream_lines,
    loads,
    open_regular,
    read_json_file,
)

#: Longest prediction line accepted: a model's response can be long, not unbounded.
MAX_PREDICTION = LIMITS["prediction line"]


def predictions_name(model: str) -> str:
    """The predictions file ``evaluate`` writes for *model* (``openai:gpt-5.4`` →
    predictions-openai_gpt-5.4.jsonl)."""
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in model)
    return f"predictions-{safe}.jsonl"


#: The name ``score`` takes for standard input, as other tools do.
STANDARD_INPUT = Path("-")


def jsonl_objects(
    path: Path, max_line: int, stream: IO[bytes] | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each line of *path* (or of *stream*, named *path*),
    streamed; a bad line is one error naming it."""
    lines = (
        iter_lines(path, max_line) if stream is None else iter_stream_lines(stream, max_line, path)
    )
    for number, line in lines:
        if line is None:
            raise ProjectError(f"line {number} is longer than {human_size(max_line)}", path)
        try:
            row = loads(line)
        except ValueError as exc:
            raise ProjectError(f"line {number} is not JSON ({exc})", path) from exc
        if not isinstance(row, dict):
            raise ProjectError(f"line {number} is not a JSON object", path)
        yield number, row


def benchmark_samples(path: Path) -> list[tuple[int, Sample]]:
    samples = []
    for number, row in jsonl_objects(path, MAX_ROW):
        try:
            sample = Sample(
                str(row["question_id"]),
                str(row["group_id"]),
                str(row["subset"]),
                str(row["probe_id"]),
                str(row["eval_type"]),
                str(row["answer"]),
            )
            index = int(row["index"])
        except KeyError as exc:
            raise ProjectError(f"line {number} has no {exc.args[0]!r}", path) from exc
        except (TypeError, ValueError, OverflowError) as exc:
            raise ProjectError(f"line {number}: 'index' is not a number", path) from exc
        samples.append((index, sample))
    return samples


def _index(value: object, where: str, path: Path) -> int:
    try:
        return int(str(value))
    except (TypeError, ValueError, OverflowError) as exc:
        raise ProjectError(f"{where}: 'index' is not a number", path) from exc


def _tsv_predictions(path: Path, by_index: dict[int, str | None]) -> None:
    """VLMEvalKit's prediction table (``PRED_FORMAT=tsv``): its ``index`` is the release's
    row index and ``prediction`` the model's answer, every other column is ignored."""
    csv.field_size_limit(MAX_PREDICTION)
    try:
        with open_regular(path) as (handle, _):
            reader = csv.DictReader(io.TextIOWrapper(handle, "utf-8", newline=""), delimiter="\t")
            if not {"index", "prediction"} <= set(reader.fieldnames or ()):
                raise ProjectError("has no 'index' and 'prediction' columns", path)
            for row in reader:
                where = f"line {reader.line_num}"
                by_index[_index(row["index"], where, path)] = row["prediction"]
    except (csv.Error, UnicodeDecodeError) as exc:
        raise ProjectError(f"is not a readable TSV ({exc})", path) from exc


def read_predictions(
    paths: list[Path], stdin: IO[bytes] | None = None
) -> tuple[dict[str, str | None], dict[int, str | None]]:
    """Responses by question_id and, for lines without one, by index (null: no response).
    A path ``-`` is *stdin*, read once as JSONL (``predict … | score REL -``)."""
    by_id: dict[str, str | None] = {}
    by_index: dict[int, str | None] = {}
    for path in paths:
        if path == STANDARD_INPUT:
            if stdin is None:
                raise ProjectError("standard input cannot be read here", "-")
            _jsonl_predictions(Path("standard input"), by_id, by_index, stdin)
            stdin = None  # read once: a second '-' finds it used up
            continue
        if path.suffix.lower() == ".tsv":
            _tsv_predictions(path, by_index)
        else:
            _jsonl_predictions(path, by_id, by_index)
    return by_id, by_index


def _jsonl_predictions(
    path: Path,
    by_id: dict[str, str | None],
    by_index: dict[int, str | None],
    stream: IO[bytes] | None = None,
) -> None:
    for number, row in jsonl_objects(path, MAX_PREDICTION, stream):
        raw = row.get("response", "")
        response = None if raw is None else str(raw)
        if "question_id" in row:
            by_id[str(row["question_id"])] = response
        elif "index" in row:
            by_index[_index(row["index"], f"line {number}", path)] = response


def report_of(release: Path, path: Path) -> Report:
    """One predictions file scored on *release*."""
    by_id, by_index = read_predictions([path])
    samples = []
    for index, sample in benchmark_samples(release_file(release, BENCHMARK)):
        sample.response = by_id.get(sample.question_id, by_index.get(index))
        samples.append(sample)
    return score(samples)


def release_identity(out: Path) -> tuple[str | None, str | None]:
    """The release's name and root hash as release.json states them: a score names what it
    scored, so two people comparing figures can tell whether they scored the same release."""
    try:
        data, _ = read_json_file(out / RELEASE, "manifest", ProjectError, follow_links=False)
    except ProjectError:
        return None, None
    if not isinstance(data, dict):
        return None, None
    name, root = data.get("name"), data.get("root_sha256")
    return (name if isinstance(name, str) else None, root if isinstance(root, str) else None)
