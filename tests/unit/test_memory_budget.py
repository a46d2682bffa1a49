"""The image cache's budget follows the memory the machine has free, within the settings'
floor and ceiling: an 8 GB laptop and a 64 GB workstation both behave."""

from __future__ import annotations

import pytest

from sabre_desk.core.jobs.memory import MB, free_memory, image_cache_budget
from sabre_desk.settings import Settings

GB = 1024 * MB


@pytest.mark.parametrize(
    ("free", "expected"),
    [
        (512 * MB, 128 * MB),  # a laptop short of memory: the floor
        (1152 * MB, 144 * MB),  # an eighth of what is free
        (2 * GB, 160 * MB),
        (48 * GB, 160 * MB),  # a workstation: no more than the ceiling
    ],
)
def test_the_budget_is_a_share_of_free_memory_between_floor_and_ceiling(free, expected):
    settings = Settings()
    budget = image_cache_budget(settings.image_cache_min_mb, settings.image_cache_max_mb, free)
    assert budget == expected


def test_a_ceiling_set_below_the_floor_gives_the_floor() -> None:
    assert image_cache_budget(256, 64, 100 * GB) == 256 * MB


def test_free_memory_is_read_from_this_machine() -> None:
    assert free_memory() > 0 and 128 * MB <= image_cache_budget(128, 160) <= 160 * MB
