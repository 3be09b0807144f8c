#!/usr/bin/env bash
# The originals beside ours at the tree's commit, into the committed folder: ht_loc beside
# `lassm extend` on every campaign dataset (the four real-genome sets included), and HeCBench's five
# programs (epistasis-cuda started first, its CPU check beside the others; profiled runs ended by
# ncu --kill once their launches are counted). Then, into a scratch root, the counters steps as
# `lassm run` now takes them: X-drop's X values in one profiled process, the suite's variants of
# one kernel and backend in one. Usage: bash originals-and-counters-steps.sh <git sha>
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD LASSM_GIT_SHA=$1 PYTHONUNBUFFERED=1
mkdir -p "$OUT"; mark=$(mktemp); sleep 1
ts() { while IFS= read -r l; do printf '%(%s)T %s\n' -1 "$l"; done; }
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; ncu --version | tail -1
python3 -m lassm.cli build-kernels --where-a-gpu 2>&1 | tail -1
echo "== originals: ht_loc on every campaign dataset, HeCBench's five"
timeout 300 python3 - <<'PY'
import time
from lassm.backends import suite
from lassm.campaign import originals as o
from lassm.campaign.originals import ht_loc
t0 = time.perf_counter()
plan = o.OriginalsPlan(ht_loc_datasets=ht_loc.DATASETS, logan_dataset=None, xdrops=(), folder=".originals",
                       suite_kernels=tuple(suite.KERNELS))
out = o.run_originals(plan, machine="nvidia-h200", force=True, say=print)
print(out.steps, out.lacks, f"{time.perf_counter() - t0:.1f} s")
PY
echo "== X-drop counters (scratch root)"
LASSM_RESULTS=/tmp/scratch timeout 70 python3 - <<'PY'
import time
from lassm.campaign import xdrop_counters, xdrop_plan
t0 = time.perf_counter()
plan = xdrop_plan.make_plan(False, backends=["cuda"], datasets=["xdrop-sim-2k"])
print(xdrop_counters.collect(plan, "nvidia-h200", sha="scratch", command="originals-and-counters-steps.sh", say=print),
      f"{time.perf_counter() - t0:.1f} s")
PY
echo "== suite counters (scratch root)"
LASSM_RESULTS=/tmp/scratch timeout 130 python3 - <<'PY'
import time
from lassm.campaign import suite as part, suite_counters
t0 = time.perf_counter()
plan = part.make_plan(False, backends=["cuda", "opencl-ptx"])
points = [p for p in plan.points() if p[1] in suite_counters.BACKENDS]
print(suite_counters.collect(points, plan.size, "nvidia-h200", sha="scratch", say=print), f"{time.perf_counter() - t0:.1f} s")
PY
echo "== end"
} 2>&1 | ts > "$OUT/originals-and-counters-steps.log"
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar -czf "$OUT/results.tgz" -T "$OUT/written.txt"
tar -czf "$OUT/scratch.tgz" -C /tmp scratch 2>/dev/null
grep -v "ms in\|: whole" "$OUT/originals-and-counters-steps.log" | tail -25 | cut -c1-220
