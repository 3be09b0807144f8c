#!/usr/bin/env bash
# Where the remaining minutes go, before the whole run: Nsight Compute's cost per profiled process
# (ht_loc alone, three under one session), HeCBench nw-cuda's warm-up passed over by the launch
# gate instead of ncu's --launch-skip, LOGAN's side-by-side at one X step by step, the local-assembly
# sweep of two datasets under cProfile (with the repeat rule), and the suite's nw variants.
# Usage: bash explore2.sh <git sha>
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD LASSM_GIT_SHA=$1 PYTHONUNBUFFERED=1 LASSM_RESULTS=/tmp/fresh
mkdir -p "$OUT"
ts() { while IFS= read -r l; do printf '%(%s)T %s\n' -1 "$l"; done; }
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; ncu --version | tail -1; which nsys || echo "no nsys"
python3 -m lassm.cli build-kernels --where-a-gpu 2>&1 | tail -1
echo "== originals: ncu per process, the gate, LOGAN at X = 100"
timeout 200 python3 - <<'PY'
import subprocess, time, io
from pathlib import Path
from lassm.campaign.originals import build, sources, hecbench, logan, timing
from lassm.campaign.steps import find_ncu
from lassm.workloads.local_assembly import datasets, formats
ncu = find_ncu(); arch = build.gpu_arch(); nvcc = build.require_nvcc()
work = Path("/tmp/work"); work.mkdir(exist_ok=True)
t0 = time.perf_counter()
hb = hecbench.build_all(sources.locate(sources.SOURCES["hecbench"], ".originals"), arch, nvcc, ["nw"])
print(f"hecbench nw + libraries built {time.perf_counter()-t0:.1f} s")
t0 = time.perf_counter()
prog = hecbench.PROGRAMS["nw"]
cols = hecbench.ncu_time(hb["nw"], prog, work / "nw-gated.csv", ncu, gate=hb[hecbench.GATE_LIBRARY])
print(f"nw-cuda gated under ncu: {time.perf_counter()-t0:.1f} s, {cols['ncu_seconds']*1e3:.3f} ms, {cols['ncu_command']}")
t0 = time.perf_counter(); s, out = timing.run([str(hb["nw"]), "16384", "10", "10"]); print(f"nw-cuda plain run {s:.1f} s", out.strip().splitlines()[-2:])
t0 = time.perf_counter()
hl = build.build_ht_loc(sources.locate(sources.SOURCES["ht_loc"], ".originals"), arch)
print(f"ht_loc built {time.perf_counter()-t0:.1f} s")
ds, k = datasets.load("sample-k77"); dat = work / "s.dat"; formats.write_dat(ds, dat)
cmd = [str(hl["ht_loc"]), str(dat), str(k), str(work / "o.txt")]
for i in range(2):
    s, _ = timing.run(cmd); print(f"ht_loc plain {s:.3f} s")
for i in range(2):
    t0 = time.perf_counter(); got = timing.kernel_times(cmd, ncu, work / "n.csv"); print(f"ht_loc under ncu {time.perf_counter()-t0:.3f} s, {len(got)} launches")
t0 = time.perf_counter()
subprocess.run([ncu, "--csv", "--page", "raw", "--print-units", "base", "--target-processes", "all", "--metrics", "gpu__time_duration.sum",
                "--log-file", str(work / "three.csv"), "--", "bash", "-c", " ; ".join([" ".join(cmd)] * 3)], capture_output=True)
print(f"three ht_loc under one ncu {time.perf_counter()-t0:.3f} s")
head = (work / "three.csv").read_text().splitlines()
print("columns:", head[0][:300] if head else "none", "rows", len(head))
ours = [*__import__("lassm.campaign.originals.ht_loc", fromlist=["x"]).ours_command(dat, k, work / "l.txt")]
for i in range(2):
    s, _ = timing.run(ours); print(f"lassm extend plain {s:.3f} s")
