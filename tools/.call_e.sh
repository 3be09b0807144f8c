#!/bin/bash
# Call E: CUDA tests at this tree, then fast's warp-team width explored (issue 20).
set -u
export PYTHONPATH=$PWD LASSM_GIT_SHA=$1
S=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/nvidia-smi.txt
timeout 170 python3 -m pytest -q -rs -p no:cacheprovider tests/test_device_segments.py tests/test_cuda.py -x > $OUT/tests.log 2>&1; tail -1 $OUT/tests.log
echo "== explore $(( $(date +%s) - S ))"
timeout 360 python3 tools/fast_explore.py sample-k77 gen-k21 gen-k77 sample-k77x20 gen-k21x20 --protocols fast --caps 0 \
  --team-lanes 0,16,8,4 --repeat 3 > $OUT/explore.log 2>&1
echo "rc $?"; cat $OUT/explore.log | tail -12
echo "== done $(( $(date +%s) - S ))"
