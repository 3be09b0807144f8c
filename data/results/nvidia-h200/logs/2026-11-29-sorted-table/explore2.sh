#!/bin/bash
# Change 15 with the records of ends too large for shared memory in their own table memory: its
# CUDA tests, its kernel time beside fast's by region size and block-team threshold
# (tools/fast_explore.py), and where its kernel stalls on gen-k21x20 (tools/fast_source_profile.py).
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "git ${LASSM_GIT_SHA:-unknown}"
echo "== tests"
timeout 200 python3 -m pytest -q -x tests/test_cuda.py -k "sorted" 2>&1 | tail -2
echo "== explore"
timeout 240 python3 tools/fast_explore.py gen-k21x20 gen-k21 real-mock5-k21 \
  --caps built --protocols fast,fast-sorted --sort-bytes 2048,4096,8192 --team-bases 1536,640 --repeat 3 \
  --ht-loc data/results/nvidia-h200/against-original.csv 2>&1 | grep -v Warning
echo "== source profile"
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
timeout 120 python3 tools/fast_source_profile.py gen-k21x20 --protocol fast-sorted --ncu $NCU --top 30 --pages $OUT/pages 2>&1 | tail -60
gzip -9 $OUT/pages/*.csv
