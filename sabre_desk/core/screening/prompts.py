"""The zero-shot, format-specific prompts a model is asked with (SABRE paper, Appendix A).

A prompt set is a folder of plain text templates and a ``prompts.json`` that names its
version, which template each eval_type uses, the output-token limit per format and how an
option line of a multiple-choice question is written. sabre-desk ships them in
``resources/prompts/<version>/``; an export copies the set it screened with into the release
as ``prompts/``, and ``predict`` asks with the release's own copy, so a release is evaluated
with the very words it was screened with.

Templates hold ``{question}`` (and, for multiple choice, ``{options}``), replaced literally:
braces in a question are never read as placeholders.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from sabre_desk.core.case.spec import OPTION_LETTERS
from sabre_desk.ground.errors import ProjectError
from sabre_desk.ground.paths import resource_path
from sabre_desk.ground.reading import read_limited

PROMPTS_FORMAT = "sabre-desk-prompts"
MANIFEST = "prompts.json"
#: The folder of a release that carries its prompt set.
RELEASE_PROMPTS = "prompts"
#: The prompt set new screening runs use.
CURRENT_VERSION = "v1"
MAX_TEMPLATE_BYTES = 64 * 1024
EVAL_TYPES = ("yes_no_exact", "mcq_letter", "count_exact", "exact_match", "contains")


@dataclass(frozen=True)
class PromptSet:
    version: str
    templates: dict[str, str]  # eval_type → template text
    files: dict[str, str]  # eval_type → template file name
    max_output_tokens: dict[str, int]  # eval_type → limit
    option_line: str
    folder: Path

    def build(self, eval_type: str, question: str, options: list[str] | None = None) -> str:
        """The whole text sent with the image for one probe."""
        template = self.templates.get(eval_type)
        if template is None:
            raise ProjectError(
                f"prompt set {self.version} has no prompt for eval_type {eval_type!r}",
                self.folder / MANIFEST,
            )
        lines = [
            self.option_line.replace("{letter}", letter).replace("{option}", option)
            for letter, option in zip(OPTION_LETTERS, options or [], strict=False)
        ]
        # {options} first: a question may itself contain the text "{options}".
        text = template.replace("{options}", "\n".join(lines))
        return text.replace("{question}", question.strip()).strip()

    def output_tokens(self, eval_type: str) -> int:
        return self.max_output_tokens.get(eval_type, 16)


def load_prompts(folder: Path) -> PromptSet:
    """Read and check a prompt set; ProjectError names the file and what is wrong."""
    manifest_path = folder / MANIFEST
    try:
        raw = read_limited(manifest_path, MAX_TEMPLATE_BYTES, ProjectError, follow_links=False)
        data = json.loads(raw)
    except ValueError as exc:
        raise ProjectError(f"not a prompt set ({exc})", manifest_path) from exc
    if not isinstance(data, dict) or data.get("format") != PROMPTS_FORMAT:
        raise ProjectError(f'not a prompt set (no "format": "{PROMPTS_FORMAT}")', manifest_path)
    version, files = data.get("version"), data.get("templates")
    if not isinstance(version, str) or not isinstance(files, dict):
        raise ProjectError("a prompt set needs a version and templates", manifest_path)
    templates: dict[str, str] = {}
    names: dict[str, str] = {}
    for eval_type, name in files.items():
        if not isinstance(name, str) or "/" in name or "\\" in name or name.startswith("."):
            raise ProjectError(f"templates.{eval_type}: {name!r} is not a file name", manifest_path)
        raw = read_limited(folder / name, MAX_TEMPLATE_BYTES, ProjectError, follow_links=False)
        try:
            templates[eval_type] = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProjectError("not UTF-8 text", folder / name) from exc
        if "{question}" not in templates[eval_type]:
            raise ProjectError("the template has no {question}", folder / name)
        names[eval_type] = name
    limits = data.get("max_output_tokens") or {}
    option_line = data.get("option_line") or "{letter}. {option}"
    if not isinstance(limits, dict) or not isinstance(option_line, str):
        raise ProjectError("max_output_tokens or option_line is malformed", manifest_path)
    return PromptSet(
        version,
        templates,
        names,
        {k: int(v) for k, v in limits.items() if isinstance(v, int) and v > 0},
        option_line,
        folder,
    )


def shipped_prompts(version: str = CURRENT_VERSION) -> PromptSet:
    """A prompt set that comes with sabre-desk."""
    return load_prompts(resource_path("prompts", version))


def copy_prompts(prompts: PromptSet, dest: Path) -> None:
    """Put *prompts* (manifest and templates) into *dest* (a release's ``prompts/``)."""
    dest.mkdir()
    for name in sorted({MANIFEST, *prompts.files.values()}):
        shutil.copyfile(prompts.folder / name, dest / name)
