#!/usr/bin/env bash
# Call G (issue 28): HeCBench's four programs, linked against the shared CUDA runtime and run once
# each with their cudaMemcpy copies captured: the same run gives the time, the program's own
# check and its output, compared with our CUDA kernel's on the program's own inputs.
# Usage: bash hecbench-outputs-captured.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD
mark=$(mktemp); sleep 1
time timeout 540 python3 tools/against_hecbench.py --source .baselines --force
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
