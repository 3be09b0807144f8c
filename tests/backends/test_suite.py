# SPDX-License-Identifier: BSD-3-Clause
"""Jin and Vetter's kernels (lassm.backends.suite): references against plain Python, every OpenCL
variant against the references on the CPU driver, every CUDA variant compiled by NVRTC (and run
where a GPU answers), Jin and Vetter's findings where they show in the generated code, and the part of
``lassm run`` that records them."""
from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np
import pytest

from lassm.backends import nvrtc, suite
from lassm.backends.suite import all_pairs, cmap, common, epistasis, minkowski, nw

KERNELS = sorted(suite.KERNELS)
needs_nvrtc = pytest.mark.skipif(nvrtc.find_library() is None, reason="NVRTC is not installed (the test extra)")


def _opencl() -> None:
    ok, why = common.available("opencl")
    if not ok:
        pytest.skip(f"needs pyopencl and an OpenCL device: {why}")


# --- the references ---------------------------------------------------------------------------

def test_nw_reference_is_the_recurrence() -> None:
    inp = nw.inputs("tiny", seed=3)
    got = nw.reference(inp)
    n, p = inp.n, inp.penalty
    want = [[0] * (n + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        want[i][0], want[0][i] = -p * i, -p * i
    for i in range(1, n + 1):
        for j in range(1, n + 1):
            s = int(nw.BLOSUM62[inp.seq_a[i - 1], inp.seq_b[j - 1]])
            want[i][j] = max(want[i - 1][j - 1] + s, want[i][j - 1] - p, want[i - 1][j] - p)
    assert np.array_equal(got, np.array(want, dtype=np.int32))


def test_blosum62_is_the_published_matrix() -> None:
    """Symmetric, the diagonal of the 20 amino acids as published (A 4 ... W 11 ... V 4)."""
    b = nw.BLOSUM62
    assert b.shape == (24, 24) and np.array_equal(b, b.T)
    assert [int(b[i, i]) for i in range(20)] == [4, 5, 6, 6, 9, 5, 5, 6, 8, 4, 4, 5, 5, 6, 7, 4, 5, 11, 7, 4]
    assert int(b[nw.RESIDUES.index("W"), nw.RESIDUES.index("C")]) == -2


def test_minkowski_reference_is_the_formula() -> None:
    inp = minkowski.inputs("tiny", seed=5)
    got = minkowski.reference(inp)
    a, b = inp.a.astype(np.float64), inp.b.astype(np.float64)
    for j, p in enumerate(minkowski.POWERS):
        want = (np.abs(a[:, :, None] - b[None, :, :]) ** p).sum(axis=1) ** (1.0 / p)
        np.testing.assert_allclose(got[j], want, rtol=1e-12)


def test_all_pairs_reference_counts_differing_attributes() -> None:
    inp = all_pairs.inputs("tiny", seed=1)
    d = inp.data.tolist()
    want = [[sum(x != y for x, y in zip(d[a], d[b])) for a in range(len(d))] for b in range(len(d))]
    assert np.array_equal(all_pairs.reference(inp), np.array(want, dtype=np.int32))


def test_epistasis_tables_are_the_counts() -> None:
    inp = epistasis.inputs("tiny", seed=4)
    t = epistasis.tables(inp)
    g, ph = inp.genotypes, inp.phenotypes
    for i, j in ((0, 1), (2, 11), (5, 5)):
        for c in (0, 1):
            want = [int(np.sum((ph == c) & (g[:, i] == a) & (g[:, j] == b))) for a in range(3) for b in range(3)]
            assert t[i, j, c].tolist() == want
    # the bit-packed form holds the same genotypes: the counts from the masks are the tables'
    zeros, _w, mask = epistasis.pack(g[ph == 0])
    g2 = ~(zeros[..., 0] | zeros[..., 1])
    g2[-1] &= np.uint32(mask)
    assert int(sum(bin(int(w)).count("1") for w in g2[:, 3])) == int(np.sum((ph == 0) & (g[:, 3] == 2)))
    score, scale = epistasis.reference(inp)
    assert np.all(score[np.tril_indices(inp.snps)] == 0) and np.all(scale[np.triu_indices(inp.snps, 1)] > 0)


def test_philox_is_random123s() -> None:
    """Random123's known answers for Philox-4x32-10 (its kat_vectors)."""
    for ctr, key, want in (((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
                           ((0xFFFFFFFF,) * 4, (0xFFFFFFFF, 0xFFFFFFFF), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
                           ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
                            (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1))):
        assert tuple(int(x) for x in cmap.philox4x32_10(np.array([ctr], dtype=np.uint32), key)[0]) == want


def test_a_run_that_keeps_no_numbers_is_held_to_the_references_sums() -> None:
    """``fused`` draws in registers and keeps no numbers: its sums and count must be the reference's own."""
    inp = cmap.inputs("tiny", seed=4)
    ref = cmap.reference(inp)
    assert cmap.check(cmap.Output(None, ref.output.sums.copy(), ref.output.count), ref) == (True, 0.0)
    off = cmap.Output(None, ref.output.sums.copy(), ref.output.count)
    off.sums[1] += 1
    assert cmap.check(off, ref) == (False, 1.0)
    assert cmap.check(cmap.Output(None, ref.output.sums, ref.output.count + 1), ref) == (False, 1.0)


def test_the_fused_kernel_refuses_a_profile_it_cannot_hold() -> None:
    inp = cmap.inputs("tiny", seed=4)
    assert cmap.short_profile(inp).dtype == np.int16
    wide = cmap.Inputs(inp.profile.astype(np.int32) * 3, inp.signatures, inp.set_size, inp.threshold)
    with pytest.raises(ValueError, match="within"):
        cmap.short_profile(wide)


def test_cmap_reference_scores_the_draws() -> None:
    inp = cmap.inputs("tiny", seed=2)
    ref = cmap.reference(inp)
    u = ref.output.uniforms
    assert u.dtype == np.float32 and np.all((u >= 0) & (u < 1)) and len(u) == inp.draws
    for s in (0, 7, inp.signatures - 1):
        total = 0
        for t in range(inp.set_size):
            n = np.float32(1) - u[s * inp.set_size + t]
            sign = -1 if n >= 0.5 else 1
            n = n - np.float32(0.5) if n >= 0.5 else n
            total += sign * int(inp.profile[min(int(np.floor(n * np.float32(2 * cmap.GENES))), cmap.GENES - 1)])
        assert ref.output.sums[s] == total
    assert ref.output.count == int(np.sum(ref.output.sums >= inp.threshold))


def test_the_checks_catch_a_wrong_output() -> None:
    inp = nw.inputs("tiny")
    ref = nw.reference(inp)
    bad = ref.copy()
    bad[7, 9] += 1
    assert nw.check(ref, ref) == (True, 0.0) and nw.check(bad, ref) == (False, 1.0)
    m = minkowski.inputs("tiny")
    mref = minkowski.reference(m)
    assert minkowski.check(mref.astype(np.float32), mref)[0]
    off = mref * (1 + 2 * minkowski.TOLERANCE)
    ok, worst = minkowski.check(off.astype(np.float32), mref)
    assert not ok and worst == pytest.approx(2 * minkowski.TOLERANCE, rel=1e-3)


def test_nw_launches_cover_every_tile_once() -> None:
    tiles = 6
    seen = sorted((d - (first + i), first + i) for d, first, count in nw.diagonals(tiles * nw.TILE) for i in range(count))
    assert seen == sorted((r, c) for r in range(tiles) for c in range(tiles))
    assert len(nw.diagonals(16384)) == 2 * 1024 - 1  # Jin and Vetter's 2 x 1,024 dependent launches


# --- OpenCL on whatever device pyopencl finds (Intel's CPU driver in CI) ------------------------

@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("size", ["tiny", "cpu"])
def test_every_opencl_variant_equals_the_reference(kernel: str, size: str, ran_where) -> None:
    _opencl()
    mod = suite.get(kernel)
    inp = mod.inputs(size, seed=11)
    ref = mod.reference(inp)
    for variant in mod.VARIANTS["opencl"]:
        try:
            run = mod.run("opencl", inp, variant)
        except suite.Refused as exc:  # a device may refuse an out-of-order queue or command buffers
            assert variant in ("out-of-order", "recorded"), exc
            continue
        ok, error = mod.check(run.output, ref)
        assert ok, f"{kernel} {variant}: error {error}"
        assert run.seconds > 0 and run.host_seconds > 0 and run.launches >= 1
        if kernel == "nw":  # a launch per anti-diagonal of tiles, or one for the whole matrix
            assert run.launches == (1 if variant in nw.OWN_SOURCES else len(nw.diagonals(inp.n)))
        if kernel == "cmap" and variant == "philox":  # the same numbers as the reference's, bit for bit
            assert np.array_equal(run.output.uniforms, ref.output.uniforms)
    from lassm.backends import opencl as ocl
    from lassm.book import ran_where as rw

    ran_where("suite-opencl", rw.platform_of("opencl", ocl._device().name))  # "<device> (<platform>)"


# --- CUDA: compiled by NVRTC anywhere, run where a GPU answers ----------------------------------

@needs_nvrtc
@pytest.mark.parametrize("kernel", KERNELS)
def test_every_cuda_variant_compiles_alone(kernel: str) -> None:
    mod = suite.get(kernel)
    for variant in mod.VARIANTS["cuda"]:
        source, _cl, entry = common.files(mod, variant)
        ptx, log = common.cuda_compile_ptx(source, mod.build_options("cuda", variant))
        assert f".entry {entry}" in ptx and "warning" not in log.lower(), (variant, log)


@needs_nvrtc
def test_fast_math_turns_powf_into_lg2_mul_ex2() -> None:
    """k5's finding at the compiler: CUDA's powf under --use_fast_math (and __powf) is lg2, mul, ex2;
    powf alone is not."""
    counts = {}
    for variant, options in minkowski.VARIANTS["cuda"].items():
        ptx, _ = common.cuda_compile_ptx(minkowski.CUDA_KERNEL, options)
        counts[variant] = (len(re.findall(r"\blg2\.approx", ptx)), len(re.findall(r"\bex2\.approx", ptx)))
    assert counts["powf"] == (0, 0)
    assert min(counts["powf-fast-math"]) > 0 and min(counts["__powf"]) > 0


@pytest.mark.gpu
@pytest.mark.parametrize("kernel", KERNELS)
def test_every_cuda_variant_equals_the_reference(kernel: str, ran_where) -> None:
    mod = suite.get(kernel)
    inp = mod.inputs("cpu", seed=2)
    ref = mod.reference(inp)
    for variant in mod.VARIANTS["cuda"]:
        run = mod.run("cuda", inp, variant)
        assert mod.check(run.output, ref)[0], variant
    ran_where("suite-cuda", "NVIDIA GPU")


@pytest.mark.gpu
@pytest.mark.parametrize("kernel", KERNELS)
def test_every_opencl_build_launched_by_cuda_equals_the_reference(kernel: str) -> None:
    """``opencl-ptx``: NVIDIA's OpenCL compiler's PTX, launched by CuPy, computes what the reference does."""
    ok, why = common.available("opencl-ptx")
    if not ok:
        pytest.skip(why)
    mod = suite.get(kernel)
    inp = mod.inputs("cpu", seed=3)
    ref = mod.reference(inp)
    for variant in mod.VARIANTS["opencl-ptx"]:
        run = mod.run("opencl-ptx", inp, variant)
        assert run.backend == "opencl-ptx" and mod.check(run.output, ref)[0], variant


@pytest.mark.gpu
def test_the_counters_count_the_timed_launches_and_a_librarys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ncu with the profiler's range, the philox draw is our three launches and cuRAND's
    draw brings launches of its own."""
    from lassm.campaign import steps, suite_counters

    if steps.find_ncu() is None:
        pytest.skip("no ncu here")
    ok, why = common.available("cuda")
    if not ok:
        pytest.skip(why)
    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    lacks = suite_counters.collect([("cmap", "cuda", "philox"), ("cmap", "cuda", "nonesuch"), ("cmap", "cuda", "curand")],
                                   "tiny", "box", sha="s")
    assert len(lacks) == 1 and "cmap cuda nonesuch" in lacks[0]  # one process; the failed variant named, the rest cut
    assert not (tmp_path / "box" / "suite" / "counters" / "ncu__cmap__cuda__nonesuch.csv").exists()
    rows = {r["variant"]: r for r in suite_counters.tables.read_rows(
        tmp_path / "box" / "suite" / suite_counters.FILE, suite_counters.COLUMNS)}
    assert int(rows["philox"]["launches"]) == 3 and int(rows["philox"]["library_launches"]) == 0
    assert int(rows["curand"]["library_launches"]) >= 1 and float(rows["curand"]["warp_inst"]) > 0


# --- the part of lassm run ----------------------------------------------------------------------

def test_the_suite_part_records_and_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _opencl()
    from lassm.campaign import suite_part as part
    from lassm.runs import suite_records as rec
    from lassm.runs.account import read_entries

    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    monkeypatch.setenv("LASSM_GIT_SHA", "sha-s")
    plan = part.make_plan(True, backends=["opencl"], repeats=2, warmup=0)
    assert plan.size == "tiny" and plan.backends == ("opencl",)
    out = part.run_suite(plan, machine="box")
    assert not out.failed and all(r["status"] == "ok" or r["status"].startswith("refused") for r in out.rows)
    with open(rec.folder("box") / rec.TIMES_FILE, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == list(rec.COLUMNS)
    assert [(r["kernel"], r["variant"]) for r in rows] == [(k, v) for k in part.run_order(tuple(suite.KERNELS))
                                                           for v in suite.get(k).VARIANTS["opencl"]]
    measured = [r for r in rows if r["status"] == "ok"]
    assert measured and all(r["matches_reference"] == "True" and r["repeats"] == "2" and r["git_sha"] == "sha-s"
                            for r in measured)
    again = part.run_suite(plan, machine="box")
    assert {r["status"] for r in again.rows} == {"skipped (recorded)"}
    entries = read_entries(rec.folder("box") / "campaign.json")
    assert len(entries) == 2 and entries[0]["part"] == "suite" and entries[0]["plan"]["size"] == "tiny"


def test_a_suite_run_cut_short_keeps_the_variants_it_timed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A kill in a kernel's third variant leaves its first two recorded (a GPU call's time limit did)."""
    _opencl()
    from lassm.campaign import suite_part as part
    from lassm.runs import suite_records as rec

    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    monkeypatch.setenv("LASSM_GIT_SHA", "sha-k")
    measure, seen = part._measure, []

    def killed_at_the_third(mod, backend, inp, variant, ref, plan):
        seen.append(variant)
        if len(seen) == 3:
            raise KeyboardInterrupt
        return measure(mod, backend, inp, variant, ref, plan)

    monkeypatch.setattr(part, "_measure", killed_at_the_third)
    plan = part.make_plan(True, kernels=["minkowski"], backends=["opencl"], repeats=1, warmup=0)
    with pytest.raises(KeyboardInterrupt):
        part.run_suite(plan, machine="box")
    with open(rec.folder("box") / rec.TIMES_FILE, newline="") as fh:
        assert [r["variant"] for r in csv.DictReader(fh)] == seen[:2]


def test_a_refusal_is_recorded_not_failed() -> None:
    from lassm.campaign.suite_part import SuiteOutcome

    out = SuiteOutcome(rows=[{"status": "refused: no out-of-order queue"}, {"status": "ok"}])
    assert out.failed == []
    assert SuiteOutcome(rows=[{"status": "MISMATCH"}]).failed


def test_our_philox_is_pyopencls_random123() -> None:
    """The OpenCL Philox of cmap.cl against Random123's own header that pyopencl ships: the same words."""
    _opencl()
    import os

    import pyopencl
    from lassm.backends import opencl as ocl

    header = Path(os.path.dirname(pyopencl.__file__)) / "cl" / "pyopencl-random123"
    if not (header / "philox.cl").is_file():
        pytest.skip("this pyopencl ships no Random123 header")
    src = """
    #include <philox.cl>
    __kernel void r123(__global uint *out) {
        const uint i = get_global_id(0);
        philox4x32_ctr_t c = {{i, 7u, 0u, 0u}};
        philox4x32_key_t k = {{0x5EED0001u, 0x0000C0DEu}};
        philox4x32_ctr_t r = philox4x32(c, k);
        for (int j = 0; j < 4; ++j) out[4 * i + j] = r.v[j];
    }"""
    dev = ocl._device()
    prg = ocl.cl.Program(dev.context, src).build(options=[f"-I{header}"])
    out = np.empty(4 * 64, dtype=np.uint32)
    buf = ocl.cl.Buffer(dev.context, ocl.cl.mem_flags.WRITE_ONLY, size=out.nbytes)
    prg.r123(dev.queue, (64,), None, buf)
    ocl.cl.enqueue_copy(dev.queue, out, buf).wait()
    ctr = np.zeros((64, 4), dtype=np.uint32)
    ctr[:, 0], ctr[:, 1] = np.arange(64), 7
    assert np.array_equal(cmap.philox4x32_10(ctr, cmap.SEED).reshape(-1), out)


@needs_nvrtc
def test_the_ptx_step_writes_every_cuda_variant_and_its_mix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The PTX of each CUDA variant (NVRTC, for a named architecture: no GPU needed) and the mix
    the book reads: k5's fast-math finding is in it, as a count of lg2."""
    import pandas as pd

    from lassm.campaign import suite_part as part
    from lassm.runs import suite_records as rec

    monkeypatch.setenv("LASSM_RESULTS", str(tmp_path))
    plan = part.SuitePlan(kernels=("minkowski", "all_pairs"), backends=("cuda",), size="gpu")
    assert part.write_ptx(plan, {"cuda": "box"}, arch="compute_90") == []
    files = sorted(p.name for p in (rec.folder("box") / "ptx").iterdir())
    assert files == sorted(f"cuda__{k}__{v}.ptx" for k in plan.kernels for v in suite.get(k).VARIANTS["cuda"])
    mix = pd.read_csv(rec.folder("box") / part.PTX_MIX_FILE)
    lg2 = mix[mix["opcode"].str.startswith("lg2")].groupby("variant")["count"].sum()
    assert lg2.get("powf", 0) == 0 and lg2["powf-fast-math"] > 0 and lg2["__powf"] > 0
    # a run of one kernel replaces that kernel's rows and keeps the other's
    one = part.SuitePlan(kernels=("all_pairs",), backends=("cuda",), size="gpu")
    assert part.write_ptx(one, {"cuda": "box"}, arch="compute_90") == []
    again = pd.read_csv(rec.folder("box") / part.PTX_MIX_FILE)
    key = ["kernel", "backend", "variant", "function", "opcode", "type", "space"]
    assert again.sort_values(key).reset_index(drop=True).equals(mix.sort_values(key).reset_index(drop=True))


def test_the_contract_lists_the_suite_columns() -> None:
    from lassm.runs import suite_records as rec

    from ..book.test_book import _contract_columns

    assert _contract_columns("suite/times.csv") == list(rec.COLUMNS)


def _nw_inputs(n: int) -> nw.Inputs:
    """Two random sequences of ``n`` residues (any ``n``, not only multiples of a tile)."""
    rng = np.random.default_rng(n)
    a, b = rng.integers(0, len(nw.RESIDUES), n).astype(np.int32), rng.integers(0, len(nw.RESIDUES), n).astype(np.int32)
    ref = np.zeros((n + 1, n + 1), dtype=np.int32)
    ref[1:, 1:] = nw.BLOSUM62[a[:, None], b[None, :]]
    start = np.zeros((n + 1, n + 1), dtype=np.int32)
    start[:, 0] = start[0, :] = -nw.PENALTY * np.arange(n + 1, dtype=np.int32)
    return nw.Inputs(a, b, ref, start)


@pytest.mark.parametrize("backend", ["opencl", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_nw_in_one_launch_at_any_length(backend: str) -> None:
    """``strips``: a last strip of fewer rows and a last chunk of fewer columns than 32 (every cell
    of the last column was once left unstored), one strip, many strips."""
    if backend == "opencl":
        _opencl()
    for n in (1, 31, 33, 40, 100, 200):
        inp = _nw_inputs(n)
        run = nw.run(backend, inp, "strips")
        assert nw.check(run.output, nw.reference(inp)) == (True, 0.0), n
        assert run.launches == 1


def test_command_buffers_record_the_launches_or_are_refused_with_the_reason() -> None:
    """``recorded``: Needleman-Wunsch's launches as one OpenCL command buffer, equal to the
    reference where the device offers ``cl_khr_command_buffer`` (Intel's CPU driver does); a device
    without it is refused by name before anything is recorded."""
    from types import SimpleNamespace

    from lassm.backends.suite import command_buffer

    _opencl()
    plain = SimpleNamespace(extensions="cl_khr_fp64 cl_khr_icd", name="Some GPU ")
    assert command_buffer.missing(plain) == "Some GPU offers no cl_khr_command_buffer (its extensions: none of that name)"
    with pytest.raises(suite.Refused, match="offers no cl_khr_command_buffer"):
        command_buffer.Recording(SimpleNamespace(device=plain))
    inp = nw.inputs("cpu", seed=5)
    try:
        run = nw.run("opencl", inp, "recorded")
    except suite.Refused as exc:
        pytest.skip(str(exc))
    assert nw.check(run.output, nw.reference(inp)) == (True, 0.0)
    assert run.launches == len(nw.diagonals(inp.n)) and run.seconds > 0


def test_an_opencl_kernel_object_is_kept_like_a_cuda_function() -> None:
    """One kernel object per build and entry: a run's second launch never waits on a new object's setup."""
    _opencl()
    first = common.opencl_kernel(epistasis.OWN_SOURCES["margins"][1], epistasis.MARGINS_ENTRY)
    assert common.opencl_kernel(epistasis.OWN_SOURCES["margins"][1], epistasis.MARGINS_ENTRY) is first
    assert common.opencl_kernel(epistasis.OWN_SOURCES["margins"][1], "epistasis_pairs") is not first


def test_one_profiled_process_is_cut_into_each_variants_raw_file(tmp_path: Path) -> None:
    """Two committed raw files joined as one process's output, each part ended by the boundary
    kernel's row, come back apart: the same launches and metrics as each file read alone."""
    from lassm.analysis.counters import ncu_batch, ncu

    folder = Path(__file__).resolve().parents[2] / "data" / "results" / "nvidia-h200" / "suite" / "counters"
    first = (folder / "ncu__cmap__cuda__philox.csv").read_text().splitlines()
    second = (folder / "ncu__epistasis__cuda__margins.csv").read_text().splitlines()
    at = ncu._header_index(first)
    header = next(ncu.csv.reader([first[at]]))
    last = next(ncu.csv.reader([first[-1]]))
    cut = dict(zip(header, last), **{"Kernel Name": ncu_batch.BOUNDARY, "ID": "999"})
    boundary = ",".join(f'"{cut[c]}"' for c in header)
    joined = first + [boundary] + second[ncu._header_index(second) + 2:] + [boundary]
    parts = ncu_batch.split_at("\n".join(joined) + "\n", ncu_batch.BOUNDARY)
    assert len(parts) == 2
    for part, name in zip(parts, ("ncu__cmap__cuda__philox.csv", "ncu__epistasis__cuda__margins.csv")):
        got, units = ncu.read_raw(part)
        want, want_units = ncu.read_raw(folder / name)
        assert units == want_units and ncu_batch.BOUNDARY not in set(got["Kernel Name"])
        assert got.drop(columns="ID").equals(want.drop(columns="ID"))
    assert len(ncu_batch.split_at("\n".join(first) + "\n", ncu_batch.BOUNDARY)) == 1  # no boundary: one part


def test_the_many_launch_variants_are_counted_on_request() -> None:
    """nw's stream and graph are left out of the default counters, named in the dry run."""
    from lassm.campaign import suite_part as part
    from lassm.campaign import suite_counters

    points = [("nw", "cuda", "stream"), ("nw", "cuda", "graph"), ("nw", "cuda", "strips"), ("cmap", "cuda", "fused")]
    assert suite_counters.left_on_request(points) == points[:2]
    plan = part.SuitePlan(kernels=("nw",), backends=("cuda",), size="gpu")
    assert "not nw cuda stream, nw cuda graph: --all-counters" in part.describe(plan)
    assert "--all-counters" not in part.describe(part.SuitePlan(kernels=("nw",), backends=("cuda",), size="gpu",
                                                                all_counters=True))


def test_references_computed_in_spawned_processes_equal_those_computed_here() -> None:
    """The suite's references start beside the GPU work in processes of their own: the same inputs
    (a fixed seed) give the same reference there as here, for every kernel."""
    import pickle

    from lassm.backends import suite
    from lassm.campaign import suite_part as part

    pool, refs = part.references_started(list(suite.KERNELS), "tiny")
    assert pool is not None and set(refs) == set(suite.KERNELS)
    try:
        for kernel, future in refs.items():
            mod = suite.get(kernel)
            here = mod.reference(mod.inputs("tiny"))
            assert pickle.dumps(future.result(timeout=120)) == pickle.dumps(here), kernel
    finally:
        pool.shutdown()
    assert part.references_started([], "tiny") == (None, {})


def test_the_slowest_reference_is_timed_last_and_nw_strips_replays_kernel_by_kernel() -> None:
    from lassm.campaign import suite_part as part
    from lassm.campaign import suite_counters

    assert part.run_order(("all_pairs", "epistasis", "cmap", "nw", "minkowski")) == [
        "all_pairs", "nw", "minkowski", "cmap", "epistasis"]
    assert part.run_order(("epistasis", "nw")) == ["nw", "epistasis"]
    assert "strips" not in suite_counters.APPLICATION_REPLAY["nw"]
    assert suite_counters.APPLICATION_REPLAY["nw"] == suite_counters.ON_REQUEST["nw"] == {"stream", "graph"}


@pytest.mark.parametrize("kernel, variant", [("nw", "in-order"), ("nw", "strips"), ("cmap", "philox")])
def test_a_run_that_leaves_its_large_output_on_the_device_changes_no_later_run(kernel: str, variant: str) -> None:
    """``fetch=False`` (the suite's unchecked runs): no copy back of the large output, and the
    next run, from the kept device start for NW, still equals the reference."""
    from lassm.backends import suite
    from lassm.backends.suite.common import unchecked_run

    _opencl()
    mod = suite.get(kernel)
    inp = mod.inputs("tiny")
    ref = mod.reference(inp)
    left = unchecked_run(mod, "opencl", inp, variant)
    if kernel == "nw":
        assert left.output is None
    else:
        assert left.output.uniforms is None and left.output.count == ref.output.count
    for _ in range(2):
        run = mod.run("opencl", inp, variant)
        assert mod.check(run.output, ref)[0]
