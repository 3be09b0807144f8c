#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The fast kernel on one GPU, in one call: bit-identity of casptr, fast and every ablation
# build against the CPU oracle (tests/test_cuda.py, samples + generated data), the side-by-side
# benchmark, and Nsight Compute counters. Results go under data/results/<machine>/ and are packed
# into $OUT/results.tgz after every step (a step cut off by the time limit keeps the rest).
#
# Usage (on the GPU node, repository root, wheelhouse/ carried as for tools/h100_campaign.sh):
#   STEPS="gen test bench" bash tools/fast_ablation.sh
#   STEPS="gen ncu" NCU="gen-k21:fast sample-k77:fast-tables" bash tools/fast_ablation.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-"gen test bench ncu"}
# casptr, then fast and its ablation builds (lassm/backends/nvrtc.py VARIANTS, less the builds that
# add a change, nvrtc.ADDED, which tools/fast_explore.py times beside fast).
PROTOCOLS=${PROTOCOLS:-$(python3 -c "from lassm.backends import nvrtc; print(','.join(['casptr', *(v for v in nvrtc.VARIANTS if v not in nvrtc.ADDED)]))")}
BENCH=${BENCH:-"sample-k77x20,gen-k21,gen-k33,gen-k55,gen-k77,sample-k77"}
# dataset:protocol pairs to profile.
NCU=${NCU:-"gen-k21:fast sample-k77:fast"}
TESTS=${TESTS:-""}
source "$(dirname "${BASH_SOURCE[0]}")/gpu_node.sh"
for step in $STEPS; do
  case $step in
    gen)
      gen_datasets ;;
    test)
      log "pytest tests/test_cuda.py ${TESTS:+-k '$TESTS'} (samples + /tmp/gen)"
      LASSM_GPU_DATASETS=/tmp/gen python3 -m pytest -q -p no:cacheprovider -rs ${TESTS:+-k "$TESTS"} tests/test_cuda.py 2>&1 \
        | tee "$OUT/test_cuda.log" | tail -5 ;;
    bench)
      log "bench $PROTOCOLS on $BENCH"
      $L bench --backend cuda --datasets "$BENCH" --protocols "$PROTOCOLS" --repeat 5 2>&1 | grep -v "^\s*$" \
        | tee "$OUT/bench.log" ;;
    ncu)
      for pair in $NCU; do
        ds=${pair%%:*}; proto=${pair#*:}
        read -r f k <<<"$(dsfile "$ds")"
        log "ncu $ds k=$k $proto"
        $L counters collect "$f" --k "$k" --protocol "$proto" --dataset "$ds" --timeout 240 \
           --out "data/results/$MACHINE/counters/ncu__${ds}__k${k}__cuda__${proto}.csv" 2>&1 | tail -2
        pack
      done ;;
  esac
  pack
done
log done
