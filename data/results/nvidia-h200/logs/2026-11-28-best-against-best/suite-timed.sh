#!/usr/bin/env bash
# Call B (issue 37): the suite's GPU tests, then `lassm run --kernel suite` on the H200 at the
# committed tree: every variant of the five kernels (the new fastest shapes included) timed at the
# seed's sizes in CUDA, NVIDIA's OpenCL and OpenCL's PTX launched by CUDA, checked against the
# references, with Nsight Compute's counters. Usage: bash suite-timed.sh <git sha>
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 LASSM_GIT_SHA=$1
mark=$(mktemp); sleep 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
time timeout 120 python3 -m pytest -q -x -p no:cacheprovider tests/test_suite.py 2>&1 | tail -3
time timeout 420 python3 -m lassm run --kernel suite 2>&1 | tee "$OUT/suite.log" | tail -12
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
python3 - <<'PY'
import pandas as pd
t = pd.read_csv("data/results/nvidia-h200/suite/times.csv")
t = t[t["variant"].isin(["tiles", "margins", "strips", "graph", "stream", "char4", "auto", "powf-fast-math"])]
print(t[["kernel", "backend", "variant", "seconds", "launches", "matches_reference"]].to_string(index=False))
PY
