#!/usr/bin/env bash
# Call I (issue 29): after the whole-command work (lazy imports, the bulk TSV reader, memory-mapped
# parquet, the backend warmed while reading), the GPU tests of the changed paths, then the two
# side-by-side tools again: `lassm extend` beside ht_loc on the six datasets of call B (whole
# times, 3 runs each, and kernel times under ncu), and `lassm xdrop align` beside LOGAN's demo on
# the 20k set at X = 10, 100 and 1000. Usage: bash side-by-side-after-whole-command-work.sh <git sha>
set -uo pipefail
export LASSM_GIT_SHA=$1 PYTHONPATH=$PWD
mark=$(mktemp); sleep 1
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_xdrop_gpu.py tests/test_cuda.py tests/test_prepare.py \
  tests/test_startup.py 2>&1 | tail -4
time timeout 200 python3 tools/against_original.py --source .baselines/gpu_local_ht --machine nvidia-h100-80gb-hbm3 \
  --datasets sample-k77,gen-k21,gen-k33,gen-k55,gen-k77,sample-k77x20 --repeats 3
time timeout 200 python3 tools/against_logan.py --source .baselines/LOGAN --machine nvidia-h100-80gb-hbm3 \
  --dataset xdrop-sim-20k --xdrops 10,100,1000
find data/results -newer "$mark" -type f | sort > "$OUT/written.txt"
tar czf "$OUT/results.tgz" -T "$OUT/written.txt"
