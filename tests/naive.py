# SPDX-License-Identifier: BSD-3-Clause
"""A plain, slow, dictionary-based reading of ../shared/spec/local-assembly.md.

It shares no code with the backends (no hash table, no numba), so agreement between it and the
CPU backend on varied inputs checks the algorithm, not a common implementation.
"""
from __future__ import annotations

_RC = bytes.maketrans(b"ACGTN", b"TGCAN")


def rc(seq: bytes) -> bytes:
    return seq.translate(_RC)[::-1]


def choose_ext(lo: dict, hi: dict, depth: float) -> str:
    d = int(depth)
    mv, me = max(0.2 * d, 2.0), max(0.3 * d, 2.0)

    def rating(nv: int, hq: int) -> int:
        if nv == 0:
            return 0
        if nv == 1:
            return 1
        if nv < mv:
            return 2
        if nv < me and hq < mv:
            return 3
        if nv < me:
            return 4
        if hq < mv:
            return 5
        if mv < hq < me:
            return 6
        return 7

    bases = sorted("ACGT", key=lambda b: (rating(lo[b], hi[b]), hi[b], lo[b]), reverse=True)
    r = [rating(lo[b], hi[b]) for b in bases]
    top, runner = r[0], r[1]
    if top == 0:
        return "X"
    if top <= 3:
        return bases[0] if runner == 0 else "X"
    if top in (4, 5):
        return bases[0] if runner < 3 else "X"
    if top == 6:
        return bases[0] if runner < 4 else "X"
    if runner < 7:
        return bases[0]
    if r[2] == 7 or lo[bases[0]] == lo[bases[1]]:
        return "F"
    return bases[0] if lo[bases[0]] > lo[bases[1]] else bases[1]


def walk_side(contig: bytes, reads: list[tuple[bytes, bytes]], depth: float, start_k: int,
              max_walk: int = 613, qual_offset: int = 33) -> tuple[bytes, dict]:
    """Returns (kept walk, counters) for one contig end."""
    best, best_k, best_term, last_term = b"", 0, "", ""
    n_k = steps = ins = start_ins = 0
    shift, k = 0, start_k
    while 21 <= k <= min(121, len(contig)):
        table: dict[bytes, tuple[dict, dict]] = {}
        n = 0
        for seq, qual in reads:
            for s in range(len(seq) - k):
                lo, hi = table.setdefault(seq[s:s + k], ({b: 0 for b in "ACGT"}, {b: 0 for b in "ACGT"}))
                n += 1
                e = chr(seq[s + k])
                if e not in "ACGT":
                    continue
                q = qual[s + k] - qual_offset
                if q >= 10:
                    lo[e] += 1
                if q >= 20:
                    hi[e] += 1
        if n_k == 0:
            start_ins = n
        ins += n
        n_k += 1
        mer = contig[-k:]
        walk = bytearray()
        seen = set()
        term = "X"
        for _ in range(max_walk):
            if mer in seen:
                term = "R"
                break
            seen.add(mer)
            if mer not in table:
                term = "X"
                break
            ext = choose_ext(*table[mer], depth)
            if ext in "XF":
                term = ext
                break
            walk.append(ord(ext))
            mer = mer[1:] + ext.encode()
        steps += len(walk)
        last_term = term
        if len(walk) > len(best):
            best, best_k, best_term = bytes(walk), k, term
        if term == "X":
            if shift == 8:
                break
            shift = -8
        else:
            if shift == -8:
                break
            shift = 8
        k += shift
    if not best:
        best_term = last_term
    return best, dict(final_k=best_k, term=best_term, n_k=n_k, steps=steps, insertions=ins, start_insertions=start_ins)


def extend_contig(contig: bytes, left: list, right: list, depth: float, k: int, **kw) -> bytes:
    """MetaHipMer's extended contig: rc(left walk of rc(contig)) + contig + right walk."""
    if not left and not right:
        return contig
    rwalk, _ = walk_side(contig, right, depth, k, **kw)
    lwalk, _ = walk_side(rc(contig), left, depth, k, **kw)
    return rc(lwalk) + contig + rwalk
