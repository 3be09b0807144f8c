#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The fast kernel's slice on one lent GPU, in one call: bit-identity of `fast` against the CPU
# oracle (tests/test_cuda.py, samples + generated data), the side-by-side benchmark of casptr and
# fast, and Nsight Compute counters for fast. Results go under data/results/<machine>/ and are
# packed into $OUT/results.tgz after every step (a step cut off by the time limit keeps the rest).
# The ablation proper (each of fast's changes alone) needs per-change knobs in the kernel; until
# they exist, PROTOCOLS picks what is compared (book/fast-kernel.md).
#
# Usage (on the GPU node, repository root, wheelhouse/ carried as for tools/h100_campaign.sh):
#   STEPS="gen test bench ncu" bash tools/fast_ablation.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-"gen test bench ncu"}
PROTOCOLS=${PROTOCOLS:-"casptr,fast"}
BENCH=${BENCH:-"sample-k77x20,gen-k21,gen-k33,gen-k55,gen-k77"}
NCU=${NCU:-"gen-k21 sample-k77"}
TESTS=${TESTS:-"fast"}
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --find-links wheelhouse numba llvmlite pytest 2>&1 | tail -2
export PYTHONPATH=$PWD LASSM_GIT_SHA=${LASSM_GIT_SHA:-unknown}
L="python3 -m lassm.cli"
MACHINE=$(python3 -c "from lassm import runs; from lassm.backends import cuda; print(runs.slug(cuda.device_name()))")
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/nvidia-smi.txt"
log() { echo "== $(date +%T) $*"; }
pack() { find data/results -name '*.extended.txt' -delete; tar czf "$OUT/results.tgz" data/results; }
dsfile() { case $1 in sample-k77) echo "data/metahipmer-sample/localassm_extend_9-77.dat 77";;
                      gen-k*) k=${1#gen-k}; echo "/tmp/gen/$1.dat $k";; esac; }
for step in $STEPS; do
  case $step in
    gen)
      log "generating datasets"; mkdir -p /tmp/gen
      python3 - <<'PY'
from lassm.generate import generate
from lassm.formats import write_dat
for k in (21, 33, 55, 77):
    write_dat(generate(k=k, scale=1.0, seed=0), f"/tmp/gen/gen-k{k}.dat")
PY
      ;;
    test)
      log "pytest tests/test_cuda.py -k '$TESTS' (samples + /tmp/gen)"
      LASSM_GPU_DATASETS=/tmp/gen python3 -m pytest -q -p no:cacheprovider -rs -k "$TESTS" tests/test_cuda.py 2>&1 \
        | tee "$OUT/test_cuda.log" | tail -5 ;;
    bench)
      log "bench $PROTOCOLS on $BENCH"
      $L bench --backend cuda --datasets "$BENCH" --protocols "$PROTOCOLS" --repeat 5 2>&1 | grep -v "^\s*$" \
        | tee "$OUT/bench.log" ;;
    ncu)
      for ds in $NCU; do
        read -r f k <<<"$(dsfile "$ds")"
        log "ncu $ds k=$k fast"
        $L counters collect "$f" --k "$k" --protocol fast --dataset "$ds" --timeout 240 \
           --out "data/results/$MACHINE/counters/ncu__${ds}__k${k}__cuda__fast.csv" 2>&1 | tail -2
        pack
      done ;;
  esac
  pack
done
log done
