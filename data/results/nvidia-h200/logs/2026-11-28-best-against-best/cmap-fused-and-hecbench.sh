#!/usr/bin/env bash
# Call D (issue 37): the fused k3 kernel (draw, score and count in one launch) tested and timed;
# then HeCBench's nw-cuda, minkowski-cuda and cm-cuda built from the pinned sources in .originals/
# and run by their own clocks and under Nsight Compute (cm-cuda's 30 launches on the synthetic
# cudaMap set); then the Needleman-Wunsch and epistasis variants timed again (their fastest shapes
# changed after call C), and Nsight Compute's counters of the fastest variants that had none.
# Usage: bash cmap-fused-and-hecbench.sh <git sha>
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 LASSM_GIT_SHA=$1
mark=$(mktemp); sleep 1
start=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 90 python3 -m pytest -q -x -p no:cacheprovider tests/test_suite.py tests/test_cmap_original.py -k "cmap" 2>&1 | tail -2
suite() {  # kernels, seconds
timeout "$2" python3 - "$1" <<'PY'
import dataclasses, sys
from lassm.campaign import suite as cs
plan = dataclasses.replace(cs.make_plan(kernels=sys.argv[1].split(",")), counters=False)
cs.run_suite(plan, force=True, say=print)
PY
}
echo "== cmap ($((SECONDS - start)) s)"; suite cmap 60
echo "== originals ($((SECONDS - start)) s)"
timeout 330 python3 - <<'PY'
from lassm.campaign import originals as o
plan = o.OriginalsPlan(ht_loc_datasets=(), logan_dataset=None, xdrops=(), folder=".originals",
                       suite_kernels=("cmap", "minkowski", "nw"))
out = o.run_originals(plan, force=True, say=print)
print("lacks:", out.lacks)
PY
echo "== nw, epistasis ($((SECONDS - start)) s)"; suite nw,epistasis 70
echo "== counters ($((SECONDS - start)) s)"
timeout $((585 - (SECONDS - start))) python3 - <<'PY'
import os
from lassm.campaign import suite_counters
from lassm.campaign.suite import _folder
points = [(k, b, v) for k, v in (("cmap", "fused"), ("epistasis", "margins"), ("nw", "strips")) for b in ("cuda", "opencl-ptx")]
print(suite_counters.collect(points, "gpu", _folder("cuda", None), sha=os.environ["LASSM_GIT_SHA"], force=True, say=print))
PY
echo "== done ($((SECONDS - start)) s)"
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
python3 - <<'PY'
import pandas as pd
t = pd.read_csv("data/results/nvidia-h200/suite/times.csv")
print(t[t.kernel.isin(["cmap", "nw", "epistasis"])][["kernel", "backend", "variant", "seconds", "launches", "matches_reference"]].to_string(index=False))
o = pd.read_csv("data/results/nvidia-h200/suite/originals.csv")
print(o[["kernel", "seconds", "ncu_seconds", "verified", "outputs_equal"]].to_string(index=False))
PY
