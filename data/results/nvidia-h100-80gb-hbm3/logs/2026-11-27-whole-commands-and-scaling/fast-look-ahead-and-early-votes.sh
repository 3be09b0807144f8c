#!/usr/bin/env bash
# Call H (issue 29 item 3), on the H100: fast's added builds (change 11, the walk's look-ahead
# finds, 1 and 2 steps ahead: fast-spec, fast-spec2; change 12, the insert's early votes:
# fast-earlyvotes) checked against the oracle (tests/test_cuda.py's variant tests) and timed
# beside fast as `lassm extend` builds them (tools/fast_explore.py --caps built), with the ratio
# to ht_loc's kernel time. Usage: bash fast-look-ahead-and-early-votes.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD PYTHONUNBUFFERED=1
time timeout 150 python3 -m pytest -q -x -p no:cacheprovider tests/test_fast_ahead.py tests/test_cuda.py -k "spec or earlyvotes or ahead" 2>&1 | tail -5
time timeout 330 python3 tools/fast_explore.py gen-k21x20 gen-k21 gen-k33 gen-k77 sample-k77x20 --caps built \
  --protocols fast,fast-spec,fast-spec2,fast-earlyvotes --repeat 5 \
  --ht-loc data/results/nvidia-h100-80gb-hbm3/against-original.csv 2>&1 | tail -40
