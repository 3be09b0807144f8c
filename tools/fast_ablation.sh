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
source "$(dirname "${BASH_SOURCE[0]}")/gpu_node.sh"
for step in $STEPS; do
  case $step in
    gen)
      gen_datasets ;;
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
