# SPDX-License-Identifier: BSD-3-Clause
"""Tunables of the local-assembly kernel, in one place: MetaHipMer's constants (``LASSM_*`` in its
kernel header) and the run parameters the reference outputs were made with. Every backend
receives a :class:`Params` explicitly, and every result records it.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

# MetaHipMer's constants (see ../shared/spec/local-assembly.md, "Constants").
MIN_QUAL = 10
MIN_HI_QUAL = 20
MIN_VIABLE_DEPTH = 0.2
MIN_EXPECTED_DEPTH = 0.3
RATING_THRES = 0
MIN_KMER_LEN = 21
SHIFT_SIZE = 8
MAX_KMER_LEN = 121

#: Insert size 121 + 2 x 246: the walk limit of the published reference runs.
DEFAULT_MAX_WALK = 613
DEFAULT_QUAL_OFFSET = 33


def physical_memory() -> int:
    """Bytes of this machine's memory (0 where the system does not say): :func:`lassm.fits.memory_bytes`."""
    from ...fits import memory_bytes

    return memory_bytes()


def check_walk_room(ends: int, max_walk: int, memory: int | None = None) -> None:
    """Raises LassmError, naming the largest limit that fits, when ``ends * max_walk`` bytes of walk
    buffers (every backend keeps one per contig end) exceed half of ``memory`` (default this
    machine's)."""
    from ...errors import LassmError

    room = (physical_memory() if memory is None else memory) // 2
    if room and ends and int(ends) * int(max_walk) > room:
        raise LassmError(f"--max-walk {max_walk}: the walks of {ends:,} contig ends would need "
                         f"{int(ends) * int(max_walk) / 2**30:,.1f} GiB, over half this machine's memory; "
                         f"at most --max-walk {room // int(ends):,} fits")


@dataclass(frozen=True)
class Params:
    """Run parameters of one local-assembly call: start ``k`` (21..121), ``max_walk`` (most bases one
    walk may append) and ``qual_offset`` (Phred offset of the qualities)."""

    k: int
    max_walk: int = DEFAULT_MAX_WALK
    qual_offset: int = DEFAULT_QUAL_OFFSET

    def __post_init__(self) -> None:
        if not MIN_KMER_LEN <= int(self.k) <= MAX_KMER_LEN:
            raise ValueError(f"k = {self.k} is outside {MIN_KMER_LEN}..{MAX_KMER_LEN}")
        if int(self.max_walk) < 1:
            raise ValueError(f"max_walk = {self.max_walk} must be at least 1")
        if not 0 <= int(self.qual_offset) <= 127:
            raise ValueError(f"qual_offset = {self.qual_offset} must be in 0..127")

    def as_dict(self) -> dict:
        """Returns the parameters as a plain dict, for provenance records."""
        return asdict(self)
