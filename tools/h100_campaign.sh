#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The GPU campaign of one lent machine, in one call: correctness on every dataset and protocol,
# the sweep's run records, the benchmark (protocols vs the CPU backend, same machine, one run),
# a 20x Table II scale run through slicing, and the machine ceilings. Results go under
# data/results/<machine>/ and are packed into $OUT/results.tgz.
#
# Usage (on the GPU node, repository root, wheelhouse carried):
#   STEPS="test run bench scale ceilings" bash tools/h100_campaign.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-"test run bench scale ceilings"}
export PYTHONUNBUFFERED=1
# Offline install of what the GPU node's python lacks (see `make wheelhouse`).
SITE=/tmp/site; mkdir -p $SITE
if [ -f wheelhouse/llvmlite.tar.xz ]; then tar -xJf wheelhouse/llvmlite.tar.xz -C $SITE; fi
python3 -m pip install -q --no-index --no-deps --no-compile --target $SITE wheelhouse/*.whl 2>&1 | tail -2
export PYTHONPATH=$SITE:$PWD
L="python3 -m lassm.cli"
DATASETS="sample-k77,gen-k21,gen-k33,gen-k55,gen-k77"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/nvidia-smi.txt"
log() { echo "== $(date +%T) $*"; }
for step in $STEPS; do
  case $step in
    test)
      log "generating datasets"
      mkdir -p /tmp/gen
      python3 - <<'PY'
from lassm.generate import generate
from lassm.formats import write_dat
for k in (21, 33, 55, 77):
    write_dat(generate(k=k, scale=1.0, seed=0), f"/tmp/gen/gen-k{k}.dat")
PY
      log "pytest tests/test_cuda.py on sample + generated"
      LASSM_GPU_DATASETS=/tmp/gen python3 -m pytest -q -p no:cacheprovider -rs tests/test_cuda.py 2>&1 | tee "$OUT/test_cuda.log" | tail -5 ;;
    run)
      log "sweep"; $L run --backends cuda,cpu --datasets $DATASETS --quiet 2>&1 | tail -30 ;;
    bench)
      log "bench"; $L bench --backend cuda --datasets sample-k77x20,$DATASETS --repeat 5 2>&1 | grep -v "^\s*$" ;;
    scale)
      log "20x Table II (k=21) through slicing"
      $L bench --backend cuda --datasets gen-k21x20 --protocols casptr --repeat 3 --max-bytes 2000000000 2>&1 | tail -3 ;;
    ceilings)
      log "ceilings"
      python3 - <<'PY'
import json, os
from lassm import machine, runs
from lassm.backends import cuda
name = runs.slug(cuda.device_name())
res = machine.measure()
res.update(git_sha=runs.git_sha(), versions=runs.versions(), command="tools/h100_campaign.sh ceilings")
d = os.path.join("data/results", name); os.makedirs(d, exist_ok=True)
with open(os.path.join(d, "ceilings.json"), "w") as fh:
    json.dump(res, fh, indent=2, default=str)
print(json.dumps(res, default=str)[:600])
PY
      ;;
  esac
done
tar czf "$OUT/results.tgz" data/results
log done
