#!/bin/bash
# fast with its sorted build at k <= 29 (change 15) against MetaHipMer's ht_loc, as
# tools/against_original.py records it (same GPU, same call, kernel times from Nsight Compute), on
# its default inputs and gen-k21x20; then Nsight Compute's DRAM bytes of fast on gen-k21x20.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "git ${LASSM_GIT_SHA:-unknown}"
echo "== tests"
timeout 150 python3 -m pytest -q tests/test_cuda.py -k "sorted" -x 2>&1 | tail -2
echo "== against the original"
timeout 330 python3 tools/against_original.py --source .originals/gpu_local_ht --machine nvidia-h200 \
  --datasets sample-k77x20,gen-k21,gen-k33,gen-k55,gen-k77,gen-k21x20 --force 2>&1 | grep -v Warning
echo "== DRAM bytes, gen-k21x20"
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
for p in fast; do
  timeout 60 $NCU --kernel-name iterative_walks_kernel --metrics dram__bytes.sum,gpu__time_duration.sum,launch__registers_per_thread \
    python3 -c "
from lassm import Params, extend
from lassm.workloads.local_assembly import datasets
ds, k = datasets.load('gen-k21x20')
ext = extend(ds, Params(k=k), backend='cuda', protocol='$p')
print('$p build', ext.right.extra.get('build'))
" 2>&1 | grep -E " build |dram__|gpu__time|registers" | head -6
done
