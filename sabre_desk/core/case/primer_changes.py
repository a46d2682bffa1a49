"""What became of the tasks that earlier versions of the shipped primers asked for.

A primer's ``version`` rises when cases made with the previous version no longer fit it:
the ``attribute`` and ``spatial`` primers once asked for objects sharing two properties and
for left/right relations, and now ask for the paper's tasks (noncanonical part counts, a 3-D
lattice). The earlier tasks live on under other primers. A case made with an earlier version
still carries the old ``pressure_test_type``, so today's rules would call it invalid; here is,
as data, how to tell such a case and where its task lives now. `sabre-desk upgrade`
(core/upgrade.py) acts on it.
"""

from __future__ import annotations

from dataclasses import dataclass

from sabre_desk.core.case.manifest import PrimerRecord
from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.ground.hashing import file_sha256


@dataclass(frozen=True)
class PrimerChange:
    """One incompatible change of a primer, and where the earlier task lives now."""

    #: the primer that changed, and the version the affected cases were made with
    primer: str
    earlier_version: int
    #: the SHA-256 of the shipped file of that version (a project's own copy of it is that
    #: version too, and its cases need nothing)
    earlier_sha256: str
    #: the earlier task, in the reviewer's words
    earlier_task: str
    #: the type the affected cases carry
    pressure_test_type: str
    #: a task attribute every case of the current task has and no case of the earlier one:
    #: a case without it follows the earlier task
    marker: str
    #: the primer that carries the earlier task now; its own pressure_test_type is the
    #: affected cases' new type
    moved_to: str


PRIMER_CHANGES: tuple[PrimerChange, ...] = (
    PrimerChange(
        primer="attribute",
        earlier_version=1,
        earlier_sha256="045b9213c1bccc6b5707781c4de0425117be88e2dfa9fcc187e2fcbecb0d8a87",
        earlier_task="counting objects that share two properties",
        pressure_test_type="attribute_count",
        marker="canonical_count",
        moved_to="two_property",
    ),
    PrimerChange(
        primer="spatial",
        earlier_version=1,
        earlier_sha256="93abea6488126923712d52cc0be27dea1a7decdb250b6761f2b17b65a9c83a10",
        earlier_task="left/right relations from the viewer's point of view",
        pressure_test_type="spatial",
        marker="lattice",
        moved_to="spatial_relations",
    ),
)


def recorded_primers(library: PrimerLibrary) -> dict[str, PrimerRecord]:
    """The record a manifest keeps of the primers a project sees now (its own and the
    shipped ones), by name: what its cases are made with from here on."""
    return {
        name: PrimerRecord(version=primer.header.version, sha256=file_sha256(primer.path))
        for name, primer in sorted(library.primers.items())
    }
