#!/usr/bin/env bash
# Call A (issue 29): the X-drop lanes kernel (several directions per warp) against the oracle in
# every layout, then the layouts' ablation on the 20k set at eight X values (xdrop/lanes.csv), then
# where a whole `lassm extend --protocol fast` spends its start-up (profile_extend.py's step
# timeline and the driver alone through ctypes). Usage: bash xdrop-lanes-ablation.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD
mark=$(mktemp); sleep 1
timeout 240 python3 -m pytest -q -p no:cacheprovider tests/test_xdrop_gpu.py tests/test_xdrop_lanes.py 2>&1 | tail -6
time timeout 300 python3 tools/xdrop_lanes.py --machine nvidia-h100-80gb-hbm3 --dataset xdrop-sim-20k \
  --xdrops 10,20,50,100,200,500,1000,5000 --repeats 3
time timeout 120 python3 tools/profile_extend.py --datasets gen-k33,gen-k21 --repeats 3 --top 30
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
