#!/usr/bin/env bash
# Why the launch gate profiled nothing under ncu (explore2), and Nsight Compute's cost per
# profiled process: ht_loc and lassm extend alone and three under one session, LOGAN's
# side-by-side at one X step by step. Each step in a process of its own.
# Usage: bash explore3.sh <git sha>
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD LASSM_GIT_SHA=$1 PYTHONUNBUFFERED=1 LASSM_RESULTS=/tmp/fresh
mkdir -p "$OUT" /tmp/work
ts() { while IFS= read -r l; do printf '%(%s)T %s\n' -1 "$l"; done; }
{
python3 -m lassm.cli build-kernels --where-a-gpu 2>&1 | tail -2
echo "== the gate"
timeout 100 python3 - <<'PY'
import os, subprocess, time
from pathlib import Path
from lassm.campaign.originals import build, sources, hecbench
from lassm.campaign.steps import find_ncu
ncu = find_ncu(); arch = build.gpu_arch(); nvcc = build.require_nvcc()
hb = hecbench.build_all(sources.locate(sources.SOURCES["hecbench"], ".originals"), arch, nvcc, ["nw"])
nw, gate = hb["nw"], hb[hecbench.GATE_LIBRARY]
print(subprocess.run(f"nm -D {nw} | grep -i -E 'launch|profiler'; ldd {nw} | grep -i cuda", shell=True, capture_output=True, text=True).stdout)
env = {**os.environ, "LD_PRELOAD": str(gate), "LASSM_PROFILE_AFTER": "3"}
t0 = time.perf_counter(); r = subprocess.run([str(nw), "2048", "10", "1"], env=env, capture_output=True, text=True)
print(f"gated plain rc {r.returncode} {time.perf_counter()-t0:.1f} s; stderr: {r.stderr.strip()[-300:]}; out: {r.stdout.strip().splitlines()[-1:]}")
r = subprocess.run([ncu, "--target-processes", "all", "--profile-from-start", "off", "--", "bash", "-c", "echo child LD_PRELOAD=$LD_PRELOAD; env | grep -i -E 'inject|preload'"], env=env, capture_output=True, text=True)
print("under ncu:", r.stdout.strip()[-600:], r.stderr.strip()[-300:])
t0 = time.perf_counter()
r = subprocess.run([ncu, "--csv", "--page", "raw", "--metrics", "gpu__time_duration.sum", "--profile-from-start", "off", "--launch-count", "5",
                    "--", str(nw), "2048", "10", "1"], env=env, capture_output=True, text=True)
print(f"small gated under ncu rc {r.returncode} {time.perf_counter()-t0:.1f} s; stderr {r.stderr.strip()[-400:]}; rows {len([l for l in r.stdout.splitlines() if 'nw' in l or 'kernel' in l.lower()])}")
print(r.stdout[-800:])
PY
echo "== ncu per process"
timeout 120 python3 - <<'PY'
import subprocess, time
from pathlib import Path
from lassm.campaign.originals import build, sources, timing, ht_loc
from lassm.campaign.steps import find_ncu
from lassm.workloads.local_assembly import datasets, formats
ncu = find_ncu(); arch = build.gpu_arch(); work = Path("/tmp/work")
hl = build.build_ht_loc(sources.locate(sources.SOURCES["ht_loc"], ".originals"), arch)
ds, k = datasets.load("sample-k77"); dat = work / "s.dat"; formats.write_dat(ds, dat)
cmd = [str(hl["ht_loc"]), str(dat), str(k), str(work / "o.txt")]
ours = ht_loc.ours_command(dat, k, work / "l.txt")
for c in (cmd, ours):
    for i in range(2):
        s, _ = timing.run(c); print(f"{Path(c[0]).name} plain {s:.3f} s")
    for i in range(2):
        t0 = time.perf_counter(); got = timing.kernel_times(c, ncu, work / "n.csv"); print(f"{Path(c[0]).name} under ncu {time.perf_counter()-t0:.3f} s, {len(got)} launches")
import shlex
t0 = time.perf_counter()
r = subprocess.run([ncu, "--csv", "--page", "raw", "--print-units", "base", "--target-processes", "all", "--metrics", "gpu__time_duration.sum",
                "--log-file", str(work / "three.csv"), "--", "bash", "-c", " ; ".join([shlex.join(cmd), shlex.join(ours), shlex.join(cmd)])], capture_output=True, text=True)
print(f"ht_loc, ours, ht_loc under one ncu {time.perf_counter()-t0:.3f} s rc {r.returncode}")
head = (work / "three.csv").read_text().splitlines()
print("columns:", head[0][:400] if head else "none", "rows", len(head))
for l in head[2:6]: print(l[:200])
PY
echo "== LOGAN at X = 100"
timeout 90 python3 - <<'PY'
import time
from pathlib import Path
from lassm.campaign.originals import build, sources, logan
from lassm.campaign.originals import timing as tm
from lassm.campaign.steps import find_ncu
from lassm.workloads.xdrop import datasets as xd, formats as xf
ncu = find_ncu(); arch = build.gpu_arch()
lb = build.build_logan(sources.locate(sources.SOURCES["logan"], ".originals"), arch)
pairs = xd.load("xdrop-sim-20k"); lw = Path("/tmp/work/logan"); lw.mkdir(exist_ok=True)
logan.write_logan_input(pairs, lw / "pairs.txt"); xf.write_pairs_parquet(pairs, lw / "pairs.parquet")
orig_run, orig_kt = logan.run, logan.kernel_times
def run_t(c, *a, **kw):
    t0 = time.perf_counter(); r = orig_run(c, *a, **kw); print(f"  run {Path(c[0]).name} {time.perf_counter()-t0:.2f} s"); return r
def kt_t(c, *a, **kw):
    t0 = time.perf_counter(); r = orig_kt(c, *a, **kw); print(f"  ncu {Path(c[0]).name} {' '.join(c[1:4])} {time.perf_counter()-t0:.2f} s"); return r
logan.run, logan.kernel_times = run_t, kt_t
orig_tm_run = tm.run
def tm_run(c, *a, **kw):
    t0 = time.perf_counter(); r = orig_tm_run(c, *a, **kw); print(f"  whole {Path(c[0]).name} {' '.join(c[1:4])} {time.perf_counter()-t0:.2f} s"); return r
tm.run = tm_run
t0 = time.perf_counter()
rows = logan.side_by_side(lb, pairs, "xdrop-sim-20k", 100, lw, repeats=1, ncu=ncu, context={})
print([(r["program"], r["whole_seconds"], r["kernel_seconds"], r["scores_equal"]) for r in rows])
print(f"LOGAN side by side at X=100: {time.perf_counter()-t0:.1f} s")
PY
echo "== end"
} 2>&1 | ts > "$OUT/explore3.log"
cat "$OUT/explore3.log" | cut -c1-400 | tail -80
