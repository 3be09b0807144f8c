#!/usr/bin/env bash
# Before the last whole run: the three new profiled paths, each small: the local-assembly counters of
# two points in one session, HeCBench nw-cuda's warm-up passed over by the launch gate, and two
# `lassm extend` commands timed in one profiled process. Usage: bash explore4.sh <git sha>
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD LASSM_GIT_SHA=$1 PYTHONUNBUFFERED=1 LASSM_RESULTS=/tmp/fresh
mkdir -p "$OUT" /tmp/work
ts() { while IFS= read -r l; do printf '%(%s)T %s\n' -1 "$l"; done; }
{
timeout 150 python3 - <<'PY'
import time
from pathlib import Path
from lassm.campaign import steps
t0 = time.perf_counter()
print("LA counters:", steps.counters("cuda", "h200-scratch", [("sample-k77", None, "casptr"), ("sample-k77", None, "fast"), ("gen-k33", None, "fast")]),
      f"{time.perf_counter()-t0:.1f} s")
print(sorted(p.name for p in Path("/tmp/fresh/h200-scratch").rglob("*.csv")))
from lassm.campaign.originals import build, sources, hecbench, ht_loc, timing
from lassm.campaign.steps import find_ncu
from lassm.workloads.local_assembly import datasets, formats
ncu = find_ncu(); arch = build.gpu_arch()
hb = hecbench.build_all(sources.locate(sources.SOURCES["hecbench"], ".originals"), arch, build.require_nvcc(), ["nw"])
t0 = time.perf_counter()
try:
    cols = hecbench.ncu_time(hb["nw"], hecbench.PROGRAMS["nw"], Path("/tmp/work/nw.csv"), ncu, gate=hb[hecbench.GATE_LIBRARY])
    print(f"nw-cuda gated: {time.perf_counter()-t0:.1f} s, {cols['ncu_seconds']*1e3:.3f} ms; {cols['ncu_kernels']}")
except Exception as e:
    print(f"nw-cuda gated failed after {time.perf_counter()-t0:.1f} s: {type(e).__name__} {e}")
cmds = []
for d in ("sample-k77", "gen-k33"):
    ds, k = datasets.load(d); dat = Path(f"/tmp/work/{d}.dat"); formats.write_dat(ds, dat)
    cmds.append(ht_loc.ours_command(dat, k, Path(f"/tmp/work/{d}.txt")))
t0 = time.perf_counter()
got = timing.lassm_kernel_times(cmds, ncu, Path("/tmp/work/ours.csv"))
print(f"two lassm extend in one ncu: {time.perf_counter()-t0:.1f} s", [ht_loc.walk_apart(g) if g else None for g in got])
t0 = time.perf_counter(); one = timing.kernel_times(cmds[0], ncu, Path("/tmp/work/one.csv")); print(f"one alone: {time.perf_counter()-t0:.1f} s", ht_loc.walk_apart(one))
PY
} 2>&1 | ts > "$OUT/explore4.log"
cat "$OUT/explore4.log" | cut -c1-400
