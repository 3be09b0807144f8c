#!/usr/bin/env bash
# Call E (issue 28): HeCBench's CUDA programs of Jin and Vetter's kernels built from the pinned
# commit (carried in .baselines/HeCBench) and run at the seed's sizes beside the suite's records
# (tools/against_hecbench.py, the code of lassm run's originals part). Usage: bash hecbench-beside-suite.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD
mark=$(mktemp); sleep 1
time python3 tools/against_hecbench.py --source .baselines
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