t0 = time.perf_counter(); got = timing.kernel_times(ours, ncu, work / "n2.csv"); print(f"lassm extend under ncu {time.perf_counter()-t0:.3f} s, {len(got)} launches")
# LOGAN at X = 100, step by step
lb = build.build_logan(sources.locate(sources.SOURCES["logan"], ".originals"), arch)
from lassm.workloads.xdrop import datasets as xd
pairs = xd.load("xdrop-sim-20k") if hasattr(xd, "load") else None
print("pairs", pairs.n_pairs if pairs is not None else None)
orig_run, orig_kt = logan.run, logan.kernel_times
def run_t(c, *a, **kw):
    t0 = time.perf_counter(); r = orig_run(c, *a, **kw); print(f"  run {Path(c[0]).name} {time.perf_counter()-t0:.2f} s"); return r
def kt_t(c, *a, **kw):
    t0 = time.perf_counter(); r = orig_kt(c, *a, **kw); print(f"  ncu {Path(c[0]).name} {' '.join(c[1:4])} {time.perf_counter()-t0:.2f} s"); return r
logan.run, logan.kernel_times = run_t, kt_t
import lassm.campaign.originals.timing as tm
orig_tm_run = tm.run
def tm_run(c, *a, **kw):
    t0 = time.perf_counter(); r = orig_tm_run(c, *a, **kw); print(f"  whole {Path(c[0]).name} {' '.join(c[1:4])} {time.perf_counter()-t0:.2f} s"); return r
tm.run = tm_run
if pairs is not None:
    from lassm.workloads.xdrop import formats as xf
    lw = work / "logan"; lw.mkdir(exist_ok=True)
    logan.write_logan_input(pairs, lw / "pairs.txt")
    xf.write_pairs_parquet(pairs, lw / "pairs.parquet")
    t0 = time.perf_counter()
    try:
        rows = logan.side_by_side(lb, pairs, "xdrop-sim-20k", 100, lw, repeats=1, ncu=ncu, context={})
        print([ (r["program"], r["whole_seconds"], r["kernel_seconds"], r["scores_equal"]) for r in rows])
    except Exception as e:
        print("logan failed", type(e).__name__, e)
    print(f"LOGAN side by side at X=100: {time.perf_counter()-t0:.1f} s")
PY
echo "== local assembly: two datasets, every backend, under cProfile"
timeout 150 python3 - <<'PY'
import cProfile, pstats, time, collections, json
from lassm.runs.sweep import main_job
pts = [(d, None, b, p) for d in ("sample-k77", "gen-k21") for b, ps in (("cpu", ("none",)), ("cuda", ("casptr","matchany","doneflag","barrier","fast")), ("opencl", ("casptr","matchany","doneflag","barrier","fast")), ("opencl-ptx", ("casptr","matchany","doneflag","barrier","fast"))) for p in ps]
pr = cProfile.Profile(); t0 = time.perf_counter(); pr.enable()
rows = main_job(machine="h200-scratch", points=pts, repeats=5, warmup=1, progress=False)
pr.disable(); print(f"{len(rows)} points in {time.perf_counter()-t0:.1f} s", collections.Counter(r["status"] for r in rows))
import glob
reps = collections.Counter(json.load(open(f))["repeats"] for f in glob.glob("/tmp/fresh/h200-scratch/*/summary.json"))
print("repeats taken", dict(reps))
st = pstats.Stats(pr); st.sort_stats("cumulative").print_stats(35); st.sort_stats("tottime").print_stats(15)
PY
echo "== suite nw"
timeout 120 python3 - <<'PY'
import time
from lassm.backends import suite
from lassm.campaign import suite as part
mod = suite.get("nw"); t0 = time.perf_counter(); inp = mod.inputs("gpu"); ref = mod.reference(inp); print(f"nw inputs and reference {time.perf_counter()-t0:.1f} s")
plan = part.make_plan(False, backends=["cuda", "opencl", "opencl-ptx"], kernels=["nw"])
for b in ("cuda", "opencl-ptx", "opencl"):
    for v in mod.VARIANTS[b]:
        t0 = time.perf_counter()
        try:
            row = part._measure(mod, b, inp, v, ref, plan); print(f"nw {b} {v}: {time.perf_counter()-t0:.1f} s, {row['seconds']*1e3:.3f} ms, {row['repeats']} runs, {row['status']}")
        except Exception as e:
            print(f"nw {b} {v}: {type(e).__name__} {e} ({time.perf_counter()-t0:.1f} s)")
PY
echo "== end"
} 2>&1 | ts > "$OUT/explore2.log"
tail -120 "$OUT/explore2.log" | cut -c1-250
