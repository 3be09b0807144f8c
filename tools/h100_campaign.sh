#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The GPU campaign of one GPU machine, in one call: correctness on every dataset and protocol,
# the sweep's run records, the benchmark (protocols vs the CPU backend, same machine, one run),
# a 20x Table II scale run through slicing, Nsight Compute counters and the machine ceilings.
# Results go under data/results/<machine>/ and are packed into $OUT/results.tgz.
#
# Usage (on the GPU node, repository root, `make wheelhouse PY=3.12 WHEELS=core` plus pytest
# carried in wheelhouse/):
#   STEPS="gen test run bench scale ncu ceilings" DATASETS=sample-k77,gen-k21 bash tools/h100_campaign.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-"gen test run bench scale ncu ceilings"}
DATASETS=${DATASETS:-"sample-k77,gen-k21,gen-k33,gen-k55,gen-k77"}
PROTOCOLS=${PROTOCOLS:-"casptr,matchany,doneflag,barrier"}
BENCH=${BENCH:-"sample-k77x20,$DATASETS"}
source "$(dirname "${BASH_SOURCE[0]}")/gpu_node.sh"
python3 -c "import numba, numpy, pyarrow, pandas, rich, cupy; print('numba', numba.__version__, 'numpy', numpy.__version__, 'pyarrow', pyarrow.__version__, 'pandas', pandas.__version__, 'cupy', cupy.__version__)"
for step in $STEPS; do
  case $step in
    gen)
      gen_datasets ;;
    test)
      log "pytest tests/test_cuda.py (samples + /tmp/gen)"
      LASSM_GPU_DATASETS=/tmp/gen python3 -m pytest -q -p no:cacheprovider -rs tests/test_cuda.py 2>&1 | tee "$OUT/test_cuda.log" | tail -5 ;;
    run)
      log "sweep"; $L run --backends cuda,cpu --datasets $DATASETS --protocols $PROTOCOLS --quiet 2>&1 | tail -40 ;;
    bench)
      log "bench"; $L bench --backend cuda --datasets $BENCH --protocols $PROTOCOLS --repeat 5 2>&1 | grep -v "^\s*$" ;;
    scale)
      log "20x Table II (k=21) through slicing"
      $L bench --backend cuda --datasets gen-k21x20 --protocols casptr --repeat 3 --max-bytes 2000000000 2>&1 | tail -3 ;;
    ncu)
      log "Nsight Compute counters"
      for ds in ${DATASETS//,/ }; do
        read -r f k <<<"$(dsfile $ds)"
        for p in ${PROTOCOLS//,/ }; do
          $L counters collect "$f" --k "$k" --protocol "$p" --dataset "$ds" --timeout 240 \
             --out "data/results/$MACHINE/counters/ncu__${ds}__k${k}__cuda__${p}.csv" 2>&1 | tail -2
        done
      done ;;
    ceilings)
      log "ceilings"
      python3 - <<'PY'
import json, os
from lassm.analysis import machine
from lassm.runs import records
from lassm.backends import cuda
name = records.slug(cuda.device_name())
res = machine.measure()
res.update(device=cuda.device_name(), git_sha=records.git_sha(), versions=records.versions(),
           command="STEPS=ceilings bash tools/h100_campaign.sh")
d = os.path.join("data/results", name); os.makedirs(d, exist_ok=True)
with open(os.path.join(d, "ceilings.json"), "w") as fh:
    json.dump(res, fh, indent=2, default=str)
print(json.dumps(res, default=str)[:800])
PY
      ;;
  esac
done
pack
log done
