#!/usr/bin/env bash
# Call F (issue 29): the 100k X-drop set beside LOGAN's demo at X = 1000 and 5000 on the H100
# (call D's limit ended them; call E ran on H200s). Usage: bash logan-100k-large-x.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD PYTHONUNBUFFERED=1
mark=$(mktemp); sleep 1
time timeout 260 python3 tools/against_logan.py --source .baselines/LOGAN --machine nvidia-h100-80gb-hbm3 \
  --dataset xdrop-sim-100k --xdrops 1000,5000
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
