#!/usr/bin/env bash
# Call C (issue 29), right after B on the same H100: `lassm xdrop align` beside LOGAN's demo on
# LOGAN's size, the 100k set, at seven X; then every X-drop layout under Nsight Compute on the
# 20k set at X = 10 and 100 (xdrop/counters.csv, programs 'lassm cuda lanes=N').
# Usage: bash logan-100k-and-lanes-counters.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD PYTHONUNBUFFERED=1
mark=$(mktemp); sleep 1
time timeout 420 python3 tools/against_logan.py --source .baselines/LOGAN --machine nvidia-h100-80gb-hbm3 \
  --dataset xdrop-sim-100k --xdrops 10,20,50,100,500,1000,5000
time timeout 150 python3 tools/xdrop_lanes.py --machine nvidia-h100-80gb-hbm3 --dataset xdrop-sim-20k \
  --xdrops 10,100 --counters-xdrops 10,100
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
