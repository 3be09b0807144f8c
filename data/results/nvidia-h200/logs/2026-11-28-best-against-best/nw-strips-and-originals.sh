#!/usr/bin/env bash
# Call C (issue 37): the suite's GPU tests (strips at lengths no chunk divides included); the
# Needleman-Wunsch variants timed again with the fence-free strips; Nsight Compute's counters of
# the points call B's counters step did not reach (its 2,047-launch nw variants left out: each
# takes minutes under application replay); then HeCBench's programs built from the pinned
# sources in .originals/ and run, by their own clock and under Nsight Compute.
# Usage: bash nw-strips-and-originals.sh <git sha>
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 LASSM_GIT_SHA=$1
mark=$(mktemp); sleep 1
start=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 100 python3 -m pytest -q -x -p no:cacheprovider tests/test_suite.py -k "nw or cuda_variant" 2>&1 | tail -2
echo "== nw again ($((SECONDS - start)) s)"
timeout 100 python3 - <<'PY'
import dataclasses
from lassm.campaign import suite as cs
plan = dataclasses.replace(cs.make_plan(kernels=["nw"]), counters=False)
cs.run_suite(plan, force=True, say=print)
PY
echo "== counters ($((SECONDS - start)) s)"
timeout 150 python3 - <<'PY'
from lassm.campaign import suite_counters
from lassm.campaign.suite import _folder
machine = _folder("cuda", None)
points = [("nw", "cuda", "strips"), ("nw", "opencl-ptx", "strips")] + [
    ("minkowski", b, v) for b, vs in (("cuda", ("powf", "powf-fast-math", "__powf", "tiles")),
                                      ("opencl-ptx", ("pow", "pow-fast-math", "powr", "powr-fast-math", "native_powr", "tiles")))
    for v in vs]
import os
print(suite_counters.collect(points, "gpu", machine, sha=os.environ["LASSM_GIT_SHA"], force=True, say=print))
PY
echo "== originals ($((SECONDS - start)) s)"
timeout 330 python3 -m lassm run --kernel originals --originals .originals 2>&1 | tail -12
echo "== done ($((SECONDS - start)) s)"
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
python3 - <<'PY'
import pandas as pd
t = pd.read_csv("data/results/nvidia-h200/suite/times.csv")
print(t[t.kernel == "nw"][["backend", "variant", "seconds", "launches", "matches_reference"]].to_string(index=False))
o = pd.read_csv("data/results/nvidia-h200/suite/originals.csv")
print(o[["kernel", "seconds", "ncu_seconds", "ncu_kernels", "verified", "outputs_equal"]].to_string(index=False))
PY
