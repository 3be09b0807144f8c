#!/bin/bash
# Change 15 (the sorted table) first measured on the H200: its CUDA tests, its kernel time beside
# fast's at four region sizes (tools/fast_explore.py, the build lassm extend runs), and Nsight
# Compute's DRAM bytes and time of fast and fast-sorted on gen-k21x20. Run from the repository root.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
git_sha=${LASSM_GIT_SHA:-unknown}; echo "git $git_sha"
echo "== tests"
timeout 240 python3 -m pytest -q -x tests/test_cuda.py -k "sorted" 2>&1 | tail -3
echo "== explore"
timeout 330 python3 tools/fast_explore.py gen-k21x20 gen-k21 gen-k33 gen-k55 gen-k77 sample-k77x20 real-mock5-k21 \
  --caps built --protocols fast,fast-sorted --sort-bytes 4096,6144,8192,12288 --repeat 3 \
  --ht-loc data/results/nvidia-h200/against-original.csv 2>&1 | grep -v Warning
echo "== ncu"
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
for p in fast fast-sorted; do
  timeout 100 $NCU --kernel-name iterative_walks_kernel --metrics dram__bytes.sum,gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active \
    python3 -c "
import hashlib
from lassm import Params, extend
from lassm.workloads.local_assembly import datasets
ds, k = datasets.load('gen-k21x20')
ext = extend(ds, Params(k=k), backend='cuda', protocol='$p')
print('$p lines sha256', hashlib.sha256(''.join(ext.lines()).encode()).hexdigest()[:16])
" 2>&1 | grep -E "lines sha|iterative|dram__|gpu__time|registers|warps_active" | head -12
done
