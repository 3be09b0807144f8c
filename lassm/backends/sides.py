# SPDX-License-Identifier: BSD-3-Clause
"""What every backend's ``extend_side`` walks (:class:`Side`) and ``extend_sides`` (:class:`Sides`),
and what an OpenCL C host is asked to build (:class:`Choices`), so a backend's signature names
only its own knobs.

A :class:`Side` holds:

ctg_seqs, ctg_off : oriented contig bases (uint8) and int64 offsets.
depths : float64 contig depths (the kernels use ``int(depth)``).
run_mask : bool per contig; the others keep an empty walk (bin 0 is not launched).
bin_counts : read count per contig that picks its bin and table size (MetaHipMer: the larger
    side's). None: this side's count (the CPU oracle reads none).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..workloads.local_assembly import config
from ..workloads.local_assembly.dataset import Reads
from . import launch


@dataclass(frozen=True)
class Side:
    """One side of every contig: its arrays and the run's parameters (the module's list)."""

    ctg_seqs: np.ndarray
    ctg_off: np.ndarray
    depths: np.ndarray
    reads: Reads
    run_mask: np.ndarray
    params: config.Params
    bin_counts: np.ndarray | None = None


@dataclass(frozen=True)
class Sides:
    """Both sides of every contig, for a backend that walks them in one launch: the right ends on
    the contigs as given, the left ends on ``left_ctgs`` (reverse-complemented; None where the
    backend makes them on its device)."""

    right_ctgs: np.ndarray
    left_ctgs: np.ndarray | None
    ctg_off: np.ndarray
    depths: np.ndarray
    right_reads: Reads
    left_reads: Reads
    run_mask: np.ndarray
    params: config.Params
    bin_counts: np.ndarray | None = None

    @property
    def n_contigs(self) -> int:
        return len(self.ctg_off) - 1

    def stacked(self, ctgs: np.ndarray | None = None) -> Side:
        """One side of 2n ends, the right ends then the left ones, for one launch plan: each left
        end's contig after all the right ones' (``ctgs``: both sides' bases where they were made
        elsewhere, on a device; else the right contigs then ``left_ctgs``).
        :func:`lassm.backends.launch.split_sides` takes its result apart."""
        if ctgs is None:
            if self.left_ctgs is None:
                raise ValueError("left_ctgs is None and no stacked contigs were given")
            ctgs = np.concatenate((self.right_ctgs, self.left_ctgs))
        total = int(self.ctg_off[-1])
        counts = None if self.bin_counts is None else np.concatenate((self.bin_counts, self.bin_counts))
        return Side(ctgs, np.concatenate((self.ctg_off, total + self.ctg_off[1:])),
                    np.concatenate((self.depths, self.depths)), launch.stack_reads(self.right_reads, self.left_reads),
                    np.concatenate((self.run_mask, self.run_mask)), self.params, counts)


@dataclass(frozen=True)
class Choices:
    """What a caller chooses of an OpenCL C build besides its lanes.

    protocol : one of the host's ``PROTOCOLS``.
    max_bytes : device bytes one launch's table workspace may use (default
        :data:`lassm.backends.clhost.MEMORY_FRACTION` of device memory).
    fp64 : vote in double precision (None: when the device has fp64) or in exact integers.
    key_bits : 64 or 32; None: 64 where the device has 64-bit atomics."""

    protocol: str
    max_bytes: int | None = None
    fp64: bool | None = None
    key_bits: int | None = None


__all__ = ["Choices", "Side", "Sides"]
