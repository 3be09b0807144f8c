#!/usr/bin/env bash
# Call L (issue 29 item 3), on the H100: change 13, keys that hold a k-mer of at most 23 bases
# itself (fast-packed), checked against the oracle (the GPU tests of the variant) and timed beside
# fast as lassm extend builds them, with early votes (change 12) again, on six datasets.
# Usage: bash fast-packed-keys.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD PYTHONUNBUFFERED=1
time timeout 150 python3 -m pytest -q -x -p no:cacheprovider tests/test_cuda.py -k "packed" 2>&1 | tail -4
time timeout 330 python3 tools/fast_explore.py gen-k21x20 gen-k21 real-mock5-k21 gen-k33 gen-k77 sample-k77x20 --caps built \
  --protocols fast,fast-packed,fast-earlyvotes --repeat 5 \
  --ht-loc data/results/nvidia-h100-80gb-hbm3/against-original.csv 2>&1 | tail -12
