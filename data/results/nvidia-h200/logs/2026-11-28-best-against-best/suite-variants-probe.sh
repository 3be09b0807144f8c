#!/usr/bin/env bash
# Call A (issue 37, exploration, results not kept): the suite's new variants (tiles, margins,
# strips, graph) checked against the references in the GPU tests, then every variant of the
# suite timed at the seed's sizes into a scratch results folder, and HeCBench's four programs built
# (sources at the pinned commit in .originals/) and run, by their own clock and under Nsight
# Compute. Usage: bash suite-variants-probe.sh
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 LASSM_RESULTS=/tmp/res
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
time timeout 240 python3 -m pytest -q -x -p no:cacheprovider tests/test_suite.py 2>&1 | tail -15
time timeout 200 python3 -m lassm run --kernel suite --machine probe --no-profile 2>&1 | tail -25
time timeout 240 python3 -m lassm run --kernel originals --machine probe --originals .originals 2>&1 | tail -25
cp -r /tmp/res/probe/suite/*.csv "$OUT/" 2>/dev/null
python3 - <<'PY'
import pandas as pd
t = pd.read_csv("/tmp/res/probe/suite/times.csv")
print(t[["kernel", "backend", "variant", "seconds", "host_seconds", "launches", "matches_reference"]].to_string())
o = pd.read_csv("/tmp/res/probe/suite/originals.csv")
print(o[["kernel", "seconds", "ncu_seconds", "ncu_kernels", "verified", "outputs_equal"]].to_string())
PY
