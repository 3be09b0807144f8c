#!/usr/bin/env bash
# Call A (issue 29 item 3), on the H100: change 14, lane walks (fast-lanes8, fast-lanes32: 8 or 32
# contig ends to a warp whose lanes walk them at once), checked against the oracle (the GPU tests of
# the variants) and timed beside fast as lassm extend builds them (and uncapped), with 8, 16 and 32
# ends to a warp, on six datasets.
# Usage: bash fast-lane-walks.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
time timeout 200 python3 -m pytest -q -x -p no:cacheprovider tests/test_cuda.py -k "lanes" 2>&1 | tail -4
time timeout 380 python3 tools/fast_explore.py gen-k21x20 gen-k21 real-mock5-k21 gen-k33 gen-k77 sample-k77x20 \
  --caps built,0 --protocols fast,fast-lanes32 --lane-walks 8,16,32 --repeat 5 \
  --ht-loc data/results/nvidia-h100-80gb-hbm3/against-original.csv 2>&1 | tail -16
